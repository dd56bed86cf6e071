import type { Caller, Emulator } from './emulator';
import type { AgentRow, ArtifactRow, RunRow, RuntimeRow, SecretRow, StubRow, TokenSavingRow } from './state';
import { unixSeconds } from './util';

export function runtimeView(emu: Emulator, rt: RuntimeRow, caller: Caller): Record<string, unknown> {
	const { heartbeat_stalled, ssh_key_ids, vnc_credentials: _v, bindings, pending: _p, delete_at: _d, ...pub } = rt;
	return {
		...pub,
		environment_variables: { ...rt.environment_variables },
		degraded: rt.status === 'running' && heartbeat_stalled,
		can_manage: emu.canManage(rt, caller),
		// Not shown in the contract (docs/contract-choices.md): the SSH keys attached to the runtime
		// and its GitHub bindings (in order) ride on the runtime record.
		ssh_keys: ssh_key_ids
			.map((id) => emu.data.sshKeys.find((k) => k.id === id))
			.filter((k) => k !== undefined)
			.map((k) => ({ ...k })),
		github_bindings: [...bindings].sort((a, b) => a.sort_order - b.sort_order).map((x) => ({ ...x })),
	};
}

export function agentView(a: AgentRow): Record<string, unknown> {
	const out: Record<string, unknown> = {
		id: a.id,
		runtime_id: a.runtime_id,
		harness_id: a.harness_id,
		name: a.name,
		status: a.status,
		created_at_unix_seconds: unixSeconds(a.created_at_ms),
		updated_at_unix_seconds: unixSeconds(a.updated_at_ms),
	};
	if (a.latest_reply) out.latest_reply = { ...a.latest_reply };
	return out;
}

export function runView(r: RunRow): Record<string, unknown> {
	const out: Record<string, unknown> = {
		id: r.id,
		agent_id: r.agent_id,
		status: r.status,
		prompt: r.prompt,
		created_at: r.created_at,
		updated_at: r.updated_at,
	};
	if (r.result !== undefined) out.result = r.result;
	if (r.error !== undefined) out.error = r.error;
	if (r.parent_run_id !== undefined) out.parent_run_id = r.parent_run_id;
	if (r.dsh_session_id !== undefined) out.dsh_session_id = r.dsh_session_id;
	return out;
}

export function artifactView(a: ArtifactRow, withContent = false): Record<string, unknown> {
	const out: Record<string, unknown> = {
		id: a.id,
		run_id: a.run_id,
		harness_id: a.harness_id,
		name: a.name,
		media_type: a.media_type,
		size: a.content.length,
		created_at: a.created_at,
	};
	if (withContent) out.content_base64 = a.content.toString('base64');
	return out;
}

/** Server-masked preview: first and last characters only. */
export function maskSecret(value: string): string {
	if (value.length <= 4) return '•'.repeat(Math.max(value.length, 4));
	const keep = value.length >= 12 ? 3 : 1;
	return `${value.slice(0, keep)}${'•'.repeat(8)}${value.slice(-keep)}`;
}

export function secretView(s: SecretRow): Record<string, unknown> {
	return { id: s.id, display_name: s.display_name, cache_ttl_secs: s.cache_ttl_secs, value_preview: maskSecret(s.value) };
}

export function stubView(s: StubRow): Record<string, unknown> {
	return {
		id: s.id,
		host_pattern: s.host_pattern,
		path_pattern: s.path_pattern,
		runtime_display_name: s.runtime_display_name,
		stub_config_json: s.stub_config_json,
		stub_value_display_name: s.stub_value_display_name,
	};
}

export function tokenSavingView(t: TokenSavingRow): Record<string, unknown> {
	return { ...t, methods: t.methods.map((m) => ({ ...m })) };
}
