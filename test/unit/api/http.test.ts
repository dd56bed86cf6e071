/**
 * The transport (src/api/http.ts) on its own, over real HTTP to a loopback server and over both
 * wires: the base URL check, what every request carries, body bounds (declared and streamed),
 * error bodies, redirects refused with a token on board, the overall deadline, retry bounds and the
 * budget, tokens kept out of what it returns and logs. The client-level journeys are in
 * transport.test.ts; the deadline arithmetic on a fake clock in retry.test.ts.
 */
import * as assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, NetworkError, ValidationError } from '../../../src/api/errors';
import {
	BodyTooLargeError,
	type RequestSpec,
	Transport,
	type TransportOptions,
	checkBaseUrl,
	discardBody,
	errorFromBody,
	readBounded,
	toApiError,
} from '../../../src/api/http';
import type { WireResponse } from '../../../src/api/wire';
import { isAbortError } from '../../../src/base/async';
import { SAFETY } from '../../../src/base/limits';
import type { Logger } from '../../../src/base/logger';
import { recordingLogger, rejection } from '../support/leaks';
import { type Served, serve } from '../support/serve';
import { WIRES } from '../support/wires';

const TOKEN = 'ca_first_token_1';
const RID = '0190f1c2-aaaa-7bbb-8ccc-000000000000';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
	const err = await rejection(promise);
	assert.ok(err instanceof ApiError, String(err));
	assert.ok(!err.message.includes(TOKEN), err.message);
	return err;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
	res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

suite('api/http: checkBaseUrl', () => {
	test('https anywhere, http on loopback; query and fragment dropped, the path kept', () => {
		const url = checkBaseUrl('https://api.example.test/base/v?x=1#frag');
		assert.equal(url.href, 'https://api.example.test/base/v');
		assert.equal(checkBaseUrl(new URL('http://127.0.0.1:8787/')).href, 'http://127.0.0.1:8787/');
		assert.equal(checkBaseUrl('http://[::1]:9').host, '[::1]:9');
	});

	test('refused with a ValidationError on baseUrl: not a URL, another protocol, plain http elsewhere, credentials', () => {
		const cases: Array<[string, RegExp]> = [
			['api.example.test', /not a valid URL/],
			['', /not a valid URL/],
			['ftp://api.example.test', /protocol ftp: is not supported/],
			['ws://localhost:1', /protocol ws: is not supported/],
			['http://api.example.test', /http: is refused for the non-loopback host api\.example\.test; use https:/],
			['http://localhost.evil.test', /non-loopback host/],
			['https://user@api.example.test', /must not carry credentials/],
			['https://:secret@api.example.test', /must not carry credentials/],
		];
		for (const [input, message] of cases) {
			assert.throws(
				() => checkBaseUrl(input),
				(err: unknown) => err instanceof ValidationError && err.field === 'baseUrl' && message.test(err.message),
				input,
			);
		}
	});
});

suite('api/http: errorFromBody', () => {
	test("the service's envelope: code, message and request id (the body's wins over the header's)", () => {
		const err = errorFromBody(
			409,
			JSON.stringify({ error: { code: 'conflict', message: 'revision moved' }, request_id: RID }),
			'header-id',
			3,
		);
		assert.deepEqual([err.status, err.code, err.message, err.requestId, err.retryAfter], [409, 'conflict', 'revision moved', RID, 3]);
		assert.equal(errorFromBody(500, '{"error":{"code":"x"}}', 'header-id', undefined).requestId, 'header-id');
	});

	test("the device flow's shape: error as a string with error_description", () => {
		const err = errorFromBody(400, '{"error":"authorization_pending","error_description":"Not yet"}', undefined, undefined);
		assert.deepEqual([err.code, err.message], ['authorization_pending', 'Not yet']);
	});

	test('without an envelope: HTTP status with a folded snippet of text (never of HTML), or a note that there were no details', () => {
		assert.equal(errorFromBody(502, '  Bad\n\n  gateway  ', undefined, undefined).message, 'HTTP 502: Bad gateway');
		assert.equal(
			errorFromBody(502, '<html><body>Bad gateway</body></html>', undefined, undefined).message,
			'HTTP 502 (no error details in the response)',
		);
		assert.equal(errorFromBody(500, '', undefined, undefined).message, 'HTTP 500 (no error details in the response)');
		assert.equal(errorFromBody(500, '{not json', undefined, undefined).message, 'HTTP 500: {not json');
		assert.equal(errorFromBody(500, 'y'.repeat(5000), undefined, undefined).message, `HTTP 500: ${'y'.repeat(200)}`);
		assert.equal(errorFromBody(418, 'teapot', undefined, undefined).code, 'http_418');
	});

	test('a redirect is redirect_not_followed unless the body names its own code', () => {
		const err = errorFromBody(307, '', undefined, undefined);
		assert.equal(err.code, 'redirect_not_followed');
		assert.match(err.message, /HTTP 307.*redirects are not followed/);
		assert.equal(errorFromBody(301, '{"error":{"code":"moved","message":"m"}}', undefined, undefined).code, 'moved');
	});

	test('secrets are scrubbed from the message and field errors; a request id holding one is dropped', () => {
		const body = JSON.stringify({
			error: { code: 'bad', message: `token ${TOKEN} refused`, details: [{ field: 'prompt', message: `has ${TOKEN}` }] },
			request_id: `id-${TOKEN}`,
		});
		const err = errorFromBody(400, body, undefined, undefined, [TOKEN]);
		assert.ok(!err.message.includes(TOKEN), err.message);
		assert.equal(err.requestId, undefined);
		assert.equal(err.requestIdRejected, true);
		assert.equal(err.fieldErrors.length, 1);
		assert.ok(!JSON.stringify(err.fieldErrors).includes(TOKEN));
	});
});

for (const wire of WIRES) {
	suite(`api/http: Transport over ${wire.name}`, function () {
		this.timeout(20_000);
		let served: Served;
		let handler: Handler;
		let requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
		let lines: string[];
		const transports: Transport[] = [];
		const timers: Array<ReturnType<typeof setInterval>> = [];

		const logger: Logger = {
			debug: (message: string, ...args: unknown[]) => {
				lines.push(message);
				recordingLogger.debug(message, ...args);
			},
		};

		function transport(extra: Partial<TransportOptions> = {}): Transport {
			const t = new Transport({
				baseUrl: served.baseUrl,
				getToken: () => TOKEN,
				connect: wire.connect,
				logger,
				retry: { baseDelayMs: 1, maxDelayMs: 5, minDelayMs: 1 },
				...extra,
			});
			transports.push(t);
			return t;
		}

		const get = (extra: Partial<RequestSpec> = {}): RequestSpec => ({ method: 'GET', path: '/v2/thing', idempotent: true, ...extra });

		/** The wire's own response to a GET of `path` (for the body readers). */
		async function rawResponse(t: Transport, path: string): Promise<WireResponse> {
			return t.connection.route().wire.request({
				origin: t.base.origin,
				path,
				method: 'GET',
				headers: {},
				headersTimeout: 5_000,
				bodyTimeout: 5_000,
			});
		}

		suiteSetup(async () => {
			served = await serve((req, res) => {
				let body = '';
				req.setEncoding('utf8');
				req.on('data', (c: string) => (body += c));
				req.on('end', () => {
					requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
					handler(req, res, body);
				});
			});
		});
		setup(() => {
			requests = [];
			lines = [];
		});
		teardown(() => {
			timers.splice(0).forEach((t) => clearInterval(t));
			transports.splice(0).forEach((t) => t.close());
			served.server.closeAllConnections();
		});
		suiteTeardown(() => served.close());

		test('timeouts: the defaults, and the ones given', () => {
			assert.deepEqual(transport().timeouts, {
				connectMs: 10_000,
				headersMs: 30_000,
				bodyMs: 30_000,
				streamIdleMs: SAFETY.streamIdleMs,
				deadlineMs: SAFETY.requestDeadlineMs,
				transferDeadlineMs: SAFETY.transferDeadlineMs,
			});
			assert.equal(transport({ timeouts: { deadlineMs: 5, headersMs: 7 } }).timeouts.deadlineMs, 5);
		});

		test('the path goes below the base path; query members are encoded, null and undefined left out', async () => {
			handler = (_req, res) => json(res, 200, {});
			const t = transport({ baseUrl: `${served.baseUrl}/api/` });
			const query = { q: 'a b&c', n: 2, yes: true, none: undefined, nil: null, 'k=': '/é' };
			assert.equal(t.target('/v2/x', query), '/api/v2/x?q=a%20b%26c&n=2&yes=true&k%3D=%2F%C3%A9');
			assert.equal(t.target('/v2/x', { none: undefined }), '/api/v2/x');
			await t.send(get({ path: '/v2/x', query }));
			assert.equal(requests[0]?.url, '/api/v2/x?q=a%20b%26c&n=2&yes=true&k%3D=%2F%C3%A9');
		});

		test('headers: accept, user agent and the bearer token; content-type only with a body; auth: false sends no token', async () => {
			handler = (_req, res) => json(res, 200, { ok: true });
			const t = transport({ userAgent: 'ua-test/2' });
			await t.send(get());
			await t.send({ method: 'POST', path: '/v2/thing', idempotent: false, body: { a: [1, 'two'] } });
			await t.send(get({ auth: false, headers: { accept: 'application/vnd.other+json', 'x-extra': '1' } }));
			const [plain, post, anonymous] = requests;
			assert.equal(plain?.headers.accept, 'application/json');
			if (wire.name === 'undici') {
				assert.equal(plain?.headers['user-agent'], 'ua-test/2', "the browser's fetch wire leaves it to the browser");
			}
			assert.equal((await t.headers({}, 'application/json', false))['user-agent'], 'ua-test/2');
			assert.equal(plain?.headers.authorization, `Bearer ${TOKEN}`);
			assert.equal(plain?.headers['content-type'], undefined);
			assert.equal(post?.headers['content-type'], 'application/json');
			assert.equal(post?.body, '{"a":[1,"two"]}');
			assert.equal(anonymous?.headers.authorization, undefined);
			assert.equal(anonymous?.headers.accept, 'application/vnd.other+json', "the spec's headers win");
			assert.equal(anonymous?.headers['x-extra'], '1');
		});

		test('no token from the provider (undefined or empty): no authorization header', async () => {
			handler = (_req, res) => json(res, 200, {});
			await transport({ getToken: () => undefined }).send(get());
			await transport({ getToken: () => Promise.resolve('') }).send(get());
			assert.deepEqual(
				requests.map((r) => r.headers.authorization),
				[undefined, undefined],
			);
			assert.equal(transport().longestTokenChars, 0, 'no token seen before the first request');
		});

		test('answers: JSON decoded; empty, 204 and HEAD are undefined; a plausible X-Request-Id is kept', async () => {
			handler = (req, res) => {
				if (req.url === '/v2/empty') {
					res.writeHead(200, { 'x-request-id': 'bad id with spaces' }).end();
				} else if (req.url === '/v2/none') {
					res.writeHead(204).end();
				} else {
					json(res, 200, { n: 1 }, { 'x-request-id': RID });
				}
			};
			const t = transport();
			assert.deepEqual(await t.send(get()), { status: 200, body: { n: 1 }, requestId: RID });
			assert.deepEqual(await t.send(get({ method: 'HEAD' })), { status: 200, body: undefined, requestId: RID });
			assert.deepEqual(await t.send(get({ path: '/v2/empty' })), { status: 200, body: undefined, requestId: undefined });
			assert.equal((await t.send(get({ path: '/v2/none' }))).status, 204);
		});

		test('a 2xx that is not JSON is invalid_response with its status; accepted statuses come back as results', async () => {
			handler = (req, res) => {
				if (req.url === '/v2/html') {
					res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
				} else {
					json(res, 400, { error: 'authorization_pending' });
				}
			};
			const t = transport();
			const err = await apiError(t.send(get({ path: '/v2/html' })));
			assert.deepEqual([err.status, err.code], [200, 'invalid_response']);
			assert.deepEqual(await t.send(get({ acceptStatuses: [400] })), {
				status: 400,
				body: { error: 'authorization_pending' },
				requestId: undefined,
			});
		});

		test('a token the server echoes is redacted from the decoded body and refused as a request id', async () => {
			handler = (_req, res) => json(res, 200, { echoed: `you sent ${TOKEN}` }, { 'x-request-id': `rid-${TOKEN}` });
			const t = transport();
			const result = await t.send<{ echoed: string }>(get());
			assert.equal(result.body.echoed, 'you sent <redacted>');
			assert.equal(result.requestId, undefined);
			assert.equal(t.containsToken(`x${TOKEN}y`), true);
			assert.equal(t.redactTokens(`a ${TOKEN} b ${TOKEN}`), 'a <redacted> b <redacted>');
			assert.equal(t.longestTokenChars, TOKEN.length);
			assert.equal(t.checkRequestId(RID), RID);
			assert.equal(t.checkRequestId(`${TOKEN}`), undefined);
			assert.equal(t.scrub(`Authorization: Bearer ${TOKEN}`).includes(TOKEN), false);
		});

		test('tokens shorter than 4 characters are never searched for (they would redact ordinary text)', async () => {
			handler = (_req, res) => json(res, 200, { text: 'abc abc' });
			const t = transport({ getToken: () => 'abc' });
			assert.deepEqual((await t.send(get())).body, { text: 'abc abc' });
			assert.equal(t.containsToken('abc'), false);
		});

		test('body bound: a declared length at the bound is read; over it, response_too_large without reading', async () => {
			const max = 100;
			handler = (req, res) => {
				const size = Number(req.url?.split('/').at(-1));
				const text = `"${'x'.repeat(size - 2)}"`;
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }).end(text);
			};
			const t = transport();
			assert.equal((await t.send<string>(get({ path: `/v2/sized/${max}`, maxBodyBytes: max }))).body.length, max - 2);
			const err = await apiError(t.send(get({ path: `/v2/sized/${max + 1}`, maxBodyBytes: max })));
			assert.deepEqual([err.status, err.code], [200, 'response_too_large']);
			assert.match(err.message, /larger than 100 bytes; it was not read/);
			assert.equal(requests.length, 2, 'too large is not retried');
		});

		test('body bound: a streamed body (no length) is cut as soon as it passes the bound', async () => {
			handler = (req, res) => {
				const size = Number(req.url?.split('/').at(-1));
				res.writeHead(200, { 'content-type': 'application/json' });
				res.write('"');
				res.write('y'.repeat(size - 2));
				res.end('"');
			};
			const t = transport();
			assert.equal((await t.send<string>(get({ path: '/v2/stream/64', maxBodyBytes: 64 }))).body.length, 62);
			assert.equal((await apiError(t.send(get({ path: '/v2/stream/65', maxBodyBytes: 64 })))).code, 'response_too_large');
		});

		test('the default bound is SAFETY.jsonBodyMaxBytes', async () => {
			handler = (_req, res) => {
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(SAFETY.jsonBodyMaxBytes + 1) });
				res.end(); // The length alone refuses it; nothing need arrive.
			};
			assert.equal((await apiError(transport().send(get()))).code, 'response_too_large');
		});

		test('error bodies are read up to SAFETY.errorBodyMaxBytes: an envelope beyond it is not parsed', async () => {
			handler = (req, res) => {
				const pad = req.url === '/v2/big' ? SAFETY.errorBodyMaxBytes : 10;
				json(res, 500, { error: { code: 'internal_x', message: 'broke' }, pad: 'p'.repeat(pad) });
			};
			const t = transport();
			assert.equal((await apiError(t.send(get({ path: '/v2/small' })))).code, 'internal_x');
			const big = await apiError(t.send(get({ path: '/v2/big' })));
			assert.equal(big.code, 'http_500');
			assert.match(big.message, /^HTTP 500: \{"error"/);
		});

		test('a redirect is never followed, the token stays with this server, and it is not retried', async () => {
			let elsewhere = 0;
			const other = await serve((_req, res) => {
				elsewhere++;
				json(res, 200, { stolen: true });
			});
			try {
				for (const status of [301, 302, 303, 307, 308]) {
					handler = (_req, res) => res.writeHead(status, { location: `${other.baseUrl}/steal` }).end();
					const err = await apiError(transport().send(get()));
					assert.deepEqual([err.status, err.code], [status, 'redirect_not_followed']);
				}
				assert.equal(requests.length, 5);
				assert.equal(elsewhere, 0, 'the other host was never contacted');
			} finally {
				await other.close();
			}
		});

		test('idempotent requests are retried on 429/503/504 up to maxAttempts; 500 and non-idempotent ones are sent once', async () => {
			let status = 503;
			handler = (_req, res) => json(res, status, { error: { code: `s${status}`, message: 'no' } });
			const t = transport({ retry: { baseDelayMs: 1, maxDelayMs: 2, minDelayMs: 1, maxAttempts: 4 } });
			assert.equal((await apiError(t.send(get()))).status, 503);
			assert.equal(requests.length, 4);
			for (const s of [429, 504]) {
				requests = [];
				status = s;
				await apiError(t.send(get()));
				assert.equal(requests.length, 4, String(s));
			}
			requests = [];
			status = 500;
			await apiError(t.send(get()));
			assert.equal(requests.length, 1, '500 is not retried');
			requests = [];
			status = 503;
			await apiError(t.send({ method: 'POST', path: '/v2/thing', idempotent: false, body: {} }));
			assert.equal(requests.length, 1, 'a POST is not retried');
			assert.ok(lines.some((l) => /GET \/v2\/thing: retrying in \d+ ms/.test(l)));
		});

		test('a retry sends the same body again', async () => {
			let n = 0;
			handler = (_req, res) => (++n === 1 ? json(res, 503, {}) : json(res, 200, { done: true }));
			await transport().send({ method: 'PUT', path: '/v2/thing', idempotent: true, body: { v: 'é' } });
			assert.deepEqual(
				requests.map((r) => r.body),
				['{"v":"é"}', '{"v":"é"}'],
			);
		});

		test('Retry-After: honoured when short; longer than maxRetryAfterMs or past the deadline, surfaced at once', async () => {
			let after = '0';
			let n = 0;
			handler = (_req, res) => (++n === 1 || after !== '0' ? json(res, 429, {}, { 'retry-after': after }) : json(res, 200, {}));
			assert.equal((await transport().send(get())).status, 200);
			assert.equal(requests.length, 2);

			requests = [];
			after = '5';
			const capped = await apiError(transport({ retry: { maxRetryAfterMs: 1_000 } }).send(get()));
			assert.deepEqual([capped.status, capped.retryAfter, requests.length], [429, 5, 1]);

			requests = [];
			after = '2';
			const late = await apiError(transport({ timeouts: { deadlineMs: 1_500 } }).send(get()));
			assert.deepEqual([late.status, late.retryAfter, requests.length], [429, 2, 1]);
			assert.ok(
				lines.some((l) => /not retrying: a retry in 2000 ms could not answer before the overall deadline \(1\.5 s\)/.test(l)),
			);
		});

		test('the retry budget is shared by the requests of one transport; a success refills it', async () => {
			let ok = false;
			handler = (_req, res) => (ok ? json(res, 200, {}) : json(res, 503, {}));
			const t = transport({ retry: { baseDelayMs: 1, maxDelayMs: 1, minDelayMs: 1, maxAttempts: 5, budget: 2, budgetRefill: 1 } });
			await apiError(t.send(get()));
			assert.equal(requests.length, 3, 'two retries, then the budget is spent');
			assert.equal(t.budget.available, 0);
			requests = [];
			await apiError(t.send(get()));
			assert.equal(requests.length, 1, 'no retry left');
			assert.ok(lines.some((l) => l.includes('retry budget exhausted')));
			ok = true;
			await t.send(get());
			assert.equal(t.budget.available, 1);
		});

		test('the overall deadline ends a request whose headers never come, and says so', async () => {
			handler = () => {
				// Never answers.
			};
			const t = transport({ timeouts: { deadlineMs: 200, headersMs: 10_000, bodyMs: 10_000 } });
			const started = Date.now();
			const err = await apiError(t.send(get()));
			assert.ok(err instanceof NetworkError);
			assert.equal(err.code, 'timeout');
			assert.equal(err.message, "No complete answer within 0.2 s (the request's overall deadline, retries included; 1 attempt)");
			assert.ok(Date.now() - started < 5_000);
			assert.equal(requests.length, 1, 'no retry after the deadline');
		});

		test('the overall deadline ends a body that keeps trickling (each byte within the body time-out)', async () => {
			handler = (_req, res) => {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.write('[');
				timers.push(setInterval(() => res.write(' '), 20));
			};
			const t = transport({ timeouts: { deadlineMs: 200, headersMs: 10_000, bodyMs: 10_000 } });
			const err = await apiError(t.send(get()));
			assert.equal(err.code, 'timeout');
			assert.match(err.message, /within 0\.2 s/);
		});

		test('a transfer gets the transfer deadline instead of the ordinary one', async () => {
			handler = () => undefined;
			const t = transport({ timeouts: { deadlineMs: 60_000, transferDeadlineMs: 200, headersMs: 10_000 } });
			const err = await apiError(t.send(get({ transfer: true })));
			assert.match(err.message, /within 0\.2 s/);
		});

		test('cancellation: an aborted signal sends nothing; an abort in flight rejects with the abort error', async () => {
			handler = () => undefined;
			const before = new AbortController();
			before.abort();
			const t = transport();
			assert.ok(isAbortError(await rejection(t.send(get({ signal: before.signal })))));
			assert.equal(requests.length, 0);
			const during = new AbortController();
			const pending = t.send(get({ signal: during.signal }));
			await waitFor(() => requests.length === 1);
			during.abort();
			const err = await rejection(pending);
			assert.ok(isAbortError(err), String(err));
			assert.ok(!(err instanceof ApiError));
		});

		test('nothing listening: connection_refused, not sent; a POST is not retried', async () => {
			const port = await deadPort();
			const t = transport({ baseUrl: `http://127.0.0.1:${port}` });
			const err = await apiError(t.send({ method: 'POST', path: '/v2/x', idempotent: false, body: {} }));
			assert.ok(err instanceof NetworkError);
			assert.equal(err.status, 0);
			assert.equal(err.requestSent, false);
			assert.ok(['connection_refused', 'network_error'].includes(err.code), err.code);
			assert.equal(lines.filter((l) => l.includes('POST /v2/x →')).length, 1, 'one attempt');
		});

		test('log lines name the route, status, request id and attempt, and never the token', async () => {
			handler = (_req, res) => json(res, 200, {}, { 'x-request-id': RID });
			await transport().send(get({ route: 'GET /v2/thing/{id}' }));
			assert.ok(
				lines.some((l) => new RegExp(`^GET /v2/thing/\\{id\\} → 200 in \\d+ ms \\(request ${RID}, attempt 1\\)$`).test(l)),
				lines.join('\n'),
			);
			transport().debug(`sent Bearer ${TOKEN}`);
			assert.ok(lines.every((l) => !l.includes(TOKEN)));
		});

		suite('openStream', () => {
			test('asks for an event stream without caching and hands back the 200 response', async () => {
				handler = (_req, res) => {
					res.writeHead(200, { 'content-type': 'text/event-stream' });
					res.end('data: 1\n\n');
				};
				const res = await transport().openStream({ method: 'GET', path: '/v2/events', query: { after: 3 } });
				assert.equal(res.statusCode, 200);
				assert.equal(await res.body.text(), 'data: 1\n\n');
				assert.equal(requests[0]?.url, '/v2/events?after=3');
				assert.equal(requests[0]?.headers.accept, 'text/event-stream');
				if (wire.name === 'undici') {
					assert.equal(requests[0]?.headers['cache-control'], 'no-cache', "the browser's fetch wire leaves it to the browser");
				}
				assert.equal(requests[0]?.headers.authorization, `Bearer ${TOKEN}`);
			});

			test('another status is an ApiError from its body; a redirect is not followed; nothing listening is a NetworkError', async () => {
				handler = (req, res) =>
					req.url === '/v2/moved'
						? res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end()
						: json(res, 404, { error: { code: 'not_found', message: 'no run' } }, { 'x-request-id': RID });
				const t = transport();
				const missing = await apiError(t.openStream({ method: 'GET', path: '/v2/events' }));
				assert.deepEqual([missing.status, missing.code, missing.requestId], [404, 'not_found', RID]);
				assert.equal((await apiError(t.openStream({ method: 'GET', path: '/v2/moved' }))).code, 'redirect_not_followed');
				const port = await deadPort();
				const down = await apiError(transport({ baseUrl: `http://127.0.0.1:${port}` }).openStream({ method: 'GET', path: '/x' }));
				assert.ok(down instanceof NetworkError);
			});

			test('an aborted signal rejects with the abort error', async () => {
				handler = () => undefined;
				const controller = new AbortController();
				const pending = transport().openStream({ method: 'GET', path: '/v2/events', signal: controller.signal });
				await waitFor(() => requests.length === 1);
				controller.abort();
				assert.ok(isAbortError(await rejection(pending)));
			});
		});

		suite('body readers on a real response', () => {
			test('readBounded: within the bound the whole text; strict over it a BodyTooLargeError; lenient keeps the first bytes', async () => {
				handler = (req, res) => {
					const chunked = req.url === '/chunked';
					res.writeHead(200, chunked ? {} : { 'content-length': '26' });
					res.end('abcdefghijklmnopqrstuvwxyz');
				};
				const t = transport();
				assert.equal(await readBounded(await rawResponse(t, '/sized'), 26, true), 'abcdefghijklmnopqrstuvwxyz');
				assert.equal(await readBounded(await rawResponse(t, '/chunked'), 26, true), 'abcdefghijklmnopqrstuvwxyz');

				const strict = await rawResponse(t, '/sized');
				await assert.rejects(readBounded(strict, 10, true), (err: unknown) => err instanceof BodyTooLargeError && err.limit === 10);
				assert.equal(strict.body.destroyed, true, 'the refused body is released');
				await assert.rejects(readBounded(await rawResponse(t, '/chunked'), 10, true), BodyTooLargeError);

				for (const path of ['/sized', '/chunked']) {
					const lenient = await rawResponse(t, path);
					assert.equal(await readBounded(lenient, 10, false), 'abcdefghij', path);
					assert.equal(lenient.body.destroyed, true, `${path}: the rest is not read`);
				}
			});

			test('discardBody releases a body once, and twice is harmless', async () => {
				handler = (_req, res) => {
					res.writeHead(200);
					res.write('partial');
				};
				const res = await rawResponse(transport(), '/open');
				discardBody(res.body, new Error('not wanted'));
				assert.equal(res.body.destroyed, true);
				discardBody(res.body);
			});

			test("toApiError: status, envelope, request id and Retry-After from the response; the caller's secrets scrubbed", async () => {
				handler = (_req, res) =>
					json(
						res,
						503,
						{ error: { code: 'unavailable', message: `down for ${TOKEN}` } },
						{ 'x-request-id': RID, 'retry-after': '7' },
					);
				const err = await toApiError(await rawResponse(transport(), '/x'), [TOKEN]);
				assert.deepEqual([err.status, err.code, err.requestId, err.retryAfter], [503, 'unavailable', RID, 7]);
				assert.equal(err.message, 'down for <redacted>');
			});
		});
	});
}

/** Waits (real time, bounded) until `condition` holds. */
async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > until) {
			throw new Error('condition not met in time');
		}
		await new Promise((r) => setTimeout(r, 5));
	}
}
