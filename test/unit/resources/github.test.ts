import * as assert from 'node:assert/strict';
import type { GitHubAuthorizationRequest, Runtime } from '../../../src/api';
import { ApiError } from '../../../src/api';
import {
	authorizationUrl,
	checkBindings,
	checkBranch,
	checkRepositoryId,
	githubActions,
	githubRequestsList,
	isOpenRequest,
	requestExpiry,
	runtimeBindings,
	timeLeft,
} from '../../../src/resources/github';
import { attachedSshKeys } from '../../../src/resources/sshKeys';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, listContext, quickInputs, readList, rowContext, tooltipText, until } from './kit';

/** src/resources/github.ts: pending requests from the emulator, Authorize…, and the bindings editor against it. */
suite('resources/github', () => {
	const env = emulatorPerSuite();
	let requests: GitHubAuthorizationRequest[];
	let runtimes: Runtime[];

	setup(async () => {
		requests = await readList(githubRequestsList, listContext(env.client), undefined);
		runtimes = (await env.client.listRuntimes({ limit: 100 })).items;
	});

	const runtime = (name: string): Runtime => runtimes.find((r) => r.display_name === name)!;
	const replaces = async (): Promise<number> => (await env.emu.counters()).mutations.by_kind['github.bindings.replace'] ?? 0;
	const request = (
		over: Partial<GitHubAuthorizationRequest> & { lifecycle?: GitHubAuthorizationRequest['lifecycle'] },
	): GitHubAuthorizationRequest => ({ request_id: 'ghreq_x', ...over });

	test('the list: pending requests only (the expired one left out), soonest expiry first', () => {
		assert.deepEqual(
			requests.map((r) => r.requested_by),
			['agent:Nightly dependency bump', 'agent:Refactor billing module', 'agent:CI triage'],
		);
		const row = githubRequestsList.row(requests[0]!, rowContext(listContext(env.client), undefined));
		assert.equal(row.label, 'Open a pull request with the dependency updates in analytical-engines/billing');
		assert.equal(row.contextValue, 'githubRequest:pending:https');
		assert.match(row.description!, /^agent:Nightly dependency bump · (1 min left|less than a minute left)$/);
		assert.match(tooltipText(row.tooltip), /Opens: github\.com/);
		// No reason: who asked.
		const triage = githubRequestsList.row(requests[2]!, rowContext(listContext(env.client), undefined));
		assert.equal(triage.label, 'Access requested by agent:CI triage');
	});

	test('request helpers: expiry, open or not, time left', () => {
		const now = Date.UTC(2030, 0, 1);
		const r = request({ lifecycle: { status: 'pending', expires_at_unix_seconds: now / 1000 + 600 } });
		assert.equal(requestExpiry(r), now + 600_000);
		assert.equal(requestExpiry(request({})), undefined);
		assert.equal(isOpenRequest(r, now), true);
		assert.equal(isOpenRequest(r, now + 600_000), false, 'expired at its expiry');
		assert.equal(isOpenRequest(request({ lifecycle: { status: 'approved' } }), now), false);
		assert.equal(isOpenRequest(request({}), now), true, 'no status and no expiry: pending');
		assert.equal(timeLeft(now + 30_000, now), 'less than a minute left');
		assert.equal(timeLeft(now + 12 * 60_000 + 59_000, now), '12 min left');
		assert.equal(timeLeft(now + 119 * 60_000, now), '119 min left');
		assert.equal(timeLeft(now + 5 * 3600_000, now), '5 h left');
		assert.equal(timeLeft(undefined, now), undefined);
	});

	test('only an https address without credentials is ever opened', () => {
		const at = (url: string) => authorizationUrl(request({ lifecycle: { authorization_url: url } }));
		assert.equal(at('https://github.com/login/oauth/authorize?x=1')?.authority, 'github.com');
		assert.equal(at('http://github.com/login'), undefined);
		assert.equal(at('javascript:alert(1)'), undefined);
		assert.equal(at('https://user:pw@github.com/'), undefined);
		assert.equal(at('not a url'), undefined);
		assert.equal(authorizationUrl(request({})), undefined);
		const row = githubRequestsList.row(
			request({ lifecycle: { authorization_url: 'http://x.example' } }),
			rowContext(listContext(env.client), undefined),
		);
		assert.equal(row.contextValue, 'githubRequest:pending');
	});

	test('Authorize: asks, naming who and why; declined opens nothing', async () => {
		const asked: unknown[][] = [];
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => void asked.push(args));
		const { kit } = fakeKit({ client: env.client });
		assert.equal(await githubActions.authorize.run({ request: requests[1]! }, kit), undefined);
		assert.equal(asked[0]![0], 'Authorize GitHub access for this agent?');
		const detail = (asked[0]![1] as { detail: string }).detail;
		assert.match(detail, /Requested by: agent:Refactor billing module/);
		assert.match(detail, /Reason: Push the refactoring branch/);
		assert.match(detail, /GitHub opens at github\.com\./);
		assert.equal(fake.calls('env.openExternal').length, 0);
	});

	test('Authorize confirmed opens the https address; dryRun only returns it', async () => {
		fake.answer('window.showWarningMessage', async (_m: string, _o: unknown, action: string) => action);
		const { kit } = fakeKit({ client: env.client });
		const url = await githubActions.authorize.run({ request: requests[1]! }, kit);
		assert.equal(url, requests[1]!.lifecycle!.authorization_url);
		assert.equal(fake.calls('env.openExternal').length, 1);
		const dry = fakeKit({ client: env.client, arg: automation({ confirm: false, dryRun: true }), automation: true });
		assert.equal(await githubActions.authorize.run({ request: requests[0]! }, dry.kit), requests[0]!.lifecycle!.authorization_url);
		assert.equal(fake.calls('env.openExternal').length, 1);
	});

	test('Authorize an expired request: nothing asked or opened, the list refreshed; no https address: an error', async () => {
		const { kit, log } = fakeKit({ client: env.client });
		const expired = request({
			lifecycle: { expires_at_unix_seconds: Math.floor(Date.now() / 1000) - 10, authorization_url: 'https://github.com/' },
		});
		assert.equal(await githubActions.authorize.run({ request: expired }, kit), undefined);
		assert.deepEqual(log.warnings, ['This request has expired; ask the agent again.']);
		assert.deepEqual(log.listRefreshes, ['githubRequests']);
		await assert.rejects(
			githubActions.authorize.run({ request: request({ lifecycle: { authorization_url: 'http://github.com/' } }) }, kit),
			/no https authorization address/,
		);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
	});

	test('the target: a pending request by id; an expired one is not found, with its message', async () => {
		const ctx = listContext(env.client);
		assert.equal(
			(await githubRequestsList.target!.get(ctx, 'ghreq_01JC8Q9Z8X7C6V5B4N3M2L1K0J', undefined))?.requested_by,
			'agent:CI triage',
		);
		assert.equal(await githubRequestsList.target!.get(ctx, 'ghreq_01JC8P7O6I5U4Y3T2R1E0W9Q8A', undefined), undefined);
		assert.match(githubRequestsList.target!.notFound!('ghreq_x'), /not pending any more/);
	});

	test('branch and repository id checks', () => {
		for (const ok of ['main', 'feature/x-1', 'release-2.0']) {
			assert.equal(checkBranch(ok), undefined, ok);
		}
		for (const bad of ['', 'has space', 'a..b', '/lead', 'trail/', 'x.lock', '-x', 'a@{1}', 'a~1', 'tab\tx', 'x'.repeat(256)]) {
			assert.ok(checkBranch(bad), JSON.stringify(bad));
		}
		assert.equal(checkRepositoryId(' 781234501 '), undefined);
		for (const bad of ['0', '-1', '1.5', 'abc', '12345678901234567', '']) {
			assert.ok(checkRepositoryId(bad), bad);
		}
	});

	test('checkBindings: each item checked, duplicates and too many refused, with the item named', () => {
		assert.deepEqual(checkBindings([{ repository_id: 1, branch: 'main', extra: true }]), [{ repository_id: 1, branch: 'main' }]);
		assert.throws(
			() =>
				checkBindings([
					{ repository_id: 1, branch: 'main' },
					{ repository_id: '2', branch: 'main' },
				]),
			/binding 2: the repository id is a positive integer/,
		);
		assert.throws(() => checkBindings([{ repository_id: 0, branch: 'main' }]), /binding 1/);
		assert.throws(() => checkBindings([{ repository_id: 1 }]), /binding 1: missing branch/);
		assert.throws(() => checkBindings([{ repository_id: 1, branch: 'a b' }]), /binding 1: Not a branch name git accepts/);
		assert.throws(() => checkBindings(['x']), /binding 1/);
		assert.throws(
			() =>
				checkBindings([
					{ repository_id: 5, branch: 'main' },
					{ repository_id: 5, branch: 'main' },
				]),
			/repository 5 branch main is listed twice/,
		);
		const many = Array.from({ length: 101 }, (_, i) => ({ repository_id: i + 1, branch: 'main' }));
		assert.throws(() => checkBindings(many), /at most 100 bindings/);
		assert.equal(checkBindings(many.slice(0, 100)).length, 100);
	});

	test('runtimeBindings: in sort order; undefined when the record does not carry them', () => {
		assert.deepEqual(runtimeBindings(runtime('atlas-dev')), [
			{ repository_id: 781234501, branch: 'main' },
			{ repository_id: 781234502, branch: 'develop' },
		]);
		const reversed = { ...runtime('atlas-dev'), github_bindings: [...runtime('atlas-dev').github_bindings!].reverse() };
		assert.equal(runtimeBindings(reversed)![0]!.branch, 'main');
		assert.equal(runtimeBindings({ ...runtime('atlas-dev'), github_bindings: undefined }), undefined);
		assert.ok(attachedSshKeys(runtime('atlas-dev')));
	});

	test('Edit Bindings (automation): checked, one PUT replacing them, quiet shows nothing', async () => {
		const atlas = runtime('atlas-dev');
		const arg = automation({ runtimeId: atlas.id, repositories: [{ repository_id: 42, branch: 'trunk' }], quiet: true });
		const { kit, log } = fakeKit({ client: env.client, arg, automation: true });
		const bindings = (await githubActions.editBindings.run({ runtime: atlas }, kit)) as Array<{
			repository_id: number;
			branch: string;
		}>;
		assert.deepEqual(
			bindings.map((b) => [b.repository_id, b.branch]),
			[[42, 'trunk']],
		);
		assert.equal(await replaces(), 1);
		assert.deepEqual(log.json, []);
		assert.deepEqual(log.infos, []);
		assert.deepEqual(log.listRefreshes, ['runtimes']);
	});

	test('Edit Bindings with a bad item: refused before anything is sent', async () => {
		const atlas = runtime('atlas-dev');
		const arg = automation({
			repositories: [
				{ repository_id: 42, branch: 'trunk' },
				{ repository_id: 42, branch: 'trunk' },
			],
		});
		const { kit } = fakeKit({ client: env.client, arg, automation: true });
		await assert.rejects(githubActions.editBindings.run({ runtime: atlas }, kit), /listed twice/);
		assert.equal(await replaces(), 0);
	});

	test('Edit Bindings refused by the service (422, 409): explained, nothing changed, request id kept', async () => {
		const atlas = runtime('atlas-dev');
		const arg = automation({ repositories: [{ repository_id: 7, branch: 'main' }] });
		await env.emu.faults([{ method: 'PUT', route: '/v2/github/runtime-bindings/{runtime_id}', status: 422, count: 1 }]);
		const first = fakeKit({ client: env.client, arg, automation: true });
		await assert.rejects(githubActions.editBindings.run({ runtime: atlas }, first.kit), (err: unknown) => {
			assert.ok(err instanceof ApiError);
			assert.match(err.message, /^The service refused the bindings; nothing was changed\. /);
			assert.ok(err.requestId);
			return true;
		});
		await env.emu.faults([{ method: 'PUT', route: '/v2/github/runtime-bindings/{runtime_id}', status: 409, count: 1 }]);
		const second = fakeKit({ client: env.client, arg, automation: true });
		await assert.rejects(githubActions.editBindings.run({ runtime: atlas }, second.kit), (err: unknown) => {
			assert.ok(err instanceof ApiError);
			assert.match(err.message, /^The runtime atlas-dev cannot take new bindings now/);
			assert.ok(err.requestId);
			return true;
		});
		assert.deepEqual(second.log.listRefreshes, ['runtimes'], 'a 409 refreshes the runtimes');
		assert.equal(await replaces(), 0);
	});

	test('Edit Bindings in the editor: remove the first, add one, save; the result shown and said', async () => {
		const atlas = runtime('atlas-dev');
		const picks = quickInputs().picks;
		const inputs = ['99', 'feature/x'];
		fake.answer('window.showInputBox', async () => inputs.shift());
		const { kit, log } = fakeKit({ client: env.client });
		const done = githubActions.editBindings.run({ runtime: atlas }, kit);
		await until(() => picks.length === 1 && picks[0]!.shown);
		const first = picks[0]!;
		assert.equal(first.title, 'GitHub Bindings of atlas-dev');
		const rows = first.items.filter((i: { action: string }) => i.action === 'binding');
		assert.deepEqual(
			rows.map((i: { label: string; description: string }) => `${i.label} ${i.description}`),
			['1. 781234501 main', '2. 781234502 develop'],
		);
		// The first row: down and remove, no up.
		assert.equal(rows[0].buttons.length, 2);
		first.triggerItem(rows[0], rows[0].buttons[1]);
		await until(() => picks.length === 2 && picks[1]!.shown);
		const add = picks[1]!.items.find((i: { action: string; label: string }) => i.action === 'add' && i.label !== '');
		picks[1]!.accept(add);
		await until(() => picks.length === 3 && picks[2]!.shown);
		const save = picks[2]!.items.find((i: { action: string }) => i.action === 'save');
		assert.match(save.label as string, /Save \(2 bindings\)/);
		picks[2]!.accept(save);
		const bindings = (await done) as Array<{ repository_id: number; branch: string }>;
		assert.deepEqual(
			bindings.map((b) => `${b.repository_id}@${b.branch}`),
			['781234502@develop', '99@feature/x'],
		);
		assert.equal(log.json[0]!.title, 'GitHub Bindings of atlas-dev');
		assert.deepEqual(log.infos, ['The runtime atlas-dev now has 2 GitHub bindings.']);
		assert.ok(picks.every((p) => p.disposed));
	});

	test('Edit Bindings dismissed: nothing sent', async () => {
		const picks = quickInputs().picks;
		const { kit } = fakeKit({ client: env.client });
		const done = githubActions.editBindings.run({ runtime: runtime('atlas-dev') }, kit);
		await until(() => picks.length === 1 && picks[0]!.shown);
		picks[0]!.hide();
		assert.equal(await done, undefined);
		assert.equal(await replaces(), 0);
		assert.equal(
			githubActions.editBindings.filter(runtime('delta-shared')),
			false,
			'not offered on a runtime the caller cannot manage',
		);
		assert.equal(githubActions.editBindings.filter(runtime('atlas-dev')), true);
	});
});
