/**
 * The parsing cases of the web-platform-tests eventsource/format-* suite, run as a table through
 * the client's SSE stream over real HTTP, each both in one chunk and split into small chunks.
 */
import assert from 'node:assert/strict';
import { ApiError, CloudAgentsClient, type SseMessage } from '../../../src/api';
import { rejection, recordingLogger } from '../support/leaks';
import { type Served, serve } from '../support/serve';
import { WIRES } from '../support/wires';

interface Case {
	name: string;
	wire: string;
	contentType?: string;
	/** Expected messages: data, and optionally event type and last event id. */
	want?: Array<{ data: string; event?: string; id?: string }>;
	retry?: number | undefined;
	fails?: boolean;
	/** Skip the split delivery (case depends on the byte layout only). */
	wholeOnly?: boolean;
}

const long = 'x'.repeat(2 * 1024);

const CASES: Case[] = [
	{ name: 'format-bom', wire: '\uFEFFdata:1\n\n\uFEFFdata:2\n\ndata:3\n\n', want: [{ data: '1' }, { data: '3' }] },
	{ name: 'format-bom-2', wire: '\uFEFF\uFEFFdata:1\n\ndata:2\n\n', want: [{ data: '2' }] },
	{
		name: 'format-comments',
		wire: `data:1\r:\0\n:\r\ndata:2\n:${long}\rdata:3\n:data:fail\r:${long}\ndata:4\n\n`,
		want: [{ data: '1\n2\n3\n4' }],
	},
	{ name: 'format-data-before-final-empty-line', wire: 'retry:1000\ndata:test1\n\nid:test\ndata:test2', want: [{ data: 'test1' }] },
	{ name: 'format-field-data', wire: 'data:\n\ndata\ndata\n\ndata:test\n\n', want: [{ data: '' }, { data: '\n' }, { data: 'test' }] },
	{
		name: 'format-field-event',
		wire: 'event:test\ndata:x\n\ndata:x\n\n',
		want: [
			{ data: 'x', event: 'test' },
			{ data: 'x', event: 'message' },
		],
	},
	{ name: 'format-field-event-empty', wire: 'event: \ndata:data\n\n', want: [{ data: 'data', event: 'message' }] },
	{
		name: 'format-field-id (sticky)',
		wire: 'id: 1\ndata: 1\n\ndata: 2\n\n',
		want: [
			{ data: '1', id: '1' },
			{ data: '2', id: '1' },
		],
	},
	{
		name: 'format-field-id-3 (empty id resets)',
		wire: 'id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n',
		want: [
			{ data: '1', id: '1' },
			{ data: '2', id: '' },
			{ data: '3', id: '' },
		],
	},
	{
		name: 'format-field-id-3 (bare id resets)',
		wire: 'id: 1\ndata: 1\n\nid\ndata:2\n\ndata:3\n\n',
		want: [
			{ data: '1', id: '1' },
			{ data: '2', id: '' },
			{ data: '3', id: '' },
		],
	},
	{
		name: 'format-field-id-null',
		wire: 'id:\0\0\ndata:1\n\nid:x\0\ndata:2\n\nid:\0x\ndata:3\n\nid:x\0x\ndata:4\n\nid: \0\ndata:5\n\n',
		want: [1, 2, 3, 4, 5].map((n) => ({ data: String(n), id: '' })),
	},
	{
		name: 'format-field-id-null keeps the previous id',
		wire: 'id: 1\ndata: a\n\nid: bad\0value\ndata: b\n\n',
		want: [
			{ data: 'a', id: '1' },
			{ data: 'b', id: '1' },
		],
	},
	{
		name: 'format-field-parsing',
		wire: 'data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4\n\n',
		want: [{ data: '\0\n 2\n1\n3\n\n4' }],
	},
	{ name: 'format-field-retry', wire: 'retry:03000\ndata:x\n\n', want: [{ data: 'x' }], retry: 3000 },
	{ name: 'format-field-retry-bogus', wire: 'retry:3000\nretry:1000x\ndata:x\n\n', want: [{ data: 'x' }], retry: 3000 },
	{ name: 'format-field-retry-empty', wire: 'retry\ndata:test\n\n', want: [{ data: 'test' }], retry: undefined },
	{ name: 'format-field-unknown', wire: 'data:1\nfoo\nfoo: bar\ndata:2\n\n', want: [{ data: '1\n2' }] },
	{ name: 'format-leading-space', wire: 'data:\ttest\rdata: \ndata:test\n\n', want: [{ data: '\ttest\n\ntest' }] },
	{ name: 'format-newlines', wire: 'data:test\r\ndata\ndata:test\r\n\r', want: [{ data: 'test\n\ntest' }] },
	{ name: 'format-null-character', wire: 'data:\0\n\n\n\n', want: [{ data: '\0' }] },
	{ name: 'format-utf-8', wire: 'data:ok…\n\ndata:döm 🎉\n\n', want: [{ data: 'ok…' }, { data: 'döm 🎉' }] },
	{ name: 'CRLF split across chunks dispatches once', wire: 'data:1\r\n\r\ndata:2\r\n\r\n', want: [{ data: '1' }, { data: '2' }] },
	{ name: 'format-mime-trailing-semicolon', wire: 'data:x\n\n', contentType: 'text/event-stream;', want: [{ data: 'x' }] },
	{ name: 'format-mime-valid-bogus', wire: 'data:x\n\n', contentType: 'text/event-stream;charset=bogus', want: [{ data: 'x' }] },
	{ name: 'format-mime-bogus', wire: 'data:x\n\n', contentType: 'x/x', fails: true, wholeOnly: true },
];

for (const wire of WIRES) {
	suite(`SSE parsing (web-platform-tests eventsource/format-*), over ${wire.name}`, () => {
		let served: Served;
		let client: CloudAgentsClient;

		suiteSetup(async () => {
			served = await serve((req, res) => {
				const url = new URL(req.url ?? '/', 'http://x');
				const c = CASES[Number(url.searchParams.get('case'))];
				if (!c) {
					res.writeHead(404).end();
					return;
				}
				res.writeHead(200, { 'content-type': c.contentType ?? 'text/event-stream' });
				const bytes = Buffer.from(c.wire, 'utf8');
				if (url.searchParams.get('split') !== '1') {
					res.end(bytes);
					return;
				}
				// Small writes, with a pause now and then so the client sees separate chunks.
				const size = bytes.length > 256 ? 97 : 1;
				let i = 0;
				const step = (): void => {
					if (i >= bytes.length) {
						res.end();
						return;
					}
					res.write(bytes.subarray(i, i + size));
					i += size;
					if (i % 3 === 0) {
						setTimeout(step, 1);
					} else {
						step();
					}
				};
				step();
			});
			client = new CloudAgentsClient({
				connect: wire.connect,
				baseUrl: served.baseUrl,
				getToken: () => undefined,
				logger: recordingLogger,
			});
		});

		suiteTeardown(async () => {
			client.close();
			await served.close();
		});

		CASES.forEach((c, index) => {
			for (const split of c.wholeOnly ? [false] : [false, true]) {
				test(`${c.name}${split ? ' (split into small chunks)' : ''}`, async () => {
					const stream = client.streamSse('/sse', { query: { case: index, split: split ? 1 : 0 } });
					if (c.fails) {
						const err = await rejection(stream.next());
						assert.ok(err instanceof ApiError);
						assert.equal(err.code, 'invalid_content_type');
						return;
					}
					const got: SseMessage[] = [];
					for await (const m of stream) {
						got.push(m);
					}
					assert.deepEqual(
						got.map((m) => m.data),
						(c.want ?? []).map((w) => w.data),
					);
					(c.want ?? []).forEach((w, i) => {
						if (w.event !== undefined) {
							assert.equal(got[i]?.event, w.event, `event type of message ${i}`);
						}
						if (w.id !== undefined) {
							assert.equal(got[i]?.lastEventId, w.id, `last event id of message ${i}`);
						}
					});
					if ('retry' in c) {
						assert.equal(got.at(-1)?.retry, c.retry);
					}
				});
			}
		});
	});
}
