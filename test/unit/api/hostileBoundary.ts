/**
 * The API client against a hostile server (test/hostile/server.ts): one scenario per case. Each
 * test names the bullet of "every byte from the service is untrusted" it covers.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { ApiError, CloudAgentsClient, NetworkError, SAFETY, ValidationError, isLoopbackHost, isLoopbackUrl } from '../../../src/api';
import { clampSeconds, decodeBase64Strict, decodeDeviceAuthorization } from '../../../src/api/decode';
import { checkBaseUrl } from '../../../src/api/http';
import { ListingStoppedError } from '../../../src/api/pagination';
import { AGENT_ID, RUN_ID, TOKEN, agent, artifact, run } from '../../hostile/fixtures';
import {
	type HostileServer,
	REQUEST_ID,
	type Scenario,
	errorEnvelope,
	json,
	peakRate,
	sseFrame,
	sseStart,
	startHostile,
	trickle,
} from '../../hostile/server';
import { collected, recordError, recordingLogger } from '../support/leaks';
import { WIRES } from '../support/wires';

type ClientOptions = Partial<ConstructorParameters<typeof CloudAgentsClient>[0]>;

/**
 * The API boundary against the hostile server over one wire; each wire is a test file of its own
 * (hostile-<wire>.test.ts): much of a suite is waiting on paced reconnects and deadlines, and mocha
 * runs files side by side.
 */
export function hostileBoundary(wireName: (typeof WIRES)[number]['name']): void {
	const found = WIRES.find((w) => w.name === wireName);
	if (!found) {
		throw new Error(`no wire named ${wireName}`);
	}
	const wire = found;
	suite(`hostile server: the API boundary, over ${wire.name}`, function () {
		this.timeout(60_000);
		let server: HostileServer;
		const clients: CloudAgentsClient[] = [];

		/** Starts the scenario and returns a client of it (default retry and stream settings: the safety bounds under test). */
		async function scenario(s: Scenario, options: ClientOptions = {}): Promise<CloudAgentsClient> {
			server = await startHostile(s);
			const c = new CloudAgentsClient({
				connect: wire.connect,
				baseUrl: server.baseUrl,
				getToken: () => TOKEN,
				logger: recordingLogger,
				...options,
			});
			clients.push(c);
			return c;
		}

		async function failure(promise: Promise<unknown>): Promise<Error> {
			try {
				await promise;
			} catch (err) {
				recordError(err);
				return err as Error;
			}
			assert.fail('expected a failure');
		}

		teardown(async () => {
			for (const c of clients.splice(0)) {
				c.close();
			}
			await server?.close();
		});

		// ------------------------------------------------------------ ids and routes

		suite('route confusion via ids', () => {
			for (const bad of ['..', '.', '', 'a\u0000b', 'line\nbreak', 'x'.repeat(SAFETY.idMaxChars + 1)]) {
				test(`artifact id ${JSON.stringify(bad.slice(0, 12))} is refused before anything is sent`, async () => {
					const c = await scenario({
						description: 'accepts anything',
						routes: {},
						fallback: (_req, res) => json(res, 204, undefined),
					});
					const err = await failure(c.deleteArtifact(AGENT_ID, bad));
					assert.ok(err instanceof ValidationError, String(err));
					assert.equal(server.requests.length, 0, 'no request reached the server');
				});
			}

			test('an id with a slash or %2e%2e travels as one encoded segment', async () => {
				const c = await scenario({
					description: 'records the path',
					routes: {},
					fallback: (_req, res) => json(res, 204, undefined),
				});
				await c.deleteArtifact(AGENT_ID, '../x/%2e%2e');
				assert.equal(server.requests.length, 1);
				assert.equal(server.requests[0]?.rawUrl, `/v2/agents/${encodeURIComponent(AGENT_ID)}/artifacts/..%2Fx%2F%252e%252e`);
			});

			test('a listing of artifacts whose ids are "..", "." or carry control characters delivers only the valid ones', async () => {
				const c = await scenario({
					description: 'artifact ids that would turn into other routes',
					routes: {
						'GET /v2/agents/*/artifacts': (_q, res) =>
							json(res, 200, [
								artifact({ id: '..' }),
								artifact({ id: '.' }),
								artifact({ id: 'ok\u0007' }),
								artifact({ id: 'art_good' }),
								artifact({ id: 42 }),
							]),
					},
				});
				const items = await c.listArtifacts(AGENT_ID);
				assert.deepEqual(
					items.map((a) => a.id),
					['art_good'],
				);
			});

			test('a single record with an id of ".." is an error naming the field and the request id', async () => {
				const c = await scenario({
					description: 'agent id ..',
					routes: { 'GET /v2/agents/*': (_q, res) => json(res, 200, agent({ id: '..' })) },
				});
				const err = await failure(c.getAgent(AGENT_ID));
				assert.ok(err instanceof ApiError);
				assert.equal(err.code, 'invalid_response');
				assert.match(err.message, /agent\.id/);
				assert.equal(err.requestId, REQUEST_ID);
			});
		});

		// ------------------------------------------------------------ the token never leaves the Authorization header

		suite('token echoed back by the server', () => {
			test('echoed in message, code, request id and X-Request-Id: no field of the error carries it', async () => {
				const c = await scenario({
					description: 'echoes the bearer token everywhere',
					routes: {
						'GET /v2/agents/*': (req, res) =>
							json(
								res,
								400,
								{
									error: { code: req.token, message: `bad token ${req.token} (Bearer ${req.token})` },
									request_id: req.token,
								},
								{ 'x-request-id': req.token ?? '' },
							),
					},
				});
				const err = await failure(c.getAgent(AGENT_ID));
				assert.ok(err instanceof ApiError);
				const fields = [
					err.message,
					err.code,
					String(err.requestId),
					String(err.stack),
					JSON.stringify(err),
					String((err.cause as Error | undefined)?.message),
				];
				for (const f of fields) {
					assert.ok(!f.includes(TOKEN), `token in ${f.slice(0, 120)}`);
				}
				assert.equal(err.requestId, undefined);
				assert.equal(err.requestIdRejected, true);
			});

			test('echoed in the X-Request-Id of a success: the logged request id is not the token', async () => {
				const c = await scenario({
					description: 'token as request id',
					routes: { 'GET /v2/agents/*': (req, res) => json(res, 200, agent(), { 'x-request-id': req.token ?? '' }) },
				});
				const before = collected.length;
				await c.getAgent(AGENT_ID);
				assert.ok(collected.length > before, 'the transport logged the call');
				for (const line of collected.slice(before)) {
					assert.ok(!line.includes(TOKEN), line);
				}
			});

			test('echoed in success bodies and events: no record, id or event text carries it (nothing to copy or show)', async () => {
				const c = await scenario({
					description: 'echoes the token in records and events',
					routes: {
						'GET /v2/agents': (req, res) =>
							json(res, 200, {
								agents: [
									agent({
										id: `${AGENT_ID}x`,
										name: `token is ${req.token}`,
										latest_reply: { run_id: RUN_ID, text: `${req.token}` },
									}),
								],
							}),
						'GET /v2/agents/*/runs/*/events': (req, res) => {
							const write = sseStart(res);
							write(
								`id: 0\nevent: log\ndata: ${JSON.stringify({ seq: 0, type: 'log', data: { text: `echo ${req.token}` } })}\n\n`,
							);
							write(
								`id: 1\nevent: ${req.token}\ndata: ${JSON.stringify({ seq: 1, type: 'run.completed', data: { status: 'succeeded', result: req.token } })}\n\n`,
							);
							res.end();
						},
					},
				});
				const page = await c.listAgents();
				assert.equal(page.items.length, 1);
				assert.ok(!JSON.stringify(page.items).includes(TOKEN), JSON.stringify(page.items));
				assert.match(String(page.items[0]?.name), /<redacted>/);
				const events = [];
				for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
					events.push(ev);
				}
				assert.equal(events.length, 2);
				assert.ok(!JSON.stringify(events).includes(TOKEN), JSON.stringify(events));
			});

			/** Follows the run's events to the end and returns the error the stream ended with. */
			async function streamFailure(c: CloudAgentsClient): Promise<Error> {
				return failure(
					(async () => {
						for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
							void ev;
						}
					})(),
				);
			}

			function assertNoToken(err: Error): void {
				assert.ok(err instanceof ApiError, String(err));
				for (const f of [err.message, err.code, String(err.requestId), String(err.stack), JSON.stringify(err)]) {
					assert.ok(!f.includes(TOKEN), `token in ${f.slice(0, 160)}`);
				}
			}

			test('run stream: an X-Request-Id that is the token never reaches the error (error event, bad frame id, wrong Content-Type)', async () => {
				const answers: Array<[string, (res: ServerResponse, token: string) => void]> = [
					[
						'a non-retryable error event',
						(res, token) => {
							const write = sseStart(res, { 'x-request-id': token });
							write(`event: error\ndata: ${JSON.stringify({ error: { code: 'permission_denied', message: 'stop' } })}\n\n`);
							res.end();
						},
					],
					[
						'a frame whose id is the token',
						(res, token) => {
							const write = sseStart(res, { 'x-request-id': token });
							write(`id: ${token}\nevent: log\ndata: {"type":"log","data":{}}\n\n`);
							res.end();
						},
					],
					[
						'a 200 that is not an event stream',
						(res, token) => {
							res.writeHead(200, { 'content-type': 'text/html', 'x-request-id': token });
							res.end('<html></html>');
						},
					],
				];
				for (const [what, answer] of answers) {
					const c = await scenario({
						description: `stream with the token as X-Request-Id: ${what}`,
						routes: { 'GET /v2/agents/*/runs/*/events': (req, res) => answer(res, req.token ?? '') },
					});
					const err = await streamFailure(c);
					assertNoToken(err);
					assert.equal((err as ApiError).requestId, undefined, what);
					await server.close();
				}
			});

			test('run stream: an error event naming the token as its request_id (split across chunks) keeps it out of the error', async () => {
				const c = await scenario({
					description: 'error event echoing the token, dispatched by a later chunk',
					routes: {
						'GET /v2/agents/*/runs/*/events': (req, res) => {
							const write = sseStart(res);
							const token = req.token ?? '';
							// The event ends in a chunk of its own, far from the token: per-chunk redaction does not see it.
							const payload = { error: { code: token, message: `denied ${token}` }, request_id: token, pad: 'p'.repeat(200) };
							write(`event: error\ndata: ${JSON.stringify(payload)}`);
							setTimeout(() => {
								write('\n\n');
								res.end();
							}, 150);
						},
					},
				});
				const err = await streamFailure(c);
				assertNoToken(err);
				assert.equal((err as ApiError).requestId, undefined, 'the named request id is refused, not replaced by another');
			});

			test("run stream: a plausible request_id an error event names is the error's request id (as in an error body)", async () => {
				const named = '0192f1a0-5555-7abc-8def-0123456789ab';
				const c = await scenario({
					description: 'error event with its own request id',
					routes: {
						'GET /v2/agents/*/runs/*/events': (_q, res) => {
							const write = sseStart(res);
							write(
								`event: error\ndata: ${JSON.stringify({ error: { code: 'not_found', message: 'gone' }, request_id: named })}\n\n`,
							);
							res.end();
						},
					},
				});
				const err = await streamFailure(c);
				assert.ok(err instanceof ApiError && err.code === 'not_found', String(err));
				assert.equal(err.requestId, named);
			});

			test('run stream: an event whose token arrives chunks before the event ends is redacted too', async () => {
				const c = await scenario({
					description: 'token early in an event, the event ending in a later chunk',
					routes: {
						'GET /v2/agents/*/runs/*/events': (req, res) => {
							const write = sseStart(res);
							const data = { seq: 0, type: 'log', data: { text: `echo ${req.token}`, pad: 'p'.repeat(200) } };
							write(`id: 0\nevent: log\ndata: ${JSON.stringify(data)}`);
							setTimeout(() => write('\n\n'), 100);
							setTimeout(() => {
								write(sseFrame(1, 'run.completed', { status: 'succeeded' }));
								res.end();
							}, 200);
						},
					},
				});
				const events = [];
				for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
					events.push(ev);
				}
				assert.equal(events.length, 2);
				assert.ok(!JSON.stringify(events).includes(TOKEN), JSON.stringify(events).slice(0, 200));
				assert.match(JSON.stringify(events[0]), /<redacted>/);
			});

			test('an implausible request id (too long, odd characters) is not kept raw', async () => {
				for (const rid of ['x'.repeat(500), '<script>', 'id with spaces', '[copy](command:evil)']) {
					const c = await scenario({
						description: 'odd request id',
						routes: { 'GET /v2/agents/*': (_q, res) => errorEnvelope(res, 404, 'not_found', 'gone', rid) },
					});
					const err = await failure(c.getAgent(AGENT_ID));
					assert.ok(err instanceof ApiError);
					assert.equal(err.requestId, undefined, rid);
					assert.equal(err.requestIdRejected, true);
					await server.close();
				}
			});

			test('an absurd error code is replaced, a huge message is cut', async () => {
				const c = await scenario({
					description: 'absurd error fields',
					routes: {
						'GET /v2/agents/*': (_q, res) => errorEnvelope(res, 422, 'x'.repeat(300) + '\n[a](command:b)', 'm'.repeat(50_000)),
					},
				});
				const err = await failure(c.getAgent(AGENT_ID));
				assert.ok(err instanceof ApiError);
				assert.equal(err.code, 'invalid_code');
				assert.ok(err.message.length <= SAFETY.errorMessageMaxChars, `${err.message.length}`);
			});
		});

		// ------------------------------------------------------------ numbers are range-checked

		suite('absurd numbers', () => {
			test('Retry-After: 0 on every answer: retries keep a minimum delay (a few requests per second at most)', async () => {
				const c = await scenario(
					{
						description: '503 with Retry-After 0',
						routes: {
							'GET /v2/agents/*': (_q, res) =>
								errorEnvelope(res, 503, 'unavailable', 'busy', REQUEST_ID, { 'retry-after': '0' }),
						},
					},
					{ retry: { maxAttempts: 6 } },
				);
				await failure(c.getAgent(AGENT_ID));
				assert.equal(server.requests.length, 6);
				const gaps = server.requests.slice(1).map((r, i) => r.at - (server.requests[i]?.at ?? 0));
				assert.ok(
					gaps.every((g) => g >= SAFETY.retryMinDelayMs - 20),
					`gaps ${gaps.join(', ')}`,
				);
			});

			for (const value of ['-5', '1e9', '99999999999999999999', 'NaN']) {
				test(`Retry-After: ${value} neither hammers nor stalls`, async () => {
					const c = await scenario({
						description: 'odd Retry-After',
						routes: {
							'GET /v2/agents/*': (_q, res) =>
								errorEnvelope(res, 429, 'rate_limited', 'slow down', REQUEST_ID, { 'retry-after': value }),
						},
					});
					const started = Date.now();
					await failure(c.getAgent(AGENT_ID));
					assert.ok(Date.now() - started < 25_000, 'did not wait for an absurd time');
					assert.ok(peakRate(server.requests) <= 4, `peak ${peakRate(server.requests)} requests/s`);
				});
			}

			test('device flow: an interval of 0 (and slow_down with a negative interval) polls at most once a second', async () => {
				const c = await scenario({
					description: 'device flow with absurd intervals',
					routes: {
						'POST /v2/auth/device/authorization': (_q, res) =>
							json(res, 200, {
								device_code: 'dc',
								user_code: 'ABCD',
								verification_uri: 'https://example.test/device',
								interval: 0,
								expires_in: 1e15,
							}),
						'POST /v2/auth/device/token': (_q, res, ctx) =>
							json(
								res,
								400,
								ctx.hits % 2 ? { error: 'authorization_pending', interval: 0 } : { error: 'slow_down', interval: -100 },
							),
					},
				});
				const start = await c.startDeviceAuthorization({ client_id: 'vscode' });
				assert.equal(start.interval, SAFETY.devicePollMinMs / 1000);
				assert.equal(start.expires_in, SAFETY.deviceExpiryMaxMs / 1000);
				const abort = new AbortController();
				setTimeout(() => abort.abort(), 3_500);
				await failure(c.waitForDeviceToken(start, { signal: abort.signal }));
				const polls = server.requestsTo('POST /v2/auth/device/token');
				assert.ok(polls.length >= 1 && polls.length <= 4, `${polls.length} polls in 3.5 s`);
				assert.ok(peakRate(polls) <= 1, `peak ${peakRate(polls)}/s`);
			});

			test('device flow: absurdly long intervals are clamped, missing ones defaulted', () => {
				assert.equal(decodeDeviceAuthorization({ device_code: 'x', interval: 1e12 }, {}).interval, SAFETY.devicePollMaxMs / 1000);
				assert.equal(
					decodeDeviceAuthorization({ device_code: 'x', interval: 'soon' }, {}).interval,
					SAFETY.devicePollDefaultMs / 1000,
				);
				assert.equal(clampSeconds(Number.POSITIVE_INFINITY, 1000, 60_000, 5000), 5);
				assert.throws(() => decodeDeviceAuthorization({ device_code: 'a\nb' }, {}), ApiError);
			});

			test('device flow: an access token with spaces or control characters is refused (it would become a header)', async () => {
				const c = await scenario({
					description: 'odd token',
					routes: {
						'POST /v2/auth/device/token': (_q, res) =>
							json(res, 200, { access_token: 'abc\r\nX-Evil: 1', token_type: 'Bearer', expires_in: 10 }),
					},
				});
				const err = await failure(c.pollDeviceToken('dc'));
				assert.ok(err instanceof ApiError && err.code === 'invalid_response', String(err));
			});

			test('sizes, revisions and expiries outside their ranges fail cleanly', async () => {
				const c = await scenario({
					description: 'out-of-range numbers',
					routes: {
						'GET /v2/agents/*/artifacts': (_q, res) =>
							json(res, 200, [
								artifact({ id: 'neg', size: -1 }),
								artifact({ id: 'huge', size: 1e300 }),
								artifact({ id: 'fine', size: 3 }),
							]),
						'GET /v2/runtimes': (_q, res) =>
							json(res, 200, {
								data: [
									{ id: 'r0', revision: 0 },
									{ id: 'r1', revision: 1.5 },
									{ id: 'r2', revision: 2 },
								],
								pagination: { has_more: false },
							}),
						'POST /v2/agents/*/computer-sessions': (_q, res) =>
							json(res, 201, {
								agent_id: AGENT_ID,
								runtime_id: 'r',
								expires_at: 'whenever',
								channels: { vnc: { websocket_url: 'wss://x.test/s', protocols: ['a'] } },
							}),
						'POST /v2/agents/*/workspace': (_q, res) =>
							json(res, 200, { op: 'read', path: 'f', offset: 0, length: 1, size: 1e18, content_base64: 'YQ==' }),
					},
				});
				assert.deepEqual(
					(await c.listArtifacts(AGENT_ID)).map((a) => a.id),
					['fine'],
				);
				assert.deepEqual(
					(await c.listRuntimes()).items.map((r) => r.id),
					['r2'],
				);
				const session = await failure(c.createComputerSession(AGENT_ID));
				assert.match(session.message, /expires_at/);
				const read = await failure(c.readWorkspaceFile(AGENT_ID, 'f'));
				assert.match(read.message, /size/);
			});
		});

		// ------------------------------------------------------------ event streams

		suite('event streams', () => {
			const streamScenario = (frames: string): Scenario => ({
				description: 'one stream of crafted frames',
				routes: {
					'GET /v2/agents/*/runs/*/events': (_q, res) => {
						const write = sseStart(res);
						write(frames);
						res.end();
					},
					'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'succeeded' })),
				},
			});

			for (const id of ['1e3', '0x10', '-1', '12abc', ' 7', '99999999999999999']) {
				test(`an SSE id of ${JSON.stringify(id)} is not a sequence number: the stream fails cleanly`, async () => {
					const c = await scenario(
						streamScenario(sseFrame(0, 'log', { text: 'first' }) + `id: ${id}\nevent: log\ndata: {"type":"log","data":{}}\n\n`),
					);
					const seen: number[] = [];
					const err = await failure(
						(async () => {
							for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
								seen.push(ev.seq);
							}
						})(),
					);
					assert.deepEqual(seen, [0], 'the valid event before it was delivered');
					assert.ok(err instanceof ApiError && err.code === 'invalid_response', String(err));
					assert.match(err.message, /event id/);
				});
			}

			test('sequence numbers that go backwards or repeat are never delivered twice', async () => {
				const c = await scenario(
					streamScenario(
						[
							sseFrame(0, 'log', {}),
							sseFrame(1, 'log', {}),
							sseFrame(1, 'log', { dup: true }),
							sseFrame(0, 'log', {}),
							sseFrame(2, 'run.completed', {}),
						].join(''),
					),
				);
				const seen: number[] = [];
				for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
					seen.push(ev.seq);
				}
				assert.deepEqual(seen, [0, 1, 2]);
			});

			test('a reconnect storm after progress: each connection brings one event then closes; reconnects stay paced and capped per minute', async () => {
				let seq = 0;
				const c = await scenario({
					description: 'one event per connection, forever',
					routes: {
						'GET /v2/agents/*/runs/*/events': (_q, res) => {
							const write = sseStart(res);
							write(sseFrame(seq++, 'log', { text: 'tick' }));
							res.end();
						},
						'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'running' })),
					},
				});
				const started = Date.now();
				const err = await failure(
					(async () => {
						for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
							void ev;
						}
					})(),
				);
				const elapsed = Date.now() - started;
				assert.ok(err instanceof ApiError && err.code === 'reconnect_limit', String(err));
				const connects = server.requestsTo('GET /v2/agents/*/runs/*/events');
				assert.ok(connects.length <= SAFETY.streamReconnectsPerMinute + 1, `${connects.length} connections`);
				assert.ok(peakRate(connects) <= Math.ceil(1000 / SAFETY.streamReconnectMinMs), `peak ${peakRate(connects)} connections/s`);
				assert.ok(elapsed >= (SAFETY.streamReconnectsPerMinute - 1) * SAFETY.streamReconnectMinMs, `${elapsed} ms`);
			});

			test('a stream that trickles bytes but never completes an event is dropped, and reconnects are bounded', async () => {
				const c = await scenario(
					{
						description: 'a byte every 20 ms, never a whole event',
						routes: {
							'GET /v2/agents/*/runs/*/events': (_q, res) =>
								trickle(res, 200, 'text/event-stream', `data: ${'x'.repeat(100_000)}`, 20),
						},
					},
					{ timeouts: { streamIdleMs: 300 }, stream: { maxReconnectAttempts: 2, reconnectBaseMs: 10 } },
				);
				const started = Date.now();
				const err = await failure(
					(async () => {
						for await (const ev of c.streamRunEvents(AGENT_ID, RUN_ID)) {
							void ev;
						}
					})(),
				);
				assert.ok(err instanceof NetworkError, String(err));
				assert.ok(Date.now() - started < 15_000);
				assert.equal(server.requestsTo('GET /v2/agents/*/runs/*/events').length, 3);
			});
		});

		// ------------------------------------------------------------ bounded resources

		suite('bounded bodies, listings and time', () => {
			test('a JSON body larger than the cap is refused (declared length)', async () => {
				const big = JSON.stringify(agent({ name: 'x'.repeat(SAFETY.jsonBodyMaxBytes) }));
				const c = await scenario({
					description: 'huge body',
					routes: {
						'GET /v2/agents/*': (_q, res) => {
							res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) });
							res.end(big);
						},
					},
				});
				const err = await failure(c.getAgent(AGENT_ID));
				assert.ok(err instanceof ApiError && err.code === 'response_too_large', String(err));
			});

			test('a chunked JSON body that grows past the cap is cut off', async () => {
				const c = await scenario({
					description: 'endless chunked body',
					routes: {
						'GET /v2/agents/*': (_q, res) => {
							res.writeHead(200, { 'content-type': 'application/json' });
							const chunk = 'x'.repeat(256 * 1024);
							let sent = 0;
							const pump = (): void => {
								while (!res.destroyed && sent < 64 && res.write(chunk)) {
									sent++;
								}
								if (!res.destroyed && sent < 64) {
									res.once('drain', pump);
								} else {
									res.end();
								}
							};
							res.write('{"id":"');
							pump();
						},
					},
				});
				const err = await failure(c.getAgent(AGENT_ID));
				assert.ok(err instanceof ApiError && err.code === 'response_too_large', String(err));
			});

			test('a listing page with more items than allowed is refused', async () => {
				const items = Array.from({ length: SAFETY.pageMaxItems + 1 }, (_, i) => ({ id: `a${i}` }));
				const c = await scenario({
					description: 'huge page',
					routes: { 'GET /v2/agents/*/artifacts': (_q, res) => json(res, 200, items) },
				});
				const err = await failure(c.listArtifacts(AGENT_ID));
				assert.ok(err instanceof ApiError && err.code === 'response_too_large', String(err));
			});

			test('a repeated cursor ends the walk after the second page, with what was loaded delivered', async () => {
				const c = await scenario({
					description: 'always the same cursor',
					routes: {
						'GET /v2/runtimes': (_q, res, ctx) =>
							json(res, 200, {
								data: [{ id: `rt${ctx.hits}`, revision: 1 }],
								pagination: { next_cursor: 'same', has_more: true },
							}),
					},
				});
				const got: string[] = [];
				const err = await failure(
					(async () => {
						for await (const r of c.iterateRuntimes()) {
							got.push(r.id);
						}
					})(),
				);
				assert.ok(err instanceof ListingStoppedError && err.reason === 'repeated_cursor', String(err));
				assert.equal(server.requests.length, 2);
				assert.deepEqual(got, ['rt1', 'rt2']);
			});

			test('the same page under new cursors ends the walk', async () => {
				const c = await scenario({
					description: 'ignores the cursor',
					routes: {
						'GET /v2/runtimes': (_q, res, ctx) =>
							json(res, 200, {
								data: [{ id: 'rt', revision: 1 }],
								pagination: { next_cursor: `c${ctx.hits}`, has_more: true },
							}),
					},
				});
				const got: string[] = [];
				const err = await failure(
					(async () => {
						for await (const r of c.iterateRuntimes()) {
							got.push(r.id);
						}
					})(),
				);
				assert.ok(err instanceof ListingStoppedError && err.reason === 'repeated_page', String(err));
				assert.equal(server.requests.length, 2);
				assert.deepEqual(got, ['rt']);
			});

			test('endless pages stop after the page cap', async () => {
				const c = await scenario({
					description: 'new cursor and items forever',
					routes: {
						'GET /v2/runtimes': (_q, res, ctx) =>
							json(res, 200, {
								data: [{ id: `rt${ctx.hits}`, revision: 1 }],
								pagination: { next_cursor: `c${ctx.hits}`, has_more: true },
							}),
					},
				});
				let n = 0;
				const err = await failure(
					(async () => {
						for await (const r of c.iterateRuntimes()) {
							void r;
							n++;
						}
					})(),
				);
				assert.ok(err instanceof ListingStoppedError && err.reason === 'too_many_pages', String(err));
				assert.equal(server.requests.length, SAFETY.listingMaxPages);
				assert.equal(n, SAFETY.listingMaxPages);
			});

			test('a body trickling one byte at a time ends at the overall deadline', async () => {
				const c = await scenario(
					{
						description: 'trickle',
						routes: { 'GET /v2/agents/*': (_q, res) => trickle(res, 200, 'application/json', JSON.stringify(agent()), 100) },
					},
					{ timeouts: { deadlineMs: 800, bodyMs: 30_000 }, retry: { maxAttempts: 1 } },
				);
				const started = Date.now();
				const err = await failure(c.getAgent(AGENT_ID));
				assert.ok(err instanceof NetworkError && err.code === 'timeout', String(err));
				assert.ok(Date.now() - started < 3_000, `${Date.now() - started} ms`);
			});

			test('the deadline is overall: a trickling server, 3 s, three attempts allowed, fails within 3 s and says so', async () => {
				const c = await scenario(
					{
						description: 'trickle, every attempt',
						routes: { 'GET /v2/agents/*': (_q, res) => trickle(res, 200, 'application/json', JSON.stringify(agent()), 100) },
					},
					{ timeouts: { deadlineMs: 3000, bodyMs: 30_000 }, retry: { maxAttempts: 3 } },
				);
				const started = Date.now();
				const err = await failure(c.getAgent(AGENT_ID));
				const elapsed = Date.now() - started;
				assert.ok(err instanceof NetworkError && err.code === 'timeout', String(err));
				// 3 s, plus the deadline sweep (250 ms) and a loaded machine's slack.
				assert.ok(elapsed < 3000 + 750, `${elapsed} ms`);
				assert.match(err.message, /within 3 s \(the request's overall deadline, retries included; 1 attempt\)/);
				assert.equal(server.requests.length, 1, 'no retry could have answered in time');
			});

			test('the deadline is overall: headers that never come end at the deadline, not after the header time-out of each attempt', async () => {
				const c = await scenario(
					{
						description: 'accepts the request, never answers',
						routes: { 'GET /v2/agents/*': () => undefined },
					},
					{ timeouts: { deadlineMs: 3000, headersMs: 30_000 }, retry: { maxAttempts: 3 } },
				);
				const started = Date.now();
				const err = await failure(c.getAgent(AGENT_ID));
				const elapsed = Date.now() - started;
				assert.ok(err instanceof NetworkError && err.code === 'timeout', String(err));
				assert.ok(elapsed < 3000 + 750, `${elapsed} ms`);
				assert.match(err.message, /within 3 s/);
			});

			test('the deadline is overall: slow 503s are retried only while a retry can still answer in time', async () => {
				const c = await scenario(
					{
						description: '503 after 900 ms, every attempt',
						routes: {
							'GET /v2/agents/*': (_q, res) => {
								setTimeout(() => errorEnvelope(res, 503, 'unavailable', 'busy'), 900);
							},
						},
					},
					{ timeouts: { deadlineMs: 3000 }, retry: { maxAttempts: 5, baseDelayMs: 400, maxDelayMs: 400, random: () => 0.999 } },
				);
				const started = Date.now();
				const err = await failure(c.getAgent(AGENT_ID));
				const elapsed = Date.now() - started;
				// 900 + 399 + 900 = 2199 ms; a third attempt would start at ~2600 ms with under 500 ms left: not sent.
				assert.ok(err instanceof ApiError && err.status === 503, String(err));
				assert.equal(server.requests.length, 2);
				assert.ok(elapsed < 3000, `${elapsed} ms`);
			});

			test('tiny chunks: a read that makes no real progress fails after one request instead of millions', async () => {
				const size = 1024 * 1024;
				const c = await scenario({
					description: 'one byte per chunk',
					routes: {
						'POST /v2/agents/*/workspace': (_q, res, ctx) => {
							const b = ctx.json() as { offset?: number };
							json(res, 200, {
								op: 'read',
								path: 'f',
								offset: b.offset ?? 0,
								length: 1,
								size,
								mtime_unix_ms: 1,
								eof: false,
								content_base64: 'YQ==',
							});
						},
					},
				});
				const err = await failure(c.readWorkspaceFileAll(AGENT_ID, 'f'));
				assert.ok(err instanceof ApiError && err.code === 'invalid_response', String(err));
				assert.ok(server.requests.length <= 2, `${server.requests.length} requests`);
			});
		});

		// ------------------------------------------------------------ base64 and loopback

		suite('strict base64', () => {
			for (const bad of ['YWJj$A==', 'YW Jj', 'YQ', 'YQ=a', 'Y===', 'YWJj\nZA==']) {
				test(`artifact content ${JSON.stringify(bad)} is an error, never silently skipped`, async () => {
					const c = await scenario({
						description: 'bad base64',
						routes: {
							'GET /v2/agents/*/artifacts/*': (_q, res) => json(res, 200, artifact({ content_base64: bad, size: undefined })),
						},
					});
					const err = await failure(c.readArtifactContent(AGENT_ID, 'art_hostile0001'));
					assert.ok(err instanceof ApiError && err.code === 'invalid_response', String(err));
				});
			}
			test('valid base64 decodes', () => {
				assert.equal(Buffer.from(decodeBase64Strict('aGVsbG8=', 'f', {})).toString(), 'hello');
				assert.equal(decodeBase64Strict('', 'f', {}).byteLength, 0);
			});
			test('workspace chunk content with invalid base64 is an error', async () => {
				const c = await scenario({
					description: 'bad chunk',
					routes: {
						'POST /v2/agents/*/workspace': (_q, res) =>
							json(res, 200, { op: 'read', path: 'f', offset: 0, length: 3, size: 3, eof: true, content_base64: 'YW*j' }),
					},
				});
				const err = await failure(c.readWorkspaceFile(AGENT_ID, 'f'));
				assert.ok(err instanceof ApiError && err.code === 'invalid_response', String(err));
			});
		});

		suite('loopback means loopback', () => {
			test('exactly localhost, 127.0.0.0/8 and ::1', () => {
				for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.255.3.4', '::1', '[::1]']) {
					assert.ok(isLoopbackHost(host), host);
				}
				for (const host of [
					'evil.localhost',
					'localhost.evil.test',
					'127.0.0.1.nip.io',
					'128.0.0.1',
					'127.0.0.256',
					'0.0.0.0',
					'::ffff:127.0.0.1',
					'localhost.',
					'10.0.0.1',
				]) {
					assert.ok(!isLoopbackHost(host), host);
				}
			});
			test('plain http to a look-alike host is refused before any request', () => {
				for (const url of [
					'http://evil.localhost:8787',
					'http://localhost.evil.test',
					'http://127.0.0.1.nip.io/',
					'http://[::ffff:7f00:1]/',
				]) {
					assert.throws(() => checkBaseUrl(url), ValidationError, url);
					assert.ok(!isLoopbackUrl(url), url);
				}
				for (const url of ['http://localhost:8787', 'http://127.0.0.1:1', 'http://[::1]:9', 'https://api.example.test']) {
					assert.doesNotThrow(() => checkBaseUrl(url), url);
				}
			});
		});

		// Nested so it runs after every other test of this file (mocha runs a suite's own tests first).
		suite('zz token hygiene', () => {
			test('no token reached a log line or error in this suite', () => {
				assert.ok(collected.length > 20, `${collected.length} lines collected`);
				for (const line of collected) {
					assert.ok(!line.includes(TOKEN), line.slice(0, 200));
				}
			});
		});
	});
}
