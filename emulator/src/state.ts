import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SerializedWorkspace } from './workspace';
import { Workspace } from './workspace';

export const RUNTIME_STATUSES = [
	'running',
	'paused',
	'shutdown',
	'creating',
	'deleting',
	'error',
	'crashed',
	'suspended',
	'unavailable',
] as const;
export type RuntimeStatus = (typeof RUNTIME_STATUSES)[number];
export type DesiredStatus = 'running' | 'paused' | 'suspended' | 'shutdown' | 'deleting';

export interface Resources {
	current: { memory_mib: number; observed_disk_gib: number };
	limits: { memory_mib: number };
	requests: { memory_mib: number; vcpus: number; disk_gib: number };
}

export interface SecretConfiguration {
	secret_id: string;
	environment: { name: string; value_template: string }[];
	egress_rules: { host_pattern: string; path_pattern: string | null; action: 'header' | 'query'; name: string; value_template: string }[];
	files: { path: string; value_template: string }[];
}

export interface VncCredential {
	id: string;
	display_name: string;
	locator: string;
	created_by_user_id: string;
	created_at: string;
	last_used_at: string | null;
	revoked_at: string | null;
}

export interface Binding {
	id: string;
	tenant_id: string;
	runtime_id: string;
	repository_id: number;
	branch: string;
	sort_order: number;
}

export interface RuntimeRow {
	id: string;
	display_name: string;
	environment_variables: Record<string, string>;
	egress_policy: { mode: 'denylist'; denied_hosts: string[] } | { mode: 'allowlist'; allowed_hosts: string[] };
	llm_tool_io_capture_enabled: boolean;
	llm_session_content_capture_enabled: boolean;
	llm_token_saving_policy: {
		json_array_enabled: boolean;
		log_enabled: boolean;
		search_results_enabled: boolean;
		git_diff_enabled: boolean;
	};
	idle_policy: { mode: 'disabled' } | { mode: 'suspend_on_idle' | 'wake_on_activity'; idle_timeout_seconds: number };
	created_at: string;
	updated_at: string;
	ingress_specs: { protocol: 'http' | 'https'; runtime_port: number }[];
	resources: Resources;
	image_id: string;
	status: RuntimeStatus;
	desired_status: DesiredStatus;
	ssh_enabled: boolean;
	vnc_enabled: boolean;
	vnc_ready: boolean;
	vnc_error_code: string | null;
	vnc_connection: { hostname: string; port: number; username: 'service'; security_type: 'X509Plain' };
	error_code: string | null;
	owner_user_id: string;
	revision: number;
	secret_configuration: SecretConfiguration[];
	// emulator-internal
	heartbeat_stalled: boolean;
	ssh_key_ids: string[];
	vnc_credentials: VncCredential[];
	bindings: Binding[];
	/** A scheduled status change (epoch ms). */
	pending?: { status: RuntimeStatus; at: number } | undefined;
	/** Epoch ms at which a runtime in `deleting` disappears. */
	delete_at?: number | undefined;
}

export type AgentStatus = 'provisioning' | 'idle' | 'running' | 'error' | 'deleting';

export interface AgentRow {
	id: string;
	runtime_id: string;
	harness_id: string;
	name: string;
	status: AgentStatus;
	created_at_ms: number;
	updated_at_ms: number;
	latest_reply?: { run_id: string; text: string; created_at: string; updated_at: string } | undefined;
	model_provider_id?: string | undefined;
	repositories: { repository_id: number; branch: string }[];
	/** When a provisioning agent becomes idle (epoch ms). */
	ready_at?: number | undefined;
	/** Prompt of the first run, submitted when the agent becomes ready. */
	initial_message?: string | undefined;
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const TERMINAL: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);

export interface RunEvent {
	seq: number;
	run_id: string;
	type: string;
	created_at: string;
	data: Record<string, unknown>;
}

export interface RunRow {
	id: string;
	agent_id: string;
	status: RunStatus;
	prompt: string;
	result?: string | undefined;
	error?: string | undefined;
	parent_run_id?: string | undefined;
	dsh_session_id?: string | undefined;
	created_at: string;
	updated_at: string;
	created_ms: number;
	image_count: number;
	events: RunEvent[];
	event_bytes: number;
	/** Scripted-agent flags parsed from the prompt. */
	hold: boolean;
}

export interface ArtifactRow {
	id: string;
	agent_id: string;
	run_id: string;
	harness_id: string;
	name: string;
	media_type: string;
	created_at: string;
	content: Buffer;
}

export interface ImageRow {
	id: string;
	display_name: string;
	kind: 'builtin' | 'custom';
	architectures: string[];
	onboarding: { protocol: string; description: string }[];
	credential_variable: string;
	default_endpoint: string;
	subscription_credentials: string[];
	endpoint_overridable: boolean;
	browser_surfaces: { name: string; guest_port: number }[];
	tcp_ports: number[];
}

export interface BuildRow {
	id: string;
	display_name: string;
	architecture: 'x86_64';
	status: 'pending' | 'running' | 'succeeded' | 'failed';
	image_id: string | null;
	attempts: { number: number; outcome: 'running' | 'succeeded' | 'failed'; started_at: string; finished_at: string | null }[];
	created_at: string;
	updated_at: string;
	dockerfile: string;
	idempotency_key?: string | undefined;
	/** When the build takes its next step (emulator clock, epoch ms). */
	next_at?: number | undefined;
	/** How long each step takes (default BUILD_STEP_MS). */
	step_ms?: number | undefined;
}

export interface CheckpointRow {
	id: string;
	display_name: string;
	kind?: 'full' | 'cold';
	created_at: string;
	resources: Resources;
	state: { status: 'creating' | 'ready' | 'failed'; failure_reason: string | null };
	source_runtime: { id: string | null; display_name: string };
	/** Emulator-internal: a creating checkpoint ends in this state at `at` (emulator clock, epoch ms). */
	settle?: { at: number; status: 'ready' | 'failed'; failure_reason?: string } | undefined;
}

export interface SecretRow {
	id: string;
	display_name: string;
	cache_ttl_secs: number;
	value: string;
}

export interface StubRow {
	id: string;
	runtime_id: string;
	host_pattern: string;
	path_pattern: string;
	runtime_display_name: string;
	stub_config_json: string;
	stub_value_display_name: string;
}

export interface SshKeyRow {
	id: string;
	organization_id: string;
	user_id: string;
	display_name: string;
	public_key: string;
	fingerprint: string;
	created_at: string;
}

export interface GithubRequestRow {
	request_id: string;
	requested_by: string;
	reason?: string;
	created_at_unix_seconds: number;
	lifecycle: { status: 'pending'; authorization_url: string; expires_at_unix_seconds: number };
}

export interface ModelProviderRow {
	id: string;
	display_name: string;
	kind: string;
	endpoint: string;
	model: string;
	enabled: boolean;
	updated_at: string;
}

export interface TokenSavingRow {
	id: string;
	event_id: string;
	runtime_id: string;
	runtime_name: string;
	provider?: string;
	endpoint?: string;
	transport?: string;
	model?: string;
	observed_at: string;
	observed_unix_ms: number;
	wire_bytes_before: number;
	wire_bytes_after: number;
	saved_wire_bytes: number;
	estimated_tokens_before: number;
	estimated_tokens_after: number;
	saved_estimated_tokens: number;
	elapsed_micros: number;
	methods: { method: string; blocks: number; input_units: number; output_units: number; parse_error?: string }[];
}

export interface DeviceRow {
	device_code_hash: string;
	user_code: string;
	client_id: string;
	scope?: string | undefined;
	created_ms: number;
	expires_ms: number;
	interval: number;
	last_poll_ms: number | null;
	state: 'pending' | 'approved' | 'denied' | 'consumed';
}

export interface TokenRow {
	hash: string;
	user_id: string;
	can_write: boolean;
	revoked: boolean;
	expires_ms?: number | undefined;
	/** The configured API key and the read-only key (re-installed at start-up). */
	builtin?: boolean | undefined;
}

export interface UserRow {
	id: string;
	email: string;
	display_name: string;
	organization_id: string;
	organization_name: string;
}

export interface ComputerSessionRow {
	id: string;
	agent_id: string;
	runtime_id: string;
	token: string;
	expires_ms: number;
}

/** All emulator state. Everything here is JSON-serialisable except Buffers and Workspaces (see toJSON). */
export interface Data {
	users: UserRow[];
	tokens: TokenRow[];
	devices: DeviceRow[];
	runtimes: RuntimeRow[];
	agents: AgentRow[];
	runs: RunRow[];
	artifacts: ArtifactRow[];
	workspaces: Map<string, Workspace>;
	images: ImageRow[];
	builds: BuildRow[];
	checkpoints: CheckpointRow[];
	secrets: SecretRow[];
	stubs: StubRow[];
	sshKeys: SshKeyRow[];
	githubRequests: GithubRequestRow[];
	modelProviders: ModelProviderRow[];
	tokenSavings: TokenSavingRow[];
	computerSessions: ComputerSessionRow[];
	organization_id: string;
	host_key: HostKey;
}

/** The SSH gateway's host key and where the gateway listens (host and port are assumed members). */
export interface HostKey {
	key_type: string;
	/** `<key_type> <base64 blob>` (OpenSSH public key format, no comment). */
	public_key: string;
	fingerprint_sha256: string;
	host?: string;
	port?: number;
}

export function emptyData(): Data {
	return {
		users: [],
		tokens: [],
		devices: [],
		runtimes: [],
		agents: [],
		runs: [],
		artifacts: [],
		workspaces: new Map(),
		images: [],
		builds: [],
		checkpoints: [],
		secrets: [],
		stubs: [],
		sshKeys: [],
		githubRequests: [],
		modelProviders: [],
		tokenSavings: [],
		computerSessions: [],
		organization_id: '',
		host_key: { key_type: '', public_key: '', fingerprint_sha256: '' },
	};
}

interface SerializedData extends Omit<Data, 'workspaces' | 'artifacts'> {
	format: 'cloud-agents-emulator-state/1';
	workspaces: Record<string, SerializedWorkspace>;
	artifacts: (Omit<ArtifactRow, 'content'> & { content_base64: string })[];
}

export function serialize(d: Data): string {
	const out: SerializedData = {
		...d,
		format: 'cloud-agents-emulator-state/1',
		workspaces: Object.fromEntries([...d.workspaces].map(([k, w]) => [k, w.toJSON()])),
		artifacts: d.artifacts.map(({ content, ...rest }) => ({ ...rest, content_base64: content.toString('base64') })),
	};
	return JSON.stringify(out);
}

export function deserialize(text: string): Data {
	const raw = JSON.parse(text) as SerializedData;
	if (raw.format !== 'cloud-agents-emulator-state/1') throw new Error('not an emulator state file');
	const { format: _format, workspaces, artifacts, ...rest } = raw;
	const d: Data = {
		...emptyData(),
		...rest,
		workspaces: new Map(Object.entries(workspaces).map(([k, w]) => [k, Workspace.fromJSON(w)])),
		artifacts: artifacts.map(({ content_base64, ...a }) => ({ ...a, content: Buffer.from(content_base64, 'base64') })),
	};
	return d;
}

export function loadStateFile(file: string): Data | undefined {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch {
		return undefined;
	}
	try {
		return deserialize(text);
	} catch (e) {
		throw new Error(`--state ${file}: not a usable emulator state file (${(e as Error).message}); delete it or pick another path`, {
			cause: e,
		});
	}
}

export function saveStateFile(file: string, d: Data): void {
	const tmp = `${file}.tmp-${process.pid}`;
	writeFileSync(tmp, serialize(d), { mode: 0o600 });
	renameSync(tmp, file);
}
