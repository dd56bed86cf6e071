import * as assert from 'node:assert/strict';
import { ApiError, type Runtime } from '../../../src/api';
import {
	findRuntime,
	notRunningAdvice,
	rereadAfterConflict,
	runtimeActions,
	runtimeBroken,
	runtimeInTransition,
	runtimeOfAgent,
	runtimesList,
	showRuntimeDetails,
} from '../../../src/resources/runtimes';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/runtimes.ts: runtime rows from the emulator's demo runtimes, Resume (revision, 409), VNC credentials, Copy ID. */
suite('resources/runtimes', () => {
	const env = emulatorPerSuite();
	let runtimes: Runtime[];

	setup(async () => {
		runtimes = await readList(runtimesList, listContext(env.client), undefined, { limit: 3 });
	});

	const runtime = (name: string): Runtime => {
		const r = runtimes.find((x) => x.display_name === name);
		assert.ok(r, `no runtime ${name}`);
		return r;
	};
	const row = (r: Runtime) => runtimesList.row(r, rowContext(listContext(env.client), undefined));
	const resumes = async (): Promise<number> => (await env.emu.counters()).mutations.by_kind['runtimes.resume'] ?? 0;
	/** Answers the cancellable progress of the resume's follow-up with a cancelled token (its wait would be real time). */
	const cancelFollowUp = (): string[] => {
		const titles: string[] = [];
		fake.answer(
			'window.withProgress',
			async (options: { title: string; cancellable?: boolean }, task: (p: unknown, t: unknown) => unknown) => {
				titles.push(options.title);
				const source = new fake.CancellationTokenSource();
				if (options.cancellable) {
					source.cancel();
				}
				return task({ report: () => undefined }, source.token);
			},
		);
		return titles;
	};

	test('the list walks every page; a row says status, degraded, transition and VNC in its context value', () => {
		assert.equal(runtimes.length, new Set(runtimes.map((r) => r.id)).size);
		assert.ok(runtimes.length >= 8, `${runtimes.length}`);
		const atlas = row(runtime('atlas-dev'));
		assert.equal(atlas.contextValue, 'runtime:running:vnc');
		assert.equal(atlas.icon?.id, 'pass-filled');
		const borealis = row(runtime('borealis-ci'));
		assert.equal(borealis.contextValue, 'runtime:running:degraded');
		assert.equal(borealis.icon?.id, 'warning');
		assert.match(borealis.description!, /^running · degraded/);
		assert.match(tooltipText(borealis.tooltip), /Degraded: yes: the runtime is running but its heartbeat has stalled/);
		const harbor = row(runtime('harbor-gpu'));
		assert.equal(harbor.contextValue, 'runtime:creating:transition');
		assert.match(harbor.description!, /^creating → running/);
		assert.equal(runtimesList.isActive!(runtime('harbor-gpu')), true);
		assert.equal(runtimesList.isActive!(runtime('atlas-dev')), false);
	});

	test('a runtime in error is not "in transition" though it wants to run; its tooltip names the error', () => {
		const fjord = runtime('fjord-legacy');
		assert.equal(runtimeInTransition(fjord), false);
		assert.equal(runtimeBroken(fjord), true);
		assert.equal(row(fjord).contextValue, 'runtime:error');
		assert.match(tooltipText(row(fjord).tooltip), /Error: image_pull_failed/);
		assert.equal(runtimeBroken(runtime('cobalt-sandbox')), false);
		assert.equal(runtimeBroken(undefined), false);
		// An odd status is a token "unknown", never the server's text.
		assert.equal(row({ ...fjord, status: 'Weird Status!', desired_status: 'Weird Status!' }).contextValue, 'runtime:unknown');
	});

	test('notRunningAdvice: what helps, by the runtime status', () => {
		assert.match(notRunningAdvice(runtime('cobalt-sandbox')), /^its runtime cobalt-sandbox is paused\. Resume it/);
		assert.match(notRunningAdvice(runtime('harbor-gpu')), /is still being created/);
		assert.match(notRunningAdvice(runtime('fjord-legacy')), /is in error \(image_pull_failed\), which only the service can repair/);
		assert.match(notRunningAdvice(runtime('gale-staging')), /is shutdown; it will not run again/);
		assert.match(notRunningAdvice(runtime('atlas-dev')), /is running but not ready yet/);
		assert.match(notRunningAdvice({ ...runtime('atlas-dev'), desired_status: 'paused' }), /is going to paused/);
		assert.match(notRunningAdvice(undefined), /^its runtime is not running or is still starting/);
	});

	test('findRuntime walks the pages; runtimeOfAgent reads the agent when it is not told the runtime', async () => {
		const last = runtimes.at(-1)!;
		assert.equal((await findRuntime(env.client, last.id))?.display_name, last.display_name);
		assert.equal(await findRuntime(env.client, 'rt_none'), undefined);
		const agent = (await env.client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Sandbox explorer')!;
		assert.equal((await runtimeOfAgent(env.client, { id: agent.id }))?.display_name, 'cobalt-sandbox');
		// An agent that cannot be read: undefined (the callers fall back to the general advice).
		assert.equal(await runtimeOfAgent(env.client, { id: `${agent.id.split('.')[0]!}.ghost` }), undefined);
	});

	test('Resume: sent with the revision shown; the list refreshed; the follow-up notification names the runtime', async () => {
		const titles = cancelFollowUp();
		const cobalt = runtime('cobalt-sandbox');
		const { kit, log } = fakeKit({ client: env.client, lists: { runtimes } });
		const resumed = (await runtimeActions.resume.run({ runtime: cobalt }, kit)) as Runtime;
		assert.equal(resumed.id, cobalt.id);
		assert.equal(resumed.desired_status, 'running');
		assert.equal(await resumes(), 1);
		assert.ok(log.listRefreshes.includes('runtimes'));
		assert.deepEqual(titles, ['Resuming runtime cobalt-sandbox…', 'The runtime cobalt-sandbox is resuming']);
	});

	test('Resume with a stale revision: asked again at the fresh one; declined sends nothing more', async () => {
		cancelFollowUp();
		const cobalt = runtime('cobalt-sandbox');
		const asked: string[] = [];
		fake.answer('window.showWarningMessage', async (message: string) => void asked.push(message));
		const { kit } = fakeKit({ client: env.client, lists: { runtimes } });
		const result = await runtimeActions.resume.run({ runtime: { ...cobalt, revision: 1 } }, kit);
		assert.equal(result, undefined);
		assert.deepEqual(asked, [
			`The runtime cobalt-sandbox changed since it was shown (revision 1, now ${cobalt.revision}). Resume it as it is now?`,
		]);
		assert.equal(await resumes(), 0);
	});

	test('Resume with a stale revision, automation onConflict "retry": resumed at the fresh revision, no question', async () => {
		cancelFollowUp();
		const ember = runtime('ember-nightly');
		const { kit } = fakeKit({
			client: env.client,
			arg: automation({ runtimeId: ember.id, expectedRevision: 1, onConflict: 'retry' }),
			automation: true,
		});
		const resumed = (await runtimeActions.resume.run({ runtime: ember }, kit)) as Runtime;
		assert.equal(resumed.id, ember.id);
		assert.equal(await resumes(), 1);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
	});

	test('Resume of a runtime that is not paused (409): nothing to resume, said once, no retry', async () => {
		const atlas = runtime('atlas-dev');
		const { kit, log } = fakeKit({ client: env.client, arg: automation({ onConflict: 'retry' }), automation: true });
		assert.equal(await runtimeActions.resume.run({ runtime: atlas }, kit), undefined);
		assert.deepEqual(log.infos, ['The runtime atlas-dev is running now; there is nothing to resume.']);
		assert.equal(await resumes(), 0);
		assert.equal(runtimeActions.resume.filter(atlas), false);
		assert.equal(runtimeActions.resume.filter(runtime('ember-nightly')), true);
	});

	test('rereadAfterConflict: other errors thrown again; a runtime gone is a warning', async () => {
		const { kit, log } = fakeKit({ client: env.client });
		const other = new ApiError(500, 'internal', 'boom', undefined);
		await assert.rejects(rereadAfterConflict(other, runtime('atlas-dev'), kit), /boom/);
		const conflict = new ApiError(409, 'failed_precondition', 'conflict', undefined);
		const ghost = { ...runtime('atlas-dev'), id: 'rt_ghost', display_name: 'ghost-rt' };
		assert.equal(await rereadAfterConflict(conflict, ghost, kit), undefined);
		assert.deepEqual(log.warnings, ['The runtime ghost-rt no longer exists.']);
		assert.deepEqual(log.listRefreshes, ['runtimes']);
	});

	test('VNC credentials: offered as a pick, the chosen locator copied; quiet automation only returns them', async () => {
		const atlas = runtime('atlas-dev');
		let offered: Array<{ label: string; description?: string; detail?: string }> = [];
		fake.answer('window.showQuickPick', async (items: typeof offered) => {
			offered = items;
			return items[0];
		});
		const { kit, log } = fakeKit({ client: env.client });
		const credentials = (await runtimeActions.listVncCredentials.run({ runtime: atlas }, kit)) as Array<{ locator: string }>;
		assert.ok(credentials.length > 0);
		assert.equal(offered.length, credentials.length);
		assert.ok(offered.some((o) => o.description?.startsWith('revoked')) || offered.every((o) => o.description?.startsWith('active')));
		assert.equal(log.copies.length, 1);
		assert.equal(log.copies[0]!.text, offered[0]!.detail);
		assert.ok(log.copies[0]!.text.startsWith('vnc://atlas-dev'));
		const quiet = fakeKit({ client: env.client, arg: automation({ quiet: true }), automation: true });
		assert.equal(
			((await runtimeActions.listVncCredentials.run({ runtime: atlas }, quiet.kit)) as unknown[]).length,
			credentials.length,
		);
		assert.equal(fake.calls('window.showQuickPick').length, 1);
		assert.equal(runtimeActions.listVncCredentials.filter(runtime('cobalt-sandbox')), false);
	});

	test('VNC credentials: none is said; a dismissed pick copies nothing', async () => {
		const { kit, log } = fakeKit({ client: env.client });
		assert.deepEqual(await runtimeActions.listVncCredentials.run({ runtime: runtime('cobalt-sandbox') }, kit), []);
		assert.deepEqual(log.infos, ['The runtime cobalt-sandbox has no VNC credentials.']);
		await runtimeActions.listVncCredentials.run({ runtime: runtime('atlas-dev') }, kit);
		assert.deepEqual(log.copies, []);
	});

	test('Show Details reads the runtime again; Copy ID copies and returns the id', async () => {
		const atlas = runtime('atlas-dev');
		const { kit, log } = fakeKit({ client: env.client });
		await showRuntimeDetails({ ...atlas, display_name: 'stale name' }, kit);
		assert.equal(log.json[0]!.title, 'Runtime atlas-dev');
		assert.deepEqual(log.json[0]!.key, ['runtimes', atlas.id]);
		// A runtime that is gone: the record as given.
		await runtimeActions.showDetails.run({ runtime: { ...atlas, id: 'rt_gone', display_name: '$(bug) x' } }, kit);
		assert.equal(log.json[1]!.title, 'Runtime \\$(bug) x');
		assert.equal(await runtimeActions.copyId.run({ runtime: atlas }, kit), atlas.id);
		assert.deepEqual(log.copies, [{ text: atlas.id, message: `Copied the runtime ID ${atlas.id}` }]);
	});

	test('the target: a runtime by id, a message naming an unknown one, every runtime for the pick', async () => {
		const ctx = listContext(env.client);
		assert.equal((await runtimesList.target!.get(ctx, runtime('gale-staging').id, undefined))?.status, 'shutdown');
		assert.equal(runtimesList.target!.notFound!('rt_x'), 'The runtime rt_x was not found.');
		assert.equal((await runtimesList.target!.choices(ctx, undefined)).length, runtimes.length);
		assert.equal(runtimesList.target!.pickText(runtime('borealis-ci')).description, 'running · degraded');
	});
});
