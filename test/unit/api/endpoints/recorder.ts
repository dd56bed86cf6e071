/**
 * A loopback server for the endpoint groups' tests (test/unit/api/endpoints/*.test.ts): it records
 * every request as the server saw it (method, raw target, headers, body) and answers from a
 * handler the test sets, so a test checks how a request was built and how an answer the emulator
 * never gives (a malformed body, a missing member, an oversize page) is decoded. Also the suites'
 * set-up: emulatorSuite, workspaceSuite and recorderSuite start what a suite uses and close it after.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { CloudAgentsClient } from '../../../../src/api/client';
import type { RetryOptions } from '../../../../src/api/retry';
import { nodeConnect } from '../../../../src/platform/node/network';
import type { ProfileName } from '../../../../emulator/src/profile';
import { DEV_TOKEN, type TestEmulator, startTestEmulator, startWorkspaceEmulator } from '../../support/emulator';
import { type Served, serve } from '../../support/serve';

/** One request as the server received it. */
export interface Recorded {
	method: string;
	/** The raw request target: path and query, as sent (percent-encoding kept). */
	url: string;
	/** The path only (encoding kept). */
	path: string;
	/** The query, decoded. */
	query: URLSearchParams;
	headers: IncomingHttpHeaders;
	/** The body parsed as JSON, or undefined when empty. */
	body: unknown;
}

/** What the server answers (the handler may take its time): status, a body (JSON-encoded unless a string) and headers. */
export interface Answer {
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Drop the connection instead of answering (the request was received: its outcome is unknown). */
	destroy?: boolean;
}

export interface Recorder {
	readonly baseUrl: string;
	/** Every request so far, in arrival order. */
	readonly requests: Recorded[];
	/** Sets what the server answers (per request; the default is 200 `{}`). */
	answer(handler: (req: Recorded, index: number) => Answer | Promise<Answer>): void;
	/** Forgets the requests and restores the default answer. */
	reset(): void;
	/** A client of this server with the dev token and no retries (unless `retry` says otherwise). */
	client(retry?: { maxAttempts?: number; minDelayMs?: number; baseDelayMs?: number; maxDelayMs?: number }): CloudAgentsClient;
	close(): Promise<void>;
}

/** Starts the recorder; close it (and its clients) in teardown. */
export async function startRecorder(): Promise<Recorder> {
	const requests: Recorded[] = [];
	const clients: CloudAgentsClient[] = [];
	const fallback = (): Answer => ({ status: 200, body: {} });
	let handler: (req: Recorded, index: number) => Answer | Promise<Answer> = fallback;
	const served: Served = await serve((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', async () => {
			const text = Buffer.concat(chunks).toString('utf8');
			const url = req.url ?? '';
			const q = url.indexOf('?');
			const rec: Recorded = {
				method: req.method ?? '',
				url,
				path: q < 0 ? url : url.slice(0, q),
				query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
				headers: req.headers,
				body: text === '' ? undefined : (JSON.parse(text) as unknown),
			};
			requests.push(rec);
			let a: Answer;
			try {
				a = await handler(rec, requests.length - 1);
			} catch (err) {
				a = { status: 500, body: { error: { code: 'internal', message: String(err) } } };
			}
			if (a.destroy) {
				req.socket.destroy();
				return;
			}
			const status = a.status ?? 200;
			const payload = a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
			res.writeHead(status, {
				'content-type': 'application/json',
				'x-request-id': `req-${requests.length}`,
				...a.headers,
			});
			res.end(status === 204 || req.method === 'HEAD' ? undefined : payload);
		});
	});
	return {
		baseUrl: served.baseUrl,
		requests,
		answer(h) {
			handler = h;
		},
		reset() {
			requests.length = 0;
			handler = fallback;
		},
		client(retry = { maxAttempts: 1 }) {
			const c = new CloudAgentsClient({ connect: nodeConnect, baseUrl: served.baseUrl, getToken: () => DEV_TOKEN, retry });
			clients.push(c);
			return c;
		},
		async close() {
			for (const c of clients) {
				c.close();
			}
			await served.close();
		},
	};
}

/** A client of `baseUrl` (the emulator's) with `token` (the dev token by default) and no retries (unless `retry` says otherwise). */
export function clientOf(baseUrl: string, token: string = DEV_TOKEN, retry: RetryOptions = { maxAttempts: 1 }): CloudAgentsClient {
	return new CloudAgentsClient({ connect: nodeConnect, baseUrl, getToken: () => token, retry });
}

/** Registers a suite's set-up: `start` opens what its tests use, `use` takes it; what `start` opened is closed after the suite. */
function suiteOf<T>(start: () => Promise<T>, closing: (t: T) => Array<{ close(): unknown }>, use: (t: T) => unknown): void {
	let opened: T | undefined;
	suiteSetup(async () => {
		opened = await start();
		await use(opened);
	});
	suiteTeardown(async () => {
		for (const c of opened === undefined ? [] : closing(opened)) {
			await c.close();
		}
	});
}

/**
 * In a suite: the emulator (of `profile`, the standard one by default) and a client of it with the dev
 * token (no retries unless `retry` says otherwise) before its tests; `use` takes both (and may read
 * more to set up). Both are closed after the suite.
 */
export function emulatorSuite(
	use: (s: { emu: TestEmulator; client: CloudAgentsClient }) => unknown,
	opts: { profile?: ProfileName; retry?: RetryOptions } = {},
): void {
	suiteOf(
		async () => {
			const emu = await startTestEmulator({ profile: opts.profile });
			return { emu, client: clientOf(emu.url, DEV_TOKEN, opts.retry) };
		},
		({ emu, client }) => [client, emu],
		use,
	);
}

/** In a suite: startWorkspaceEmulator's emulator, client and billing agent before its tests (`use` takes them), closed after. */
export function workspaceSuite(use: (w: { emu: TestEmulator; client: CloudAgentsClient; agentId: string }) => unknown): void {
	suiteOf(
		() => startWorkspaceEmulator(),
		({ emu, client }) => [client, emu],
		use,
	);
}

/** In a suite: the recorder and a client of it before its tests (`use` takes both; the client is closed with the recorder), reset before each test, closed after. */
export function recorderSuite(use: (s: { rec: Recorder; client: CloudAgentsClient }) => unknown): void {
	let rec: Recorder | undefined;
	suiteOf(
		startRecorder,
		(r) => [r],
		(r) => use({ rec: (rec = r), client: r.client() }),
	);
	setup(() => rec?.reset());
}

/** A syntactically valid agent id (runtime UUID, separator, harness) for routes under /v2/agents. */
export const AGENT_ID = '0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e.main';

/** Runs `fn` and returns the error it rejects with (fails when it resolves). */
export async function rejection(fn: () => Promise<unknown>): Promise<Error> {
	try {
		await fn();
	} catch (err) {
		return err as Error;
	}
	throw new Error('expected a rejection');
}
