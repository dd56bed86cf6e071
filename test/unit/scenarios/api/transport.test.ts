/** Transport behaviour against a loopback server: errors, retries, time-outs, redirects, streams. */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, CloudAgentsClient, NetworkError, ValidationError, isAbortError } from '../../../../src/api';
import { rejection, recordingLogger } from '../../support/leaks';
import { type Served, serve } from '../../support/serve';
import { WIRES } from '../../support/wires';

const TOKEN = 'ca_dev_0123456789abcdef';
const AGENT = '0190f1c2-0000-7000-8000-000000000001.main';
const RID = '0190f1c2-aaaa-7bbb-8ccc-000000000000';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

for (const wire of WIRES) {
	suite(`transport, over ${wire.name}`, () => {
		let served: Served;
		let handler: Handler;
		let hits = 0;
		const clients: CloudAgentsClient[] = [];

		function client(extra: Partial<ConstructorParameters<typeof CloudAgentsClient>[0]> = {}): CloudAgentsClient {
			const c = new CloudAgentsClient({
				connect: wire.connect,
				baseUrl: served.baseUrl,
				getToken: () => TOKEN,
				logger: recordingLogger,
				retry: { baseDelayMs: 5, maxDelayMs: 20, ...extra.retry },
				timeouts: { headersMs: 2000, ...extra.timeouts },
				...extra,
			});
			clients.push(c);
			return c;
		}

		suiteSetup(async () => {
			served = await serve((req, res) => {
				hits++;
				handler(req, res, hits);
			});
		});
		setup(() => {
			hits = 0;
		});
		suiteTeardown(async () => {
			clients.forEach((c) => c.close());
			await served.close();
		});

		test('turns an error envelope into ApiError with status, code, message and request id', async () => {
			handler = (_req, res) =>
				res
					.writeHead(404, { 'content-type': 'application/json', 'x-request-id': 'header-id' })
					.end(JSON.stringify({ error: { code: 'not_found', message: 'no such agent' }, request_id: RID }));
			const err = await rejection(client().getAgent(AGENT));
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 404);
			assert.equal(err.code, 'not_found');
			assert.equal(err.message, 'no such agent');
			assert.equal(err.requestId, RID);
		});

		test('handles non-JSON error bodies (HTML from a gateway) and takes the request id from X-Request-Id', async () => {
			handler = (_req, res) =>
				res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': RID }).end('<html><body>Bad gateway</body></html>');
			const err = await rejection(client().getAgent(AGENT));
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 502);
			assert.equal(err.code, 'http_502');
			assert.equal(err.requestId, RID);
			assert.equal(hits, 1, '502 is not retried');
		});

		test('does not follow redirects', async () => {
			handler = (_req, res) => res.writeHead(302, { location: 'https://elsewhere.example/steal' }).end();
			const err = await rejection(client().getMe());
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 302);
			assert.equal(err.code, 'redirect_not_followed');
			assert.equal(hits, 1);
		});

		test('retries a GET on 503 and succeeds', async () => {
			handler = (_req, res, n) =>
				n < 3 ? res.writeHead(503).end() : res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"u1"}');
			const me = await client().getMe();
			assert.equal(me.id, 'u1');
			assert.equal(hits, 3);
		});

		test('never retries a POST create on 503', async () => {
			handler = (_req, res) =>
				res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"unavailable","message":"down"}}');
			const err = await rejection(client().createAgent({ name: 'x' }));
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 503);
			assert.equal(hits, 1);
		});

		test('surfaces a Retry-After longer than the cap instead of waiting', async () => {
			handler = (_req, res) => res.writeHead(429, { 'retry-after': '120' }).end();
			const started = Date.now();
			const err = await rejection(client({ retry: { maxRetryAfterMs: 1000 } }).getMe());
			assert.ok(err instanceof ApiError);
			assert.equal(err.retryAfter, 120);
			assert.ok(Date.now() - started < 500);
			assert.equal(hits, 1);
		});

		test('times out waiting for headers and says so (idempotent calls retried within attempts)', async () => {
			handler = () => undefined; // never answers
			const err = await rejection(client({ timeouts: { headersMs: 150 }, retry: { maxAttempts: 2 } }).getMe());
			assert.ok(err instanceof NetworkError);
			assert.equal(err.code, 'timeout');
			assert.equal(hits, 2);
		});

		test('a network failure on an idempotent GET is retried', async () => {
			handler = (req, res, n) =>
				n === 1 ? req.socket.destroy() : res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"u2"}');
			assert.equal((await client().getMe()).id, 'u2');
			assert.equal(hits, 2);
		});

		test('cancels with an AbortSignal', async () => {
			handler = () => undefined;
			const controller = new AbortController();
			setTimeout(() => controller.abort(), 50);
			const err = await rejection(client().getMe({ signal: controller.signal }));
			assert.ok(isAbortError(err), String(err));
		});

		test('refuses http:// base URLs unless the host is loopback', () => {
			assert.throws(
				() => new CloudAgentsClient({ connect: wire.connect, baseUrl: 'http://api.example.com', getToken: () => TOKEN }),
				ValidationError,
			);
			assert.throws(
				() => new CloudAgentsClient({ connect: wire.connect, baseUrl: 'http://10.0.0.1:8080', getToken: () => TOKEN }),
				ValidationError,
			);
			assert.throws(
				() => new CloudAgentsClient({ connect: wire.connect, baseUrl: 'ftp://localhost', getToken: () => TOKEN }),
				ValidationError,
			);
			for (const ok of ['http://localhost:1', 'http://127.0.0.1:1', 'http://[::1]:1', 'https://api.example.com']) {
				new CloudAgentsClient({ connect: wire.connect, baseUrl: ok, getToken: () => TOKEN }).close();
			}
		});

		test('sends the token from the provider on every request, and none when it returns undefined', async () => {
			const seen: Array<string | undefined> = [];
			handler = (req, res) => {
				seen.push(req.headers.authorization);
				res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"u"}');
			};
			let token: string | undefined = 'ca_first_token_1';
			const c = client({ getToken: async () => token });
			await c.getMe();
			token = 'ca_second_token_2';
			await c.getMe();
			token = undefined;
			await c.getMe();
			await c.health();
			assert.deepEqual(seen, ['Bearer ca_first_token_1', 'Bearer ca_second_token_2', undefined, undefined]);
		});

		test('scrubs a token the server echoes into an error message', async () => {
			handler = (req, res) =>
				res
					.writeHead(401, { 'content-type': 'application/json' })
					.end(JSON.stringify({ error: { code: 'unauthenticated', message: `bad token ${String(req.headers.authorization)}` } }));
			const err = await rejection(client().getMe());
			assert.ok(err instanceof ApiError && err.isAuthFailure);
			assert.ok(!err.message.includes(TOKEN), err.message);
		});

		suite('run event stream', () => {
			const runPath = `/v2/agents/${encodeURIComponent(AGENT)}/runs/run_1/events`;
			function frames(from: number, to: number, complete: boolean): string {
				let out = '';
				for (let i = from; i <= to; i++) {
					const last = complete && i === to;
					const type = last ? 'run.completed' : 'log';
					out += `id: ${i}\nevent: ${type}\ndata: ${JSON.stringify({ seq: i, type, data: { text: `e${i}` } })}\n\n`;
				}
				return out;
			}

			test('reconnects after an idle time-out and resumes after the last id without duplicates', async () => {
				const afters: string[] = [];
				handler = (req, res, n) => {
					const after = new URL(req.url ?? '', 'http://x').searchParams.get('after') ?? '';
					afters.push(after);
					res.writeHead(200, { 'content-type': 'text/event-stream' });
					if (n === 1) {
						res.write(frames(0, 4, false)); // then silence
					} else {
						res.end(frames(3, 9, true)); // replays 3 and 4: must be dropped
					}
				};
				const c = client({ timeouts: { streamIdleMs: 200 }, stream: { reconnectBaseMs: 5 } });
				const seqs: number[] = [];
				for await (const ev of c.streamRunEvents(AGENT, 'run_1')) {
					seqs.push(ev.seq);
				}
				assert.deepEqual(seqs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
				assert.deepEqual(afters, ['-1', '4']);
			});

			test('reconnects after a 503 and stops on a 404', async () => {
				handler = (_req, res, n) => {
					if (n === 1) {
						res.writeHead(503).end();
					} else if (n === 2) {
						res.writeHead(200, { 'content-type': 'text/event-stream' }).end(frames(0, 2, true));
					}
				};
				const c = client({ stream: { reconnectBaseMs: 5 } });
				const seqs: number[] = [];
				for await (const ev of c.streamRunEvents(AGENT, 'run_1')) {
					seqs.push(ev.seq);
				}
				assert.deepEqual(seqs, [0, 1, 2]);

				hits = 0;
				handler = (_req, res) =>
					res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no run"}}');
				const err = await rejection(c.streamRunEvents(AGENT, 'run_1').next());
				assert.ok(err instanceof ApiError);
				assert.equal(err.status, 404);
				assert.equal(hits, 1);
			});

			test('an error event after headers with a non-retryable code ends the stream with ApiError', async () => {
				handler = (_req, res) =>
					res
						.writeHead(200, { 'content-type': 'text/event-stream' })
						.end(`${frames(0, 1, false)}event: error\ndata: {"error":{"code":"permission_denied","message":"nope"}}\n\n`);
				const seqs: number[] = [];
				const err = await rejection(
					(async () => {
						for await (const ev of client().streamRunEvents(AGENT, 'run_1')) {
							seqs.push(ev.seq);
						}
					})(),
				);
				assert.deepEqual(seqs, [0, 1]);
				assert.ok(err instanceof ApiError);
				assert.equal(err.code, 'permission_denied');
				assert.ok(runPath.length > 0);
			});

			test('breaking out of the loop closes the connection', async () => {
				let closed = false;
				handler = (req, res) => {
					req.socket.on('close', () => (closed = true));
					res.writeHead(200, { 'content-type': 'text/event-stream' });
					res.write(frames(0, 5, false));
				};
				for await (const ev of client().streamRunEvents(AGENT, 'run_1')) {
					if (ev.seq === 2) {
						break;
					}
				}
				await new Promise((r) => setTimeout(r, 100));
				assert.ok(closed);
			});
		});
	});
}
