import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, type CloudAgentsClient } from '../../../src/api';
import type { ChangeFile, ChangesHost } from '../../../src/changes/changesActions';
import { confirmSend, sendFiles } from '../../../src/changes/send';
import { NotRegularFileError } from '../../../src/compare/localFiles';
import type { Difference, FileFacts } from '../../../src/compare/types';
import type { ActionKit } from '../../../src/views/actions';
import { sha256Hex } from '../../../src/base/random';
import { startWorkspaceEmulator, type TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';

/**
 * src/changes/send.ts against the emulator's agent workspace (a real client): what is written or
 * deleted there, the conflict check, the question, and what the link and the host are told.
 */
const encode = (s: string): Uint8Array => new TextEncoder().encode(s);

interface Told {
	settled: Array<[string[], ReadonlyMap<string, unknown> | undefined]>;
	refreshes: number[];
	changed: Array<[string, string, string]>;
	info: string[];
	warn: string[];
	asked: Array<[string, string | undefined, string]>;
}

suite('changes/send', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let told: Told;
	/** The local folder's files (relative path → bytes; a `symlink` value: a symbolic link). */
	let local: Map<string, Uint8Array | 'symlink'>;
	let confirmAnswer: boolean;

	setup(async () => {
		({ emu, client, agentId } = await startWorkspaceEmulator());
		told = { settled: [], refreshes: [], changed: [], info: [], warn: [], asked: [] };
		local = new Map();
		confirmAnswer = true;
	});
	teardown(async () => {
		client.close();
		await emu.close();
	});

	const source = {
		link: { id: 'link-1', agentId: '', agentFolder: 'sent', agentName: 'A', localFolder: 'file:///w' },
		// The client of the link's deployment: Send to Agent writes through it.
		client: () => client,
		localUriOf: (p: string) => vscode.Uri.file(`/w/${p}`),
		files: () => ({
			read: async (p: string) => {
				const v = local.get(p);
				if (v === 'symlink') {
					throw new NotRegularFileError(p, 'symlink');
				}
				if (!v) {
					throw new Error(`no ${p}`);
				}
				return v;
			},
		}),
		settled: (paths: string[], facts?: ReadonlyMap<string, unknown>) => told.settled.push([paths, facts]),
		refreshSoon: (ms: number) => told.refreshes.push(ms),
	};
	const host = (): ChangesHost =>
		({
			client: () => client,
			log: { warn: () => undefined },
			agentFileChanged: (a: string, p: string, c: string) => told.changed.push([a, p, c]),
		}) as unknown as ChangesHost;
	const kit = (): ActionKit =>
		({
			confirm: async (m: string, d: string | undefined, a: string) => {
				told.asked.push([m, d, a]);
				return confirmAnswer;
			},
			progress: async <R>(_t: string, work: (s: AbortSignal, r: (m: string) => void) => Promise<R>) =>
				work(new AbortController().signal, () => undefined),
			info: (m: string) => told.info.push(m),
			warn: (m: string) => told.warn.push(m),
		}) as unknown as ActionKit;
	const fileOf = (d: Difference): ChangeFile => {
		source.link.agentId = agentId;
		return { source, d } as unknown as ChangeFile;
	};
	const agentFacts = async (path: string): Promise<FileFacts | undefined> => {
		try {
			const e = await client.statWorkspace(agentId, `sent/${path}`);
			return { size: e.size, mtime: e.mtime_unix_ms };
		} catch (err) {
			if (err instanceof ApiError && err.status === 404) {
				return undefined;
			}
			throw err;
		}
	};
	const agentText = async (path: string): Promise<string> =>
		new TextDecoder().decode((await client.readWorkspaceFileAll(agentId, `sent/${path}`)).content);

	test('nothing selected: says so, asks nothing, sends nothing', async () => {
		assert.deepEqual(await sendFiles(host(), [], kit()), { sent: [], conflicts: [] });
		assert.equal(told.info.length, 1);
		assert.match(told.info[0]!, /Nothing to send/);
		assert.deepEqual(told.asked, []);
	});

	test("replacing the agent's copy asks first; a refusal writes nothing", async () => {
		await client.writeWorkspaceFile(agentId, 'sent/a.txt', encode('agent'));
		const before = await agentFacts('a.txt');
		local.set('a.txt', encode('local version'));
		confirmAnswer = false;
		const answer = await sendFiles(host(), [fileOf({ path: 'a.txt', kind: 'modified', group: 'agent', agent: before })], kit());
		assert.deepEqual(answer, { sent: [], conflicts: [] });
		assert.equal(told.asked.length, 1);
		assert.equal(told.asked[0]![0], 'Send the local version of 1 file to the agent?');
		assert.match(told.asked[0]![1]!, /Replaces the agent's version of a\.txt/);
		assert.equal(told.asked[0]![2], 'Send to Agent');
		assert.equal(await agentText('a.txt'), 'agent');
		assert.deepEqual(told.settled, []);
	});

	test('a confirmed send writes the local bytes there, settles the path with the new facts and their hash, and tells the host', async () => {
		await client.writeWorkspaceFile(agentId, 'sent/a.txt', encode('agent'));
		const before = await agentFacts('a.txt');
		local.set('a.txt', encode('local version'));
		const answer = await sendFiles(host(), [fileOf({ path: 'a.txt', kind: 'modified', group: 'agent', agent: before })], kit());
		assert.deepEqual(answer, { sent: ['a.txt'], conflicts: [] });
		assert.equal(await agentText('a.txt'), 'local version');
		assert.equal(told.settled.length, 1);
		const [paths, facts] = told.settled[0]!;
		assert.deepEqual(paths, ['a.txt']);
		const after = facts!.get('a.txt') as FileFacts & { sha256: string };
		assert.deepEqual({ size: after.size, mtime: after.mtime }, await agentFacts('a.txt'));
		assert.equal(after.sha256, await sha256Hex(encode('local version')));
		assert.deepEqual(told.changed, [[agentId, 'sent/a.txt', 'modified']]);
	});

	test('a file only the agent has is deleted there (after the question); one the agent deleted is created again', async () => {
		await client.writeWorkspaceFile(agentId, 'sent/only-agent.txt', encode('x'));
		const onlyAgent = await agentFacts('only-agent.txt');
		local.set('gone.txt', encode('restored'));
		const answer = await sendFiles(
			host(),
			[
				fileOf({ path: 'only-agent.txt', kind: 'added', group: 'agent', agent: onlyAgent }),
				fileOf({ path: 'gone.txt', kind: 'deleted', group: 'agent' }),
			],
			kit(),
		);
		assert.deepEqual(answer.sent, ['only-agent.txt', 'gone.txt']);
		const detail = told.asked[0]![1]!.split('\n');
		assert.deepEqual(detail, [
			'Deletes only-agent.txt in the agent workspace (the local folder does not have it).',
			'Creates gone.txt again in the agent workspace (the agent deleted it).',
		]);
		assert.equal(await agentFacts('only-agent.txt'), undefined);
		assert.equal(await agentText('gone.txt'), 'restored');
		assert.deepEqual(
			told.changed.map((c) => c.slice(1)),
			[
				['sent/only-agent.txt', 'deleted'],
				['sent/gone.txt', 'created'],
			],
		);
		const facts = told.settled[0]![1]!;
		assert.equal(facts.get('only-agent.txt'), undefined);
		assert.ok(facts.has('only-agent.txt'));
	});

	test('an agent copy changed since it was listed is a conflict: nothing written, the person told, the link refreshed', async () => {
		await client.writeWorkspaceFile(agentId, 'sent/a.txt', encode('agent'));
		const listed = await agentFacts('a.txt');
		await client.writeWorkspaceFile(agentId, 'sent/a.txt', encode('agent wrote more since'));
		local.set('a.txt', encode('local'));
		local.set('b.txt', encode('b local'));
		const answer = await sendFiles(
			host(),
			[
				fileOf({ path: 'a.txt', kind: 'modified', group: 'agent', agent: listed }),
				fileOf({ path: 'b.txt', kind: 'deleted', group: 'other' }),
			],
			kit(),
		);
		assert.deepEqual(answer, { sent: ['b.txt'], conflicts: ['a.txt'] });
		assert.equal(await agentText('a.txt'), 'agent wrote more since');
		assert.equal(told.warn.length, 1);
		assert.match(told.warn[0]!, /^1 file changed in the agent workspace since it was listed.*: a\.txt\./);
		assert.deepEqual(told.refreshes, [0]);
		assert.deepEqual(told.settled[0]![0], ['b.txt']);
	});

	test('a local path that is a symbolic link is refused, saying it is not a regular file, and nothing is written', async () => {
		local.set('link.txt', 'symlink');
		const err = await sendFiles(host(), [fileOf({ path: 'link.txt', kind: 'deleted', group: 'agent' })], kit()).then(
			() => undefined,
			(e: unknown) => e,
		);
		assert.ok(err instanceof Error);
		assert.equal(err.message, 'link.txt is not a regular file here.');
		assert.ok(err.cause instanceof NotRegularFileError);
		assert.equal(await agentFacts('link.txt'), undefined);
	});

	test('confirmSend: nothing to ask for a clean re-created file; once asked, the re-created and the unsaved file are both named', async () => {
		fake.workspace.textDocuments = [{ uri: vscode.Uri.file('/w/new.txt'), isDirty: true }];
		const asked: string[] = [];
		const k = { confirm: async (_m: string, d: string | undefined) => (asked.push(d ?? ''), true) };
		assert.equal(await confirmSend([fileOf({ path: 'other.txt', kind: 'deleted', group: 'agent' })], k), true);
		assert.deepEqual(asked, []);
		await confirmSend([fileOf({ path: 'new.txt', kind: 'deleted', group: 'agent' })], k);
		assert.deepEqual(asked, [
			'Creates new.txt again in the agent workspace (the agent deleted it).\nSends the saved version of new.txt (its unsaved changes stay here).',
		]);
	});
});
