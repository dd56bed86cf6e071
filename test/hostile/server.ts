/**
 * A deliberately hostile (or broken) Cloud Agents server for tests: plain Node `http`, loopback
 * only, one scenario per case. A scenario is a table of routes; each route answers the way a
 * malicious or buggy server might (crafted ids, echoed tokens, endless pages, trickling bodies,
 * reconnect storms). Every request is recorded (without its Authorization header) so a test can
 * assert what the client sent, how often and how fast.
 *
 * Used by the unit tests (plain Node) and by the in-VS-Code suites (bundled into the test runner),
 * so it imports nothing but `node:*`.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the hostile server saw it (the token is never kept: only whether one was sent). */
export interface SeenRequest {
	method: string;
	/** The raw request target as sent (path and query, still percent-encoded). */
	rawUrl: string;
	/** The decoded path name. */
	path: string;
	query: URLSearchParams;
	/** Whether an Authorization header was present. */
	authorized: boolean;
	/** The bearer token, when one was sent (for echo scenarios; never logged). */
	token: string | undefined;
	body: Buffer;
	/** Milliseconds since the server started. */
	at: number;
}

/** What a route handler gets besides the request and response. */
export interface ScenarioContext {
	/** The server's base URL (`http://127.0.0.1:<port>`). */
	baseUrl: string;
	/** Every request seen so far, this one included. */
	requests: readonly SeenRequest[];
	/** How many requests matched this route so far, this one included. */
	hits: number;
	/** The request's JSON body, or undefined. */
	json(): unknown;
}

export type RouteHandler = (req: SeenRequest, res: ServerResponse, ctx: ScenarioContext) => void | Promise<void>;

/**
 * A scenario: routes keyed by `METHOD /path` where the path may contain `*` (one segment) or end in
 * `**` (any rest). The first matching key wins, in insertion order. Unmatched requests get a 404
 * envelope. `fallback` answers anything unmatched instead.
 */
export interface Scenario {
	/** What the scenario does, for test titles and logs. */
	description: string;
	routes: Record<string, RouteHandler>;
	fallback?: RouteHandler;
}

export interface HostileServer {
	baseUrl: string;
	/** Every request seen, in order. */
	readonly requests: SeenRequest[];
	/** Requests whose `METHOD path` matches the route key (same pattern syntax as scenarios). */
	requestsTo(routeKey: string): SeenRequest[];
	/** Replaces the scenario (the request log is kept). */
	use(scenario: Scenario): void;
	close(): Promise<void>;
}

function compile(key: string): { method: string; re: RegExp } {
	const space = key.indexOf(' ');
	const method = key.slice(0, space).toUpperCase();
	const path = key.slice(space + 1);
	const pattern = path
		.split('/')
		.map((seg) => (seg === '**' ? '.*' : seg === '*' ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
		.join('/');
	return { method, re: new RegExp(`^${pattern}$`) };
}

function matches(key: string, req: Pick<SeenRequest, 'method' | 'path'>): boolean {
	const { method, re } = compile(key);
	return (method === '*' || method === req.method) && re.test(req.path);
}

/** Starts a hostile server on 127.0.0.1 with a random port. */
export async function startHostile(initial: Scenario): Promise<HostileServer> {
	let scenario = initial;
	const requests: SeenRequest[] = [];
	const hitsByKey = new Map<string, number>();
	const sockets = new Set<Socket>();
	const started = Date.now();
	let baseUrl = '';

	const server: Server = createServer((incoming: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (c: Buffer) => chunks.push(c));
		incoming.on('end', () => {
			const url = new URL(incoming.url ?? '/', 'http://hostile.invalid');
			const auth = incoming.headers.authorization;
			const seen: SeenRequest = {
				method: (incoming.method ?? 'GET').toUpperCase(),
				rawUrl: incoming.url ?? '/',
				path: url.pathname,
				query: url.searchParams,
				authorized: auth !== undefined,
				token: auth?.startsWith('Bearer ') ? auth.slice(7) : undefined,
				body: Buffer.concat(chunks),
				at: Date.now() - started,
			};
			requests.push(seen);
			const key = Object.keys(scenario.routes).find((k) => matches(k, seen));
			const handler = key !== undefined ? scenario.routes[key] : scenario.fallback;
			const routeKey = key ?? '<fallback>';
			const hits = (hitsByKey.get(routeKey) ?? 0) + 1;
			hitsByKey.set(routeKey, hits);
			const ctx: ScenarioContext = {
				baseUrl,
				requests,
				hits,
				json: () => {
					try {
						return seen.body.length ? (JSON.parse(seen.body.toString('utf8')) as unknown) : undefined;
					} catch {
						return undefined;
					}
				},
			};
			if (!handler) {
				json(res, 404, {
					error: { code: 'not_found', message: `hostile server: no route for ${seen.method} ${seen.path}` },
					request_id: '0192f1a0-0000-7000-8000-000000000404',
				});
				return;
			}
			Promise.resolve(handler(seen, res, ctx)).catch((err: unknown) => {
				if (!res.headersSent) {
					json(res, 500, { error: { code: 'internal', message: String(err) } });
				} else {
					res.destroy();
				}
			});
		});
	});
	server.on('connection', (s: Socket) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	server.keepAliveTimeout = 5_000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		baseUrl,
		requests,
		requestsTo: (routeKey) => requests.filter((r) => matches(routeKey, r)),
		use: (next) => {
			scenario = next;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const s of sockets) {
					s.destroy();
				}
				server.close(() => resolve());
			}),
	};
}

// ---------------------------------------------------------------- response helpers

/** A plausible UUID v7 request id. */
export const REQUEST_ID = '0192f1a0-1234-7abc-8def-0123456789ab';

/** Sends a JSON answer (with an X-Request-Id unless the headers name one). */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | number | string[]> = {}): void {
	const text = body === undefined ? '' : JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'x-request-id': REQUEST_ID,
		...headers,
		'content-length': Buffer.byteLength(text),
	});
	res.end(text);
}

/** The service's error envelope. */
export function errorEnvelope(
	res: ServerResponse,
	status: number,
	code: string,
	message: string,
	requestId: string = REQUEST_ID,
	headers: Record<string, string | number> = {},
): void {
	json(res, status, { error: { code, message }, request_id: requestId }, { 'x-request-id': requestId, ...headers });
}

/** Sends `text` one slice at a time, `bytesPerTick` every `intervalMs`, until done or the client goes away. */
export function trickle(
	res: ServerResponse,
	status: number,
	contentType: string,
	text: string,
	intervalMs: number,
	bytesPerTick = 1,
): void {
	res.writeHead(status, { 'content-type': contentType, 'x-request-id': REQUEST_ID });
	let offset = 0;
	const timer = setInterval(() => {
		if (res.destroyed || offset >= text.length) {
			clearInterval(timer);
			res.end();
			return;
		}
		res.write(text.slice(offset, offset + bytesPerTick));
		offset += bytesPerTick;
	}, intervalMs);
	res.on('close', () => clearInterval(timer));
}

/** Starts an event stream; returns a writer of raw frames. */
export function sseStart(res: ServerResponse, headers: Record<string, string> = {}): (frame: string) => void {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': REQUEST_ID, ...headers });
	res.flushHeaders();
	return (frame: string) => {
		if (!res.destroyed) {
			res.write(frame);
		}
	};
}

/** One SSE frame for an event record `{seq, type, data}` with `id: seq`. */
export function sseFrame(seq: number | string, type: string, data: unknown, id: string = String(seq)): string {
	return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ seq, type, data })}\n\n`;
}

/** Requests per second over a window: the highest count of requests in any `windowMs` span. */
export function peakRate(requests: readonly SeenRequest[], windowMs = 1000): number {
	let peak = 0;
	let start = 0;
	for (let end = 0; end < requests.length; end++) {
		while ((requests[end] as SeenRequest).at - (requests[start] as SeenRequest).at >= windowMs) {
			start++;
		}
		peak = Math.max(peak, end - start + 1);
	}
	return peak;
}
