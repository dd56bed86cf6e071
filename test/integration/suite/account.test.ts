import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import { counters, emu, holdClock, restoreDevToken, testApi, waitFor, within } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';

/**
 * The Account view (issue 13): images, image builds, checkpoints and model providers, each a
 * group row with its list under it. Every test acts through the extension's commands and checks
 * the emulator's state afterwards (`/_emulator/state` keeps the standard names in every profile),
 * in both profiles: the variant names every one of these records differently.
 */

interface State {
	images: Array<{ id: string; kind: string; display_name: string }>;
	builds: Array<{
		id: string;
		display_name: string;
		status: string;
		image_id: string | null;
		idempotency_key?: string;
		attempts: unknown[];
	}>;
	checkpoints: Array<{ id: string; display_name: string }>;
	model_providers: Array<{ id: string; display_name: string; endpoint: string; model: string; enabled: boolean }>;
}

const rows = async (key: string, parentRowId?: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key, parentRowId)) ?? [];
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const advance = (seconds: number): Promise<unknown> => emu('POST', '/_emulator/clock/advance', { seconds });

/**
 * "Start Image Build…" as a person runs it: its request document (the template, then named
 * `<prefix>-<now>`), shown in an editor. Returns the document and the build's name.
 */
async function buildRequest(prefix: string): Promise<{ doc: vscode.TextDocument; name: string }> {
	const doc = await vscode.commands.executeCommand<vscode.TextDocument>('cloudAgents.imageBuilds.start');
	assert.match(doc.uri.path, /^image-build-\d+\.json$/);
	const template = JSON.parse(doc.getText()) as Record<string, unknown>;
	assert.deepEqual(Object.keys(template).sort(), ['architecture', 'display_name', 'dockerfile']);
	const name = `${prefix}-${Date.now()}`;
	const edit = new vscode.WorkspaceEdit();
	edit.replace(
		doc.uri,
		new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
		JSON.stringify({ ...template, display_name: name }, null, '\t'),
	);
	assert.ok(await vscode.workspace.applyEdit(edit));
	await vscode.window.showTextDocument(doc);
	return { doc, name };
}

suite('Account view: images, builds, checkpoints, model providers', () => {
	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
		await vscode.commands.executeCommand('workbench.view.extension.cloudAgents');
		await vscode.commands.executeCommand('cloudAgents.account.focus');
	});

	suiteTeardown(async function () {
		this.timeout(30_000);
		await emu('DELETE', '/_emulator/faults');
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
		await closeAllEditors();
	});

	test("the view's group rows come in order, each opening its list [web]", async function () {
		this.timeout(30_000);
		const groups = await rows('account');
		assert.deepEqual(
			groups.map((g) => g.label),
			['Images', 'Image builds', 'Checkpoints', 'Model providers', 'Secret Stubs', 'Secrets', 'GitHub Requests'],
		);
		assert.deepEqual(
			groups.map((g) => g.contextValue),
			[
				'group:image',
				'group:imageBuild',
				'group:checkpoint',
				'group:modelProvider',
				'group:secretStub',
				'group:secret',
				'group:githubRequest',
			],
		);
		const images = await rows('account', 'account/images');
		const python = images.find((r) => r.label === 'Python ML toolchain');
		assert.ok(python, images.map((r) => r.label).join(', '));
		assert.match(python.contextValue ?? '', /^image:custom:inUse$/);
		assert.equal(python.command, 'cloudAgents.images.showDetails');
		const doc = await vscode.commands.executeCommand<vscode.TextDocument>('_cloudAgents.views.click', 'images', python.id);
		assert.equal(doc.isDirty, false);
		assert.equal((JSON.parse(doc.getText()) as { id: string }).id, 'img_custom_python_ml');
	});

	test('Start Build: the first POST dies after the service acted; the retry sends the same idempotency key, so one build exists; following it ends with the image, which Delete Image… then removes [variant]', async function () {
		this.timeout(90_000);
		const name = `surf-build-${Date.now()}`;
		// The Images list is loaded before the build: the built image must appear in it without a Refresh.
		await rows('images');
		// The build steps every second of the emulator clock: held, it stays pending (active) however
		// long the retry and the row take (under load on CI it had succeeded before the row was read).
		const releaseClock = await holdClock();
		let started: { id: string; idempotencyKey: string };
		try {
			// The handler runs (the build is created) but the answer never comes: the client retries.
			await emu('PUT', '/_emulator/faults', {
				rules: [{ method: 'POST', route: '/v2/images/builds', ambiguous_timeout: true, count: 1 }],
			});
			try {
				started = await within(
					'the build to start',
					vscode.commands.executeCommand<{ id: string; idempotencyKey: string }>('cloudAgents.imageBuilds.start', {
						automation: true,
						request: { display_name: name, dockerfile: 'FROM scratch\nFLAKY\n' },
						rethrow: true,
					}),
					60_000,
				);
			} finally {
				await emu('DELETE', '/_emulator/faults');
			}
			const mine = (await state()).builds.filter((b) => b.display_name === name);
			assert.equal(mine.length, 1, "exactly one build: the retry carried the first attempt's key");
			assert.equal(mine[0]!.id, started.id);
			assert.equal(mine[0]!.idempotency_key, started.idempotencyKey);

			// The build's row is in the list, still active; the clock moves it along: a failed attempt, then a good one.
			const buildRow = await waitFor('the build row', async () =>
				(await rows('imageBuilds')).find((r) => r.id === `imageBuild/${started.id}`),
			);
			assert.match(buildRow.contextValue ?? '', /:active$/);
			await advance(10);
		} finally {
			await releaseClock();
		}
		const ended = await within(
			'the build to end',
			vscode.commands.executeCommand<{ status: string; imageId?: string; attempts: unknown[] }>('cloudAgents.imageBuilds.follow', {
				automation: true,
				buildId: started.id,
				wait: true,
				quiet: true,
				rethrow: true,
			}),
			40_000,
		);
		assert.match(ended.status, /^(succeeded|ready)$/);
		assert.equal(ended.attempts.length, 2);
		const built = (await state()).builds.find((b) => b.id === started.id);
		assert.equal(built?.status, 'succeeded');
		assert.ok(built?.image_id);
		// Issue 20 (8): the Images list follows the build's success (no manual Refresh).
		assert.ok(
			(await rows('images')).some((r) => r.id === `image/${built.image_id}`),
			`the built image ${built.image_id} is listed in Images once its build succeeded`,
		);
		const attempts = await rows('imageBuilds', `imageBuild/${started.id}`);
		assert.deepEqual(
			attempts.map((r) => r.label),
			['Attempt 1', 'Attempt 2'],
		);

		// The new custom image is used by no runtime: Delete Image… removes it.
		const result = await vscode.commands.executeCommand<{ deleted: boolean }>('cloudAgents.images.delete', {
			automation: true,
			imageId: built.image_id,
			rethrow: true,
		});
		assert.deepEqual(result, { deleted: true });
		assert.ok(!(await state()).images.some((i) => i.id === built.image_id), 'the image is gone from the service');
		assert.ok(!(await rows('images')).some((r) => r.id === `image/${built.image_id}`), 'and from the list');
	});

	test('the end of a build is told when it comes with the Account view not shown: following it does not wait for the view (issue 33)', async function () {
		this.timeout(60_000);
		const name = `hidden-build-${Date.now()}`;
		// The Explorer takes the side bar: the Cloud Agents container, and the Account view in it, is not shown.
		await vscode.commands.executeCommand('workbench.view.explorer');
		try {
			const started = await vscode.commands.executeCommand<{ id: string }>('cloudAgents.imageBuilds.start', {
				automation: true,
				request: { display_name: name, dockerfile: 'FROM scratch\n' },
				rethrow: true,
			});
			await advance(10);
			// Shares the poll Start Build began: it resolves at the build's end, which it reads while
			// the view stays hidden (before, it waited for the view to be shown again).
			const ended = await within(
				'the build to be followed to its end while the Account view is hidden',
				vscode.commands.executeCommand<{ status: string }>('cloudAgents.imageBuilds.follow', {
					automation: true,
					buildId: started.id,
					wait: true,
					quiet: true,
					rethrow: true,
				}),
				30_000,
			);
			assert.match(ended.status, /^(succeeded|ready)$/);
			assert.equal((await state()).builds.find((b) => b.id === started.id)?.status, 'succeeded');
		} finally {
			await vscode.commands.executeCommand('workbench.view.extension.cloudAgents');
			await vscode.commands.executeCommand('cloudAgents.account.focus');
		}
	});

	test('Start Build from the request document: when every try of the first attempt dies after the service acted, "Start Build" again reuses the attempt\'s key and the service keeps one build [variant]', async function () {
		this.timeout(90_000);
		const { name } = await buildRequest('surf-doc-build');
		await emu('PUT', '/_emulator/faults', {
			rules: [{ method: 'POST', route: '/v2/images/builds', ambiguous_timeout: true, count: 10 }],
		});
		try {
			// As a user runs it: the failure is shown (with its request id), the command resolves with nothing.
			assert.equal(await vscode.commands.executeCommand('cloudAgents.imageBuilds.startFromEditor'), undefined);
		} finally {
			await emu('DELETE', '/_emulator/faults');
		}
		const afterFailure = (await state()).builds.filter((b) => b.display_name === name);
		assert.equal(afterFailure.length, 1, "the service acted on the first try; the client's own retries carried the same key");
		const retried = await vscode.commands.executeCommand<{ id: string; idempotencyKey: string }>(
			'cloudAgents.imageBuilds.startFromEditor',
			{ automation: true, rethrow: true },
		);
		assert.equal(retried.id, afterFailure[0]!.id, 'the retry got the build the first attempt made');
		assert.equal(retried.idempotencyKey, afterFailure[0]!.idempotency_key);
		assert.equal((await state()).builds.filter((b) => b.display_name === name).length, 1);
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
	});

	test('Start Build from an untitled request document, as a person runs it: the build starts and the document closes without asking to be saved (issue 42, item 8)', async function () {
		this.timeout(60_000);
		const { doc, name } = await buildRequest('closed-after-start');
		assert.equal(doc.uri.scheme, 'untitled');
		assert.ok(doc.isDirty, 'an untitled request with text is dirty before it is sent');
		const started = await vscode.commands.executeCommand<{ id: string } | undefined>('cloudAgents.imageBuilds.startFromEditor');
		assert.ok(started?.id, 'the build started');
		assert.equal((await state()).builds.filter((b) => b.display_name === name).length, 1);
		await waitFor('the sent request document to close', async () =>
			doc.isClosed || !vscode.workspace.textDocuments.some((d) => d.uri.toString() === doc.uri.toString() && d.isDirty)
				? true
				: undefined,
		);
		assert.ok(
			!vscode.window.tabGroups.all.some((g) =>
				g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString()),
			),
			'no tab of the sent request is left',
		);
	});

	test('Delete Image… of an image marked in use says why it cannot be deleted before asking, and sends nothing; the image stays [variant]', async function () {
		this.timeout(30_000);
		await emu('POST', '/_emulator/counters/reset');
		const result = await vscode.commands.executeCommand<{ deleted: boolean; reason?: string; requestId?: string }>(
			'cloudAgents.images.delete',
			{ automation: true, imageId: 'img_custom_python_ml', rethrow: true },
		);
		assert.deepEqual(result, { deleted: false, reason: 'in_use' }, 'refused here, not by the service (no request id)');
		const deletes = Object.entries((await counters()).requests.by_route).filter(([route]) => route.startsWith('DELETE '));
		assert.deepEqual(deletes, [], 'no DELETE was sent');
		assert.ok((await state()).images.some((i) => i.id === 'img_custom_python_ml'));
	});

	test("checkpoints page through the server's cursor (its name found by the client), showing state, failure reason and a deleted source runtime [variant]", async function () {
		this.timeout(30_000);
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', 2, vscode.ConfigurationTarget.Global);
		try {
			await waitFor('the first page', async () =>
				(await rows('checkpoints')).some((r) => r.contextValue === 'loadMore') ? true : undefined,
			);
			for (let i = 0; i < 10; i++) {
				const before = await rows('checkpoints');
				if (!before.some((r) => r.contextValue === 'loadMore')) break;
				await vscode.commands.executeCommand('cloudAgents.checkpoints.loadMore');
				// The view redraws after the command's answer (later on a busy machine): wait for the next page.
				await waitFor('the next page of checkpoints', async () => {
					const now = await rows('checkpoints');
					return now.length > before.length || !now.some((r) => r.contextValue === 'loadMore') ? true : undefined;
				});
			}
			const all = await rows('checkpoints');
			assert.ok(!all.some((r) => r.contextValue === 'notice'), 'no paging notice');
			const total = (await state()).checkpoints.length;
			assert.equal(all.filter((r) => r.contextValue?.startsWith('checkpoint:')).length, total);
			const failed = all.find((r) => r.label === 'iris-before-retire');
			assert.ok(failed);
			assert.match(failed.contextValue ?? '', /^checkpoint:failed$/);
			assert.match(failed.description ?? '', /checkpoint_storage_quota_exceeded/);
			assert.match(failed.description ?? '', /iris-retired \(deleted\)/);
			const doc = await vscode.commands.executeCommand<vscode.TextDocument>('_cloudAgents.views.click', 'checkpoints', failed.id);
			const shown = JSON.parse(doc.getText()) as { state: string; failure_reason: string; source_runtime: string };
			assert.match(shown.state, /^failed$/i);
			assert.equal(shown.failure_reason, 'checkpoint_storage_quota_exceeded');
			assert.equal(shown.source_runtime, 'deleted');
		} finally {
			await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
		}
	});

	test("a model provider edited as JSON: the server's field errors become diagnostics on the members; a good save sends the PATCH, clears them and refreshes the row [variant]", async function () {
		this.timeout(40_000);
		const doc = await vscode.commands.executeCommand<vscode.TextDocument>('cloudAgents.modelProviders.edit', {
			automation: true,
			providerId: 'mp_openai',
			rethrow: true,
		});
		const text = doc.getText();
		const endpointKey = text.includes('"base_url"') ? 'base_url' : 'endpoint';
		const modelKey = text.includes('"default_model"') ? 'default_model' : 'model';
		const body = JSON.parse(text) as Record<string, unknown>;
		assert.equal(body[endpointKey], 'https://api.openai.example/v1');

		const replaceAll = async (next: Record<string, unknown>): Promise<void> => {
			const edit = new vscode.WorkspaceEdit();
			edit.replace(
				doc.uri,
				new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
				`${JSON.stringify(next, null, '\t')}\n`,
			);
			assert.ok(await vscode.workspace.applyEdit(edit));
		};
		// http: is refused for an OpenAI provider: the service names the endpoint member.
		await replaceAll({ ...body, [endpointKey]: 'http://api.openai.example/v1' });
		const refused = await vscode.commands.executeCommand<{ saved: boolean; diagnostics?: number; requestId?: string }>(
			'cloudAgents.modelProviders.save',
			{ automation: true, uri: doc.uri.toString(), rethrow: true },
		);
		assert.equal(refused.saved, false, JSON.stringify(refused));
		assert.ok(refused.requestId, `the refusal names no request id: ${JSON.stringify(refused)}`);
		const diagnostics = vscode.languages.getDiagnostics(doc.uri);
		assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
		assert.match(doc.getText(diagnostics[0]!.range), new RegExp(`^"${endpointKey}": "http://`));
		assert.match(diagnostics[0]!.message, /https/);
		assert.equal(
			(await state()).model_providers.find((p) => p.id === 'mp_openai')?.endpoint,
			'https://api.openai.example/v1',
			'nothing changed',
		);

		const model = `gpt-surf-${Date.now()}`;
		await replaceAll({ ...body, [modelKey]: model });
		const saved = await vscode.commands.executeCommand<{ saved: boolean }>('cloudAgents.modelProviders.save', {
			automation: true,
			uri: doc.uri.toString(),
			rethrow: true,
		});
		assert.equal(saved.saved, true);
		assert.equal(vscode.languages.getDiagnostics(doc.uri).length, 0);
		const after = (await state()).model_providers.find((p) => p.id === 'mp_openai');
		assert.equal(after?.model, model);
		assert.equal(after?.endpoint, 'https://api.openai.example/v1');
		const row = (await rows('modelProviders')).find((r) => r.id === 'modelProvider/mp_openai');
		assert.match(row?.description ?? '', new RegExp(`^${model}`));
	});

	test('times of records days old read "N days ago" (not "just now") in every Account list, the build attempts, the Agents, Runs and Artifacts views and SSH keys [variant]', async function () {
		this.timeout(60_000);
		const DAY = 86_400_000;
		const now = Date.now();
		// The demo seed dates records days back from the emulator's start (emulator/src/seed.ts). A
		// record an earlier test changed (or stamped with an advanced emulator clock) is left out.
		const daysOld = (ms: number): boolean => now - ms >= 1.6 * DAY && now - ms < 29 * DAY;
		const t = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN);
		const expectDaysAgo = (what: string, text: string | undefined, ms: number): void => {
			const m = /\b(\d+) days ago\b/.exec(text ?? '');
			assert.ok(m, `${what}: "${text}" does not say "N days ago" for a time ${((now - ms) / DAY).toFixed(2)} days back`);
			assert.ok(Math.abs(Number(m[1]) - (now - ms) / DAY) < 1, `${what}: "${m[0]}" for ${((now - ms) / DAY).toFixed(2)} days`);
			assert.doesNotMatch(text ?? '', /just now/);
		};
		const s = (await emu<Record<string, Array<Record<string, unknown>>>>('GET', '/_emulator/state')).body;
		let checked = 0;
		const each = async (
			list: string,
			records: Array<Record<string, unknown>>,
			time: (r: Record<string, unknown>) => number,
			rowOf: (all: RowSnapshot[], r: Record<string, unknown>) => RowSnapshot | undefined,
			text: (row: RowSnapshot) => string | undefined,
			parent?: string,
		): Promise<void> => {
			const old = records.filter((r) => daysOld(time(r)));
			assert.ok(old.length > 0, `the seed has a ${list} record days old`);
			const all = await waitFor(`the ${list} rows of the records days old`, async () => {
				const shown = await rows(list, parent);
				return old.every((r) => rowOf(shown, r)) ? shown : undefined;
			});
			for (const r of old) {
				const row = rowOf(all, r);
				assert.ok(row, `${list}: no row for ${String(r.id)} in ${all.map((x) => x.id).join(', ')}`);
				expectDaysAgo(`${list} ${row.label}`, text(row), time(r));
				checked++;
			}
		};
		const byId = (kind: string) => (all: RowSnapshot[], r: Record<string, unknown>) =>
			all.find((x) => x.id === `${kind}/${String(r.id)}`);
		const description = (row: RowSnapshot): string | undefined => row.description;

		await each('imageBuilds', s.builds!, (b) => t((b.updated_at ?? b.created_at) as string), byId('imageBuild'), description);
		const build = s.builds!.find((b) => (b.attempts as unknown[]).length > 0 && daysOld(t(b.updated_at as string)))!;
		await each(
			'imageBuilds',
			build.attempts as Array<Record<string, unknown>>,
			(a) => t((a.finished_at ?? a.started_at) as string),
			(all, a) => all.find((x) => x.label === `Attempt ${String(a.number)}`),
			description,
			`imageBuild/${String(build.id)}`,
		);
		await each('checkpoints', s.checkpoints!, (c) => t(c.created_at as string), byId('checkpoint'), description);
		// A provider's time is in its tooltip ("Updated: …").
		await each(
			'modelProviders',
			s.model_providers!,
			(p) => t(p.updated_at as string),
			byId('modelProvider'),
			(row) => /^Updated: (.*)$/m.exec(row.tooltip ?? '')?.[1],
		);
		// Agents carry Unix seconds on the wire (updated_at_unix_seconds): the same words.
		await each(
			'agents',
			s.agents!,
			(a) => a.updated_at_ms as number,
			(all, a) => all.find((x) => x.label === a.name),
			description,
		);
		// Runs, artifacts (the billing agent's), SSH keys (under their runtime): RFC 3339 on the wire.
		const billing = s.agents!.find((a) => a.name === 'Refactor billing module')!;
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', billing.id);
		try {
			const shownOnly = async (list: string, records: Array<Record<string, unknown>>, parent?: string): Promise<void> => {
				const shown = await waitFor(`the ${list} rows`, async () => {
					const all = await rows(list, parent);
					return all.some((x) => records.some((r) => x.id?.endsWith(`/${String(r.id)}`))) ? all : undefined;
				});
				const present = records.filter(
					(r) => daysOld(t(r.created_at as string)) && shown.some((x) => x.id?.endsWith(`/${String(r.id)}`)),
				);
				await each(
					list,
					present,
					(r) => t(r.created_at as string),
					(all, r) => all.find((x) => x.id?.endsWith(`/${String(r.id)}`)),
					description,
					parent,
				);
			};
			await shownOnly(
				'runs',
				s.runs!.filter((r) => r.agent_id === billing.id),
			);
			await shownOnly(
				'artifacts',
				s.artifacts!.filter((a) => a.agent_id === billing.id),
			);
		} finally {
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		}
		// A runtime with keys attached: the seed attaches two to one runtime, but the SSH keys suite
		// detaches and deletes some (the order of suites is not fixed), so any runtime with one will do.
		const withKeys = s.runtimes!.find((r) => Array.isArray(r.ssh_key_ids) && (r.ssh_key_ids as unknown[]).length > 0);
		assert.ok(withKeys, 'a runtime with SSH keys attached');
		await each(
			'runtimes',
			s.ssh_keys!.filter((k) => (withKeys.ssh_key_ids as unknown[]).includes(k.id)),
			(k) => t(k.created_at as string),
			(all, k) => all.find((x) => x.id?.endsWith(`/${String(k.id)}`)),
			description,
			`runtime/${String(withKeys.id)}/runtimeSshKeys`,
		);
		// A runtime's row says when it last changed (the seed: an hour ago; a runtime an earlier test changed is left out).
		const runtimeRows = await rows('runtimes');
		for (const rt of s.runtimes!.filter((r) => now - t(r.updated_at as string) >= 3_600_000)) {
			const row = runtimeRows.find((x) => x.id === `runtime/${String(rt.id)}`);
			if (row) {
				assert.match(row.description ?? '', /\b\d+ (hrs?|days?) ago\b/, `runtime ${String(rt.display_name)}`);
				checked++;
			}
		}
		assert.ok(checked >= 16, `${checked} rows checked`);
	});
});
