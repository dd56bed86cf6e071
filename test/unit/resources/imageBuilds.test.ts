import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BuildInfo } from '../../../src/api';
import { readBuild } from '../../../src/api';
import { buildAttemptsList, buildIcon, imageBuildActions, imageBuildsList, type StartedBuild } from '../../../src/resources/imageBuilds';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, type FakeKitOptions, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/imageBuilds.ts: build and attempt rows from the emulator, Show Details, Start (idempotency key), Follow. */
suite('resources/imageBuilds', () => {
	const env = emulatorPerSuite();
	let builds: BuildInfo[];
	let context: { subscriptions: vscode.Disposable[] };
	let invoked: unknown[];

	setup(async () => {
		builds = await readList(imageBuildsList, listContext(env.client), undefined, { limit: 2 });
		context = { subscriptions: [] };
		invoked = [];
	});
	teardown(() => {
		// Stops the follower's polls (it belongs to the context that made it).
		for (const d of context.subscriptions) {
			d.dispose();
		}
	});

	const build = (name: string): BuildInfo => {
		const b = builds.find((x) => x.name === name);
		assert.ok(b, `no build ${name}`);
		return b;
	};
	const row = (b: BuildInfo) => imageBuildsList.row(b, rowContext(listContext(env.client), undefined));
	const kitOf = (opts: FakeKitOptions = {}) =>
		fakeKit({
			client: env.client,
			...opts,
			extra: {
				context,
				session: { onDidChange: new fake.EventEmitter<void>().event },
				invoke: async (_action: unknown, arg: unknown) => void invoked.push(arg),
				...opts.extra,
			} as never,
		});
	const creates = async (): Promise<number> => (await env.emu.counters()).mutations.by_kind['images.builds.create'] ?? 0;
	const request = { display_name: 'test-image', dockerfile: 'FROM scratch\n', architecture: 'x86_64' };

	test('the list walks the pages; a row: status class in the context value, attempts counted', () => {
		assert.equal(builds.length, 5);
		const rust = row(build('Rust nightly'));
		assert.equal(rust.contextValue, 'imageBuild:failed:failed');
		assert.equal(rust.icon?.id, 'error');
		assert.match(rust.description!, /^failed · 2 attempts/);
		const python = row(build('Python ML toolchain'));
		assert.equal(python.contextValue, 'imageBuild:succeeded:succeeded');
		assert.ok(!python.description!.includes('attempts'), 'one attempt is not counted');
		assert.match(tooltipText(python.tooltip), /Image: img_custom_python_ml/);
		assert.equal(row(build('Go 1.23 toolchain')).contextValue, 'imageBuild:pending:active');
		assert.equal(row(build('Go 1.23 toolchain')).icon?.id, 'clock');
		assert.equal(row(build('Java 21 + Gradle')).icon?.id, 'sync~spin');
		assert.equal(imageBuildsList.isActive!(build('Java 21 + Gradle')), true);
		assert.equal(imageBuildsList.isActive!(build('Rust nightly')), false);
	});

	test('buildIcon: any spelling; an unknown status is in progress', () => {
		assert.equal(buildIcon('QUEUED').id, 'clock');
		assert.equal(buildIcon('Succeeded').id, 'pass-filled');
		assert.equal(buildIcon(undefined).id, 'sync~spin');
	});

	test("attempts: the build's own, no request; each row its outcome", async () => {
		const before = (await env.emu.counters()).requests.total;
		const java = build('Java 21 + Gradle');
		const attempts = await readList(buildAttemptsList, listContext(undefined), java);
		assert.deepEqual(
			attempts.map((a) => [a.number, a.outcome]),
			[
				[1, 'failed'],
				[2, 'running'],
			],
		);
		const r = buildAttemptsList.row(attempts[0]!, rowContext(listContext(undefined), java, java.id));
		assert.equal(r.label, 'Attempt 1');
		assert.equal(r.contextValue, 'buildAttempt:failed');
		assert.match(tooltipText(r.tooltip), /Outcome: failed/);
		assert.equal((await env.emu.counters()).requests.total, before);
		assert.deepEqual(buildAttemptsList.fields(attempts[0]!, java.id), { buildId: java.id, attempt: attempts[0] });
	});

	test('Show Details reads the build again; the Dockerfile is in the record, the title shows a codicon as typed', async () => {
		const { kit, log } = kitOf();
		const stale = { ...build('Rust nightly'), name: '$(zap) stale' };
		await imageBuildActions.showDetails.run({ build: stale }, kit);
		assert.equal(log.json[0]!.title, 'Image build Rust nightly');
		assert.deepEqual(log.json[0]!.key, ['imageBuilds', stale.id]);
		const gone = readBuild({ id: '00000000-0000-4000-8000-000000000000', display_name: '$(zap) x' })!;
		await assert.rejects(
			imageBuildActions.showDetails.run({ build: gone }, kit),
			(err: Error & { status?: number }) => err.status === 404,
		);
	});

	test('Start (automation {request}): sent with an idempotency key, the list refreshed, nothing said', async () => {
		const { kit, log } = kitOf({ arg: automation({ request }), automation: true });
		const started = (await imageBuildActions.start.run(kit)) as StartedBuild;
		assert.equal(started.name, 'test-image');
		assert.equal(started.status, 'pending');
		assert.match(started.idempotencyKey, /^[0-9a-f-]{36}$/);
		assert.equal(await creates(), 1);
		assert.ok(log.listRefreshes.includes('imageBuilds'));
		assert.deepEqual(log.infos, []);
	});

	test('Start again after an answer that never came: the same key, so the service makes one build', async () => {
		// The build is made but the answer is lost, every time the client tries.
		await env.emu.faults([{ method: 'POST', route: '/v2/images/builds', ambiguous_timeout: true }]);
		const { kit } = kitOf({ arg: automation({ request }), automation: true });
		await assert.rejects(imageBuildActions.start.run(kit));
		assert.equal(await creates(), 1);
		await env.emu.admin('DELETE', '/faults');
		const started = (await imageBuildActions.start.run(kit)) as StartedBuild;
		assert.equal(await creates(), 1, 'the retry found the build the lost answer made');
		const all = await readList(imageBuildsList, listContext(env.client), undefined);
		assert.equal(all.filter((b) => b.name === 'test-image').length, 1);
		assert.equal(all.find((b) => b.name === 'test-image')!.id, started.id);
		// Succeeded: the next start of the same request is a new attempt with a new key.
		const next = (await imageBuildActions.start.run(kit)) as StartedBuild;
		assert.notEqual(next.idempotencyKey, started.idempotencyKey);
		assert.equal(await creates(), 2);
	});

	test('Start by a person: a request document opened, prefilled with the active Dockerfile', async () => {
		const inserted: string[] = [];
		const doc = { getText: () => '', uri: vscode.Uri.parse('untitled:image-build-1.json') };
		fake.answer('workspace.openTextDocument', async () => doc);
		fake.answer('window.showTextDocument', async () => ({
			edit: async (fn: (e: { insert(p: unknown, t: string): void }) => void) => {
				fn({ insert: (_p, t) => void inserted.push(t) });
				return true;
			},
		}));
		Object.assign(fake.window, {
			activeTextEditor: { document: { languageId: 'plaintext', fileName: '/src/Dockerfile', getText: () => 'FROM node:20\n' } },
		});
		const { kit, log } = kitOf();
		assert.equal(await imageBuildActions.start.run(kit), doc);
		const template = JSON.parse(inserted[0]!) as { dockerfile: string; display_name: string };
		assert.equal(template.dockerfile, 'FROM node:20\n');
		assert.deepEqual(fake.calls('languages.setTextDocumentLanguage')[0], [doc, 'json']);
		assert.deepEqual(log.infos, ['Edit the build request, then run "Start Build" from the editor title.']);
		assert.equal(await creates(), 0);
	});

	test('Start Build from the editor: no document, bad JSON or not an object refused before sending', async () => {
		const { kit } = kitOf();
		await assert.rejects(imageBuildActions.startFromEditor.run(kit), /Open a build request document first/);
		const docOf = (text: string) => ({ getText: () => text, uri: vscode.Uri.parse('untitled:r.json'), isClosed: false });
		Object.assign(fake.window, { activeTextEditor: { document: docOf('{ not json') } });
		await assert.rejects(imageBuildActions.startFromEditor.run(kit), /^Error: The build request is not valid JSON: /);
		Object.assign(fake.window, { activeTextEditor: { document: docOf('[1, 2]') } });
		await assert.rejects(imageBuildActions.startFromEditor.run(kit), /must be a JSON object/);
		assert.equal(await creates(), 0);
	});

	test('Start Build from the editor: the document the title names is sent, a person is told it started', async () => {
		const uri = vscode.Uri.parse('untitled:image-build-3.json');
		Object.assign(fake.workspace, { textDocuments: [{ uri, getText: () => JSON.stringify(request), isClosed: false }] });
		const { kit, log } = kitOf({ arg: uri });
		const started = await imageBuildActions.startFromEditor.run(kit);
		assert.equal(started.name, 'test-image');
		assert.deepEqual(log.infos, ['Started the image build "test-image". You will be told when it ends.']);
		assert.equal(await creates(), 1);
	});

	test('Follow a build that has ended: announced once at once, the lists refreshed (Images too on success)', async () => {
		const shown: string[] = [];
		fake.answer('window.showInformationMessage', async (m: string, ...items: string[]) => {
			shown.push(m);
			return items[0];
		});
		const { kit, log } = kitOf({ arg: automation({ wait: true }), automation: true });
		const python = build('Python ML toolchain');
		const end = (await imageBuildActions.follow.run({ build: python }, kit)) as BuildInfo;
		assert.equal(end.id, python.id);
		assert.deepEqual(shown, ['The image build "Python ML toolchain" succeeded.']);
		assert.deepEqual([...log.listRefreshes].sort(), ['imageBuilds', 'images']);
		// "Show Details" chosen: the details action is invoked for the build.
		await new Promise<void>((resolve) => setImmediate(resolve));
		assert.deepEqual(invoked, [{ buildId: python.id }]);
		await imageBuildActions.follow.run({ build: python }, kit);
		assert.equal(shown.length, 1, 'announced once');
	});

	test('Follow quietly: the end goes to the log; a failed build says its attempts', async () => {
		const { kit, log } = kitOf({ arg: automation({ wait: true, quiet: true }), automation: true });
		await imageBuildActions.follow.run({ build: build('Rust nightly') }, kit);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
		assert.ok(
			(kit.log as unknown as { lines: string[] }).lines.includes('The image build "Rust nightly" ended: failed after 2 attempts.'),
			JSON.stringify((kit.log as unknown as { lines: string[] }).lines),
		);
		assert.deepEqual(log.listRefreshes, ['imageBuilds'], 'no Images refresh for a failed build');
	});

	test('Follow without wait returns at once; offered only on active builds', async () => {
		const { kit } = kitOf({ arg: automation({ quiet: true }), automation: true });
		const java = build('Java 21 + Gradle');
		assert.deepEqual(await imageBuildActions.follow.run({ build: java }, kit), { following: java.id });
		assert.equal(imageBuildActions.follow.filter(java), true);
		assert.equal(imageBuildActions.follow.filter(build('Rust nightly')), false);
	});
});
