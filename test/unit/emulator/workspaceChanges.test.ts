/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/**
 * What scripted runs change in a workspace (issue 21): `[[changes:N]]`, `[[changes:N:same-size]]`, `[[delete:PATH]]`, a run
 * without directives, the demo seed's billing agent, and the admin ground truth
 * (`/_emulator/workspace/{agent_id}/files|changes|seed|delete`), in both profiles.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { RunningEmulator } from '../../../emulator/src/server';
import { netChanges } from '../../../emulator/src/changes';
import { DEMO_BILLING_BASELINE } from '../../../emulator/src/seed';
import type { Client } from './helpers';
import { b64, boot, parseSse, readSse, unb64, until } from './helpers';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const enc = encodeURIComponent;

/** The billing agent's net changes since its first run (the demo seed's documented history). */
const DEMO_NET = [
	{ path: 'docs/guide.md', change: 'modified' },
	{ path: 'docs/notes.md', change: 'deleted' },
	{ path: 'docs/pr-summary.md', change: 'created' },
	{ path: 'package.json', change: 'modified' },
	{ path: 'src/index.ts', change: 'modified' },
	{ path: 'src/lib/billing.ts', change: 'modified' },
	{ path: 'src/lib/rounding.ts', change: 'deleted' },
	{ path: 'src/lib/util.ts', change: 'created' },
];

interface Ctx {
	emu: RunningEmulator;
	c: Client;
}

async function agentByName(c: Client, name: string): Promise<string> {
	const list = (await c.get('/v2/agents?limit=100', { validate: false })).body;
	const agents = (list.agents ?? list.data?.agents ?? []) as { id: string; name: string }[];
	const a = agents.find((x) => x.name === name);
	assert.ok(a, name);
	return a.id;
}

async function newAgent(c: Client, name: string): Promise<string> {
	const id = (await c.post('/v2/agents', { name }, { validate: false })).body.id as string;
	await until(async () => ['idle', 'READY'].includes((await c.get(`/v2/agents/${enc(id)}`, { validate: false })).body.status));
	return id;
}

async function runToEnd(ctx: Ctx, agent: string, prompt: string): Promise<{ run: any; frames: { event?: string; data: string }[] }> {
	const created = await ctx.c.post(`/v2/agents/${enc(agent)}/runs`, { prompt }, { validate: false });
	assert.equal(created.status, 202, created.text);
	const id = created.body.id as string;
	const sse = await readSse(ctx.emu.url, `/v2/agents/${enc(agent)}/runs/${id}/events`);
	const state = (await ctx.c.admin('GET', '/state')).body;
	const run = state.runs.find((r: any) => r.id === id);
	return { run, frames: parseSse(sse.text).events };
}

for (const profile of ['standard', 'variant'] as const) {
	/** The file changes a run's stream names, read in the profile's own envelope. */
	const streamed = (frames: { event?: string; data: string }[]): { path: string; change: string }[] => {
		if (profile === 'standard') {
			return frames.filter((f) => f.event === 'file.changed').map((f) => JSON.parse(f.data).data);
		}
		const back: Record<string, string> = { added: 'created', changed: 'modified', removed: 'deleted' };
		return frames
			.filter((f) => f.event === 'file_change')
			.map((f) => JSON.parse(f.data).file)
			.map((file) => ({ path: file.path, change: back[file.action] ?? `?${file.action}` }));
	};

	suite(`emulator (${profile}): runs change workspace files, and the admin ground truth`, () => {
		const ctx = {} as Ctx;

		suiteSetup(async () => {
			Object.assign(ctx, await boot({ profile }));
		});
		suiteTeardown(async () => {
			await ctx.emu.close();
		});

		test('the demo billing agent: its runs added, modified and deleted files since its first run started', async () => {
			const billing = await agentByName(ctx.c, 'Refactor billing module');
			const changes = (await ctx.c.admin('GET', `/workspace/${enc(billing)}/changes`)).body;
			assert.deepEqual(changes.net, DEMO_NET);
			assert.ok(changes.runs.length >= 7);
			const firstStart = Date.parse(changes.runs[0].created_at);
			const files = (await ctx.c.admin('GET', `/workspace/${enc(billing)}/files?content=true`)).body;
			const byPath = new Map<string, any>(files.files.map((f: any) => [f.path, f]));
			const changed = new Set(DEMO_NET.map((x) => x.path));
			for (const f of files.files) {
				assert.equal(f.sha256, sha(Buffer.from(f.content_base64, 'base64')), f.path);
				// changed by the agent ⇔ modified at or after the first run's start
				assert.equal(f.mtime_unix_ms >= firstStart, changed.has(f.path), f.path);
			}
			for (const [path, content] of Object.entries(DEMO_BILLING_BASELINE)) {
				const kind = DEMO_NET.find((x) => x.path === path)?.change;
				if (kind === 'deleted') assert.ok(!byPath.has(path), path);
				else if (kind === 'modified') assert.notEqual(byPath.get(path)?.sha256, sha(content), path);
				else assert.equal(byPath.get(path)?.sha256, sha(content), `${path} is as it was`);
			}
			for (const x of DEMO_NET.filter((n) => n.change === 'created')) {
				assert.ok(!(x.path in DEMO_BILLING_BASELINE) && byPath.has(x.path));
			}
			// the latest run says what it did in its own events
			const last = changes.runs[changes.runs.length - 1];
			assert.deepEqual(
				last.changes.map((x: any) => x.change),
				['created', 'modified', 'deleted'],
			);
		});

		test('[[changes:3]] adds, modifies and deletes a file, says so in its events, with mtimes of the run', async () => {
			const agent = await newAgent(ctx.c, `Changes ${profile}`);
			const seeded = await ctx.c.admin('POST', `/workspace/${enc(agent)}/seed`, {
				files: 20,
				per_folder: 5,
				mtime_unix_ms: 1_700_000_000_000,
			});
			assert.equal(seeded.status, 200, seeded.text);
			const before = (await ctx.c.admin('GET', `/workspace/${enc(agent)}/files`)).body.files as any[];
			assert.equal(before.length, 20);
			const { run, frames } = await runToEnd(ctx, agent, 'Tidy the tree [[changes:3]] [[delay:1]]');
			assert.equal(run.status, 'succeeded');
			const events = streamed(frames);
			assert.deepEqual(
				events.map((e) => e.change),
				['created', 'modified', 'deleted'],
			);
			const truth = (await ctx.c.admin('GET', `/workspace/${enc(agent)}/changes?run_id=${run.id}`)).body;
			assert.deepEqual(truth.runs[0].changes, events);
			assert.deepEqual(
				truth.net,
				[...events].sort((a, b) => (a.path < b.path ? -1 : 1)),
			);
			const after = new Map<string, any>(
				((await ctx.c.admin('GET', `/workspace/${enc(agent)}/files`)).body.files as any[]).map((f) => [f.path, f]),
			);
			const old = new Map(before.map((f) => [f.path, f]));
			const [created, modified, deleted] = events;
			assert.ok(created && modified && deleted);
			assert.ok(!old.has(created.path) && after.has(created.path));
			assert.ok(old.has(modified.path) && after.get(modified.path).sha256 !== old.get(modified.path).sha256);
			assert.ok(old.has(deleted.path) && !after.has(deleted.path));
			assert.equal(after.size, 20);
			for (const p of [created.path, modified.path]) assert.ok(after.get(p).mtime_unix_ms >= run.created_ms, p);
			for (const [p, f] of after) if (p !== created.path && p !== modified.path) assert.equal(f.mtime_unix_ms, 1_700_000_000_000);
			// the files are what the public workspace interface reads
			const read = await ctx.c.admin('GET', `/workspace/${enc(agent)}/files?content=true&under=${enc(modified.path.split('/')[0]!)}`);
			const m = (read.body.files as any[]).find((f) => f.path === modified.path);
			assert.match(unb64(m.content_base64), new RegExp(`changed by ${run.id}`));
		});

		test('[[changes:N:KIND]] makes N changes of one kind, spread over the tree; an empty workspace gets files created', async () => {
			const agent = await newAgent(ctx.c, `Kinds ${profile}`);
			const empty = await runToEnd(ctx, agent, '[[changes:2:deleted]] [[delay:1]]');
			assert.deepEqual(
				streamed(empty.frames).map((e) => e.change),
				['created', 'created'],
				'nothing to delete: created instead',
			);
			await ctx.c.admin('POST', `/workspace/${enc(agent)}/seed`, { files: 100, per_folder: 10 });
			const { frames } = await runToEnd(ctx, agent, '[[changes:4:modified]] [[delay:1]]');
			const events = streamed(frames);
			assert.deepEqual(
				events.map((e) => e.change),
				['modified', 'modified', 'modified', 'modified'],
			);
			assert.equal(new Set(events.map((e) => e.path)).size, 4);
			assert.ok(new Set(events.map((e) => e.path.split('/').slice(0, -1).join('/'))).size > 1, 'more than one folder');
		});

		test('[[changes:N:same-size]] modifies N files keeping each length, so only their contents differ', async () => {
			const agent = await newAgent(ctx.c, `Same size ${profile}`);
			await ctx.c.admin('POST', `/workspace/${enc(agent)}/seed`, { files: 30, per_folder: 10, mtime_unix_ms: 1_700_000_000_000 });
			const before = new Map<string, any>(
				((await ctx.c.admin('GET', `/workspace/${enc(agent)}/files`)).body.files as any[]).map((f) => [f.path, f]),
			);
			const { run, frames } = await runToEnd(ctx, agent, '[[changes:3:same-size]] [[delay:1]]');
			assert.equal(run.status, 'succeeded');
			const events = streamed(frames);
			assert.deepEqual(
				events.map((e) => e.change),
				['modified', 'modified', 'modified'],
			);
			const after = new Map<string, any>(
				((await ctx.c.admin('GET', `/workspace/${enc(agent)}/files`)).body.files as any[]).map((f) => [f.path, f]),
			);
			assert.equal(after.size, 30);
			assert.equal(new Set(events.map((e) => e.path)).size, 3);
			for (const { path } of events) {
				const [b, a] = [before.get(path), after.get(path)];
				assert.ok(b && a, path);
				assert.equal(a.size, b.size, `${path} keeps its size`);
				assert.notEqual(a.sha256, b.sha256, `${path} has another content`);
				assert.ok(a.mtime_unix_ms > b.mtime_unix_ms, `${path} has a later mtime`);
			}
			for (const [p, f] of after) if (!events.some((e) => e.path === p)) assert.equal(f.sha256, before.get(p).sha256, p);
		});

		test('[[delete:PATH]] deletes a file (a missing one is a warning, no change); [[write:PATH]] still works', async () => {
			const agent = await newAgent(ctx.c, `Delete ${profile}`);
			await ctx.c.admin('POST', `/workspace/${enc(agent)}/write`, { path: 'a/gone.txt', content_base64: b64('bye\n') });
			const { run, frames } = await runToEnd(ctx, agent, '[[delete:a/gone.txt]] [[delete:nope.txt]] [[write:a/new.txt]] [[delay:1]]');
			assert.deepEqual(streamed(frames), [
				{ path: 'a/new.txt', change: 'created' },
				{ path: 'a/gone.txt', change: 'deleted' },
			]);
			assert.equal(run.status, 'succeeded');
			const files = (await ctx.c.admin('GET', `/workspace/${enc(agent)}/files`)).body.files.map((f: any) => f.path);
			assert.deepEqual(files, ['a/new.txt']);
		});

		test('a run without directives adds a note, modifies the log and, from the second run on, deletes the previous note', async function () {
			this.timeout(20_000);
			const agent = await newAgent(ctx.c, `Default ${profile}`);
			const first = await runToEnd(ctx, agent, 'Write things down');
			const one = streamed(first.frames);
			assert.deepEqual(
				one.map((e) => e.change),
				['created', 'created'],
			);
			assert.equal(one[0]!.path, 'notes/agent-log.md');
			const second = await runToEnd(ctx, agent, 'And again');
			const two = streamed(second.frames);
			assert.deepEqual(two, [
				{ path: 'notes/agent-log.md', change: 'modified' },
				{ path: `notes/run-${String(second.run.id).slice(-10).toLowerCase()}.md`, change: 'created' },
				{ path: one[1]!.path, change: 'deleted' },
			]);
			assert.match(second.run.result, /### Files changed\n- `notes\/agent-log.md` \(modified\)/);
		});

		test('mtimes follow the emulator clock: after advancing it, a run dates its changes on it', async () => {
			const agent = await newAgent(ctx.c, `Clock ${profile}`);
			await ctx.c.admin('POST', `/workspace/${enc(agent)}/write`, { path: 'before.txt', content_base64: b64('x') });
			const clock = (await ctx.c.admin('POST', '/clock/advance', { seconds: 7200 })).body;
			const { frames } = await runToEnd(ctx, agent, '[[write:later.txt]] [[delay:1]]');
			assert.equal(streamed(frames).length, 1);
			const [before, f] = (await ctx.c.admin('GET', `/workspace/${enc(agent)}/files`)).body.files;
			assert.equal(f.path, 'later.txt');
			assert.ok(before.mtime_unix_ms < clock.now_ms - 7_000_000);
			assert.ok(f.mtime_unix_ms >= clock.now_ms, `${f.mtime_unix_ms} ≥ ${clock.now_ms}`);
			const stat = await ctx.c.admin('GET', '/clock');
			assert.ok(f.mtime_unix_ms <= stat.body.now_ms + 1000);
		});
	});
}

suite('emulator: workspace admin routes (seed, files, delete)', () => {
	const ctx = {} as Ctx;
	suiteSetup(async () => {
		Object.assign(ctx, await boot({ seed: 'empty' }));
	});
	suiteTeardown(async () => {
		await ctx.emu.close();
	});

	test('seed makes the same deterministic tree for the same arguments; files lists sizes, mtimes, SHA-256 and folders', async () => {
		const a = await newAgent(ctx.c, 'Tree A');
		const b = await newAgent(ctx.c, 'Tree B');
		const args = { files: 500, size: 100, per_folder: 25, under: 'big', seed: 'x1', mtime_unix_ms: 1_600_000_000_000 };
		const sa = (await ctx.c.admin('POST', `/workspace/${enc(a)}/seed`, args)).body;
		assert.deepEqual(sa, { agent_id: a, under: 'big', files: 500, directories: 23, bytes: 50_000 });
		await ctx.c.admin('POST', `/workspace/${enc(b)}/seed`, args);
		const fa = (await ctx.c.admin('GET', `/workspace/${enc(a)}/files`)).body;
		const fb = (await ctx.c.admin('GET', `/workspace/${enc(b)}/files`)).body;
		assert.equal(fa.files.length, 500);
		assert.deepEqual(fa.files, fb.files);
		assert.equal(fa.bytes, 50_000);
		assert.ok(fa.files.every((f: any) => f.size === 100 && f.mtime_unix_ms === 1_600_000_000_000 && /^[0-9a-f]{64}$/.test(f.sha256)));
		assert.equal(fa.files[0].path, 'big/pkg-000/mod-0/file-00000.txt');
		assert.equal(fa.files[499].path, 'big/pkg-001/mod-9/file-00499.txt');
		assert.equal(new Set(fa.files.map((f: any) => f.sha256)).size, 500, 'contents differ file to file');
		assert.deepEqual(fa.directories.slice(0, 3), ['big', 'big/pkg-000', 'big/pkg-000/mod-0']);
		assert.equal(fa.directories.length, 23);
		// another seed string: same paths, other contents
		const c2 = await newAgent(ctx.c, 'Tree C');
		await ctx.c.admin('POST', `/workspace/${enc(c2)}/seed`, { ...args, seed: 'x2' });
		const fc = (await ctx.c.admin('GET', `/workspace/${enc(c2)}/files`)).body;
		assert.deepEqual(
			fc.files.map((f: any) => f.path),
			fa.files.map((f: any) => f.path),
		);
		assert.notEqual(fc.files[0].sha256, fa.files[0].sha256);
		// the public listing agrees
		const list = await ctx.c.post(`/v2/agents/${enc(a)}/workspace`, { op: 'list', path: 'big/pkg-000/mod-0' });
		assert.deepEqual(
			list.body.entries.map((e: any) => [e.size, e.mtime_unix_ms]),
			fa.files.slice(0, 25).map((f: any) => [f.size, f.mtime_unix_ms]),
		);
		// under= narrows; content=true adds the bytes
		const one = (await ctx.c.admin('GET', `/workspace/${enc(a)}/files?under=big/pkg-001/mod-9&content=true`)).body;
		assert.equal(one.files.length, 25);
		assert.equal(sha(Buffer.from(one.files[0].content_base64, 'base64')), one.files[0].sha256);
		assert.match(unb64(one.files[0].content_base64), /^file-00475\.txt x1 line 1\n/);
	});

	test('5,000 files seed quickly and default to a tree under tree/ dated now', async function () {
		this.timeout(20_000);
		const a = await newAgent(ctx.c, 'Tree 5k');
		const t0 = Date.now();
		const s = (await ctx.c.admin('POST', `/workspace/${enc(a)}/seed`, { files: 5000 })).body;
		assert.equal(s.files, 5000);
		assert.equal(s.under, 'tree');
		const files = (await ctx.c.admin('GET', `/workspace/${enc(a)}/files`)).body;
		assert.equal(files.files.length, 5000);
		assert.ok(files.files.every((f: any) => f.size === 256 && f.mtime_unix_ms >= t0 - 5));
		assert.ok(Date.now() - t0 < 10_000);
	});

	test('bad seed arguments and unknown agents are refused; delete removes a file or folder', async () => {
		const a = await newAgent(ctx.c, 'Admin delete');
		for (const body of [
			{ files: 0 },
			{ files: 20_001 },
			{ files: 1, size: -1 },
			{ files: 1, under: '../x' },
			{ files: 1, seed: 'ü' },
		]) {
			const r = await ctx.c.admin('POST', `/workspace/${enc(a)}/seed`, body);
			assert.ok(r.status === 400 || r.status === 422, `${JSON.stringify(body)} → ${r.status}`);
		}
		assert.equal((await ctx.c.admin('GET', '/workspace/nope/files')).status >= 400, true);
		await ctx.c.admin('POST', `/workspace/${enc(a)}/write`, { path: 'd/x.txt', content_base64: b64('x'), mtime_unix_ms: 1000 });
		await ctx.c.admin('POST', `/workspace/${enc(a)}/write`, { path: 'd/y.txt', content_base64: b64('y') });
		const listed = (await ctx.c.admin('GET', `/workspace/${enc(a)}/files`)).body.files;
		assert.equal(listed[0].mtime_unix_ms, 1000);
		const del = await ctx.c.admin('POST', `/workspace/${enc(a)}/delete`, { path: 'd/x.txt' });
		assert.deepEqual(del.body, { path: 'd/x.txt', deleted: true });
		assert.equal((await ctx.c.admin('POST', `/workspace/${enc(a)}/delete`, { path: 'd' })).status, 409);
		assert.equal((await ctx.c.admin('POST', `/workspace/${enc(a)}/delete`, { path: 'd', recursive: true })).status, 200);
		assert.deepEqual((await ctx.c.admin('GET', `/workspace/${enc(a)}/files`)).body, {
			agent_id: a,
			under: '',
			files: [],
			directories: [],
			bytes: 0,
		});
		assert.equal((await ctx.c.admin('POST', `/workspace/${enc(a)}/delete`, { path: 'd' })).status, 404);
		assert.equal((await ctx.c.admin('GET', `/workspace/${enc(a)}/changes?run_id=run_nope`)).status, 404);
	});
});

suite('emulator: net changes', () => {
	test('created+modified is created, created+deleted is nothing, modified+deleted is deleted, deleted+created is modified', () => {
		assert.deepEqual(
			netChanges([
				{ path: 'b', change: 'created' },
				{ path: 'b', change: 'modified' },
				{ path: 'a', change: 'created' },
				{ path: 'a', change: 'deleted' },
				{ path: 'c', change: 'modified' },
				{ path: 'c', change: 'deleted' },
				{ path: 'd', change: 'deleted' },
				{ path: 'd', change: 'created' },
				{ path: 'e', change: 'modified' },
				{ path: 'e', change: 'modified' },
			]),
			[
				{ path: 'b', change: 'created' },
				{ path: 'c', change: 'deleted' },
				{ path: 'd', change: 'modified' },
				{ path: 'e', change: 'modified' },
			],
		);
	});
});
