/**
 * Create Agent's repositories as people type them (issue 20 item 12): `owner/name[@branch]` and
 * `id[@branch]` parsed before anything is sent, names resolved to ids through GitHub's REST API (a
 * stub GitHub here): anonymously first, a GitHub token only when GitHub does not show the repository
 * anonymously, GitHub's answer decoded and bounded, a deadline, redirects not followed.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
	GitHubLookupError,
	GitHubResolver,
	decodeGitHubRepository,
	isBranchName,
	parseRepositoryRef,
	parseRepositoryRefs,
	type RepositoryEntry,
} from '../../../src/api';
import { type Served, serve } from '../support/serve';
import { nodeConnect } from '../../../src/platform/node/network';

const GITHUB_TOKEN = 'gho_stubGitHubToken0123456789';

suite('GitHub repositories (Create Agent)', function () {
	this.timeout(30_000);

	suite('parsing what is typed', () => {
		test('owner/name, with or without a branch', () => {
			assert.deepEqual(parseRepositoryRef('octocat/hello-world'), {
				text: 'octocat/hello-world',
				owner: 'octocat',
				repo: 'hello-world',
			});
			assert.deepEqual(parseRepositoryRef('octocat/Hello.World_2@feature/x'), {
				text: 'octocat/Hello.World_2@feature/x',
				owner: 'octocat',
				repo: 'Hello.World_2',
				branch: 'feature/x',
			});
			assert.deepEqual(parseRepositoryRef('octocat/hello-world.git@main'), {
				text: 'octocat/hello-world.git@main',
				owner: 'octocat',
				repo: 'hello-world',
				branch: 'main',
			});
		});

		test('the numeric form is still taken, with or without a branch', () => {
			assert.deepEqual(parseRepositoryRef('123456789@main'), { text: '123456789@main', id: 123456789, branch: 'main' });
			assert.deepEqual(parseRepositoryRef('42'), { text: '42', id: 42 });
		});

		test('shapes that are not a repository are refused with their reason', () => {
			const cases: Array<[string, string]> = [
				['octocat', 'shape'],
				['a/b/c', 'shape'],
				['/hello', 'owner'],
				['-octo/hello', 'owner'],
				['octo--cat/hello', 'owner'],
				[`${'o'.repeat(40)}/hello`, 'owner'],
				['octocat/', 'name'],
				['octocat/..', 'name'],
				['octocat/hel lo', 'name'],
				['octocat/hél', 'name'],
				[`octocat/${'r'.repeat(101)}`, 'name'],
				['0@main', 'id'],
				['99999999999999999@main', 'id'],
				['octocat/hello@', 'branch'],
				['octocat/hello@bad..name', 'branch'],
				['octocat/hello@a:b', 'branch'],
				['octocat/hello@/main', 'branch'],
				[`12@${'b'.repeat(256)}`, 'branch'],
			];
			for (const [entry, problem] of cases) {
				const parsed = parseRepositoryRef(entry);
				assert.deepEqual(parsed, { problem }, entry);
			}
		});

		test('a list is split on commas and white space; the first bad entry is named', () => {
			const ok = parseRepositoryRefs(' octocat/hello-world, 77@dev\n12 ');
			assert.ok('refs' in ok);
			assert.deepEqual(
				ok.refs.map((r) => r.text),
				['octocat/hello-world', '77@dev', '12'],
			);
			assert.deepEqual(parseRepositoryRefs(''), { refs: [] });
			assert.deepEqual(parseRepositoryRefs('octocat/hello, nope, x/y'), { entry: 'nope', problem: 'shape' });
			const long = parseRepositoryRefs('x'.repeat(500));
			assert.ok('entry' in long && long.entry.length === 60);
		});

		test('branch names follow git', () => {
			for (const good of ['main', 'feature/x', 'release-1.2', 'a@b']) {
				assert.ok(isBranchName(good), good);
			}
			for (const bad of [
				'',
				'a b',
				'a..b',
				'a~1',
				'a^',
				'a:b',
				'a?',
				'a*',
				'a[',
				'a\\b',
				'a@{1}',
				'a//b',
				'/a',
				'a/',
				'a.',
				'a.lock',
				'-a',
				'@',
				'a\u0000',
			]) {
				assert.ok(!isBranchName(bad), JSON.stringify(bad));
			}
		});
	});

	suite("decoding GitHub's answer", () => {
		test('an id that is a positive safe integer and a branch name', () => {
			assert.deepEqual(decodeGitHubRepository({ id: 1296269, default_branch: 'main', full_name: 'octocat/Hello-World' }), {
				id: 1296269,
				default_branch: 'main',
			});
		});

		test('hostile answers are refused', () => {
			const bad: unknown[] = [
				null,
				[],
				'1296269',
				{ default_branch: 'main' },
				{ id: '1296269', default_branch: 'main' },
				{ id: 0, default_branch: 'main' },
				{ id: -5, default_branch: 'main' },
				{ id: 1.5, default_branch: 'main' },
				{ id: 2 ** 53, default_branch: 'main' },
				{ id: Number.NaN, default_branch: 'main' },
				{ id: 7 },
				{ id: 7, default_branch: '' },
				{ id: 7, default_branch: 'a..b' },
				{ id: 7, default_branch: 'x'.repeat(256) },
				{ id: 7, default_branch: 'main\u001b[31m' },
			];
			for (const value of bad) {
				assert.throws(() => decodeGitHubRepository(value), Error, JSON.stringify(value));
			}
		});
	});

	suite('resolving through a stub GitHub', () => {
		let stub: Served | undefined;
		let seen: Array<{ method: string; url: string; authorization: string | undefined; accept: string | undefined }>;
		const resolvers: GitHubResolver[] = [];

		async function start(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
			seen = [];
			stub = await serve((req, res) => {
				seen.push({
					method: req.method ?? '',
					url: req.url ?? '',
					authorization: req.headers.authorization,
					accept: req.headers.accept,
				});
				handler(req, res);
			});
			return stub.baseUrl;
		}

		/** A resolver whose GitHub token is given on request, and how often it was asked for. */
		function countingResolver(baseUrl: string): { r: GitHubResolver; asked: () => number } {
			let count = 0;
			const r = resolver(baseUrl, () => {
				count++;
				return Promise.resolve(GITHUB_TOKEN);
			});
			return { r, asked: () => count };
		}

		function resolver(baseUrl: string, getToken?: () => Promise<string | undefined>, deadlineMs?: number): GitHubResolver {
			const r = new GitHubResolver({
				connect: nodeConnect,
				baseUrl,
				getToken,
				timeouts: deadlineMs ? { headersMs: deadlineMs, bodyMs: deadlineMs, deadlineMs } : undefined,
			});
			resolvers.push(r);
			return r;
		}

		function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
			const text = typeof body === 'string' ? body : JSON.stringify(body);
			res.writeHead(status, { 'content-type': 'application/json', ...headers });
			res.end(text);
		}

		function entry(text: string): RepositoryEntry {
			const parsed = parseRepositoryRef(text);
			assert.ok(!('problem' in parsed), text);
			return parsed;
		}

		async function failure(promise: Promise<unknown>): Promise<GitHubLookupError> {
			try {
				await promise;
			} catch (err) {
				assert.ok(err instanceof GitHubLookupError, String(err));
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

		test('owner/name resolves to its id and default branch without any token; a given branch is kept', async () => {
			const base = await start((req, res) => {
				if (req.url === '/repos/octocat/hello-world') {
					send(res, 200, { id: 1296269, full_name: 'octocat/hello-world', default_branch: 'master', private: false });
				} else {
					send(res, 404, { message: 'Not Found' });
				}
			});
			const { r, asked } = countingResolver(base);
			assert.deepEqual(await r.resolveAll([entry('octocat/hello-world'), entry('octocat/hello-world@dev')]), [
				{ repository_id: 1296269, branch: 'master' },
				{ repository_id: 1296269, branch: 'dev' },
			]);
			assert.equal(asked(), 0, 'no GitHub sign-in for a public repository');
			assert.ok(seen.every((s) => s.authorization === undefined && s.method === 'GET'));
			assert.equal(seen[0]?.accept, 'application/vnd.github+json');
		});

		test('the numeric form: with a branch nothing is asked; without one, the default branch is read', async () => {
			const base = await start((req, res) => {
				if (req.url === '/repositories/77') {
					send(res, 200, { id: 77, default_branch: 'trunk' });
				} else {
					send(res, 404, { message: 'Not Found' });
				}
			});
			const r = resolver(base);
			assert.deepEqual(await r.resolveAll([entry('123456789@main')]), [{ repository_id: 123456789, branch: 'main' }]);
			assert.equal(seen.length, 0, 'GitHub is not asked for id@branch');
			assert.deepEqual(await r.resolveAll([entry('77')]), [{ repository_id: 77, branch: 'trunk' }]);
		});

		test('404 without a token: the GitHub token is asked for once and the request sent again with it (a private repository)', async () => {
			const base = await start((req, res) => {
				if (req.headers.authorization === `Bearer ${GITHUB_TOKEN}` && req.url === '/repos/acme/private') {
					send(res, 200, { id: 555, default_branch: 'main', private: true });
				} else {
					send(res, 404, { message: 'Not Found' });
				}
			});
			const { r, asked } = countingResolver(base);
			assert.deepEqual(await r.resolveAll([entry('acme/private'), entry('acme/private@x')]), [
				{ repository_id: 555, branch: 'main' },
				{ repository_id: 555, branch: 'x' },
			]);
			assert.equal(asked(), 1);
			assert.deepEqual(
				seen.map((s) => s.authorization),
				[undefined, `Bearer ${GITHUB_TOKEN}`, `Bearer ${GITHUB_TOKEN}`],
				'anonymous first, then the token for this and later lookups',
			);
		});

		test('404: not found, saying whether a token was sent', async () => {
			const base = await start((_req, res) => send(res, 404, { message: 'Not Found' }));
			const declined = await failure(resolver(base, () => Promise.resolve(undefined)).resolve(entry('octocat/nope')));
			assert.equal(declined.failure, 'not_found');
			assert.equal(declined.signedIn, false);
			assert.equal(declined.entry, 'octocat/nope');
			const signedIn = await failure(resolver(base, () => Promise.resolve(GITHUB_TOKEN)).resolve(entry('octocat/nope')));
			assert.equal(signedIn.failure, 'not_found');
			assert.equal(signedIn.signedIn, true);
			assert.ok(!signedIn.message.includes(GITHUB_TOKEN));
		});

		test('403 rate limit: rate_limited (after trying with a token); 429 too; another 403 is a refusal', async () => {
			const rateLimited = { message: 'API rate limit exceeded for 127.0.0.1. (But here is the good news: ...)' };
			let base = await start((_req, res) => send(res, 403, rateLimited, { 'x-ratelimit-remaining': '0' }));
			let err = await failure(resolver(base).resolve(entry('octocat/hello-world')));
			assert.equal(err.failure, 'rate_limited');
			assert.equal(err.signedIn, false);
			err = await failure(resolver(base, () => Promise.resolve(GITHUB_TOKEN)).resolve(entry('octocat/hello-world')));
			assert.equal(err.failure, 'rate_limited');
			assert.equal(err.signedIn, true);
			assert.equal(seen.length, 3, 'once without, once with the token');
			await stub?.close();
			base = await start((_req, res) => send(res, 429, { message: 'slow down' }));
			assert.equal((await failure(resolver(base).resolve(entry('octocat/hello-world')))).failure, 'rate_limited');
			await stub?.close();
			base = await start((_req, res) => send(res, 403, { message: 'Resource not accessible by integration' }));
			assert.equal((await failure(resolver(base).resolve(entry('octocat/hello-world')))).failure, 'refused');
		});

		test('a malformed answer is invalid_response: not JSON, wrong id, too large', async () => {
			const bodies = [
				'<html>hello</html>',
				JSON.stringify({ id: -1, default_branch: 'main' }),
				JSON.stringify({ id: '12', default_branch: 'main' }),
				JSON.stringify({ id: 12, default_branch: 'a..b' }),
				JSON.stringify({ id: 12, default_branch: 'main', pad: 'x'.repeat(300 * 1024) }),
			];
			let i = 0;
			const base = await start((_req, res) => send(res, 200, bodies[i++]!));
			for (let n = 0; n < bodies.length; n++) {
				const err = await failure(resolver(base).resolve(entry('octocat/hello-world')));
				assert.equal(err.failure, 'invalid_response', `body ${n}`);
			}
		});

		test('an answer that never comes ends at the deadline as unreachable', async () => {
			const base = await start(() => {
				// Never answers.
			});
			const started = Date.now();
			const err = await failure(resolver(base, undefined, 600).resolve(entry('octocat/hello-world')));
			assert.equal(err.failure, 'unreachable');
			assert.ok(Date.now() - started < 5_000, 'within the deadline');
		});

		test('a trickled body is cut at the deadline', async () => {
			const base = await start((_req, res) => {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.write('{"id": 1,');
				// The rest never comes.
			});
			const err = await failure(resolver(base, undefined, 600).resolve(entry('octocat/hello-world')));
			assert.equal(err.failure, 'unreachable');
		});

		test('nothing listening: unreachable', async () => {
			const base = await start((_req, res) => send(res, 200, {}));
			await stub?.close();
			stub = undefined;
			const err = await failure(resolver(base).resolve(entry('octocat/hello-world')));
			assert.equal(err.failure, 'unreachable');
		});

		test('redirects are not followed: a renamed repository is read by the id its body names, on the same API; any other redirect fails', async () => {
			let base = '';
			base = await start((req, res) => {
				if (req.url === '/repos/octocat/old-name') {
					send(
						res,
						301,
						{ message: 'Moved Permanently', url: `${base}/repositories/999` },
						{ location: `${base}/repositories/999` },
					);
				} else if (req.url === '/repos/octocat/elsewhere') {
					send(res, 302, { url: 'https://evil.example/repositories/999' }, { location: 'https://evil.example/repositories/999' });
				} else if (req.url === '/repositories/999') {
					send(res, 200, { id: 999, default_branch: 'main' });
				} else {
					send(res, 404, { message: 'Not Found' });
				}
			});
			const r = resolver(base, () => Promise.resolve(GITHUB_TOKEN));
			assert.deepEqual(await r.resolveAll([entry('octocat/old-name')]), [{ repository_id: 999, branch: 'main' }]);
			const err = await failure(r.resolve(entry('octocat/elsewhere')));
			assert.equal(err.failure, 'invalid_response');
		});

		test('the base URL: https, or http only on loopback', () => {
			assert.throws(() => new GitHubResolver({ connect: nodeConnect, baseUrl: 'http://github.example' }), /loopback/);
			assert.throws(() => new GitHubResolver({ connect: nodeConnect, baseUrl: 'ftp://github.example' }));
			new GitHubResolver({ connect: nodeConnect, baseUrl: 'https://github.example/api/v3' }).close();
		});
	});
});
