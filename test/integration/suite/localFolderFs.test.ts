/**
 * The comparison's local folder through `vscode.workspace.fs` (issue 34: VS Code for the Web's side
 * of src/compare/localFiles.ts, src/platform/web/workspaceLocalFiles.ts), against VS Code's real file
 * system here: every answer the same as Node's side (src/platform/node/nodeLocalFiles.ts, the worker
 * thread) gives on the same folder — symbolic links marked and never read, missing paths and paths
 * under a file, the byte budget, the write check — and a whole comparison against the emulator
 * finding the same differences. Builds its folder with node:fs: a Node extension host's suite.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { CloudAgentsClient } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';
import { compareFolders } from '../../../src/compare/engine';
import { IgnoreRules } from '../../../src/compare/ignore';
import { examine } from '../../../src/platform/node/compareWorker';
import { type LocalAnswer, type LocalExaminer, type LocalFiles, NotRegularFileError } from '../../../src/compare/localFiles';
import { NodeLocalFiles, localPathOf } from '../../../src/platform/node/nodeLocalFiles';
import { workspaceLocalFiles } from '../../../src/platform/web/workspaceLocalFiles';
import { UnsafePathError } from '../../../src/util/paths';
import { createIdleAgent, emu } from '../support/cloudAgents';
import { devToken, emulatorProfile, emulatorUrl } from '../support/env';

const enc = encodeURIComponent;

/**
 * Node's side with its worker's code run on this thread: this suite is bundled into the test
 * runner's extension, next to which there is no dist/compareWorker.js to start (the worker thread
 * itself: test/unit/platform/node/compareWorker.test.ts).
 */
class NodeSide extends NodeLocalFiles {
	override examiner(maxBytes: number): LocalExaminer {
		const budget = { left: maxBytes };
		return {
			examine: (jobs) =>
				Promise.resolve(jobs.map(({ rel, size, cost }) => examine({ abs: localPathOf(this.root, rel), size, cost }, budget))),
			close: () => Promise.resolve(),
			heapPeak: 0,
		};
	}
}

/**
 * The files' modification time: a whole millisecond. Node's stat has the file system's sub-millisecond
 * part and VS Code's whole milliseconds, rounded its own way (a file written now read …783.6 on
 * Node's side and …784 on VS Code's, failing the comparison by chance), so the tree is given a time
 * both read alike.
 */
const MTIME = new Date(1_700_000_000_123);

async function writeTree(root: string, files: Record<string, Uint8Array | string>): Promise<void> {
	for (const [rel, content] of Object.entries(files)) {
		await mkdir(dirname(join(root, rel)), { recursive: true });
		await writeFile(join(root, rel), content);
		await utimes(join(root, rel), MTIME, MTIME);
	}
}

/** An answer as both sides give it (the mtime in whole milliseconds: see MTIME). */
function comparable<T extends { kind: string }>(a: T): T {
	return 'mtime' in a && typeof a.mtime === 'number' ? { ...a, mtime: Math.floor(a.mtime) } : a;
}

/** What `run` gives (bytes as their length and hash: VS Code's may be a Buffer), or the class of what it threw. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
	try {
		const value = await run();
		return value instanceof Uint8Array ? `${value.byteLength} bytes, ${createHash('sha256').update(value).digest('hex')}` : value;
	} catch (err) {
		return {
			threw:
				err instanceof NotRegularFileError ? 'NotRegularFileError' : err instanceof UnsafePathError ? 'UnsafePathError' : 'other',
		};
	}
}

suite('The comparison’s local folder through vscode.workspace.fs (issue 34)', () => {
	let dir: string;
	let root: string;
	let node: LocalFiles;
	let web: LocalFiles;

	suiteSetup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-local-fs-'));
		root = join(dir, 'local');
		await writeTree(root, {
			'a.txt': 'alpha',
			'empty.txt': '',
			'sub/b.txt': 'beta',
			'sub/deep/c.bin': new Uint8Array(300_000).fill(7),
			'.gitignore': '*.log\n',
			'x.log': 'log',
		});
		await writeFile(join(dir, 'outside.txt'), 'outside');
		await symlink(join(root, 'a.txt'), join(root, 'link.txt'));
		await symlink(join(dir, 'outside.txt'), join(root, 'sub', 'out.txt'));
		await symlink(join(root, 'sub'), join(root, 'linkdir'), 'dir');
		node = new NodeSide(root);
		web = workspaceLocalFiles(vscode.Uri.file(root));
	});
	suiteTeardown(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test('stat, list, read, hash, small text and the write check answer as Node’s side does', async () => {
		const paths = ['a.txt', 'empty.txt', 'sub', 'sub/deep/c.bin', 'link.txt', 'linkdir', 'sub/out.txt', 'nope', 'nope/x', 'a.txt/x'];
		for (const p of paths) {
			assert.deepEqual(comparable(await web.stat(p)), comparable(await node.stat(p)), `stat ${p}`);
		}
		assert.equal((await web.stat('link.txt')).kind, 'symlink');
		assert.equal((await web.stat('a.txt/x')).kind, 'missing');
		const names = async (side: LocalFiles, rel: string): Promise<string[]> => {
			const out: string[] = [];
			for await (const e of (await side.list(rel)) ?? []) {
				out.push(`${e.kind} ${e.name}`);
			}
			return out.sort();
		};
		for (const rel of ['', 'sub', 'sub/deep']) {
			assert.deepEqual(await names(web, rel), await names(node, rel), `list ${rel}`);
		}
		assert.ok((await names(web, '')).includes('symlink linkdir'));
		assert.equal(await web.list('nope'), undefined);
		assert.equal(await web.list('a.txt'), undefined);
		for (const p of ['a.txt', 'empty.txt', 'sub/deep/c.bin', 'link.txt', 'sub', 'nope']) {
			assert.deepEqual(await outcome(() => web.hash(p)), await outcome(() => node.hash(p)), `hash ${p}`);
			assert.deepEqual(await outcome(() => web.read(p)), await outcome(() => node.read(p)), `read ${p}`);
		}
		assert.deepEqual(await outcome(() => web.read('link.txt')), { threw: 'NotRegularFileError' });
		assert.equal(await web.readSmallText('.gitignore', 100), '*.log\n');
		assert.equal(await web.readSmallText('.gitignore', 3), undefined);
		assert.equal(await web.readSmallText('link.txt', 100), undefined);
		for (const p of ['a.txt', 'sub/new/deeper/x.txt', 'link.txt', 'linkdir/b.txt', 'linkdir/new.txt', 'sub/out.txt', 'a.txt/x']) {
			assert.deepEqual(await outcome(() => web.checkWrite(p)), await outcome(() => node.checkWrite(p)), `checkWrite ${p}`);
		}
		assert.deepEqual(await outcome(() => web.checkWrite('linkdir/b.txt')), { threw: 'UnsafePathError' });
	});

	test('a comparison’s batches: the same facts and hashes, the byte budget taken in job order, links never read', async () => {
		const jobs = [
			{ rel: 'a.txt', size: 5, cost: 10 },
			{ rel: 'sub/b.txt', size: 3, cost: 6 },
			{ rel: 'link.txt', size: 5, cost: 10 },
			{ rel: 'linkdir', size: 1, cost: 2 },
			{ rel: 'sub', size: 1, cost: 2 },
			{ rel: 'nope', size: 1, cost: 2 },
			{ rel: 'empty.txt', size: 0, cost: 0 },
			{ rel: 'a.txt', size: 5, cost: 10 },
			{ rel: 'sub/deep/c.bin', size: 300_000, cost: 600_000 },
		];
		const answers = async (side: LocalFiles): Promise<LocalAnswer[]> => {
			const examiner = side.examiner(25);
			try {
				const [first, second] = await Promise.all([examiner.examine(jobs.slice(0, 5)), examiner.examine(jobs.slice(5))]);
				return [...first, ...second].map(comparable);
			} finally {
				await examiner.close();
			}
		};
		const fromWeb = await answers(web);
		assert.deepEqual(fromWeb, await answers(node));
		assert.deepEqual(
			fromWeb.map((a) => (a.kind === 'file' ? (a.sha256 ? 'hashed' : a.overBytes ? 'over' : 'facts') : a.kind)),
			['hashed', 'facts', 'symlink', 'symlink', 'other', 'missing', 'hashed', 'hashed', 'over'],
		);
	});

	(emulatorProfile() === 'standard' ? test : test.skip)(
		'Compare Everything against the emulator: the same differences through either side',
		async function () {
			this.timeout(60_000);
			const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emulatorUrl(), getToken: () => devToken() });
			try {
				const agentId = await createIdleAgent('local-fs');
				const seeded = await emu('POST', `/_emulator/workspace/${enc(agentId)}/seed`, {
					files: 30,
					per_folder: 5,
					under: 'tree',
					mtime_unix_ms: 1_700_000_000_000,
				});
				assert.ok(seeded.status < 300, `seed: HTTP ${seeded.status}`);
				const truth = await emu<{ files: Array<{ path: string; content_base64: string }> }>(
					'GET',
					`/_emulator/workspace/${enc(agentId)}/files?content=true`,
				);
				const local = join(dir, 'copy');
				const files = truth.body.files;
				await writeTree(local, Object.fromEntries(files.map((f) => [f.path, Buffer.from(f.content_base64, 'base64')])));
				const same = Buffer.from(files[1]!.content_base64, 'base64');
				same[0] = same[0] === 0x41 ? 0x42 : 0x41;
				await writeTree(local, {
					[files[0]!.path]: 'a local edit of another size',
					[files[1]!.path]: same,
					'mine.txt': 'only here',
				});
				await rm(join(local, files[2]!.path));
				await symlink(join(local, files[3]!.path), join(local, 'tree', 'link.txt'));
				const compare = async (side: LocalFiles): Promise<string[]> => {
					const result = await compareFolders({
						client,
						agentId,
						agentFolder: '',
						local: side,
						mode: 'everything',
						ignore: await IgnoreRules.load(side, {}),
					});
					return [
						...result.differences.map((d) => `${d.group} ${d.kind} ${d.path} ${d.local?.size ?? '-'}`),
						`incomplete: ${result.incomplete ?? ''}`,
					];
				};
				const viaWorkspaceFs = await compare(workspaceLocalFiles(vscode.Uri.file(local)));
				assert.deepEqual(viaWorkspaceFs, await compare(new NodeSide(local)));
				assert.deepEqual(
					viaWorkspaceFs.slice(0, -1),
					[
						`other added ${files[2]!.path} -`,
						`other deleted mine.txt 9`,
						`other modified ${files[0]!.path} 28`,
						`other modified ${files[1]!.path} ${same.byteLength}`,
					].sort((a, b) => (a.split(' ')[2]! < b.split(' ')[2]! ? -1 : 1)),
				);
				assert.match(viaWorkspaceFs.at(-1)!, /1 local symbolic link was not followed/);
			} finally {
				client.close();
			}
		},
	);
});
