import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import { advanceClock, counters, emu, holdClock, restoreDevToken, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';

/**
 * GitHub (src/resources/github.ts) against the emulator inside VS Code:
 * pending authorization requests in the Account view (expired ones drop off when the emulator's
 * clock passes them), "Authorize…" yielding only the https address, and the bindings PUT
 * (reorder, add, remove; checked before sending; a refusal explained) asserted on the emulator's state.
 */

interface State {
	clock: { now_ms: number };
	runtimes: Array<{
		id: string;
		display_name: string;
		can_manage?: boolean;
		bindings: Array<{ repository_id: number; branch: string; sort_order: number }>;
	}>;
	github_requests: Array<{
		request_id: string;
		requested_by: string;
		lifecycle: { authorization_url: string; expires_at_unix_seconds: number };
	}>;
}
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const rows = async (key: string, parent?: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key, parent)) ?? [];
const run = <T>(command: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(command, ...args);
const PUT = 'PUT /v2/github/runtime-bindings/{runtime_id}';

suite('GitHub requests and bindings', () => {
	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		await run('cloudAgents.github.refreshRequests');
	});

	teardown(async () => {
		await emu('DELETE', '/_emulator/faults');
	});

	suiteTeardown(async () => {
		await closeAllEditors();
	});

	test('the Account view lists the pending requests (who, time left); one drops off when the clock passes its expiry', async function () {
		this.timeout(30_000);
		const expiry = (r: State['github_requests'][number]): number => r.lifecycle.expires_at_unix_seconds * 1000;
		// Requests expire on the emulator clock (the service's list) and on the wall clock (the
		// extension hides one past its expiry): held, the first stands still; a request the wall
		// clock would pass during the test (the seed's first expires 2 minutes after the emulator
		// starts) is expired on the emulator first, so that neither list changes between two reads.
		const releaseClock = await holdClock();
		try {
			const soon = Date.now() + 5 * 60_000;
			const first = await state();
			const imminent = first.github_requests.filter((r) => expiry(r) > first.clock.now_ms && expiry(r) <= soon);
			if (imminent.length > 0) {
				await advanceClock((Math.max(...imminent.map(expiry)) - first.clock.now_ms + 1_000) / 1000);
			}
			const s = await state();
			const open = s.github_requests.filter((r) => expiry(r) > s.clock.now_ms && expiry(r) > Date.now());
			await run('cloudAgents.github.refreshRequests');
			const shown = await waitFor('the rows of the requests the service lists', async () => {
				const r = await rows('account', 'account/githubRequests');
				return r.length === open.length ? r : undefined;
			});
			assert.deepEqual(shown.map((r) => r.id).sort(), open.map((r) => `githubRequest/${r.request_id}`).sort());
			for (const r of shown) {
				const req = open.find((x) => r.id?.endsWith(x.request_id))!;
				assert.ok(r.description?.includes(req.requested_by), r.description);
				assert.match(r.description ?? '', /left/);
				assert.equal(r.command, 'cloudAgents.github.authorize');
			}
			// The soonest expires within the hour: past it, the server no longer lists it and the row goes.
			const soonest = [...open].sort((a, b) => a.lifecycle.expires_at_unix_seconds - b.lifecycle.expires_at_unix_seconds)[0]!;
			await advanceClock((expiry(soonest) - s.clock.now_ms + 1_000) / 1000);
			await run('cloudAgents.github.refreshRequests');
			const after = await waitFor('the expired request gone', async () => {
				const r = await rows('account', 'account/githubRequests');
				return r.some((x) => x.id?.endsWith(soonest.request_id)) ? undefined : r;
			});
			assert.equal(after.filter((r) => r.contextValue?.startsWith('githubRequest:')).length, shown.length - 1);
		} finally {
			await releaseClock();
		}
	});

	test("Authorize… yields the request's https address (confirmation skipped by automation) [web]", async () => {
		const s = await state();
		const shown = await rows('account', 'account/githubRequests');
		const first = shown.find((r) => r.contextValue?.startsWith('githubRequest:'));
		assert.ok(first, 'a pending request');
		const req = s.github_requests.find((r) => first.id?.endsWith(r.request_id))!;
		const url = await run<string>('cloudAgents.github.authorize', {
			automation: true,
			requestId: req.request_id,
			confirm: false,
			dryRun: true,
			rethrow: true,
		});
		assert.equal(url, req.lifecycle.authorization_url);
		assert.ok(url.startsWith('https://'));
	});

	test('the bindings PUT replaces them in the order given; a bad branch is not sent; a refusal changes nothing', async () => {
		const s = await state();
		const rt = s.runtimes.find((r) => r.bindings.length >= 2) ?? s.runtimes.find((r) => r.can_manage !== false)!;
		const before = (await counters()).requests.by_route[PUT] ?? 0;
		// Reordered, one removed, one added.
		const wanted = [...rt.bindings]
			.sort((a, b) => a.sort_order - b.sort_order)
			.reverse()
			.slice(0, 1)
			.map((b) => ({ repository_id: b.repository_id, branch: b.branch }));
		wanted.push({ repository_id: 990001, branch: 'feature/surf' });
		const result = await run<Array<{ repository_id: number; branch: string; sort_order: number }>>('cloudAgents.github.editBindings', {
			automation: true,
			runtimeId: rt.id,
			repositories: wanted,
			quiet: true,
			rethrow: true,
		});
		assert.deepEqual(
			result.map((b) => [b.repository_id, b.branch]),
			wanted.map((b) => [b.repository_id, b.branch]),
		);
		const after = (await state()).runtimes.find((r) => r.id === rt.id)!;
		assert.deepEqual(
			[...after.bindings].sort((a, b) => a.sort_order - b.sort_order).map((b) => [b.repository_id, b.branch]),
			wanted.map((b) => [b.repository_id, b.branch]),
		);
		assert.equal((await counters()).requests.by_route[PUT], before + 1);

		await assert.rejects(
			Promise.resolve(
				run('cloudAgents.github.editBindings', {
					automation: true,
					runtimeId: rt.id,
					repositories: [{ repository_id: 5, branch: 'bad..name' }],
					quiet: true,
					rethrow: true,
				}),
			),
			/Not sent/,
		);
		await assert.rejects(
			Promise.resolve(
				run('cloudAgents.github.editBindings', {
					automation: true,
					runtimeId: rt.id,
					repositories: [...wanted, wanted[0]],
					quiet: true,
					rethrow: true,
				}),
			),
			/twice/,
		);
		assert.equal((await counters()).requests.by_route[PUT], before + 1, 'nothing sent');

		await emu('PUT', '/_emulator/faults', {
			rules: [{ method: 'PUT', route: '/v2/github/runtime-bindings/{runtime_id}', status: 422, count: 1 }],
		});
		await assert.rejects(
			Promise.resolve(
				run('cloudAgents.github.editBindings', {
					automation: true,
					runtimeId: rt.id,
					repositories: [{ repository_id: 77, branch: 'main' }],
					quiet: true,
					rethrow: true,
				}),
			),
			/refused the bindings; nothing was changed/,
		);
		const unchanged = (await state()).runtimes.find((r) => r.id === rt.id)!;
		assert.deepEqual(
			unchanged.bindings.map((b) => [b.repository_id, b.branch]).sort(),
			after.bindings.map((b) => [b.repository_id, b.branch]).sort(),
		);
	});
});
