import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Deployment } from '../../../src/auth/deployments';
import { workspaceAddressOf, workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { WorkspaceFeature, type WorkspaceSession } from '../../../src/workspace/workspaceFeature';
import type { TestEmulator } from '../support/emulator';
import { type EmulatedDeployment, listedDeployments, twoEmulatorsPerSuite } from '../support/twoDeployments';
import * as fake from '../support/vscodeFake';
import { type TestSession, testLog, testSession } from './workspaceFeatureDeps';

/**
 * src/workspace/deploymentWorkspace.ts through the workspace feature (issue 47): two emulators
 * seeded alike, so the demo's billing agent has the same id on both; the default deployment is one,
 * "Staging" the other. Each address is served by its own deployment's session and cache.
 */

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const isCode =
	(code: string, message?: RegExp) =>
	(err: unknown): boolean =>
		err instanceof vscode.FileSystemError && err.code === code && (message === undefined || message.test(err.message));
/** Resolves once `predicate` holds, checking it after each turn of the event loop. */
function until(predicate: () => boolean): Promise<void> {
	return new Promise((resolve) => {
		const check = (): void => (predicate() ? resolve() : void setImmediate(check));
		check();
	});
}

suite('workspace/deploymentWorkspace: the same agent id on two deployments', () => {
	let home: EmulatedDeployment;
	let other: EmulatedDeployment;
	let homeSession: TestSession;
	let stagingSession: TestSession;
	let staging: Deployment;
	let listed: Array<{ deployment: Deployment; session: WorkspaceSession }>;
	let changed: vscode.EventEmitter<void>;
	let feature: WorkspaceFeature;

	twoEmulatorsPerSuite((h, s) => ([home, other] = [h, s]), { homeName: 'home', demoEachTest: true });

	setup(() => {
		assert.equal(other.agentId, home.agentId, 'the demo seed gives the billing agent one id on both services');
		homeSession = testSession(home.client, home.emu.url);
		stagingSession = testSession(other.client, other.emu.url);
		staging = other.deployment;
		fake.settings['cloudAgents.apiUrl'] = home.emu.url;
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: staging.apiUrl }];
		listed = [
			{ deployment: home.deployment, session: homeSession },
			{ deployment: staging, session: stagingSession },
		];
		changed = new vscode.EventEmitter<void>();
		feature = new WorkspaceFeature({
			session: homeSession,
			log: testLog(),
			deployments: listedDeployments(() => listed, changed),
		});
	});
	teardown(() => feature.dispose());

	const onDefault = (path: string): vscode.Uri => workspaceUri(home.agentId, path);
	const onStaging = (path: string): vscode.Uri => workspaceUri(home.agentId, path, staging.id);

	test('two folders: each address reads its own service, and a write through one never reaches the other', async () => {
		await home.emu.admin('POST', '/counters/reset');
		await other.emu.admin('POST', '/counters/reset');
		await feature.provider.writeFile(onStaging('README.md'), bytes('# Staging copy\n'), { create: true, overwrite: true });
		await feature.provider.writeFile(onStaging('only-staging.txt'), bytes('s\n'), { create: true, overwrite: false });
		assert.equal(text(await feature.provider.readFile(onStaging('README.md'))), '# Staging copy\n');
		assert.match(text(await feature.provider.readFile(onDefault('README.md'))), /^# Billing service/);
		const names = async (uri: vscode.Uri): Promise<string[]> => (await feature.provider.readDirectory(uri)).map(([n]) => n);
		assert.ok((await names(onStaging(''))).includes('only-staging.txt'));
		assert.ok(!(await names(onDefault(''))).includes('only-staging.txt'));
		await assert.rejects(feature.provider.stat(onDefault('only-staging.txt')), isCode('FileNotFound'));
		// The default service was never written to.
		const writes = async (emu: TestEmulator): Promise<number> =>
			Object.entries((await emu.counters()).requests.by_route)
				.filter(([route]) => route.startsWith('PUT ') && route.includes('workspace'))
				.reduce((sum, [, n]) => sum + n, 0);
		assert.equal(await writes(home.emu), 0);
		assert.ok((await writes(other.emu)) >= 2);
	});

	test("a change of one deployment's file is announced at its address only", async () => {
		const events: string[] = [];
		feature.provider.onDidChangeFile((batch) => events.push(...batch.map((e) => e.uri.toString())));
		await feature.provider.writeFile(onStaging('notes.txt'), bytes('n\n'), { create: true, overwrite: false });
		await until(() => events.length > 0);
		assert.ok(events.includes(onStaging('notes.txt').toString()), events.join(', '));
		assert.ok(!events.includes(onDefault('notes.txt').toString()), events.join(', '));
	});

	test('a configured deployment signed out fails as the default does when signed out, and asks nothing of its service', async () => {
		stagingSession.change({ signedIn: false });
		await other.emu.admin('POST', '/counters/reset');
		await assert.rejects(feature.provider.stat(onStaging('README.md')), isCode('Unavailable', /Signed out/));
		assert.equal((await other.emu.counters()).requests.total, 0);
		// The default deployment is still signed in and served.
		assert.match(text(await feature.provider.readFile(onDefault('README.md'))), /^# Billing service/);
		homeSession.change({ signedIn: false });
		await assert.rejects(feature.provider.stat(onDefault('README.md')), isCode('Unavailable', /Signed out/));
	});

	test('a deployment removed from the settings: its open folder is read again and its address fails naming it', async () => {
		fake.workspace.workspaceFolders = [{ uri: onStaging(''), name: 'Agent: Refactor billing module', index: 0 }];
		assert.equal((await feature.provider.stat(onStaging(''))).type, vscode.FileType.Directory);
		const events: string[] = [];
		feature.provider.onDidChangeFile((batch) => events.push(...batch.map((e) => e.uri.toString())));
		fake.settings['cloudAgents.deployments'] = [];
		listed = listed.filter((d) => d.deployment.isDefault);
		changed.fire();
		await until(() => events.includes(onStaging('').toString()));
		await assert.rejects(
			feature.provider.readFile(onStaging('README.md')),
			isCode('Unavailable', new RegExp(`deployment ${staging.id}, which is no longer configured`)),
		);
		assert.throws(() => feature.workspaceOf(staging.id), /no longer configured/);
	});

	test("the commands' view of a deployment: found by name or id, its URIs carry its part, its client is its own", () => {
		const found = feature.workspaceNamed('staging');
		assert.ok(found);
		assert.equal(feature.workspaceNamed(staging.id), found);
		assert.equal(feature.workspaceOf(staging.id), found);
		assert.equal(found.client, other.client);
		assert.deepEqual(workspaceAddressOf(found.uriFor(home.agentId, 'a.txt')), { agentId: home.agentId, deploymentPart: staging.id });
		assert.equal(feature.workspaceNamed('home')?.client, home.client);
		assert.equal(feature.uriFor(home.agentId, 'a.txt').toString(), onDefault('a.txt').toString());
		assert.equal(feature.workspaceNamed('nowhere'), undefined);
	});
});
