/**
 * GitHubResolver (src/api/githubResolver.ts) against a stub GitHub on loopback: what it sends (path,
 * headers, no token until needed), when it asks for the token (once per resolver), how each answer
 * maps to a failure, redirects read by id at most once, no retries, and cancellation. The parsing
 * and the main journeys are in github.test.ts (src/api/github.ts); these are the resolver's own rules.
 */
import * as assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbortError } from '../../../src/base/async';
import { GitHubLookupError, type RepositoryEntry } from '../../../src/api/github';
import { GITHUB_BODY_MAX_BYTES, GitHubResolver } from '../../../src/api/githubResolver';
import { nodeConnect } from '../../../src/platform/node/network';
import { type Served, serve } from '../support/serve';

const GITHUB_TOKEN = 'gho_resolverStubToken_0123456789';

interface Seen {
	url: string;
	authorization: string | undefined;
	version: string | undefined;
	userAgent: string | undefined;
}

suite('api/githubResolver: GitHubResolver against a stub GitHub', function () {
	this.timeout(20_000);
	let stub: Served | undefined;
	let seen: Seen[];
	const resolvers: GitHubResolver[] = [];

	async function start(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
		seen = [];
		stub = await serve((req, res) => {
			seen.push({
				url: req.url ?? '',
				authorization: req.headers.authorization,
				version: req.headers['x-github-api-version'] as string | undefined,
				userAgent: req.headers['user-agent'],
			});
			handler(req, res);
		});
		return stub.baseUrl;
	}

	function resolver(baseUrl: string, extra: Partial<ConstructorParameters<typeof GitHubResolver>[0]> = {}): GitHubResolver {
		const r = new GitHubResolver({ connect: nodeConnect, baseUrl, ...extra });
		resolvers.push(r);
		return r;
	}

	function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
		res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(
			typeof body === 'string' ? body : JSON.stringify(body),
		);
	}

	const named = (owner: string, repo: string, branch?: string): RepositoryEntry => ({
		owner,
		repo,
		text: `${owner}/${repo}${branch ? `@${branch}` : ''}`,
		...(branch ? { branch } : {}),
	});

	async function failure(promise: Promise<unknown>): Promise<GitHubLookupError> {
		try {
			await promise;
		} catch (err) {
			assert.ok(err instanceof GitHubLookupError, String(err));
			assert.ok(!err.message.includes(GITHUB_TOKEN), err.message);
			return err;
		}
		assert.fail('resolved');
	}

	teardown(async () => {
		for (const r of resolvers.splice(0)) {
			r.close();
		}
		await stub?.close();
		stub = undefined;
	});

	test('an answer of exactly GITHUB_BODY_MAX_BYTES is read; one byte more is an invalid response, not a partial read', async () => {
		const sized = (bytes: number): string => {
			const head = '{"id":3,"default_branch":"main","pad":"';
			return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
		};
		assert.equal(Buffer.byteLength(sized(GITHUB_BODY_MAX_BYTES)), GITHUB_BODY_MAX_BYTES);
		let body = sized(GITHUB_BODY_MAX_BYTES);
		const base = await start((_req, res) => send(res, 200, body));
		assert.deepEqual(await resolver(base).resolve(named('a', 'b')), { repository_id: 3, branch: 'main' });
		body = sized(GITHUB_BODY_MAX_BYTES + 1);
		const err = await failure(resolver(base).resolve(named('a', 'b')));
		assert.equal(err.failure, 'invalid_response');
		assert.match(err.message, new RegExp(`larger than ${GITHUB_BODY_MAX_BYTES} bytes`));
	});

	test('a GET below the base path, with the API version header and the user agent (default or given), and no token', async () => {
		const base = await start((_req, res) => send(res, 200, { id: 10, default_branch: 'main' }));
		await resolver(`${base}/api/v3`).resolve(named('octo-cat', 'my.repo_1'));
		await resolver(`${base}/api/v3/`, { userAgent: 'test-agent/1' }).resolve({ id: 10, text: '10' });
		assert.deepEqual(seen, [
			{ url: '/api/v3/repos/octo-cat/my.repo_1', authorization: undefined, version: '2022-11-28', userAgent: 'cloud-agents-vscode' },
			{ url: '/api/v3/repositories/10', authorization: undefined, version: '2022-11-28', userAgent: 'test-agent/1' },
		]);
	});

	test('an empty token counts as none; the token is asked for once per resolver, even when declined', async () => {
		const base = await start((_req, res) => send(res, 404, { message: 'Not Found' }));
		let asked = 0;
		const r = resolver(base, {
			getToken: () => {
				asked++;
				return Promise.resolve('');
			},
		});
		assert.equal((await failure(r.resolve(named('a', 'one')))).signedIn, false);
		assert.equal((await failure(r.resolve(named('a', 'two')))).failure, 'not_found');
		assert.equal(asked, 1);
		assert.equal(seen.length, 2, 'no second request without a token');
		assert.ok(seen.every((s) => s.authorization === undefined));
	});

	test('401: not found while anonymous (a private repository looks missing); refused once the token was sent', async () => {
		const base = await start((_req, res) => send(res, 401, { message: 'Bad credentials' }));
		const anonymous = await failure(resolver(base).resolve(named('a', 'b')));
		assert.deepEqual([anonymous.failure, anonymous.signedIn, anonymous.entry], ['not_found', false, 'a/b']);
		const signedIn = await failure(resolver(base, { getToken: () => Promise.resolve(GITHUB_TOKEN) }).resolve(named('a', 'b')));
		assert.deepEqual([signedIn.failure, signedIn.signedIn], ['refused', true]);
		assert.equal(signedIn.message, 'GitHub refused the request (HTTP 401)');
		assert.equal(seen.at(-1)?.authorization, `Bearer ${GITHUB_TOKEN}`);
	});

	test('a server error is a refusal, sent once (no retries), and later entries are not asked for', async () => {
		const base = await start((_req, res) => send(res, 503, { message: 'unavailable' }, { 'retry-after': '0' }));
		const err = await failure(resolver(base).resolveAll([named('a', 'first'), named('a', 'second')]));
		assert.equal(err.failure, 'refused');
		assert.equal(err.entry, 'a/first');
		assert.match(err.message, /HTTP 503/);
		assert.deepEqual(
			seen.map((s) => s.url),
			['/repos/a/first'],
		);
	});

	test('a redirect whose body names no repository on this API, and a second redirect, are invalid responses', async () => {
		let base = '';
		base = await start((req, res) => {
			if (req.url === '/repos/a/no-url') {
				send(res, 307, { message: 'Temporary Redirect' }, { location: `${base}/repositories/5` });
			} else if (req.url === '/repos/a/zero') {
				send(res, 308, { url: `${base}/repositories/0` });
			} else if (req.url === '/repos/a/twice') {
				send(res, 301, { url: `${base}/repositories/6` });
			} else if (req.url === '/repositories/6') {
				send(res, 302, { url: `${base}/repositories/7` });
			} else {
				send(res, 200, { id: 7, default_branch: 'main' });
			}
		});
		const r = resolver(base);
		const noUrl = await failure(r.resolve(named('a', 'no-url')));
		assert.deepEqual(
			[noUrl.failure, noUrl.message],
			['invalid_response', 'GitHub answered with a redirect (HTTP 307) that was not followed'],
		);
		assert.equal((await failure(r.resolve(named('a', 'zero')))).failure, 'invalid_response', 'id 0 is no repository');
		const twice = await failure(r.resolve(named('a', 'twice')));
		assert.deepEqual([twice.failure, twice.message], ['invalid_response', 'GitHub answered with a redirect twice']);
		assert.ok(!seen.some((s) => s.url === '/repositories/7'), 'the second redirect is not followed');
		assert.ok(!seen.some((s) => s.url === '/repositories/5'), 'the Location header is never followed');
	});

	test('a given branch is kept over the default branch; an id with a branch asks nothing', async () => {
		const base = await start((_req, res) => send(res, 200, { id: 42, default_branch: 'main' }));
		const r = resolver(base);
		assert.deepEqual(await r.resolve(named('a', 'b', 'feature/x')), { repository_id: 42, branch: 'feature/x' });
		assert.deepEqual(await r.resolve({ id: 9, branch: 'dev', text: '9@dev' }), { repository_id: 9, branch: 'dev' });
		assert.equal(seen.length, 1);
	});

	test('a cancelled lookup rejects with the abort error, not a lookup failure', async () => {
		const base = await start(() => {
			// Never answers: only the abort ends the request.
		});
		const controller = new AbortController();
		const pending = resolver(base).resolve(named('a', 'b'), controller.signal);
		await waitFor(() => seen.length === 1);
		controller.abort();
		await assert.rejects(pending, (err: unknown) => isAbortError(err) && !(err instanceof GitHubLookupError));
		const before = new AbortController();
		before.abort();
		await assert.rejects(resolver(base).resolve(named('a', 'c'), before.signal), (err: unknown) => isAbortError(err));
		assert.equal(seen.length, 1, 'an aborted signal sends nothing');
	});
});

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
