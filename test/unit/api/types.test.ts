/**
 * The client's wire types are the generated spec types (src/api/schema.gen.ts) plus the spec's
 * tolerance rule. Most of this file is checked by the compiler: a line that stops compiling means
 * a type drifted from spec/openapi.yaml or lost its tolerance for new fields and enum values.
 */
import assert from 'node:assert/strict';
import type { components } from '../../../src/api/schema.gen';
import {
	type Agent,
	type Checkpoint,
	type EgressPolicy,
	type EventRecord,
	type Run,
	type Runtime,
	type WorkspaceEntry,
	isTerminalRunStatus,
} from '../../../src/api';

type S = components['schemas'];

/** Compiles only when A and B are mutually assignable. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <A, B>(ok: Same<A, B>): boolean => ok;

suite('api types (from spec/openapi.yaml)', () => {
	test('records of the spec are records of the client', () => {
		const run: S['Run'] = { id: 'run_1', agent_id: 'a.b', status: 'running', prompt: 'p', created_at: 't', updated_at: 't' };
		const asClient: Run = run;
		const agent: S['Agent'] = {
			id: 'a.b',
			runtime_id: 'r',
			harness_id: 'b',
			name: 'n',
			status: 'idle',
			created_at_unix_seconds: 1,
			updated_at_unix_seconds: 2,
		};
		const asAgent: Agent = agent;
		// Field types come from the spec, not from a hand-written copy.
		assert.ok(same<Run['prompt'], S['Run']['prompt']>(true));
		assert.ok(same<Agent['created_at_unix_seconds'], S['Agent']['created_at_unix_seconds']>(true));
		assert.ok(same<Runtime['revision'], S['Runtime']['revision']>(true));
		assert.equal(asClient.id, 'run_1');
		assert.equal(asAgent.name, 'n');
	});

	test('unknown enum values and extra members type-check', () => {
		// Closed enums of the spec (Runtime.status, Checkpoint.kind, …) are widened.
		const status: Runtime['status'] = 'hibernating';
		const kind: NonNullable<Checkpoint['kind']> = 'warm';
		const run = {
			id: 'run_1',
			agent_id: 'a.b',
			status: 'paused_by_policy',
			prompt: '',
			created_at: 't',
			updated_at: 't',
			cost_usd: 0.5,
		} satisfies Run;
		const entry: WorkspaceEntry = { name: 'x', type: 'symlink', size: 0, mtime_unix_ms: 0 };
		const event: EventRecord = { seq: 3, type: 'custom.thing', data: { a: 1 }, trace_id: 'z' };
		const policy: EgressPolicy = { mode: 'proxy_only', proxy: 'p' };
		assert.equal(status, 'hibernating');
		assert.equal(kind, 'warm');
		assert.equal(isTerminalRunStatus(run.status), false);
		assert.equal(entry.type, 'symlink');
		assert.equal(event.trace_id, 'z');
		assert.equal(policy.mode, 'proxy_only');
	});

	test('known variants still narrow', () => {
		const policy = { mode: 'allowlist', allowed_hosts: ['a.example'] } as EgressPolicy;
		if (policy.mode === 'allowlist' && 'allowed_hosts' in policy) {
			assert.deepEqual(policy.allowed_hosts, ['a.example']);
		} else {
			assert.fail('not narrowed');
		}
	});
});
