import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Deployment } from '../../../src/auth/deployments';
import { ChangesFeature, type ChangesDeps, type LinkDeployments } from '../../../src/changes/changesFeature';
import type { AgentLink } from '../../../src/changes/linkStore';
import { LINKS_KEY } from '../../../src/ids';
import { NodeLocalFiles } from '../../../src/platform/node/nodeLocalFiles';
import { workspaceAddressOf } from '../../../src/workspace/fs/workspaceFs';
import type { TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import { type EmulatedDeployment, listedDeployments, requestsTo, twoEmulatorsPerSuite } from '../support/twoDeployments';
import { type TestSession, testSession } from '../workspace/workspaceFeatureDeps';

/**
 * src/changes/changesFeature.ts with several deployments (issue 47): two emulators seeded alike (the
 * demo's billing agent has one id on both); the default deployment is one, "Staging" the other. A
 * link remembers its agent's deployment and compares through that deployment's client and
 * `cloud-agent:` addresses; its label names the deployment when two or more are configured; a link
 * of a deployment that was removed says so and asks nothing of any service.
 */
class Memento {
	readonly values = new Map<string, unknown>();
	get<T>(key: string, fallback?: T): T | undefined {
		return this.values.has(key) ? (this.values.get(key) as T) : fallback;
	}
	async update(key: string, value: unknown): Promise<void> {
		this.values.set(key, value);
	}
	keys(): readonly string[] {
		return [...this.values.keys()];
	}
}

interface FakeScm {
	label: string;
	statusBarCommands?: Array<{ title: string; tooltip?: string }>;
	disposed: boolean;
}

/** Requests an emulator counted since its counters were reset whose route names the workspace. */
const workspaceRequests = (emu: TestEmulator): Promise<number> => requestsTo(emu, 'workspace');

suite('changes/changesFeature: links of several deployments (issue 47)', () => {
	let home: EmulatedDeployment;
	let other: EmulatedDeployment;
	let dir: string;
	let state: Memento;
	let scms: FakeScm[];
	let agentChanged: Array<[string, string, string | undefined]>;
	let configured: Array<{ deployment: Deployment; session: TestSession }>;
	let changed: vscode.EventEmitter<void>;
	let feature: ChangesFeature | undefined;
	let staging: Deployment;
	twoEmulatorsPerSuite((h, s) => ([home, other] = [h, s]), { demoEachTest: true });

	setup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-changesfeature-'));
		await writeFile(join(dir, 'shared.txt'), 'local');
		await home.client.writeWorkspaceFile(home.agentId, 'linked/only-home.txt', new TextEncoder().encode('home'));
		await other.client.writeWorkspaceFile(other.agentId, 'linked/only-staging.txt', new TextEncoder().encode('staging'));
		await home.emu.admin('POST', '/counters/reset');
		await other.emu.admin('POST', '/counters/reset');
		staging = other.deployment;
		configured = [
			{ deployment: home.deployment, session: testSession(home.client, home.emu.url) },
			{ deployment: staging, session: testSession(other.client, other.emu.url) },
		];
		changed = new vscode.EventEmitter<void>();
		state = new Memento();
		scms = [];
		agentChanged = [];
		fake.answer('scm.createSourceControl', (_id: string, label: string) => {
			const scm = {
				label,
				disposed: false,
				inputBox: { visible: true, enabled: true, placeholder: '', value: '' },
				createResourceGroup: () => ({ resourceStates: [], dispose: () => undefined }),
				dispose: () => (scm.disposed = true),
			};
			scms.push(scm);
			return scm;
		});
		fake.answer('workspace.createFileSystemWatcher', () => ({
			onDidChange: new fake.EventEmitter<vscode.Uri>().event,
			onDidCreate: new fake.EventEmitter<vscode.Uri>().event,
			onDidDelete: new fake.EventEmitter<vscode.Uri>().event,
			dispose: () => undefined,
		}));
	});
	teardown(async () => {
		feature?.dispose();
		feature = undefined;
		await rm(dir, { recursive: true, force: true });
	});

	/** The feature over the links stored now; the default deployment's session is the first configured one's. */
	const start = (): ChangesFeature => {
		const deployments: LinkDeployments = listedDeployments(() => configured, changed);
		feature = new ChangesFeature({
			session: configured[0]!.session,
			deployments,
			deploymentOf: () => undefined,
			log: { warn: () => undefined, info: () => undefined } as unknown as vscode.LogOutputChannel,
			context: {
				globalState: state,
				globalStorageUri: vscode.Uri.file(join(dir, '..', 'ca-storage')),
			} as unknown as vscode.ExtensionContext,
			agents: {} as ChangesDeps['agents'],
			runEvents: new vscode.EventEmitter<never>().event,
			agentFileChanged: (agentId, path, _change, part) => agentChanged.push([agentId, path, part]),
			localFiles: (root) => new NodeLocalFiles(root.fsPath),
			prompts: {} as ChangesDeps['prompts'],
		});
		return feature;
	};
	const linkOf = (deployment: string | undefined, id = 'link-s'): AgentLink => ({
		id,
		agentId: home.agentId,
		agentName: 'Billing',
		agentFolder: 'linked',
		localFolder: vscode.Uri.file(dir).toString(),
		...(deployment !== undefined ? { deployment } : {}),
	});
	const onlyIn = (paths: string[]): string[] => paths.filter((p) => p.startsWith('only-')).sort();

	test("a link of another deployment compares with that deployment's files, through its client only; its label and addresses name it", async () => {
		// Kept from an earlier window: it compares again soon by itself, through Staging only.
		state.values.set(LINKS_KEY, [linkOf(staging.id)]);
		const theirs = start().targets.links()[0]!;
		await theirs.refresh('link');
		assert.deepEqual(onlyIn(theirs.all().map((d) => d.path)), ['only-staging.txt']);
		assert.equal(await workspaceRequests(home.emu), 0, 'the default service was asked nothing');
		assert.ok((await workspaceRequests(other.emu)) > 0);
		assert.deepEqual(workspaceAddressOf(theirs.agentUriOf('only-staging.txt')), { agentId: home.agentId, deploymentPart: staging.id });
		assert.ok(agentChanged.length > 0 && agentChanged.every(([, , part]) => part === staging.id), JSON.stringify(agentChanged));
		// The default deployment's link of the same agent id and folders is another link, reading the default service's files.
		const { id: _id, ...spec } = linkOf(undefined);
		const { source: mine, existed } = await feature!.link(spec);
		assert.equal(existed, false);
		assert.equal(mine.link.deployment, undefined);
		await mine.refresh('link');
		assert.deepEqual(onlyIn(mine.all().map((d) => d.path)), ['only-home.txt']);
		assert.equal(workspaceAddressOf(mine.agentUriOf('a.txt'))?.deploymentPart, undefined);
		// Two deployments configured: each label names its deployment.
		assert.match(theirs.label(), / · Staging$/);
		assert.match(mine.label(), / · 127\.0\.0\.1$/);
		assert.equal(scms.find((s) => s.label.endsWith('Staging'))?.label, theirs.label());
	});

	test('one deployment configured: labels as before; the deployment removed, its link says so and asks no service', async () => {
		state.values.set(LINKS_KEY, [linkOf(staging.id), linkOf(undefined, 'link-h')]);
		// Signed out of the default deployment: its link compares with nothing meanwhile.
		configured[0]!.session.signedIn = false;
		start();
		configured = configured.slice(0, 1);
		changed.fire();
		// VS Code's label cannot change: the source controls are made again, without the deployment's name.
		const links = feature!.targets.links();
		const mine = links.find((l) => l.link.id === 'link-h')!;
		const theirs = links.find((l) => l.link.id === 'link-s')!;
		assert.doesNotMatch(mine.label(), /·/);
		assert.equal(mine.label(), `Billing/linked ↔ ${dir.split('/').pop()!}`);
		assert.equal(scms.filter((s) => !s.disposed).length, 2);
		assert.equal(await theirs.refresh('refresh'), undefined);
		assert.match(theirs.failure ?? '', new RegExp(`deployment ${staging.id}, which is no longer configured`));
		for (const emu of [home.emu, other.emu]) {
			assert.equal(await workspaceRequests(emu), 0);
		}
		assert.throws(() => theirs.client(), /no longer configured/);
	});
});
