/**
 * A real forward proxy for tests: the `proxy` package (TooTallNate's proxy-agents, MIT) on a
 * loopback port, with Basic authentication. It forwards plain-HTTP requests (absolute-form URLs)
 * and tunnels CONNECT; without valid credentials it answers 407 with
 * `Proxy-Authenticate: Basic realm="proxy"`. `log` records every request and CONNECT it saw, so a
 * test can assert that traffic went through it (and that a bypassed host did not).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ProxyLogEntry {
	/** `GET`, `POST`, …, or `CONNECT`. */
	method: string;
	/** The absolute URL of a forwarded request, or `host:port` of a CONNECT. */
	target: string;
	/** Whether the credentials were right (always true for a proxy without credentials). */
	authorized: boolean;
}

export interface TestProxy {
	/** `http://127.0.0.1:PORT` (no credentials). */
	url: string;
	/** `http://user:password@127.0.0.1:PORT` (percent-encoded), or `url` without credentials. */
	urlWithCredentials: string;
	port: number;
	log: ProxyLogEntry[];
	/**
	 * Everything the proxy read in clear text, one string per request or CONNECT: the request line and
	 * every header (Proxy-Authorization included). What a tunnel carries is encrypted and not in it.
	 */
	raw: string[];
	/** Cuts every connection (open tunnels among them), so the next request of a client opens (and logs) a new one. */
	dropConnections(): void;
	close(): Promise<void>;
}

function sameText(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `header` is `Basic base64(user:password)`. */
export function basicMatches(header: string | undefined, user: string, password: string): boolean {
	const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
	if (!m?.[1]) return false;
	return sameText(Buffer.from(m[1], 'base64').toString('utf8'), `${user}:${password}`);
}

/** Starts the proxy on a free loopback port; with `user` and `password` it needs Basic credentials. */
export async function startProxy(opts: { user?: string; password?: string } = {}): Promise<TestProxy> {
	// `proxy` is an ES module; this file compiles to CommonJS.
	const { createProxy } = await import('proxy');
	const server = createProxy(createServer());
	const log: ProxyLogEntry[] = [];
	const raw: string[] = [];
	const { user, password } = opts;
	server.authenticate = (req: IncomingMessage) => {
		const headers = req.rawHeaders.map((h, i) => (i % 2 === 0 ? `${h}: ` : `${h}\n`)).join('');
		raw.push(`${req.method ?? ''} ${req.url ?? ''}\n${headers}`);
		const authorized = user === undefined || basicMatches(req.headers['proxy-authorization'], user, password ?? '');
		log.push({ method: req.method ?? '', target: req.url ?? '', authorized });
		return authorized;
	};
	const sockets = new Set<Socket>();
	server.on('connection', (s: Socket) => {
		sockets.add(s);
		s.once('close', () => sockets.delete(s));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const url = `http://127.0.0.1:${port}`;
	const urlWithCredentials =
		user === undefined ? url : `http://${encodeURIComponent(user)}:${encodeURIComponent(password ?? '')}@127.0.0.1:${port}`;
	return {
		url,
		urlWithCredentials,
		port,
		log,
		raw,
		dropConnections() {
			for (const s of sockets) s.destroy();
		},
		async close() {
			// CONNECT tunnels are no longer the HTTP server's connections: destroy every socket it accepted.
			for (const s of sockets) s.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
