import * as assert from 'node:assert/strict';
import { CloudAgentsClient, SAFETY } from '../../../../src/api';
import { nodeConnect } from '../../../../src/platform/node/network';
import { WorkspaceCache } from '../../../../src/workspace/fs/workspaceCache';
import { WorkspaceFsError } from '../../../../src/workspace/fs/workspaceModel';
import { WALK_LIMITS, WalkLimitError, collectTree, skippingVanished, walkFiles } from '../../../../src/workspace/fs/workspaceWalk';
import type { EntryType, ListChildren } from '../../../../src/workspace/fs/workspaceWalk';
import { AGENT_ID, TOKEN } from '../../../hostile/fixtures';
import { type HostileServer, errorEnvelope, startHostile } from '../../../hostile/server';
import { type HostileTree, type RawEntry, workspaceRoutes } from './hostileWorkspace';

type Children = Array<[string, EntryType]>;

/** A `ListChildren` over a fixed tree (a folder missing from it lists as vanished), recording what was listed. */
function treeLister(tree: Record<string, Children>): { list: ListChildren; listed: string[] } {
	const listed: string[] = [];
	const list: ListChildren = async (path) => {
		listed.push(path);
		return tree[path];
	};
	return { list, listed };
}

/** A server whose every folder holds `f.txt` and a folder `loop` (a cycle, or a tree without end). */
const endless: ListChildren = async () => [
	['f.txt', 'file'],
	['loop', 'directory'],
];

const TREE: Record<string, Children> = {
	'': [
		['b.txt', 'file'],
		['src', 'directory'],
		['a.txt', 'file'],
		['docs', 'directory'],
		['empty', 'directory'],
	],
	src: [
		['lib', 'directory'],
		['index.ts', 'file'],
	],
	docs: [['guide.md', 'file']],
	empty: [],
	'src/lib': [['util.ts', 'file']],
};

/** A chain `a/b/c`, one file per level. */
const CHAIN: Record<string, Children> = {
	'': [
		['top.txt', 'file'],
		['a', 'directory'],
	],
	a: [
		['a.txt', 'file'],
		['b', 'directory'],
	],
	'a/b': [
		['b.txt', 'file'],
		['c', 'directory'],
	],
	'a/b/c': [['c.txt', 'file']],
};

/** Lets pending promise callbacks run (no clock involved). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

suite('fs/workspaceWalk', () => {
	suite('walkFiles', () => {
		test('lists breadth-first, one listing per folder, files in listing order, one onFiles batch per folder that has files', async () => {
			const { list, listed } = treeLister(TREE);
			const batches: string[][] = [];
			const walked = await walkFiles(list, { concurrency: 1, onFiles: (paths) => batches.push(paths) });
			assert.deepEqual(walked, {
				files: ['b.txt', 'a.txt', 'src/index.ts', 'docs/guide.md', 'src/lib/util.ts'],
				truncated: false,
			});
			assert.deepEqual(listed, ['', 'src', 'docs', 'empty', 'src/lib']);
			assert.deepEqual(batches, [['b.txt', 'a.txt'], ['src/index.ts'], ['docs/guide.md'], ['src/lib/util.ts']]);
		});

		test('with folders listed side by side it finds the same files, each once', async () => {
			const { list, listed } = treeLister(TREE);
			const walked = await walkFiles(list);
			assert.deepEqual([...walked.files].sort(), ['a.txt', 'b.txt', 'docs/guide.md', 'src/index.ts', 'src/lib/util.ts']);
			assert.equal(walked.truncated, false);
			assert.deepEqual([...listed].sort(), ['', 'docs', 'empty', 'src', 'src/lib']);
		});

		test('a folder that vanished (undefined) is skipped; any other failure of a listing rejects the walk', async () => {
			const { list } = treeLister({
				'': [
					['ghost', 'directory'],
					['here.txt', 'file'],
				],
			});
			assert.deepEqual(await walkFiles(list), { files: ['here.txt'], truncated: false });

			const failing: ListChildren = async (path) => {
				if (path === 'src') {
					throw new Error('listing src failed');
				}
				return TREE[path];
			};
			await assert.rejects(walkFiles(failing), /listing src failed/);
		});

		test('maxFiles: stops at exactly that many files and lists no folder after, truncated; a walk that ends at the bound is not', async () => {
			const { list, listed } = treeLister({
				'': [
					['1.txt', 'file'],
					['2.txt', 'file'],
					['3.txt', 'file'],
					['4.txt', 'file'],
					['sub', 'directory'],
				],
				sub: [['5.txt', 'file']],
			});
			assert.deepEqual(await walkFiles(list, { maxFiles: 3 }), { files: ['1.txt', '2.txt', '3.txt'], truncated: true });
			assert.deepEqual(listed, ['']);

			const exact = treeLister(CHAIN);
			assert.deepEqual(await walkFiles(exact.list, { maxFiles: 4 }), {
				files: ['top.txt', 'a/a.txt', 'a/b/b.txt', 'a/b/c/c.txt'],
				truncated: false,
			});

			const none = treeLister(CHAIN);
			assert.deepEqual(await walkFiles(none.list, { maxFiles: 0 }), { files: [], truncated: true });
			assert.deepEqual(
				await walkFiles(treeLister(CHAIN).list, { maxFiles: -5 }),
				{ files: [], truncated: true },
				'a negative bound is 0',
			);
		});

		test('maxEntries counts folders too: a root of folders fills it without a single file, and the queued folders are never listed', async () => {
			const { list, listed } = treeLister({
				'': [
					['d1', 'directory'],
					['d2', 'directory'],
					['d3', 'directory'],
					['d4', 'directory'],
					['f.txt', 'file'],
				],
				d1: [['in1.txt', 'file']],
				d2: [['in2.txt', 'file']],
			});
			assert.deepEqual(await walkFiles(list, { maxEntries: 3 }), { files: [], truncated: true });
			assert.deepEqual(listed, ['']);
		});

		test('maxDepth: folders deeper than the bound are not listed and the result is truncated; a tree exactly that deep is whole', async () => {
			const zero = treeLister(CHAIN);
			assert.deepEqual(await walkFiles(zero.list, { maxDepth: 0 }), { files: ['top.txt'], truncated: true });
			assert.deepEqual(zero.listed, ['']);

			const two = treeLister(CHAIN);
			assert.deepEqual(await walkFiles(two.list, { maxDepth: 2 }), {
				files: ['top.txt', 'a/a.txt', 'a/b/b.txt'],
				truncated: true,
			});
			assert.deepEqual(two.listed, ['', 'a', 'a/b']);

			const three = treeLister(CHAIN);
			assert.equal((await walkFiles(three.list, { maxDepth: 3 })).truncated, false);
			assert.deepEqual(three.listed, ['', 'a', 'a/b', 'a/b/c']);
		});

		test('a server whose folders never end (a cycle) costs walkMaxDepth + 1 listings by default', async () => {
			let listings = 0;
			const walked = await walkFiles(async (path) => {
				listings++;
				return endless(path);
			});
			assert.equal(WALK_LIMITS.maxDepth, SAFETY.walkMaxDepth);
			assert.equal(listings, SAFETY.walkMaxDepth + 1);
			assert.equal(walked.truncated, true);
			assert.equal(walked.files.length, SAFETY.walkMaxDepth + 1);
			const deepest = walked.files[walked.files.length - 1] ?? '';
			assert.equal(deepest, `${'loop/'.repeat(SAFETY.walkMaxDepth)}f.txt`);
		});

		test('a server with a hundred folders in every folder, or one huge folder, costs a bounded number of listings by default', async () => {
			let listings = 0;
			const bushy = await walkFiles(async () => {
				listings++;
				return Array.from({ length: 100 }, (_, i): [string, EntryType] => [`d${i}`, 'directory']);
			});
			assert.equal(bushy.truncated, true);
			assert.deepEqual(bushy.files, []);
			// Each listing adds 100 entries; the folders already being listed when the bound is hit may still add theirs.
			assert.ok(listings <= SAFETY.walkMaxEntries / 100 + WALK_LIMITS.concurrency, `${listings} listings`);

			const huge: Children = Array.from({ length: 100_000 }, (_, i) => [`f${i}.txt`, 'file']);
			let hugeListings = 0;
			const wide = await walkFiles(async (path) => {
				hugeListings++;
				return path === '' ? [...huge, ['more', 'directory']] : [['x.txt', 'file']];
			});
			assert.equal(wide.files.length, SAFETY.walkMaxEntries);
			assert.equal(wide.files[wide.files.length - 1], `f${SAFETY.walkMaxEntries - 1}.txt`);
			assert.equal(wide.truncated, true);
			assert.equal(hugeListings, 1, 'the folder after the bound is never listed');
		});

		test('lists at most `concurrency` folders at once (0 counts as 1)', async () => {
			const root: Children = Array.from({ length: 10 }, (_, i) => [`d${i}`, 'directory']);
			const peakWith = async (concurrency: number): Promise<{ peak: number; files: number }> => {
				let running = 0;
				let peak = 0;
				const walked = await walkFiles(
					async (path) => {
						if (path === '') {
							return root;
						}
						running++;
						peak = Math.max(peak, running);
						await settle();
						running--;
						return [['f.txt', 'file']];
					},
					{ concurrency },
				);
				return { peak, files: walked.files.length };
			};
			assert.deepEqual(await peakWith(4), { peak: 4, files: 10 });
			assert.deepEqual(await peakWith(1), { peak: 1, files: 10 });
			assert.deepEqual(await peakWith(0), { peak: 1, files: 10 });
			assert.deepEqual(await peakWith(50), { peak: 10, files: 10 });
		});

		test('an already aborted signal rejects with an AbortError before anything is listed', async () => {
			const { list, listed } = treeLister(TREE);
			const controller = new AbortController();
			controller.abort();
			await assert.rejects(walkFiles(list, { signal: controller.signal }), (err: unknown) => (err as Error).name === 'AbortError');
			assert.deepEqual(listed, []);
		});

		test('aborting while a listing is pending rejects at once with the reason, and its late answer lists nothing more', async () => {
			let answer: ((children: Children) => void) | undefined;
			const listed: string[] = [];
			const files: string[][] = [];
			const controller = new AbortController();
			const walk = walkFiles(
				(path) => {
					listed.push(path);
					return new Promise<Children>((resolve) => {
						answer = resolve;
					});
				},
				{ signal: controller.signal, onFiles: (paths) => files.push(paths) },
			);
			assert.deepEqual(listed, [''], 'the root is asked at once');
			const reason = new Error('the user closed the picker');
			controller.abort(reason);
			await assert.rejects(walk, (err: unknown) => err === reason);
			answer?.([
				['late.txt', 'file'],
				['sub', 'directory'],
			]);
			await settle();
			assert.deepEqual(listed, ['']);
			assert.deepEqual(files, []);
		});

		test('an abort whose reason is not an Error rejects with an AbortError', async () => {
			const controller = new AbortController();
			const walk = walkFiles(() => new Promise<Children>(() => undefined), { signal: controller.signal });
			controller.abort('not an error');
			await assert.rejects(walk, (err: unknown) => err instanceof Error && err.name === 'AbortError' && /aborted/.test(err.message));
		});

		test('aborting from onFiles stops the walk before the next folder is listed', async () => {
			const { list, listed } = treeLister(TREE);
			const controller = new AbortController();
			await assert.rejects(
				walkFiles(list, { concurrency: 1, signal: controller.signal, onFiles: () => controller.abort() }),
				(err: unknown) => (err as Error).name === 'AbortError',
			);
			assert.deepEqual(listed, ['']);
		});

		test('names are joined as the listing gives them: nothing decoded or re-spelled', async () => {
			const { list } = treeLister({
				'': [
					['a%2Fb.txt', 'file'],
					['ünï code', 'directory'],
				],
				'ünï code': [['#1 ?.md', 'file']],
			});
			assert.deepEqual((await walkFiles(list)).files, ['a%2Fb.txt', 'ünï code/#1 ?.md']);
		});
	});

	suite('collectTree', () => {
		test('every file and empty folder below the root, breadth-first, with the root as prefix; the root itself is never an empty folder', async () => {
			const { list, listed } = treeLister({
				top: [
					['x.txt', 'file'],
					['sub', 'directory'],
					['void', 'directory'],
				],
				'top/sub': [
					['y.txt', 'file'],
					['deeper', 'directory'],
				],
				'top/void': [],
				'top/sub/deeper': [],
			});
			assert.deepEqual(await collectTree(list, 'top'), {
				files: ['top/x.txt', 'top/sub/y.txt'],
				emptyDirs: ['top/void', 'top/sub/deeper'],
			});
			assert.deepEqual(listed, ['top', 'top/sub', 'top/void', 'top/sub/deeper']);

			assert.deepEqual(await collectTree(treeLister({ lonely: [] }).list, 'lonely'), { files: [], emptyDirs: [] });
			assert.deepEqual((await collectTree(treeLister(CHAIN).list, '')).files, ['top.txt', 'a/a.txt', 'a/b/b.txt', 'a/b/c/c.txt']);
		});

		test('a folder that vanished meanwhile counts as empty; a failing listing rejects', async () => {
			const { list } = treeLister({ dir: [['gone', 'directory']] });
			assert.deepEqual(await collectTree(list, 'dir'), { files: [], emptyDirs: ['dir/gone'] });
			await assert.rejects(
				collectTree(async () => {
					throw new Error('listing failed');
				}, 'dir'),
				/listing failed/,
			);
		});

		test('a tree deeper than maxDepth throws WalkLimitError("depth") without listing below the bound; exactly maxDepth is fine', async () => {
			const { list, listed } = treeLister(CHAIN);
			await assert.rejects(collectTree(list, '', { maxDepth: 2 }), (err: unknown) => {
				assert.ok(err instanceof WalkLimitError);
				assert.equal(err.name, 'WalkLimitError');
				assert.deepEqual([err.bound, err.limit, err.root], ['depth', 2, '']);
				assert.equal(err.message, '/ is more than 2 folder levels deep (the walk limit)');
				return true;
			});
			assert.deepEqual(listed, ['', 'a', 'a/b']);
			assert.equal((await collectTree(treeLister(CHAIN).list, '', { maxDepth: 3 })).files.length, 4);
		});

		test('more than maxEntries entries, counted over all folders, throws WalkLimitError("entries") before the next folder is listed', async () => {
			const tree: Record<string, Children> = {
				root: [
					['a.txt', 'file'],
					['sub', 'directory'],
				],
				'root/sub': [
					['b.txt', 'file'],
					['c.txt', 'file'],
					['d', 'directory'],
				],
				'root/sub/d': [],
			};
			assert.equal((await collectTree(treeLister(tree).list, 'root', { maxEntries: 5 })).files.length, 3);

			const { list, listed } = treeLister(tree);
			await assert.rejects(collectTree(list, 'root', { maxEntries: 4 }), (err: unknown) => {
				assert.ok(err instanceof WalkLimitError);
				assert.deepEqual([err.bound, err.limit, err.root], ['entries', 4, 'root']);
				assert.equal(err.message, 'root holds more than 4 entries (the walk limit)');
				return true;
			});
			assert.deepEqual(listed, ['root', 'root/sub']);
		});

		test('by default a cycle stops at walkMaxDepth with WalkLimitError, after walkMaxDepth + 1 listings', async () => {
			let listings = 0;
			await assert.rejects(
				collectTree(async (path) => {
					listings++;
					return endless(path);
				}, 'x'),
				(err: unknown) => err instanceof WalkLimitError && err.bound === 'depth' && err.limit === SAFETY.walkMaxDepth,
			);
			assert.equal(listings, SAFETY.walkMaxDepth + 1);
		});
	});

	suite('skippingVanished', () => {
		test('a folder below the root that is missing or now a file lists as vanished; other failures, and any of the root, pass through', async () => {
			const failWith = (err: Error) => async (): Promise<Children> => {
				throw err;
			};
			const missing = new WorkspaceFsError('FileNotFound', 'sub');
			const notDir = new WorkspaceFsError('FileNotADirectory', 'sub');
			const denied = new WorkspaceFsError('NoPermissions', 'sub');
			assert.equal(await skippingVanished(failWith(missing))('sub'), undefined);
			assert.equal(await skippingVanished(failWith(notDir))('sub'), undefined);
			await assert.rejects(skippingVanished(failWith(denied))('sub'), (err: unknown) => err === denied);
			await assert.rejects(skippingVanished(failWith(missing))(''), (err: unknown) => err === missing);
			await assert.rejects(skippingVanished(failWith(new Error('boom')))('sub'), /boom/);
			assert.deepEqual(await skippingVanished(async () => [['a', 'file']])('sub'), [['a', 'file']]);
		});

		suite('over real HTTP (a hostile server)', () => {
			let server: HostileServer;
			let client: CloudAgentsClient;
			const serve = (tree: HostileTree): void => server.use({ description: 'workspace walk', routes: workspaceRoutes(tree) });
			const dir = (name: string): RawEntry => ({ name, type: 'directory', size: 0, mtime_unix_ms: 1_760_000_000_000 });
			const file = (name: string): RawEntry => ({ name, type: 'file', size: 1, mtime_unix_ms: 1_760_000_000_000 });
			/** Lists with the client alone (no cache): its ApiErrors reach skippingVanished as they are. */
			const clientList = skippingVanished(async (path) =>
				(await client.listWorkspaceAll(AGENT_ID, path)).map((e): [string, EntryType] => [
					e.name,
					e.type === 'directory' ? 'directory' : 'file',
				]),
			);

			suiteSetup(async () => {
				server = await startHostile({ description: 'empty', routes: {} });
				client = new CloudAgentsClient({
					connect: nodeConnect,
					baseUrl: server.baseUrl,
					getToken: () => TOKEN,
					retry: { baseDelayMs: 1, maxDelayMs: 5 },
				});
			});
			suiteTeardown(async () => {
				client.close();
				await server.close();
			});

			test('a subfolder the service answers 404 for is skipped by the walk; the root answering 404 rejects it', async () => {
				serve({
					list: (p) => (p === '' ? [file('kept.txt'), dir('gone'), dir('sub')] : p === 'sub' ? [file('inner.txt')] : undefined),
					file: () => undefined,
				});
				assert.deepEqual(await walkFiles(clientList), { files: ['kept.txt', 'sub/inner.txt'], truncated: false });

				serve({ list: () => undefined, file: () => undefined });
				await assert.rejects(walkFiles(clientList), (err: unknown) => (err as { status?: number }).status === 404);
			});

			test('a subfolder the service fails for (500) rejects the walk and the copy collection', async () => {
				const routes = workspaceRoutes({
					list: (p) => (p === '' ? [file('a.txt'), dir('broken')] : undefined),
					file: () => undefined,
				});
				const listRoute = routes['POST /v2/agents/*/workspace']!;
				server.use({
					description: 'workspace walk, one folder failing',
					routes: {
						'POST /v2/agents/*/workspace': (req, res, ctx) =>
							(ctx.json() as { path?: unknown }).path === 'broken'
								? errorEnvelope(res, 500, 'internal', 'disk on fire')
								: listRoute(req, res, ctx),
					},
				});
				await assert.rejects(walkFiles(clientList), (err: unknown) => (err as { status?: number }).status === 500);
				await assert.rejects(collectTree(clientList, ''), (err: unknown) => (err as { status?: number }).status === 500);
			});

			test('through the cache, the names a hostile server sends ("..", separators, control characters) never become walked paths', async () => {
				serve({
					list: (p) =>
						p === ''
							? [file('ok.txt'), dir('..'), dir('.'), dir('a/b'), dir('c\\d'), file('bell\u0007'), dir('sub'), dir('sub')]
							: p === 'sub'
								? [file('deep.txt'), dir('..'), file('')]
								: p === '..' || p === 'a/b'
									? [file('escaped.txt')]
									: undefined,
					file: () => undefined,
				});
				const warnings: string[] = [];
				const cache = new WorkspaceCache(() => client, { log: { warn: (m) => warnings.push(m) } });
				const walked = await walkFiles(skippingVanished((path) => cache.readDirectory(AGENT_ID, path)));
				assert.deepEqual(walked, { files: ['ok.txt', 'sub/deep.txt'], truncated: false });
				assert.equal(warnings.length, 2, 'one warning per folder with dropped names');
			});
		});
	});
});
