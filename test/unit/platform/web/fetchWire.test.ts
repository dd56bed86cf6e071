import * as assert from 'node:assert/strict';
import { type AddressInfo, type Socket, createServer } from 'node:net';
import { fetchConnect } from '../../../../src/platform/web/fetchWire';

/**
 * The fetch wire's body (VS Code for the Web): read as it arrives, so the chunks that came before a
 * connection failed reach the consumer before the failure (a body stream that errors discards what
 * it had queued: an event stream lost the events of the burst before a drop).
 */
suite('fetch wire: the body is read ahead of its consumer', () => {
	test('chunks sent before the connection broke are all handed over, then the failure', async function () {
		this.timeout(20_000);
		let broken!: () => void;
		const brokenNow = new Promise<void>((resolve) => (broken = resolve));
		const sockets: Socket[] = [];
		// A chunked event stream that sends three events, then closes without ending the body (a drop).
		const server = createServer((socket) => {
			sockets.push(socket);
			socket.once('data', () => {
				const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
				socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
				socket.write(chunk('id: 1\ndata: one\n\n'));
				setTimeout(() => {
					socket.write(chunk('id: 2\ndata: two\n\n'));
					socket.write(chunk('id: 3\ndata: three\n\n'), () => {
						socket.destroy();
						broken();
					});
				}, 50);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		const connection = fetchConnect(base, { connectMs: 5_000 });
		try {
			const res = await connection.route().wire.request({
				origin: base.origin,
				path: '/events',
				method: 'GET',
				headers: { accept: 'text/event-stream' },
				headersTimeout: 5_000,
				bodyTimeout: 5_000,
			});
			assert.equal(res.statusCode, 200);
			// The consumer is slow: it reads nothing until the connection has broken.
			await brokenNow;
			// And the client has had time to see it break. The body read ahead passes whatever the timing;
			// this pause only lets the test catch a body that is not read ahead (it fails on one).
			await new Promise((resolve) => setTimeout(resolve, 200));
			const decoder = new TextDecoder();
			let text = '';
			let failure: unknown;
			try {
				for await (const chunk of res.body) {
					text += decoder.decode(chunk, { stream: true });
				}
			} catch (err) {
				failure = err;
			}
			assert.match(text, /data: one\n\n[\s\S]*data: two\n\n[\s\S]*data: three\n\n/, `handed over: ${JSON.stringify(text)}`);
			assert.ok(failure, 'the broken body ends with its failure, not as a complete body');
		} finally {
			connection.close();
			for (const s of sockets) {
				s.destroy();
			}
			await new Promise((resolve) => server.close(resolve));
		}
	});
});

/**
 * Issue 42, item 12: in a browser, a refused connection and a service that does not allow the page's
 * origin (CORS) both reject with "Failed to fetch". The wire asks once more without CORS (an opaque
 * answer) to tell them apart. Here `fetch` is the browser's as the page sees it: a stand-in that
 * rejects the request itself and answers, or not, the probe.
 */
suite('fetch wire: a refusal says whether the service answers', () => {
	const realFetch = globalThis.fetch;
	teardown(() => {
		globalThis.fetch = realFetch;
	});

	async function refusal(probeAnswers: boolean): Promise<{ message: string; probes: RequestInit[] }> {
		const probes: RequestInit[] = [];
		const fake = async (_url: unknown, init?: RequestInit): Promise<Response> => {
			if (init?.mode === 'no-cors') {
				probes.push(init);
				if (probeAnswers) {
					return new Response(null, { status: 200 });
				}
			}
			throw new TypeError('Failed to fetch');
		};
		globalThis.fetch = fake;
		const base = new URL('http://service.example:8787');
		const wire = fetchConnect(base, { connectMs: 5_000 }).route().wire;
		const err = await wire
			.request({
				origin: base.origin,
				path: '/v2/me',
				method: 'GET',
				headers: { authorization: 'Bearer secret-token' },
				headersTimeout: 5_000,
				bodyTimeout: 5_000,
			})
			.then(
				() => assert.fail('the request was refused'),
				(e: unknown) => e as Error,
			);
		return { message: err.message, probes };
	}

	test('the service answers without CORS: it is there and does not allow this origin', async () => {
		const { message, probes } = await refusal(true);
		assert.match(message, /service\.example:8787 answers but does not allow requests from .* \(CORS/);
		assert.equal(probes.length, 1, 'one probe');
		assert.equal(probes[0]?.credentials, 'omit');
		// A browser refuses a no-cors request that does not follow redirects (a TypeError, read as "down").
		assert.ok(probes[0]?.redirect === undefined || probes[0]?.redirect === 'follow', `redirect: ${String(probes[0]?.redirect)}`);
		assert.doesNotMatch(JSON.stringify(probes[0]?.headers ?? {}), /secret-token/, 'the probe carries no token');
	});

	test('the probe fails too: the service could not be reached, and CORS is not named', async () => {
		const { message } = await refusal(false);
		assert.match(message, /service\.example:8787 could not be reached from this browser: is the service running/);
		assert.doesNotMatch(message, /CORS/);
	});
});
