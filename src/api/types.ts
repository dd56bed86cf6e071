/**
 * Wire types of the Cloud Agents API, spelled as the API spells them.
 *
 * Written by hand from docs/contract-choices.md until `schema.gen.ts` (generated from
 * spec/openapi.yaml) lands; then these become aliases over `components['schemas']`. Every field
 * the contract does not mark required is optional here, and enum-like strings are widened with
 * `(string & {})` so unknown values from a newer server type-check and never throw.
 */

/** A string enum that also admits values this client does not know yet. */
export type OpenString<T extends string> = T | (string & {});

/** One page of a cursor-paginated listing, normalised across the API's list shapes. */
export interface Page<T> {
	readonly items: T[];
	/** Opaque cursor for the next page; undefined on the last page. */
	readonly nextCursor: string | undefined;
}

/** Common list options: an opaque cursor from the previous page and a page size. */
export interface PageOptions {
	cursor?: string;
	limit?: number;
	signal?: AbortSignal;
}

/** Options every call accepts. */
export interface CallOptions {
	signal?: AbortSignal;
}

// ---------------------------------------------------------------- health and identity

export interface Me {
	id: string;
	email?: string;
	display_name?: string;
	organization_id?: string;
	organization_name?: string;
	[extra: string]: unknown;
}

export interface SshHostKey {
	key_type?: string;
	public_key?: string;
	fingerprint_sha256?: string;
	[extra: string]: unknown;
}

// ---------------------------------------------------------------- auth / device flow

export interface DeviceAuthorizationRequest {
	client_id: string;
	scope?: string;
}

export interface DeviceAuthorization {
	device_code: string;
	user_code: string;
	verification_uri: string;
	verification_uri_complete?: string;
	expires_in: number;
	interval?: number;
	[extra: string]: unknown;
}

export interface DeviceToken {
	access_token: string;
	token_type: string;
	expires_in: number;
	[extra: string]: unknown;
}

/**
 * Result of one device-token poll. The 400 answers of the device flow are ordinary outcomes of
 * polling, not exceptions: `pending`, `slow_down` (poll less often: `interval` is the new delay),
 * `expired` (start again), `denied` (the user refused). Anything else is thrown as ApiError.
 */
export type DeviceTokenResult =
	| { status: 'success'; token: DeviceToken }
	| { status: 'pending'; interval: number | undefined }
	| { status: 'slow_down'; interval: number | undefined }
	| { status: 'expired' }
	| { status: 'denied' };

// ---------------------------------------------------------------- agents

export type AgentStatus = OpenString<'provisioning' | 'idle' | 'running' | 'error' | 'deleting'>;

export interface LatestReply {
	run_id?: string;
	text?: string;
	created_at?: string;
	updated_at?: string;
}

export interface Agent {
	id: string;
	runtime_id?: string;
	harness_id?: string;
	name: string;
	status?: AgentStatus;
	created_at_unix_seconds?: number;
	updated_at_unix_seconds?: number;
	latest_reply?: LatestReply | null;
	[extra: string]: unknown;
}

export interface RepositoryRef {
	repository_id: number;
	branch: string;
}

export interface CreateAgentRequest {
	name: string;
	initial_message?: string;
	repositories?: RepositoryRef[];
	runtime_id?: string;
	harness_id?: string;
	model_provider_id?: string;
}

/** Answer of DELETE /v2/agents/{id}: 202 with a body when the runtime goes too, else 204. */
export interface DeleteAgentResult {
	/** true when the runtime deletion was requested (202). */
	runtimeDeletionRequested: boolean;
	runtime_id?: string;
	status?: string;
}

export interface ComputerSession {
	agent_id: string;
	runtime_id: string;
	expires_at: string;
	channels: { vnc?: { websocket_url: string; protocols: string[] }; [channel: string]: unknown };
	[extra: string]: unknown;
}

// ---------------------------------------------------------------- runs and events

export type RunStatus = OpenString<'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'>;

export interface Run {
	id: string;
	agent_id?: string;
	status: RunStatus;
	prompt?: string;
	result?: string | null;
	error?: string | null;
	parent_run_id?: string | null;
	dsh_session_id?: string | null;
	created_at?: string;
	updated_at?: string;
	[extra: string]: unknown;
}

/** A prompt image: raw base64 (or bytes the client encodes) and an optional media type. */
export interface PromptImage {
	data: string | Uint8Array;
	media_type?: string;
}

export interface CreateRunRequest {
	prompt: string;
	resume_session_id?: string;
	parent_run_id?: string;
	images?: PromptImage[];
}

export interface FollowUpRequest {
	prompt: string;
	images?: PromptImage[];
}

export interface ResumeRunRequest {
	prompt?: string;
}

export type EventType = OpenString<
	| 'run.status'
	| 'message'
	| 'tool.call'
	| 'tool.result'
	| 'log'
	| 'file.changed'
	| 'artifact.created'
	| 'run.completed'
>;

/** One run event record, as carried in SSE `data:` and in session replays. */
export interface EventRecord {
	seq: number;
	run_id?: string;
	type: EventType;
	created_at?: string;
	data?: Record<string, unknown>;
	[extra: string]: unknown;
}

/** Answer of GET /v2/agents/{id}/events. */
export interface AgentEvents {
	agent_id: string;
	session_id: string;
	events: EventRecord[];
	[extra: string]: unknown;
}

// ---------------------------------------------------------------- artifacts

export interface Artifact {
	id: string;
	run_id?: string;
	harness_id?: string;
	name: string;
	media_type?: string;
	size?: number;
	created_at?: string;
	content_base64?: string;
	[extra: string]: unknown;
}

export interface CreateArtifactRequest {
	run_id: string;
	name: string;
	media_type?: string;
	/** Raw bytes; the client base64-encodes them. */
	content: Uint8Array;
}

// ---------------------------------------------------------------- workspace

export type WorkspaceEntryType = OpenString<'file' | 'directory'>;

export interface WorkspaceEntry {
	name: string;
	type: WorkspaceEntryType;
	size?: number;
	mtime_unix_ms?: number;
	[extra: string]: unknown;
}

export interface WorkspaceStat {
	path: string;
	entry: WorkspaceEntry;
}

export interface WorkspaceReadChunk {
	path: string;
	offset: number;
	length: number;
	size: number;
	mtime_unix_ms?: number;
	eof: boolean;
	/** Decoded content of this chunk. */
	content: Uint8Array;
}

export interface WorkspaceFile {
	path: string;
	size: number;
	mtime_unix_ms?: number;
	content: Uint8Array;
}

export interface WorkspaceSearchMatch {
	path: string;
	line: number;
	column: number;
	preview?: string;
	[extra: string]: unknown;
}

export interface WorkspaceSearchOptions extends CallOptions {
	path?: string;
	maxResults?: number;
	caseSensitive?: boolean;
}

export interface WorkspaceSearchResult {
	query: string;
	matches: WorkspaceSearchMatch[];
	truncated: boolean;
}

export interface WorkspaceWriteResult {
	path: string;
	size: number;
	mtime_unix_ms?: number;
	[extra: string]: unknown;
}

// ---------------------------------------------------------------- runtimes

export type RuntimeStatus = OpenString<
	'running' | 'paused' | 'shutdown' | 'creating' | 'deleting' | 'error' | 'crashed' | 'suspended' | 'unavailable'
>;
export type RuntimeDesiredStatus = OpenString<'running' | 'paused' | 'suspended' | 'shutdown' | 'deleting'>;

export interface MemoryResources {
	memory_mib?: number;
	[extra: string]: unknown;
}

export interface RuntimeResources {
	current?: { memory_mib?: number; observed_disk_gib?: number; [extra: string]: unknown };
	limits?: MemoryResources;
	requests?: { memory_mib?: number; vcpus?: number; disk_gib?: number; [extra: string]: unknown };
	[extra: string]: unknown;
}

export type EgressPolicy =
	| { mode: 'denylist'; denied_hosts: string[] }
	| { mode: 'allowlist'; allowed_hosts: string[] }
	| { mode: string; [extra: string]: unknown };

export type IdlePolicy =
	| { mode: 'disabled' }
	| { mode: 'suspend_on_idle' | 'wake_on_activity'; idle_timeout_seconds: number }
	| { mode: string; [extra: string]: unknown };

export interface Runtime {
	id: string;
	display_name: string;
	environment_variables?: Record<string, string>;
	egress_policy?: EgressPolicy;
	llm_tool_io_capture_enabled?: boolean;
	llm_session_content_capture_enabled?: boolean;
	llm_token_saving_policy?: Record<string, boolean>;
	idle_policy?: IdlePolicy;
	created_at?: string;
	updated_at?: string;
	ingress_specs?: Array<{ protocol: string; runtime_port: number }>;
	resources?: RuntimeResources;
	image_id?: string;
	status: RuntimeStatus;
	degraded?: boolean;
	desired_status?: RuntimeDesiredStatus;
	ssh_enabled?: boolean;
	vnc_enabled?: boolean;
	vnc_ready?: boolean;
	vnc_error_code?: string | null;
	vnc_connection?: { hostname: string; port: number; username: string; security_type: string };
	error_code?: string | null;
	owner_user_id?: string;
	can_manage?: boolean;
	revision?: number;
	secret_configuration?: unknown[];
	[extra: string]: unknown;
}

export interface RuntimeListOptions extends PageOptions {
	/** Public status aliases, sent comma-separated. */
	status?: string[];
}

export interface VncCredential {
	id: string;
	display_name?: string;
	locator?: string;
	created_by_user_id?: string;
	created_at?: string;
	last_used_at?: string | null;
	revoked_at?: string | null;
	[extra: string]: unknown;
}

export interface SshKey {
	id: string;
	organization_id?: string;
	user_id?: string;
	display_name?: string;
	public_key?: string;
	fingerprint?: string;
	created_at?: string;
	[extra: string]: unknown;
}

export interface TokenSavingMethod {
	method: string;
	blocks?: number;
	input_units?: number;
	output_units?: number;
	parse_error?: string;
	[extra: string]: unknown;
}

export interface TokenSavingRecord {
	id: string;
	event_id?: string;
	runtime_id?: string;
	runtime_name?: string;
	provider?: string;
	endpoint?: string;
	transport?: string;
	model?: string;
	observed_at?: string;
	observed_unix_ms?: number;
	wire_bytes_before?: number;
	wire_bytes_after?: number;
	saved_wire_bytes?: number;
	estimated_tokens_before?: number;
	estimated_tokens_after?: number;
	saved_estimated_tokens?: number;
	elapsed_micros?: number;
	methods?: TokenSavingMethod[];
	[extra: string]: unknown;
}

export interface TokenSavingSummary {
	applied_events?: number;
	saved_wire_bytes?: number;
	saved_estimated_tokens?: number;
	malformed_events?: number;
	[extra: string]: unknown;
}

/** A page of runtime-scoped token savings with the listing's summary. */
export interface TokenSavingsPage extends Page<TokenSavingRecord> {
	summary: TokenSavingSummary | undefined;
}

export interface TokenSavingsQuery extends PageOptions {
	runtimeId?: string;
	method?: string;
}

/** A page of account-wide token savings with totals over the whole filter. */
export interface AccountTokenSavingsPage extends Page<TokenSavingRecord> {
	totals: TokenSavingSummary | undefined;
}

// ---------------------------------------------------------------- images, builds, checkpoints

export interface ImageVariant {
	id: string;
	display_name?: string;
	kind?: OpenString<'builtin' | 'custom'>;
	architectures?: string[];
	in_use?: boolean;
	[extra: string]: unknown;
}

export type ImageBuildStatus = OpenString<'pending' | 'running' | 'succeeded' | 'failed'>;

export interface ImageBuild {
	id: string;
	display_name?: string;
	architecture?: string;
	status: ImageBuildStatus;
	image_id?: string | null;
	attempts?: Array<{ number?: number; outcome?: string; started_at?: string; finished_at?: string | null }>;
	created_at?: string;
	updated_at?: string;
	[extra: string]: unknown;
}

export interface CreateImageBuildRequest {
	display_name: string;
	dockerfile: string;
	architecture?: string;
}

export interface Checkpoint {
	id: string;
	display_name?: string;
	kind?: OpenString<'full' | 'cold'>;
	created_at?: string;
	resources?: RuntimeResources;
	state?: { status?: OpenString<'creating' | 'ready' | 'failed'>; failure_reason?: string | null };
	source_runtime?: { id?: string | null; display_name?: string };
	[extra: string]: unknown;
}

// ---------------------------------------------------------------- secrets, stubs, GitHub, providers

export interface Secret {
	id: string;
	display_name: string;
	cache_ttl_secs?: number;
	value_preview?: string;
	[extra: string]: unknown;
}

export interface SecretStub {
	id: string;
	host_pattern?: string;
	path_pattern?: string;
	runtime_display_name?: string;
	stub_config_json?: string;
	stub_value_display_name?: string;
	[extra: string]: unknown;
}

export interface CreateSecretStubRequest {
	host: string;
	config: Record<string, unknown>;
	path?: string | null;
	stub_value: string;
}

export interface GitHubAuthorizationRequest {
	request_id: string;
	requested_by?: string;
	reason?: string;
	created_at_unix_seconds?: number;
	lifecycle?: { status: string; authorization_url?: string; expires_at_unix_seconds?: number; [extra: string]: unknown };
	[extra: string]: unknown;
}

export interface GitHubRuntimeBinding {
	id: string;
	tenant_id?: string;
	runtime_id?: string;
	repository_id: number;
	branch: string;
	sort_order?: number;
	[extra: string]: unknown;
}

export interface ModelProvider {
	id: string;
	display_name?: string;
	kind?: string;
	endpoint?: string;
	model?: string;
	enabled?: boolean;
	updated_at?: string;
	[extra: string]: unknown;
}

export interface ModelProviderList {
	organization_id: string;
	model_providers: ModelProvider[];
}

export interface UpdateModelProviderRequest {
	display_name: string;
	endpoint: string;
	model: string;
	enabled: boolean;
}

/** Run statuses after which a run never changes again. Unknown values are not terminal. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);

/** True when the run status is terminal (succeeded, failed, cancelled). */
export function isTerminalRunStatus(status: string | undefined): boolean {
	return status !== undefined && TERMINAL_RUN_STATUSES.has(status);
}
