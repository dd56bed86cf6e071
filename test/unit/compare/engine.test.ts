/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   the emulator's admin answers are loosely typed JSON. */
/**
 * The comparison engine (issue 21) against the real emulator, both profiles: groups exactly as the
 * emulator's ground truth says, a refresh reading exactly the files a run changed (request
 * counters), send with a conflict check, caps, local symbolic links; and against the hostile server:
 * unsafe agent-side names skipped, never joined into a local path.
 */
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CloudAgentsClient, WorkspaceInterfaceError } from '../../../src/api';
import { compareFolders } from '../../../src/compare/engine';
import { IgnoreRules } from '../../../src/compare/ignore';
import { AgentChangedError, sendToAgent } from '../../../src/compare/send';
import type { Baseline, CompareMode, CompareResult, Difference } from '../../../src/compare/types';
import { DEMO_BILLING_BASELINE } from '../../../emulator/src/seed';
import { AGENT_ID, TOKEN } from '../../hostile/fixtures';
import { type HostileServer, json, startHostile } from '../../hostile/server';
import { CLIENT_PROFILES, DEV_TOKEN, type TestEmulator, isVariant, startTestEmulator } from '../support/emulator';
import { type RawEntry, workspaceRoutes } from '../workspace/fs/hostileWorkspace';
import { nodeConnect } from '../../../src/platform/node/network';
import type { LocalFiles } from '../../../src/compare/localFiles';
import { LOCAL_SIDES } from '../support/localFolders';

const enc = encodeURIComponent;
const summary = (d: Difference[]): string[] => d.map((x) => `${x.group} ${x.kind} ${x.path}`);

async function writeTree(root: string, files: Record<string, Buffer | string>): Promise<void> {
	for (const [rel, content] of Object.entries(files)) {
		await mkdir(dirname(join(root, rel)), { recursive: true });
		await writeFile(join(root, rel), content);
	}
}

/** A comparison of an agent's whole workspace with `local` (its own .gitignore files apply), through the local side `localOf` makes. */
async function compareWith(
	client: CloudAgentsClient,
	agentId: string,
	local: string,
	mode: CompareMode,
	baseline?: Baseline,
	localOf: (root: string) => LocalFiles = LOCAL_SIDES[0]![1],
): Promise<CompareResult> {
	const files = localOf(local);
	return compareFolders({
		client,
		agentId,
		agentFolder: '',
		local: files,
		mode,
		baseline,
		ignore: await IgnoreRules.load(files, {}),
	});
}

/**
 * The suite's server (started by `start`), a client of it and a temporary folder, made before the
 * suite's tests and removed after them; `use` receives the client and the folder.
 */
function serverSuite(
	start: () => Promise<{ url: string; close(): Promise<void> }>,
	token: string,
	use: (client: CloudAgentsClient, dir: string) => void,
): void {
	let server: { url: string; close(): Promise<void> } | undefined;
	let client: CloudAgentsClient | undefined;
	let dir: string | undefined;
	suiteSetup(async () => {
		server = await start();
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: server.url,
			getToken: () => token,
			retry: { baseDelayMs: 1, maxDelayMs: 5 },
		});
		dir = await mkdtemp(join(tmpdir(), 'ca-compare-'));
		use(client, dir);
	});
	suiteTeardown(async () => {
		client?.close();
		await server?.close();
		if (dir) {
			await rm(dir, { recursive: true, force: true });
		}
	});
}

for (const [side, localOf] of LOCAL_SIDES) {
	for (const profile of CLIENT_PROFILES) {
		suite(`compare/engine against the emulator (${profile}, the ${side} local side)`, () => {
			const compareRoot: typeof compareWith = (c, agentId, local, mode, baseline) =>
				compareWith(c, agentId, local, mode, baseline, localOf);
			let emu: TestEmulator;
			let client: CloudAgentsClient;
			let dir: string;
			let n = 0;
			const requests = async (): Promise<number> => (await emu.counters()).requests.total;
			const newLocal = async (): Promise<string> => {
				const root = join(dir, `local-${n++}`);
				await mkdir(root, { recursive: true });
				return root;
			};
			/** A fresh agent whose workspace is a seeded tree dated before any run, and a local copy of it. */
			const seededAgent = async (files: number, perFolder = 10): Promise<{ agentId: string; local: string; paths: string[] }> => {
				const agent = await client.createAgent({ name: `Compare ${profile} ${n}` });
				for (let i = 0; i < 500 && !['idle', 'READY'].includes((await client.getAgent(agent.id)).status ?? ''); i++) {
					await new Promise((res) => setTimeout(res, 20));
				}
				await emu.admin('POST', `/workspace/${enc(agent.id)}/seed`, {
					files,
					per_folder: perFolder,
					under: 'tree',
					mtime_unix_ms: 1_700_000_000_000,
				});
				const truth = await emu.admin<any>('GET', `/workspace/${enc(agent.id)}/files?content=true`);
				const local = await newLocal();
				const copy: Record<string, Buffer> = {};
				for (const f of truth.files) copy[f.path] = Buffer.from(f.content_base64, 'base64');
				await writeTree(local, copy);
				return { agentId: agent.id, local, paths: truth.files.map((f: any) => f.path) };
			};
			const runToEnd = async (agentId: string, prompt: string): Promise<void> => {
				const run = await client.createRun(agentId, { prompt });
				for (let i = 0; i < 500; i++) {
					const r = await client.getRun(agentId, run.id);
					if (['succeeded', 'failed', 'cancelled'].includes(r.status)) return;
					await new Promise((res) => setTimeout(res, 20));
				}
				throw new Error('the run did not end');
			};

			serverSuite(
				async () => (emu = await startTestEmulator({ profile })),
				DEV_TOKEN,
				(c, d) => ([client, dir] = [c, d]),
			);

			if (isVariant(profile)) {
				// The variant's workspace operations take another shape, which the client does not speak
				// (test/unit/workspace/fs/workspaceCache.test.ts): the comparison must fail with the interface error,
				// never take the unreadable answers for an empty folder (which would list every local file
				// as deleted), and send nothing.
				test('the variant: link, everything and send fail with WorkspaceInterfaceError; nothing is reported, nothing written', async () => {
					const agents = await client.listAgents({ limit: 100 });
					const billing = agents.items.find((a) => a.name === 'Refactor billing module')!;
					const local = await newLocal();
					await writeTree(local, DEMO_BILLING_BASELINE);
					const files = localOf(local);
					const ignore = await IgnoreRules.load(files, {});
					for (const mode of ['link', 'everything'] as const) {
						await assert.rejects(
							compareFolders({ client, agentId: billing.id, agentFolder: '', local: files, mode, ignore }),
							WorkspaceInterfaceError,
							mode,
						);
					}
					const puts = async (): Promise<number> => {
						const by = (await emu.counters()).requests.by_route;
						return (
							(by['PUT /v2/agents/{agent_id}/workspace/files'] ?? 0) +
							(by['DELETE /v2/agents/{agent_id}/workspace/files'] ?? 0)
						);
					};
					const before = await puts();
					await assert.rejects(
						sendToAgent(client, billing.id, 'src/index.ts', Buffer.from('x'), { size: 1, mtime: 1 }),
						WorkspaceInterfaceError,
					);
					await assert.rejects(
						sendToAgent(client, billing.id, 'src/index.ts', undefined, { size: 1, mtime: 1 }),
						WorkspaceInterfaceError,
					);
					assert.equal(await puts(), before);
				});
				return;
			}

			test('link: the demo billing agent against the tree before its runs: the agent group is exactly the net created, modified and deleted files (ground truth; deletions named by the runs’ events), nothing else', async () => {
				const agents = await client.listAgents({ limit: 100 });
				const billing = agents.items.find((a) => a.name === 'Refactor billing module')!;
				const local = await newLocal();
				await writeTree(local, DEMO_BILLING_BASELINE);
				const truth = await emu.admin<any>('GET', `/workspace/${enc(billing.id)}/changes`);
				const files = await emu.admin<any>('GET', `/workspace/${enc(billing.id)}/files`);
				const before = await requests();
				const result = await compareRoot(client, billing.id, local, 'link');
				const expected = truth.net.map(
					(x: any) => `agent ${x.change === 'created' ? 'added' : x.change === 'deleted' ? 'deleted' : 'modified'} ${x.path}`,
				);
				assert.ok(
					truth.net.some((x: any) => x.change === 'deleted'),
					'the billing agent’s runs deleted files',
				);
				assert.deepEqual(summary(result.differences), expected);
				assert.equal(result.incomplete, undefined);
				assert.equal(result.stats.runListsRead, 1);
				assert.equal(result.baseline.since, Date.parse(truth.runs[0].created_at));
				assert.deepEqual(Object.keys(result.baseline.entries).sort(), files.files.map((f: any) => f.path).sort());
				for (const f of files.files) {
					assert.equal(result.baseline.entries[f.path]!.size, f.size, f.path);
					assert.equal(result.baseline.entries[f.path]!.mtime, f.mtime_unix_ms, f.path);
				}
				// the cost: the listing, the runs once, the events of each ended run once, and one read per equal-size candidate
				assert.equal(result.stats.runEventsRead, truth.runs.length);
				assert.equal(
					(await requests()) - before,
					result.stats.foldersListed + 1 + result.stats.runEventsRead + result.stats.filesRead,
				);
				// everything: the same agent group (the deletions kept by the baseline), nothing else differs
				const all = await compareRoot(client, billing.id, local, 'everything', result.baseline);
				assert.deepEqual(summary(all.differences), expected);
				assert.equal(all.stats.runListsRead, 0);
			});

			test('refresh after a run that changed 3 files at equal size reads exactly those 3; an agent-side deletion since the baseline is in the agent group', async () => {
				const { agentId, local } = await seededAgent(60);
				/** A comparison of this agent's root with `local` (counters reset first). */
				const compare = async (mode: 'link' | 'refresh', baseline?: Baseline): Promise<CompareResult> => {
					await emu.admin('POST', '/counters/reset');
					return compareRoot(client, agentId, local, mode, baseline);
				};
				const link = await compare('link');
				assert.deepEqual(link.differences, [], 'a local copy of an agent without runs: nothing differs');
				await runToEnd(agentId, 'Touch three [[changes:3:same-size]] [[delay:1]]');
				const truth = await emu.admin<any>('GET', `/workspace/${enc(agentId)}/changes`);
				const changed = truth.net.map((x: any) => x.path);
				assert.equal(changed.length, 3);
				const refresh = await compare('refresh', link.baseline);
				assert.deepEqual(
					summary(refresh.differences),
					changed.map((p: string) => `agent modified ${p}`),
				);
				assert.equal(refresh.stats.filesRead, 3);
				assert.equal(refresh.stats.runListsRead, 0);
				const counters = await emu.counters();
				assert.equal(counters.requests.total, refresh.stats.foldersListed + 3, JSON.stringify(counters.requests.by_route));
				for (const p of changed) assert.ok(refresh.baseline.entries[p]!.sha256, p);

				// the agent deletes a file; the next refresh reports it (agent group) and reads nothing
				const gone = 'tree/pkg-000/mod-1/file-00012.txt';
				await emu.admin('POST', `/workspace/${enc(agentId)}/delete`, { path: gone });
				const again = await compare('refresh', refresh.baseline);
				assert.deepEqual(
					summary(again.differences),
					[...changed.map((p: string) => `agent modified ${p}`), `agent deleted ${gone}`].sort((a, b) =>
						a.split(' ')[2]! < b.split(' ')[2]! ? -1 : 1,
					),
				);
				assert.deepEqual(again.baseline.deleted, [gone]);
				assert.equal(again.stats.filesRead, 0, 'hashes of unchanged candidates come from the baseline');
				assert.equal((await emu.counters()).requests.total, again.stats.foldersListed);
			});

			test('an agent-side file named __proto__ is a file like any other: compared, and kept in the baseline as its own entry', async () => {
				const { agentId, local } = await seededAgent(2);
				await emu.admin('POST', `/workspace/${enc(agentId)}/write`, {
					path: '__proto__',
					content_base64: Buffer.from('proto').toString('base64'),
					mtime_unix_ms: 1_700_000_000_000,
				});
				const link = await compareRoot(client, agentId, local, 'everything');
				assert.deepEqual(
					link.differences.map((d) => [d.path, d.group, d.kind]),
					[['__proto__', 'other', 'added']],
				);
				assert.ok(Object.prototype.hasOwnProperty.call(link.baseline.entries, '__proto__'));
				assert.equal(link.baseline.entries['__proto__']?.size, 5);
			});

			test('everything: local edits and local-only files are other differences; ignored files and local symbolic links are left out', async () => {
				const { agentId, local, paths } = await seededAgent(20, 5);
				await writeFile(join(local, paths[0]!), 'a local edit of another size');
				const same = Buffer.from((await client.readWorkspaceFileAll(agentId, paths[1]!)).content);
				same[0] = same[0] === 0x41 ? 0x42 : 0x41;
				await writeFile(join(local, paths[1]!), same); // equal size, other content
				await writeTree(local, {
					'mine.txt': 'only here',
					'node_modules/x/index.js': 'x',
					'build.log': 'log',
					'.gitignore': '*.log\n',
				});
				await symlink(join(local, paths[3]!), join(local, 'tree', 'link.txt'));
				await rm(join(local, paths[2]!));
				await symlink(join(local, paths[4]!), join(local, paths[2]!)); // the agent's file is a link locally
				const result = await compareRoot(client, agentId, local, 'everything');
				assert.deepEqual(summary(result.differences), [
					'other deleted .gitignore',
					'other deleted mine.txt',
					`other modified ${paths[0]}`,
					`other modified ${paths[1]}`,
				]);
				assert.match(result.incomplete ?? '', /2 local symbolic links were not followed/);
				assert.equal(result.stats.filesRead, 18, 'equal sizes read (18), the other size not, the link not');
			});

			test('caps: files, folders and bytes stop cleanly with a plain sentence in incomplete', async () => {
				const { agentId, local } = await seededAgent(40, 5);
				const side = localOf(local);
				const ignore = await IgnoreRules.load(side, {});
				const base = { client, agentId, agentFolder: '', local: side, mode: 'everything' as const, ignore };
				const files = await compareFolders({ ...base, limits: { maxFiles: 10 } });
				assert.equal(Object.keys(files.baseline.entries).length, 10);
				assert.match(files.incomplete ?? '', /Listing stopped at 10 agent-side files \(the limit\)/);
				assert.deepEqual(files.differences, [], 'files not listed are not reported as local-only');
				await emu.admin('POST', '/counters/reset');
				const folders = await compareFolders({ ...base, limits: { maxFolders: 4 } });
				assert.equal(folders.stats.foldersListed, 4);
				const listings = Object.entries((await emu.counters()).workspace.by_op)
					.filter(([op]) => /list/i.test(op))
					.reduce((n, [, count]) => n + count, 0);
				assert.equal(listings, 4, 'no folder past the limit is asked for, not even ahead of its turn');
				assert.match(folders.incomplete ?? '', /Listing stopped after 4 agent-side folders/);
				const bytes = await compareFolders({ ...base, limits: { maxBytes: 256 * 2 * 3 } });
				assert.equal(bytes.stats.filesRead, 3);
				assert.match(bytes.incomplete ?? '', /37 files of equal size on both sides were not compared/);
				const full = await compareFolders(base);
				assert.equal(full.incomplete, undefined);
			});

			test('abort: an aborted signal ends the comparison with the AbortError', async () => {
				const ac = new AbortController();
				ac.abort();
				await assert.rejects(
					compareFolders({
						client,
						agentId: 'x',
						agentFolder: '',
						local: localOf(dir),
						mode: 'link',
						ignore: await IgnoreRules.load(undefined, {}),
						signal: ac.signal,
					}),
					{ name: 'AbortError' },
				);
			});

			test('send: writes when the agent copy is as listed; a concurrent agent-side change is AgentChangedError and nothing is written', async () => {
				const { agentId, paths } = await seededAgent(5, 5);
				const listed = (await client.listWorkspaceAll(agentId, 'tree/pkg-000/mod-0')).find(
					(e) => e.name === paths[0]!.split('/').pop(),
				)!;
				const expected = { size: listed.size, mtime: listed.mtime_unix_ms };
				const facts = await sendToAgent(client, agentId, paths[0]!, Buffer.from('from local\n'), expected);
				assert.equal(facts?.size, 11);
				const now = await emu.admin<any>('GET', `/workspace/${enc(agentId)}/files?content=true`);
				assert.equal(
					Buffer.from(now.files.find((f: any) => f.path === paths[0]).content_base64, 'base64').toString(),
					'from local\n',
				);
				// the agent changes paths[1] after it was listed
				const listed1 = await client.statWorkspace(agentId, paths[1]!);
				await emu.admin('POST', `/workspace/${enc(agentId)}/write`, {
					path: paths[1],
					content_base64: Buffer.from('agent edit').toString('base64'),
				});
				await assert.rejects(
					sendToAgent(client, agentId, paths[1]!, Buffer.from('from local'), {
						size: listed1.size,
						mtime: listed1.mtime_unix_ms,
					}),
					(err: unknown) => err instanceof AgentChangedError && err.path === paths[1],
				);
				const after = await emu.admin<any>('GET', `/workspace/${enc(agentId)}/files?content=true`);
				assert.equal(
					Buffer.from(after.files.find((f: any) => f.path === paths[1]).content_base64, 'base64').toString(),
					'agent edit',
				);
				// expected absent, but the agent created it meanwhile; and a delete of a listed file
				await emu.admin('POST', `/workspace/${enc(agentId)}/write`, {
					path: 'new.txt',
					content_base64: Buffer.from('agent').toString('base64'),
				});
				await assert.rejects(sendToAgent(client, agentId, 'new.txt', Buffer.from('local'), undefined), AgentChangedError);
				const l2 = await client.statWorkspace(agentId, paths[2]!);
				assert.equal(
					await sendToAgent(client, agentId, paths[2]!, undefined, { size: l2.size, mtime: l2.mtime_unix_ms }),
					undefined,
				);
				const final = await emu.admin<any>('GET', `/workspace/${enc(agentId)}/files`);
				assert.ok(!final.files.some((f: any) => f.path === paths[2]));
			});
		});
	}
}

suite('compare/engine against a hostile server: agent-side names', () => {
	let server: HostileServer;
	let client: CloudAgentsClient;
	let dir: string;

	serverSuite(
		async () => {
			server = await startHostile({ description: 'empty', routes: {} });
			return { url: server.baseUrl, close: () => server.close() };
		},
		TOKEN,
		(c, d) => ([client, dir] = [c, d]),
	);

	test('unsafe names (.., a/b, backslashes, NUL, absolute, empty, repeated) are skipped and counted, never joined into a local path', async () => {
		const MTIME = 1_760_000_000_000;
		const file = (name: string): RawEntry => ({ name, type: 'file', size: 5, mtime_unix_ms: MTIME });
		const names = [
			'..',
			'.',
			'../escape.txt',
			'a/../../escape.txt',
			'/etc/passwd',
			'..\\escape.txt',
			'C:evil',
			'nul\u0000.txt',
			'',
			'ok.txt',
			'ok.txt',
		];
		const root: RawEntry[] = [
			...names.map(file),
			{ name: '..', type: 'directory', size: 0, mtime_unix_ms: MTIME },
			{ name: 'sub', type: 'directory', size: 0, mtime_unix_ms: MTIME },
		];
		const seen: string[] = [];
		server.use({
			description: 'hostile names',
			routes: {
				...workspaceRoutes({
					list: (path) => {
						seen.push(path);
						return path === '' ? root : path === 'sub' ? [file('../../up.txt'), file('fine.txt')] : undefined;
					},
					file: () => ({ content: Buffer.from('hello'), mtime: MTIME }),
				}),
				'GET /v2/agents/*/runs': (_req, res) =>
					json(res, 200, [
						{
							id: 'run_1',
							agent_id: AGENT_ID,
							status: 'succeeded',
							prompt: 'p',
							created_at: '2025-01-01T00:00:00Z',
							updated_at: '2025-01-01T00:00:00Z',
						},
					]),
			},
		});
		const local = join(dir, 'root', 'local');
		await mkdir(local, { recursive: true });
		await writeFile(join(local, 'ok.txt'), 'hello');
		const result = await compareWith(client, AGENT_ID, local, 'everything');
		assert.deepEqual(seen, ['', 'sub'], 'the ".." folder was not listed');
		assert.deepEqual(summary(result.differences), ['agent added sub/fine.txt']);
		assert.deepEqual(Object.keys(result.baseline.entries).sort(), ['ok.txt', 'sub/fine.txt']);
		assert.match(result.incomplete ?? '', /12 agent-side names could not be used as a local path/);
		// nothing appeared outside the local folder
		assert.deepEqual((await readdir(join(dir, 'root'))).sort(), ['local']);
		assert.deepEqual((await readdir(dir)).sort(), ['root']);
	});
});
