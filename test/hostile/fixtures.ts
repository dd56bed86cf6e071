/**
 * Well-formed records for hostile scenarios: each scenario starts from these and breaks one thing,
 * so a test shows the client survives exactly that break.
 */

export const RUNTIME_ID = '3f0c1d2e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
export const AGENT_ID = `${RUNTIME_ID}.hostile`;
export const RUN_ID = 'run_hostile0001';
export const TOKEN = 'ca_hostile_token_0123456789';

export function agent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: AGENT_ID,
		runtime_id: RUNTIME_ID,
		harness_id: 'hostile',
		name: 'Hostile agent',
		status: 'idle',
		created_at_unix_seconds: 1_760_000_000,
		updated_at_unix_seconds: 1_760_000_100,
		...overrides,
	};
}

export function run(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: RUN_ID,
		agent_id: AGENT_ID,
		status: 'running',
		prompt: 'Do the thing',
		created_at: '2026-11-23T10:00:00Z',
		updated_at: '2026-11-23T10:00:05Z',
		...overrides,
	};
}

export function artifact(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: 'art_hostile0001',
		run_id: RUN_ID,
		harness_id: 'hostile',
		name: 'report.txt',
		media_type: 'text/plain',
		size: 5,
		created_at: '2026-11-23T10:00:10Z',
		...overrides,
	};
}

export function workspaceEntry(
	name: string,
	type: 'file' | 'directory' = 'file',
	overrides: Record<string, unknown> = {},
): Record<string, unknown> {
	return { name, type, size: type === 'file' ? 5 : 0, mtime_unix_ms: 1_760_000_000_000, ...overrides };
}
