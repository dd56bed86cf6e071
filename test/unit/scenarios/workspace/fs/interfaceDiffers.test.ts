import * as assert from 'node:assert/strict';
import type { CloudAgentsClient } from '../../../../../src/api';
import { WorkspaceInterfaceError } from '../../../../../src/api';
import { decodeAgentAuthority, encodeAgentAuthority } from '../../../../../src/workspace/fs/agentUri';
import { type InterfaceDiffers, WorkspaceCache, WorkspaceFsError } from '../../../../../src/workspace/fs/workspaceCache';
import { startWorkspaceEmulator } from '../../../support/emulator';
import type { TestEmulator } from '../../../support/emulator';

const WORKSPACE_ROUTE = 'POST /v2/agents/{agent_id}/workspace';

for (const profile of ['variant', 'variant-strict'] as const) {
	suite(`fs/WorkspaceCache against a server whose workspace interface differs (${profile})`, () => {
		let emu: TestEmulator;
		let client: CloudAgentsClient;
		let agentId: string;
		let cache: WorkspaceCache;
		let notices: InterfaceDiffers[];

		/** Workspace operations the emulator received since the last reset. */
		const operations = async (): Promise<number> => {
			const byRoute = (await emu.counters()).requests.by_route;
			return Object.entries(byRoute)
				.filter(([route]) => route.includes(WORKSPACE_ROUTE))
				.reduce((sum, [, n]) => sum + n, 0);
		};
		const failure = (p: Promise<unknown>): Promise<unknown> =>
			p.then(
				() => assert.fail('expected a failure'),
				(err: unknown) => err,
			);

		suiteSetup(async () => {
			({ emu, client, agentId } = await startWorkspaceEmulator(profile));
		});
		suiteTeardown(async () => {
			client.close();
			await emu.close();
		});
		setup(async () => {
			cache = new WorkspaceCache(() => client, { coalesceMs: 0 });
			notices = [];
			cache.onDidDetectInterfaceDiffers((e) => notices.push(e));
			await emu.admin('POST', '/counters/reset');
		});

		test('the agent id has capitals and a ":" and survives the URI authority', () => {
			assert.match(agentId, /[A-Z]/);
			assert.match(agentId, /:/);
			assert.equal(decodeAgentAuthority(encodeAgentAuthority(agentId).toLowerCase()), agentId);
		});

		test('listing the root: one request, a clear error with the request id, said once; never an empty folder', async () => {
			const err = await failure(cache.readDirectory(agentId, '/'));
			assert.ok(err instanceof WorkspaceInterfaceError, String(err));
			assert.match(err.message, /^This server's workspace interface differs: /);
			assert.ok(err.requestId, 'the request id of the refused operation');
			assert.equal(await operations(), 1);
			assert.equal(notices.length, 1);
			assert.equal(notices[0]?.agentId, agentId);
			assert.equal(notices[0]?.error.requestId, err.requestId);
			assert.equal(cache.interfaceError(agentId), err);

			// Later listings, stats and reads fail fast with the same error, with no request and no new notice.
			await emu.admin('POST', '/counters/reset');
			for (const call of [
				() => cache.readDirectory(agentId, '/'),
				() => cache.readDirectory(agentId, '/src'),
				() => cache.stat(agentId, '/README.md'),
				() => cache.readFile(agentId, '/README.md'),
			]) {
				assert.equal(await failure(call()), err);
			}
			// VS Code's `.vscode/*` probes: not found, from no request.
			for (const probe of [
				'/.vscode',
				'/.vscode/settings.json',
				'/.vscode/tasks.json',
				'/.vscode/launch.json',
				'/.vscode/extensions.json',
			]) {
				const probeErr = await failure(cache.stat(agentId, probe));
				assert.ok(probeErr instanceof WorkspaceFsError && probeErr.code === 'FileNotFound', `${probe}: ${String(probeErr)}`);
			}
			// The folder's root fails too: VS Code shows a failed root stat as an error on the folder
			// (a failed root listing would show as an empty folder).
			assert.equal(await failure(cache.stat(agentId, '/')), err);
			assert.equal(await operations(), 0);
			assert.equal(notices.length, 1);
		});

		test('the root stats as a folder without a request until the interface is known to differ (a window opening on it keeps it)', async () => {
			const changed: string[] = [];
			cache.onDidChange((c) => changed.push(...c.map((x) => x.path)));
			assert.equal((await cache.stat(agentId, '/')).type, 'directory');
			assert.equal(await operations(), 0);
			const err = await failure(cache.readDirectory(agentId, '/'));
			assert.ok(changed.includes(''), 'the root is announced as changed so VS Code looks again');
			assert.equal(await failure(cache.stat(agentId, '/')), err);
			assert.equal(await operations(), 1);
		});

		test('probes while the root listing is on its way wait for it instead of asking', async () => {
			const listing = failure(cache.readDirectory(agentId, '/'));
			const probes = ['/.vscode/settings.json', '/.vscode/tasks.json', '/.vscode/launch.json'].map((p) =>
				failure(cache.stat(agentId, p)),
			);
			assert.ok((await listing) instanceof WorkspaceInterfaceError);
			for (const probe of await Promise.all(probes)) {
				assert.ok(probe instanceof WorkspaceFsError && probe.code === 'FileNotFound', String(probe));
			}
			assert.equal(await operations(), 1);
			assert.equal(notices.length, 1);
		});

		test('a first probe that meets the error is "not found" but stops the agent all the same', async () => {
			// The file exists (the variant answers a stat of a missing path with a plain 404).
			await emu.admin('POST', `/workspace/${encodeURIComponent(agentId)}/write`, {
				path: '.vscode/settings.json',
				content_base64: Buffer.from('{}').toString('base64'),
			});
			await emu.admin('POST', '/counters/reset');
			const probe = await failure(cache.stat(agentId, '/.vscode/settings.json'));
			assert.ok(probe instanceof WorkspaceFsError && probe.code === 'FileNotFound', String(probe));
			assert.equal(notices.length, 1);
			assert.ok((await failure(cache.readDirectory(agentId, '/'))) instanceof WorkspaceInterfaceError);
			assert.equal(await operations(), 1);
		});

		test('a retry asks the server again, once', async () => {
			await failure(cache.readDirectory(agentId, '/'));
			assert.equal(cache.retryInterface(agentId), true);
			assert.equal(cache.retryInterface(agentId), false, 'nothing left to retry');
			assert.ok((await failure(cache.readDirectory(agentId, '/'))) instanceof WorkspaceInterfaceError);
			assert.equal(await operations(), 2);
			assert.equal(notices.length, 2, 'said again after the retry failed again');
		});
	});
}

/**
 * A server that refuses our workspace operation shape with 422, the contract's status for a body it
 * cannot validate (the variants above answer 400): the emulator's standard profile with every
 * workspace operation refused so. Issue 33, item 14: each of VS Code's probes of such a folder
 * failed as "Unknown (FileSystemError)" and was logged, and the folder showed the bare 422.
 */
suite('fs/WorkspaceCache against a server that refuses our workspace operations with 422', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let cache: WorkspaceCache;
	let notices: InterfaceDiffers[];
	const refuse = (count?: number): Promise<unknown> =>
		emu.admin('PUT', '/faults', { rules: [{ method: 'POST', route: '/v2/agents/{agent_id}/workspace', status: 422, count }] });
	const failure = (p: Promise<unknown>): Promise<unknown> =>
		p.then(
			() => assert.fail('expected a failure'),
			(err: unknown) => err,
		);

	suiteSetup(async () => {
		({ emu, client, agentId } = await startWorkspaceEmulator('standard'));
	});
	suiteTeardown(async () => {
		client.close();
		await emu.close();
	});
	setup(() => {
		cache = new WorkspaceCache(() => client, { coalesceMs: 0 });
		notices = [];
		cache.onDidDetectInterfaceDiffers((e) => notices.push(e));
	});
	teardown(async () => {
		await emu.admin('DELETE', '/faults');
	});

	test('VS Code\'s probes are "not found" and the folder says once that the interface differs, with the 422\'s words and request id', async () => {
		await refuse();
		const probes = ['/.vscode/settings.json', '/.vscode/tasks.json', '/.vscode/launch.json', '/.vscode/mcp.json'];
		for (const probe of await Promise.all(probes.map((p) => failure(cache.stat(agentId, p))))) {
			assert.ok(probe instanceof WorkspaceFsError && probe.code === 'FileNotFound', String(probe));
		}
		assert.equal(notices.length, 1, 'said once');
		const err = await failure(cache.readDirectory(agentId, '/'));
		assert.ok(err instanceof WorkspaceInterfaceError, String(err));
		assert.match(err.message, /^This server's workspace interface differs: the server refused a workspace operation as invalid \(/);
		assert.equal(err, notices[0]?.error);
		assert.ok(err.requestId, 'the request id of the refused operation');
		assert.equal(await failure(cache.readFile(agentId, '/README.md')), err);
	});

	test('a 422 about one path, the root answering, stays that refusal: the agent goes on', async () => {
		await refuse(1);
		const err = await failure(cache.readFile(agentId, '/README.md'));
		assert.ok(!(err instanceof WorkspaceInterfaceError), String(err));
		assert.equal((err as { status?: number }).status, 422);
		assert.equal(notices.length, 0);
		assert.equal(cache.interfaceError(agentId), undefined);
		assert.ok((await cache.readDirectory(agentId, '/')).length > 0, 'the folder still lists');
	});
});
