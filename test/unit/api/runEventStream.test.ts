/**
 * The run-event stream's layers meeting: bounds of the raw stream (one connection, bounded reading)
 * and token redaction per network chunk, seen through the reconnect layer, against a hostile server.
 */
import assert from 'node:assert/strict';
import { ApiError, CloudAgentsClient, SAFETY } from '../../../src/api';
import type { EventRecord } from '../../../src/api';
import { AGENT_ID, RUN_ID, TOKEN, run } from '../../hostile/fixtures';
import { type HostileServer, type Scenario, json, sseFrame, sseStart, startHostile } from '../../hostile/server';
import { WIRES } from '../support/wires';

const EVENTS_ROUTE = 'GET /v2/agents/*/runs/*/events';

for (const wire of WIRES) {
	suite(`api/runEventStream: the raw stream under the reconnect layer, over ${wire.name}`, function () {
		this.timeout(60_000);
		let server: HostileServer | undefined;
		let client: CloudAgentsClient | undefined;

		async function start(s: Scenario, token = TOKEN): Promise<CloudAgentsClient> {
			server = await startHostile(s);
			client = new CloudAgentsClient({
				connect: wire.connect,
				baseUrl: server.baseUrl,
				getToken: () => token,
				stream: { reconnectMinMs: 5, reconnectBaseMs: 5 },
			});
			return client;
		}

		async function drain(c: CloudAgentsClient): Promise<{ events: EventRecord[]; error: unknown }> {
			const events: EventRecord[] = [];
			try {
				for await (const e of c.streamRunEvents(AGENT_ID, RUN_ID)) {
					events.push(e);
				}
				return { events, error: undefined };
			} catch (error) {
				return { events, error };
			}
		}

		teardown(async () => {
			client?.close();
			client = undefined;
			await server?.close();
			server = undefined;
		});

		test('an event longer than the bound ends the stream with event_too_large after the events before it, without a reconnect', async () => {
			const c = await start({
				description: 'one event, then one that never ends',
				routes: {
					[EVENTS_ROUTE]: (_q, res) => {
						const write = sseStart(res);
						write(sseFrame(0, 'log', {}));
						const slice = 'x'.repeat(1024 * 1024);
						write('data: ');
						for (let sent = 0; sent <= SAFETY.sseEventMaxChars; sent += slice.length) {
							write(slice);
						}
						res.end();
					},
					'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'running' })),
				},
			});
			const { events, error } = await drain(c);
			assert.deepEqual(
				events.map((e) => e.seq),
				[0],
			);
			assert.ok(error instanceof ApiError && error.code === 'event_too_large', String(error));
			assert.equal(server?.requestsTo(EVENTS_ROUTE).length, 1);
		});

		/** A server that echoes the request's token in one event, cut in two writes `cut` characters into the token. */
		function echoSplit(token: string, cut: number): Scenario {
			return {
				description: 'echoes the token, cut in two writes',
				routes: {
					[EVENTS_ROUTE]: (req, res) => {
						const write = sseStart(res);
						const frame = sseFrame(0, 'run.completed', { text: `echo ${req.token ?? ''} done` });
						const at = frame.indexOf(token) + cut;
						write(frame.slice(0, at));
						setTimeout(() => {
							write(frame.slice(at));
							res.end();
						}, 50);
					},
				},
			};
		}

		async function assertRedacted(c: CloudAgentsClient, token: string): Promise<void> {
			const { events, error } = await drain(c);
			assert.equal(error, undefined);
			assert.equal(events.length, 1);
			assert.ok(!JSON.stringify(events).includes(token), JSON.stringify(events));
			assert.match(JSON.stringify(events[0]?.data), /echo <redacted> done/);
		}

		/** A server that sends `count` events and the completion in one write, or, with `tooLarge`, then an event over the bound. */
		function oneWrite(count: number, tooLarge = false): Scenario {
			return {
				description: `${count} events in one write`,
				routes: {
					[EVENTS_ROUTE]: (_q, res) => {
						const write = sseStart(res);
						let frames = '';
						for (let seq = 0; seq < count; seq++) {
							frames += sseFrame(seq, 'log', { line: seq });
						}
						write(tooLarge ? frames : frames + sseFrame(count, 'run.completed', {}));
						if (tooLarge) {
							write(`data: ${'x'.repeat(SAFETY.sseEventMaxChars + 1)}`);
						}
						res.end();
					},
					'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'running' })),
				},
			};
		}

		test("nextBatch hands out a chunk's records at once, the same records in the same order as iterating, then undefined", async () => {
			const c = await start(oneWrite(200));
			const stream = c.streamRunEvents(AGENT_ID, RUN_ID);
			// Iterating takes the first record; the batch is the rest of its chunk.
			const first = await stream.next();
			assert.equal(first.value?.seq, 0);
			const batches: Array<readonly EventRecord[]> = [];
			for (let b = await stream.nextBatch(); b !== undefined; b = await stream.nextBatch()) {
				batches.push(b);
			}
			assert.ok(
				batches.every((b) => b.length > 0),
				'no batch is empty',
			);
			assert.deepEqual(
				batches.flat().map((e) => e.seq),
				Array.from({ length: 200 }, (_, i) => i + 1),
			);
			// 201 records written at once (about 10 KB): far fewer batches than records, however the bytes were cut.
			assert.ok(batches.length < 20, `${batches.length} batches`);
			assert.equal(await stream.nextBatch(), undefined, 'still ended');
			assert.equal((await stream.next()).done, true);
		});

		test('nextBatch hands out the records before an error, then rejects with it', async () => {
			const c = await start(oneWrite(3, true));
			const stream = c.streamRunEvents(AGENT_ID, RUN_ID);
			const seqs: number[] = [];
			let error: unknown;
			try {
				for (let b = await stream.nextBatch(); b !== undefined; b = await stream.nextBatch()) {
					seqs.push(...b.map((e) => e.seq ?? -1));
				}
			} catch (err) {
				error = err;
			}
			assert.deepEqual(seqs, [0, 1, 2]);
			assert.ok(error instanceof ApiError && error.code === 'event_too_large', String(error));
		});

		test('a token the server echoes split across two network chunks is still redacted', async () => {
			await assertRedacted(await start(echoSplit(TOKEN, 6)), TOKEN);
		});

		test('a long token split across two chunks with most of it in the first is still redacted', async () => {
			// 150 characters, cut after 100: more than the 64 characters a chunk's tail otherwise keeps.
			const longToken = `${TOKEN}_${'k'.repeat(150 - TOKEN.length - 1)}`;
			await assertRedacted(await start(echoSplit(longToken, 100), longToken), longToken);
		});
	});
}
