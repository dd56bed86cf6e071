import * as assert from 'node:assert/strict';
import { CloudAgentsClient } from '../../../../../src/api';
import {
	type AvailabilityChange,
	type WorkspaceChange,
	WorkspaceCache,
	WorkspaceFsError,
	WorkspaceUnavailableError,
} from '../../../../../src/workspace/fs/workspaceCache';
import { clientOfDeadPort } from '../../../support/emulator';
import type { TestEmulator } from '../../../support/emulator';
import { nodeConnect } from '../../../../../src/platform/node/network';
import { workspaceEmulatorPerSuite } from '../../../workspace/workspaceFeatureDeps';

const WORKSPACE_ROUTE = '/v2/agents/{agent_id}/workspace';

const failure = (p: Promise<unknown>): Promise<unknown> =>
	p.then(
		() => assert.fail('expected a failure'),
		(err: unknown) => err,
	);

/**
 * Issue 20 (2): an agent's folder went silently empty when signed out or when the service could not
 * be reached (VS Code shows a failed listing as an empty folder) and stayed empty after signing in
 * again. The cache must fail with an `Unavailable` error that says why, never list an empty folder,
 * make the root fail with the reason (what VS Code shows on the folder), and announce the root as
 * changed when the workspace becomes unavailable and again when it is back.
 */
suite('fs/WorkspaceCache while signed out or the service cannot be used', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let signedIn: boolean;
	let cache: WorkspaceCache;
	let changes: WorkspaceChange[];
	let availability: AvailabilityChange[];

	const workspaceRequests = async (): Promise<number> => (await emu.counters()).requests.by_route[`POST ${WORKSPACE_ROUTE}`] ?? 0;
	const rootChanges = (): number => changes.filter((c) => c.agentId === agentId && c.path === '').length;
	const host = (): string => new URL(emu.url).host;

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w));
	setup(async () => {
		await emu.faults([]);
		await emu.admin('POST', '/counters/reset');
		signedIn = true;
		cache = new WorkspaceCache(() => client, { coalesceMs: 0, signedIn: () => signedIn, serviceHost: host });
		changes = [];
		availability = [];
		cache.onDidChange((c) => changes.push(...c));
		cache.onDidChangeAvailability((e) => availability.push(e));
	});
	teardown(async () => {
		await emu.faults([]);
	});

	test('a read while the sign-in state is still being read waits for it: a key turns up and the file is read, no "Signed out" (a window reloading with an agent editor open)', async () => {
		// Activation has not read SecretStorage yet: `signedIn` is false until it has.
		signedIn = false;
		let read!: () => void;
		const known = new Promise<void>((resolve) => (read = resolve));
		cache = new WorkspaceCache(() => client, { coalesceMs: 0, signedIn: () => signedIn, sessionKnown: () => known, serviceHost: host });
		const reading = cache.readFile(agentId, '/README.md');
		// The state is read: a key was stored.
		signedIn = true;
		read();
		const bytes = await reading;
		assert.ok(bytes.byteLength > 0, 'the file was read');
		assert.equal(cache.unavailableError(agentId), undefined, 'not marked signed out');
	});

	test('signed out: listing fails with "Signed out…" (not an empty folder) and sends nothing; the root then fails too; signing in lists again', async () => {
		signedIn = false;
		// A window opening on the folder stats its root first: that must not fail yet (VS Code would
		// drop the folder as "Workspace does not exist").
		assert.equal((await cache.stat(agentId, '/')).type, 'directory');

		const err = await failure(cache.readDirectory(agentId, '/'));
		assert.ok(err instanceof WorkspaceUnavailableError, String(err));
		assert.equal(err.code, 'Unavailable');
		assert.equal(err.reason, 'signedOut');
		assert.equal(err.message, "Signed out of Cloud Agents: sign in to see this agent's files.");
		assert.equal(await workspaceRequests(), 0, 'nothing sent while signed out');
		// The root is announced, so the Explorer reads it again, and now fails with the reason.
		assert.equal(rootChanges(), 1);
		assert.deepEqual(
			availability.map((a) => [a.agentId, a.error?.reason]),
			[[agentId, 'signedOut']],
		);
		const rootErr = await failure(cache.stat(agentId, '/'));
		assert.ok(rootErr instanceof WorkspaceUnavailableError && rootErr.reason === 'signedOut', String(rootErr));
		// Other paths fail the same way; VS Code's `.vscode/*` probes are "not found".
		for (const call of [() => cache.stat(agentId, '/README.md'), () => cache.readFile(agentId, '/README.md')]) {
			const e = await failure(call());
			assert.ok(e instanceof WorkspaceUnavailableError && e.reason === 'signedOut', String(e));
		}
		const probe = await failure(cache.stat(agentId, '/.vscode/settings.json'));
		assert.ok(probe instanceof WorkspaceFsError && probe.code === 'FileNotFound', String(probe));
		assert.equal(await workspaceRequests(), 0);
		assert.equal(rootChanges(), 1, 'announced once');

		// Another session event while still signed out (a sign-out fires more than one) keeps the reason.
		cache.clear();
		assert.equal(rootChanges(), 1);
		assert.ok((await failure(cache.stat(agentId, '/'))) instanceof WorkspaceUnavailableError);

		// Signing in: the session change clears the cache, which announces the root again.
		signedIn = true;
		cache.clear();
		assert.equal(rootChanges(), 2);
		assert.deepEqual(
			availability.map((a) => [a.agentId, a.error?.reason]),
			[
				[agentId, 'signedOut'],
				[agentId, undefined],
			],
		);
		assert.equal((await cache.stat(agentId, '/')).type, 'directory');
		const names = (await cache.readDirectory(agentId, '/')).map(([name]) => name);
		assert.ok(names.includes('README.md'), names.join(', '));
	});

	test('a write while signed out is refused with "Signed out…" and sends nothing', async () => {
		signedIn = false;
		const err = await failure(cache.writeFile(agentId, '/notes.md', Buffer.from('x'), { create: true, overwrite: true }));
		assert.ok(err instanceof WorkspaceUnavailableError && err.reason === 'signedOut', String(err));
		assert.equal((await emu.counters()).requests.by_route[`PUT ${WORKSPACE_ROUTE}/files`] ?? 0, 0);
	});

	test('markSignedOut fails the roots of the given agents at once (the sign-out), and only while signed out', async () => {
		cache.markSignedOut([agentId]);
		assert.equal((await cache.stat(agentId, '/')).type, 'directory', 'signed in: nothing marked');
		assert.equal(rootChanges(), 0);
		signedIn = false;
		cache.markSignedOut([agentId]);
		assert.equal(rootChanges(), 1);
		const err = await failure(cache.stat(agentId, '/'));
		assert.ok(err instanceof WorkspaceUnavailableError && err.reason === 'signedOut', String(err));
	});

	test('the service failing (503): Unavailable naming the host, no empty folder cached, and an answer later brings the root back', async () => {
		await emu.faults([{ method: 'POST', route: WORKSPACE_ROUTE, status: 503, retry_after: 0 }]);
		const err = await failure(cache.readDirectory(agentId, '/'));
		assert.ok(err instanceof WorkspaceUnavailableError, String(err));
		assert.equal(err.reason, 'failing');
		assert.ok(err.message.startsWith(`The Cloud Agents service at ${host()} is unavailable (`), err.message);
		assert.match(err.message, /comes back by itself/);
		assert.equal(rootChanges(), 1);
		const rootErr = await failure(cache.stat(agentId, '/'));
		assert.equal(rootErr, err);
		// Still failing: the retry says so and announces nothing new.
		assert.equal(await cache.probe(agentId), false);
		assert.equal(rootChanges(), 1);

		await emu.faults([]);
		assert.equal(await cache.probe(agentId), true);
		assert.equal(rootChanges(), 2, 'the root is announced when it is back');
		assert.deepEqual(
			availability.map((a) => a.error?.reason),
			['failing', undefined],
		);
		assert.equal((await cache.stat(agentId, '/')).type, 'directory');
		const names = (await cache.readDirectory(agentId, '/')).map(([name]) => name);
		assert.ok(names.includes('README.md'), `the listing, not an empty folder: ${names.join(', ')}`);
	});

	test('signing out announces no workspace back: one that could not be reached waits for the sign-in, which announces it', async () => {
		await emu.faults([{ method: 'POST', route: WORKSPACE_ROUTE, status: 503, retry_after: 0 }]);
		await failure(cache.readDirectory(agentId, '/'));
		assert.equal(rootChanges(), 1, 'announced unavailable');
		await emu.faults([]);
		// The sign-out (the feature clears the cache on the session's change): a read now could only
		// fail, so the root is not announced (VS Code would read an agent file it still holds again).
		signedIn = false;
		cache.clear();
		assert.equal(rootChanges(), 1, 'not announced back while signed out');
		const err = await failure(cache.stat(agentId, '/'));
		assert.ok(err instanceof WorkspaceUnavailableError && err.reason === 'signedOut', String(err));
		// The sign-in announces it back, and it lists.
		signedIn = true;
		cache.clear();
		assert.equal(rootChanges(), 2, 'announced back at the sign-in');
		assert.equal(availability.at(-1)?.error, undefined);
		assert.equal((await cache.stat(agentId, '/')).type, 'directory');
	});

	test('a 404 is an answer: it brings an unavailable workspace back too', async () => {
		await emu.faults([{ method: 'POST', route: WORKSPACE_ROUTE, status: 503, retry_after: 0 }]);
		await failure(cache.readDirectory(agentId, '/src'));
		assert.ok(cache.unavailableError(agentId));
		await emu.faults([]);
		const missing = await failure(cache.stat(agentId, '/no-such-file.txt'));
		assert.ok(!(missing instanceof WorkspaceUnavailableError), String(missing));
		assert.equal(cache.unavailableError(agentId), undefined);
		assert.equal(rootChanges(), 2);
	});

	test('no answer at all (connection refused): Unavailable "cannot be reached at <host>"', async () => {
		const { client: dead, port } = await clientOfDeadPort();
		try {
			const offline = new WorkspaceCache(() => dead, { coalesceMs: 0, serviceHost: () => `127.0.0.1:${port}` });
			const announced: WorkspaceChange[] = [];
			offline.onDidChange((c) => announced.push(...c));
			const err = await failure(offline.readDirectory(agentId, '/'));
			assert.ok(err instanceof WorkspaceUnavailableError, String(err));
			assert.equal(err.reason, 'unreachable');
			assert.ok(err.message.startsWith(`The Cloud Agents service cannot be reached at 127.0.0.1:${port} (`), err.message);
			assert.match(err.message, /cloudAgents\.apiUrl/);
			assert.deepEqual(announced, [{ type: 'changed', agentId, path: '' }]);
			assert.equal(await failure(offline.stat(agentId, '/')), err);
		} finally {
			dead.close();
		}
	});

	test('a 401 (the sign-in refused) is Unavailable with what to do', async () => {
		const refused = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => 'ca_wrong_token_0000',
			retry: { baseDelayMs: 1 },
		});
		try {
			const c = new WorkspaceCache(() => refused, { coalesceMs: 0, serviceHost: host });
			const err = await failure(c.readDirectory(agentId, '/'));
			assert.ok(err instanceof WorkspaceUnavailableError, String(err));
			assert.equal(err.reason, 'unauthenticated');
			assert.match(err.message, /sign in again to see this agent's files\.$/);
		} finally {
			refused.close();
		}
	});
});
