/** What happened, from two looks at the account: event kinds, keys, the first look and catch-up, status words. */
import * as assert from 'node:assert/strict';
import type { Agent, GitHubAuthorizationRequest, Run, Runtime } from '../../../src/api/types';
import { readBuild } from '../../../src/api/records';
import {
	type AccountSnapshot,
	type AgentFacts,
	ACTIVITY_TEXT_MAX_CHARS,
	agentFacts,
	authorizationFacts,
	buildFacts,
	diffSnapshots,
	eventText,
	httpsUrl,
	isBusy,
	runEndedKey,
	runFacts,
	runtimeFacts,
	statusMeaning,
} from '../../../src/activity/events';

const T0 = Date.UTC(2026, 11, 6, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString();

function agent(over: Partial<Agent> = {}): Agent {
	return {
		id: 'ag-1',
		runtime_id: 'rt-1',
		harness_id: 'main',
		name: 'Refactor billing',
		status: 'running',
		created_at_unix_seconds: (T0 - 600_000) / 1000,
		updated_at_unix_seconds: (T0 - 60_000) / 1000,
		...over,
	};
}

function run(over: Partial<Run> = {}): Run {
	return {
		id: 'run-1',
		agent_id: 'ag-1',
		status: 'running',
		prompt: 'p',
		created_at: iso(T0 - 120_000),
		updated_at: iso(T0 - 60_000),
		...over,
	};
}

interface Look {
	at: number;
	horizon?: number;
	agents?: Agent[];
	runs?: Run[];
	runtimes?: Runtime[];
	requests?: GitHubAuthorizationRequest[];
	builds?: unknown[];
}

/** A snapshot as the watcher builds it, from records. */
function snap(look: Look, previous?: AccountSnapshot): AccountSnapshot {
	const agents = new Map<string, AgentFacts>((look.agents ?? []).map((a) => [a.id, agentFacts(a)]));
	return {
		takenAt: look.at,
		horizon: previous?.horizon ?? look.horizon ?? look.at,
		agents,
		runs: new Map((look.runs ?? []).map((r) => [r.id, runFacts(r, agents.get(r.agent_id))])),
		runtimes: new Map((look.runtimes ?? []).map((r) => [r.id, runtimeFacts(r)])),
		authorizations: new Map(
			(look.requests ?? []).flatMap((r) => {
				const f = authorizationFacts(r);
				return f ? [[f.id, f] as const] : [];
			}),
		),
		builds: new Map(
			(look.builds ?? []).flatMap((raw) => {
				const b = readBuild(raw);
				return b ? [[b.id, buildFacts(b)] as const] : [];
			}),
		),
	};
}

suite('activity events', () => {
	test('a run seen running and then succeeded is one runEnded event with the agent, the word and the end time', () => {
		const first = snap({ at: T0, agents: [agent()], runs: [run()] });
		const ended = run({ status: 'succeeded', result: 'done', updated_at: iso(T0 + 4_000) });
		const second = snap({ at: T0 + 5_000, agents: [agent({ status: 'idle' })], runs: [ended] }, first);
		assert.deepEqual(diffSnapshots(undefined, first), []);
		const events = diffSnapshots(first, second);
		assert.equal(events.length, 1);
		assert.deepEqual(
			{ ...events[0] },
			{
				key: 'run-ended:run-1',
				kind: 'runEnded',
				at: T0 + 4_000,
				outcome: 'succeeded',
				status: 'succeeded',
				runId: 'run-1',
				agentId: 'ag-1',
				agentName: 'Refactor billing',
				detail: undefined,
			},
		);
		assert.equal(events[0]?.key, runEndedKey('run-1'), 'the key a following window claims');
		// The same two looks again, or a third look with the run still ended: the same key, or nothing.
		assert.equal(diffSnapshots(first, second)[0]?.key, 'run-ended:run-1');
		assert.deepEqual(diffSnapshots(second, snap({ at: T0 + 10_000, agents: [agent({ status: 'idle' })], runs: [ended] }, second)), []);
	});

	test('failed and cancelled runs keep the service word (variant spellings too) and a failed run its error', () => {
		const first = snap({ at: T0, agents: [agent()], runs: [run(), run({ id: 'run-2' }), run({ id: 'run-3' })] });
		const second = snap(
			{
				at: T0 + 5_000,
				agents: [agent({ status: 'idle' })],
				runs: [
					run({ status: 'errored', error: 'tests \u202efailed', updated_at: iso(T0 + 1_000) }),
					run({ id: 'run-2', status: 'canceled', updated_at: iso(T0 + 2_000) }),
					run({ id: 'run-3', status: 'completed', updated_at: iso(T0 + 3_000) }),
				],
			},
			first,
		);
		const events = diffSnapshots(first, second);
		assert.deepEqual(
			events.map((e) => [e.runId, e.outcome, e.status, e.detail]),
			[
				['run-1', 'failed', 'errored', 'tests failed'],
				['run-2', 'cancelled', 'canceled', undefined],
				['run-3', 'succeeded', 'completed', undefined],
			],
		);
	});

	test('the first look announces no run that ended before the watcher saw it, unless it ended at or after since', () => {
		const old = run({ status: 'succeeded', updated_at: iso(T0 - 30_000) });
		assert.deepEqual(diffSnapshots(undefined, snap({ at: T0, agents: [agent({ status: 'idle' })], runs: [old] })), []);
		const caughtUp = diffSnapshots(undefined, snap({ at: T0, horizon: T0 - 60_000, agents: [agent({ status: 'idle' })], runs: [old] }));
		assert.deepEqual(
			caughtUp.map((e) => e.key),
			['run-ended:run-1'],
		);
		assert.deepEqual(
			diffSnapshots(undefined, snap({ at: T0, horizon: T0 - 10_000, agents: [agent({ status: 'idle' })], runs: [old] })),
			[],
		);
	});

	test('a run first seen ended on a later look counts when it ended after the horizon (it started and ended between looks)', () => {
		const first = snap({ at: T0, agents: [agent({ status: 'idle' })] });
		const quick = run({ id: 'run-q', status: 'succeeded', updated_at: iso(T0 + 2_000) });
		const stale = run({ id: 'run-s', status: 'succeeded', updated_at: iso(T0 - 2_000) });
		const second = snap({ at: T0 + 60_000, agents: [agent({ status: 'idle' })], runs: [quick, stale] }, first);
		assert.deepEqual(
			diffSnapshots(first, second).map((e) => e.key),
			['run-ended:run-q'],
		);
	});

	test('statusMeaning: known words by class, waiting words, and an unknown run word decided by what the record says', () => {
		assert.deepEqual(statusMeaning('run', 'SUCCEEDED'), { state: 'ended', outcome: 'succeeded' });
		assert.deepEqual(statusMeaning('run', 'in_progress'), { state: 'active' });
		assert.deepEqual(statusMeaning('run', 'pending'), { state: 'active' });
		assert.deepEqual(statusMeaning('run', 'blocked'), { state: 'active' });
		assert.deepEqual(statusMeaning('run', 'input_required'), { state: 'waiting' });
		assert.deepEqual(statusMeaning('run', 'wrapped_up'), { state: 'active' });
		assert.deepEqual(statusMeaning('run', 'wrapped_up', { result: 'ok' }), { state: 'ended', outcome: 'ended' });
		assert.deepEqual(statusMeaning('run', 'wrapped_up', { error: 'x' }), { state: 'ended', outcome: 'ended' });
		assert.deepEqual(statusMeaning('run', 'wrapped_up', { result: '  ' }), { state: 'active' });
		assert.deepEqual(statusMeaning('run', 'wrapped_up', { agentSettled: true }), { state: 'ended', outcome: 'ended' });
		assert.deepEqual(statusMeaning('agent', 'BUSY'), { state: 'active' });
		assert.deepEqual(statusMeaning('agent', 'STARTING'), { state: 'active' });
		assert.deepEqual(statusMeaning('agent', 'READY'), { state: 'idle' });
		assert.deepEqual(statusMeaning('agent', 'HIBERNATING'), { state: 'idle' });
		assert.deepEqual(statusMeaning('agent', 'needs_input'), { state: 'waiting' });
	});

	test('a run under an unknown word ends when its agent settles and names it as its latest reply; the event keeps the word', () => {
		const first = snap({ at: T0, agents: [agent()], runs: [run({ status: 'mulling' })] });
		const settled = agent({ status: 'idle', latest_reply: { run_id: 'run-1', text: 't', created_at: iso(T0), updated_at: iso(T0) } });
		const second = snap({ at: T0 + 5_000, agents: [settled], runs: [run({ status: 'mulling', updated_at: iso(T0 + 4_000) })] }, first);
		const events = diffSnapshots(first, second);
		assert.deepEqual(
			events.map((e) => [e.kind, e.outcome, e.status]),
			[['runEnded', 'ended', 'mulling']],
		);
		// An agent still busy under an unknown run word: nothing ended.
		const busy = snap({ at: T0 + 5_000, agents: [agent()], runs: [run({ status: 'mulling', updated_at: iso(T0 + 4_000) })] }, first);
		assert.deepEqual(diffSnapshots(first, busy), []);
	});

	test('waiting runs and agents are events once; an agent waits again for a later run', () => {
		const first = snap({ at: T0, agents: [agent()], runs: [run()] });
		const waiting = snap(
			{ at: T0 + 5_000, agents: [agent({ status: 'needs_input' })], runs: [run({ status: 'awaiting_input' })] },
			first,
		);
		assert.deepEqual(
			diffSnapshots(first, waiting)
				.map((e) => e.key)
				.sort(),
			['agent-waiting:ag-1:' + String(T0 - 60_000), 'run-waiting:run-1'],
		);
		assert.deepEqual(
			diffSnapshots(
				waiting,
				snap({ at: T0 + 10_000, agents: [agent({ status: 'needs_input' })], runs: [run({ status: 'awaiting_input' })] }, waiting),
			),
			[],
		);
		const reply = (id: string): Agent['latest_reply'] => ({ run_id: id, text: '', created_at: iso(T0), updated_at: iso(T0) });
		const later = snap({ at: T0 + 15_000, agents: [agent({ status: 'needs_input', latest_reply: reply('run-2') })] }, waiting);
		assert.deepEqual(
			diffSnapshots(waiting, later).map((e) => e.key),
			['agent-waiting:ag-1:run-2'],
		);
	});

	test('an open GitHub authorization request is an event with its reason and https link, once; other links are dropped', () => {
		const request = (id: string, url: string): GitHubAuthorizationRequest => ({
			request_id: id,
			requested_by: 'agent:Docs',
			reason: 'Push\u0007 the branch',
			created_at_unix_seconds: (T0 - 1_000) / 1000,
			lifecycle: { status: 'pending', authorization_url: url, expires_at_unix_seconds: (T0 + 3_600_000) / 1000 },
		});
		const first = snap({
			at: T0,
			requests: [
				request('gh-1', 'https://github.com/login/oauth/authorize?x=1'),
				request('gh-2', 'javascript:alert(1)'),
				request('gh-3', 'http://github.com/a'),
			],
		});
		const events = diffSnapshots(undefined, first);
		assert.deepEqual(
			events.map((e) => [e.key, e.kind, e.reason, e.requestedBy, e.authorizationUrl]),
			[
				['github:gh-1', 'githubAuthorization', 'Push the branch', 'agent:Docs', 'https://github.com/login/oauth/authorize?x=1'],
				['github:gh-2', 'githubAuthorization', 'Push the branch', 'agent:Docs', undefined],
				['github:gh-3', 'githubAuthorization', 'Push the branch', 'agent:Docs', undefined],
			],
		);
		assert.deepEqual(diffSnapshots(first, snap({ at: T0 + 5_000, requests: [request('gh-1', 'https://github.com/')] }, first)), []);
		const closed = request('gh-4', 'https://github.com/');
		(closed.lifecycle as { status: string }).status = 'approved';
		assert.equal(authorizationFacts(closed), undefined);
	});

	test('a runtime that goes to error or crashed is an event; one already broken at the first look is not', () => {
		const rt = (status: string, at: number): Runtime => ({ id: 'rt-1', display_name: 'atlas', status, updated_at: iso(at) }) as Runtime;
		const first = snap({ at: T0, runtimes: [rt('running', T0 - 5_000), { ...rt('error', T0 - 50_000), id: 'rt-2' }] });
		assert.deepEqual(diffSnapshots(undefined, first), []);
		const second = snap({ at: T0 + 5_000, runtimes: [rt('crashed', T0 + 1_000), { ...rt('error', T0 - 50_000), id: 'rt-2' }] }, first);
		assert.deepEqual(
			diffSnapshots(first, second).map((e) => [e.kind, e.runtimeName, e.status, e.key]),
			[['runtimeFailed', 'atlas', 'crashed', `runtime-failed:rt-1:${T0 + 1_000}`]],
		);
	});

	test('an image build that ends is an event once, with the service word', () => {
		const build = (status: string, at: number): unknown => ({
			id: 'b-1',
			display_name: 'node-22',
			status,
			created_at: iso(T0 - 9_000),
			updated_at: iso(at),
		});
		const first = snap({ at: T0, builds: [build('building', T0 - 1_000)] });
		assert.equal(isBusy(first), true);
		const second = snap({ at: T0 + 5_000, builds: [build('ready', T0 + 2_000)] }, first);
		assert.equal(isBusy(second), false);
		assert.deepEqual(
			diffSnapshots(first, second).map((e) => [e.kind, e.outcome, e.status, e.buildName]),
			[['buildEnded', 'succeeded', 'ready', 'node-22']],
		);
		assert.deepEqual(diffSnapshots(second, snap({ at: T0 + 9_000, builds: [build('ready', T0 + 2_000)] }, second)), []);
	});

	test('events come oldest first; server text is bounded and neutralised; only https links pass', () => {
		assert.equal(eventText('a\u202eb\u0000c\n d'), 'abc d');
		assert.equal(eventText('x'.repeat(10_000))?.length, ACTIVITY_TEXT_MAX_CHARS);
		assert.equal(eventText(42), undefined);
		assert.equal(httpsUrl('https://user:pw@github.com/'), undefined);
		assert.equal(httpsUrl(`https://github.com/${'a'.repeat(3_000)}`), undefined);
		assert.equal(httpsUrl('https://github.com/x'), 'https://github.com/x');
		const first = snap({ at: T0, agents: [agent()], runs: [run(), run({ id: 'run-2' })] });
		const second = snap(
			{
				at: T0 + 5_000,
				agents: [agent({ name: '\u202eevil' })],
				runs: [
					run({ status: 'succeeded', updated_at: iso(T0 + 3_000) }),
					run({ id: 'run-2', status: 'failed', updated_at: iso(T0 + 1_000) }),
				],
			},
			first,
		);
		const events = diffSnapshots(first, second);
		assert.deepEqual(
			events.map((e) => [e.runId, e.agentName]),
			[
				['run-2', 'evil'],
				['run-1', 'evil'],
			],
		);
	});
});
