import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../../src/api';
import { deploymentId } from '../../../../src/auth/deployments';
import { encodeAgentAuthority } from '../../../../src/workspace/fs/agentUri';
import { WorkspaceCache } from '../../../../src/workspace/fs/workspaceCache';
import {
	WorkspaceFileSystemProvider,
	agentIdOf,
	parseWorkspaceUri,
	sameAddress,
	workspaceAddressOf,
	workspaceUri,
} from '../../../../src/workspace/fs/workspaceFs';
import type { TestEmulator } from '../../support/emulator';
import * as fake from '../../support/vscodeFake';
import { workspaceEmulatorPerSuite } from '../workspaceFeatureDeps';

/** src/workspace/fs/workspaceFs.ts: the `cloud-agent:` provider over a real WorkspaceCache and client, against the emulator. */

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
/** Agent ids as the description has them: a runtime UUID and a harness (case kept). */
const MIXED = 'C19B1983-412F-41B5-81CC-EC71FA626645:Main';
const OLD = 'c19b1983-412f-41b5-81cc-ec71fa626645.main';
const OTHER = 'a0000000-0000-4000-8000-000000000001.other';

suite('workspace/fs/workspaceFs: URIs', () => {
	test('workspaceUri encodes the agent in the authority and roots the path; agentIdOf reads it back', () => {
		const uri = workspaceUri(MIXED, '//src/a.ts');
		assert.equal(uri.scheme, 'cloud-agent');
		assert.equal(uri.authority, encodeAgentAuthority(MIXED));
		assert.equal(uri.path, '/src/a.ts');
		assert.equal(workspaceUri(OTHER).path, '/');
		assert.equal(agentIdOf(uri), MIXED);
		// The authority survives VS Code's lower-casing.
		assert.equal(agentIdOf(uri.with({ authority: uri.authority.toLowerCase() })), MIXED);
	});

	test('agentIdOf: another scheme or an authority naming no agent is undefined; an old link names its agent', () => {
		assert.equal(agentIdOf(vscode.Uri.parse(`file:///${OLD}/x`)), undefined);
		assert.equal(agentIdOf(vscode.Uri.parse('cloud-agent://agent-!!!/x')), undefined);
		assert.equal(agentIdOf(vscode.Uri.parse(`cloud-agent://${OLD}/x`)), OLD);
	});

	test('parseWorkspaceUri gives the agent and the raw path, FileNotFound when no agent is named', () => {
		assert.deepEqual(parseWorkspaceUri(workspaceUri(OTHER, 'a/b')), { agentId: OTHER, path: '/a/b' });
		assert.throws(
			() => parseWorkspaceUri(vscode.Uri.parse('cloud-agent://agent-!!!/x')),
			(err: unknown) => err instanceof vscode.FileSystemError && err.code === 'FileNotFound',
		);
	});
});

suite('workspace/fs/workspaceFs: addresses of deployments (issue 47)', () => {
	const STAGING_URL = 'https://staging.example.test';
	const STAGING = deploymentId(STAGING_URL);
	const isUnavailable =
		(message: RegExp) =>
		(err: unknown): boolean =>
			err instanceof vscode.FileSystemError && err.code === 'Unavailable' && message.test(err.message);

	test('with one deployment a workspace address is byte for byte what it was: no deployment part or name in it', () => {
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		const uri = workspaceUri(MIXED, 'src/a.ts');
		assert.equal(uri.toString(), `cloud-agent://${encodeAgentAuthority(MIXED)}/src/a.ts`);
		assert.equal(workspaceUri(MIXED, 'src/a.ts', undefined).toString(), uri.toString());
		assert.doesNotMatch(uri.toString(), /api|example|\.[a-z0-9-]+-[0-9a-f]{12}/);
	});

	test('an address of another deployment round-trips (VS Code lower-cases it) and is never the default agent of that id', () => {
		const uri = workspaceUri(MIXED, 'src/a.ts', STAGING);
		assert.equal(uri.authority, `${encodeAgentAuthority(MIXED)}.${STAGING}`);
		const reread = vscode.Uri.parse(uri.toString().toLowerCase());
		assert.equal(reread.authority, uri.authority);
		assert.equal(agentIdOf(uri), undefined);
		assert.notEqual(uri.toString(), workspaceUri(MIXED, 'src/a.ts').toString());
	});

	test('the same agent id on two deployments: two URIs, each read back (after VS Code lower-cases it) as its own agent and deployment', () => {
		const PRODUCTION = deploymentId('https://production.example.test');
		const onStaging = workspaceUri(MIXED, 'src/a.ts', STAGING);
		const onProduction = workspaceUri(MIXED, 'src/a.ts', PRODUCTION);
		const onDefault = workspaceUri(MIXED, 'src/a.ts');
		assert.equal(new Set([onStaging, onProduction, onDefault].map((u) => u.toString())).size, 3);
		for (const [uri, part] of [
			[onStaging, STAGING],
			[onProduction, PRODUCTION],
			[onDefault, undefined],
		] as const) {
			const reread = vscode.Uri.parse(uri.toString().toLowerCase());
			assert.deepEqual(workspaceAddressOf(reread), { agentId: MIXED, deploymentPart: part });
			assert.deepEqual(workspaceAddressOf(uri), { agentId: MIXED, deploymentPart: part });
		}
		assert.equal(sameAddress(workspaceAddressOf(onStaging), workspaceAddressOf(onProduction)), false);
		assert.equal(sameAddress(workspaceAddressOf(onStaging), workspaceAddressOf(onDefault)), false);
		assert.equal(sameAddress(workspaceAddressOf(onStaging), { agentId: MIXED, deploymentPart: STAGING }), true);
		assert.equal(workspaceAddressOf(vscode.Uri.parse(`file:///${OLD}/x`)), undefined);
		assert.deepEqual(workspaceAddressOf(vscode.Uri.parse(`cloud-agent://${OLD}/x`)), { agentId: OLD, deploymentPart: undefined });
	});

	test("a configured deployment's address is refused naming the deployment, not served from the default one", () => {
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: STAGING_URL }];
		assert.throws(() => parseWorkspaceUri(workspaceUri(MIXED, 'a', STAGING)), isUnavailable(/deployment "Staging"/));
	});

	test('an address of a deployment no longer configured says so, naming it by its address, instead of failing otherwise', () => {
		fake.settings['cloudAgents.deployments'] = [];
		assert.throws(
			() => parseWorkspaceUri(workspaceUri(MIXED, 'a', STAGING)),
			isUnavailable(new RegExp(`deployment ${STAGING}, which is no longer configured.*cloudAgents\\.deployments`)),
		);
		assert.match(STAGING, /^staging-example-test-/, 'the id names the host');
	});
});

suite('workspace/fs/workspaceFs: WorkspaceFileSystemProvider against the emulator', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let provider: WorkspaceFileSystemProvider;
	let cache: WorkspaceCache;
	let events: vscode.FileChangeEvent[][];

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w), { demoEachTest: true });
	setup(() => {
		cache = new WorkspaceCache(() => client);
		provider = new WorkspaceFileSystemProvider(cache);
		events = [];
		provider.onDidChangeFile((e) => events.push(e));
	});
	teardown(() => provider.dispose());

	/** Waits for the provider's next batch of change events. */
	function nextBatch(): Promise<vscode.FileChangeEvent[]> {
		return new Promise((resolve) => {
			const sub = provider.onDidChangeFile((e) => {
				sub.dispose();
				resolve(e);
			});
		});
	}

	const uri = (path: string): vscode.Uri => workspaceUri(agentId, path);
	const isCode =
		(code: string, message?: RegExp) =>
		(err: unknown): boolean =>
			err instanceof vscode.FileSystemError && err.code === code && (message === undefined || message.test(err.message));

	test('an address of a removed deployment fails every operation with the error naming it; nothing is asked of the default service', async () => {
		const removed = workspaceUri(agentId, 'README.md', deploymentId('https://gone.example.test'));
		const before = (await emu.counters()).requests.total;
		await assert.rejects(
			provider.stat(removed),
			isCode('Unavailable', /gone-example-test-[0-9a-f]{12}, which is no longer configured/),
		);
		await assert.rejects(provider.readFile(removed), isCode('Unavailable', /no longer configured/));
		await assert.rejects(
			provider.writeFile(removed, bytes('x'), { create: true, overwrite: true }),
			isCode('Unavailable', /no longer configured/),
		);
		assert.equal((await emu.counters()).requests.total, before);
	});

	test('stat, readDirectory and readFile give VS Code types and the stored bytes', async () => {
		const file = await provider.stat(uri('README.md'));
		assert.equal(file.type, vscode.FileType.File);
		const content = await provider.readFile(uri('README.md'));
		assert.equal(file.size, content.byteLength);
		assert.match(text(content), /^# Billing service/);
		assert.equal((await provider.stat(uri('src'))).type, vscode.FileType.Directory);
		const root = new Map(await provider.readDirectory(uri('')));
		assert.equal(root.get('README.md'), vscode.FileType.File);
		assert.equal(root.get('src'), vscode.FileType.Directory);
	});

	test('a missing file is FileNotFound; a path leaving the root is refused before any request', async () => {
		await assert.rejects(provider.stat(uri('no/such/file.txt')), isCode('FileNotFound'));
		await assert.rejects(provider.readFile(uri('missing.md')), isCode('FileNotFound'));
		await emu.admin('POST', '/counters/reset');
		await assert.rejects(provider.readFile(uri('src/../../etc/passwd')), isCode('NoPermissions'));
		assert.equal((await emu.counters()).requests.total, 0);
	});

	test('a URI naming no agent is FileNotFound', async () => {
		await assert.rejects(provider.stat(vscode.Uri.parse('cloud-agent://agent-!!!/README.md')), isCode('FileNotFound'));
	});

	test('writeFile stores the file and announces it once, in one batch', async () => {
		const batch = nextBatch();
		await provider.writeFile(uri('notes/new.txt'), bytes('hello'), { create: true, overwrite: false });
		const changed = await batch;
		assert.ok(
			changed.some((e) => e.uri.toString() === uri('notes/new.txt').toString()),
			JSON.stringify(changed.map((e) => [e.type, e.uri.toString()])),
		);
		assert.equal(text(await provider.readFile(uri('notes/new.txt'))), 'hello');
		await assert.rejects(
			provider.writeFile(uri('notes/new.txt'), bytes('again'), { create: true, overwrite: false }),
			isCode('FileExists'),
		);
	});

	test('rename and copy work within one agent; across agents they are refused with the reason', async () => {
		await provider.copy(uri('README.md'), uri('README.copy.md'), { overwrite: false });
		assert.match(text(await provider.readFile(uri('README.copy.md'))), /^# Billing service/);
		await provider.rename(uri('README.copy.md'), uri('README.moved.md'), { overwrite: false });
		await assert.rejects(provider.stat(uri('README.copy.md')), isCode('FileNotFound'));
		assert.match(text(await provider.readFile(uri('README.moved.md'))), /^# Billing service/);
		const other = workspaceUri(OTHER, 'README.md');
		await assert.rejects(
			provider.rename(other, uri('x.md'), { overwrite: false }),
			isCode('NoPermissions', /within one agent workspace/),
		);
		await assert.rejects(
			provider.copy(other, uri('x.md'), { overwrite: false }),
			isCode('NoPermissions', /within one agent workspace/),
		);
	});

	test('delete and createDirectory go through to the workspace', async () => {
		await provider.createDirectory(uri('made'));
		assert.equal((await provider.stat(uri('made'))).type, vscode.FileType.Directory);
		await provider.delete(uri('docs/guide.md'), { recursive: false });
		await assert.rejects(provider.stat(uri('docs/guide.md')), isCode('FileNotFound'));
	});

	test('a changed root is announced as changed and created (so the Explorer lists it again); a deleted path as deleted', async () => {
		let batch = nextBatch();
		cache.invalidate(agentId, '');
		assert.deepEqual(
			(await batch).map((e) => [e.type, e.uri.toString()]),
			[
				[vscode.FileChangeType.Changed, uri('').toString()],
				[vscode.FileChangeType.Created, uri('').toString()],
			],
		);
		batch = nextBatch();
		cache.invalidate(agentId, 'src/index.ts', 'deleted');
		assert.deepEqual(
			(await batch).map((e) => [e.type, e.uri.toString()]),
			[[vscode.FileChangeType.Deleted, uri('src/index.ts').toString()]],
		);
	});

	test('changes in one burst come as one batch', async () => {
		const batch = nextBatch();
		cache.invalidate(agentId, 'a.txt', 'created');
		cache.invalidate(agentId, 'b.txt', 'modified');
		const got = await batch;
		assert.deepEqual(
			got.map((e) => [e.type, e.uri.path]),
			[
				[vscode.FileChangeType.Created, '/a.txt'],
				[vscode.FileChangeType.Changed, '/b.txt'],
			],
		);
		assert.equal(events.length, 1);
	});

	test('an old link (the raw id as authority) works, and is remembered: changes reach it and uriFor spells it', async () => {
		const old = vscode.Uri.from({ scheme: 'cloud-agent', authority: agentId, path: '/README.md' });
		assert.equal(provider.uriFor(agentId, 'x').authority, encodeAgentAuthority(agentId));
		assert.equal((await provider.stat(old)).type, vscode.FileType.File);
		assert.equal(provider.uriFor(agentId, 'x').toString(), old.with({ path: '/x' }).toString());
		const batch = nextBatch();
		cache.invalidate(agentId, 'src/index.ts', 'modified');
		assert.deepEqual(
			(await batch).map((e) => e.uri.toString()).sort(),
			[uri('src/index.ts').toString(), old.with({ path: '/src/index.ts' }).toString()].sort(),
		);
	});

	test("uriFor takes the authority of the window's workspace folder of the agent", () => {
		const folderUri = workspaceUri(agentId).with({ authority: encodeAgentAuthority(agentId).toUpperCase() });
		fake.workspace.workspaceFolders = [{ uri: folderUri, name: 'Agent: billing', index: 0 }];
		assert.equal(provider.uriFor(agentId, 'src/a.ts').toString(), folderUri.with({ path: '/src/a.ts' }).toString());
		assert.equal(provider.uriFor(OTHER, 'a').authority, encodeAgentAuthority(OTHER));
	});

	test('watch needs nothing set up and disposes cleanly', () => {
		const d = provider.watch();
		d.dispose();
	});
});
