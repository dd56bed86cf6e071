/**
 * Types of the Cloud Agents API client.
 *
 * Wire types (what the API sends and accepts) are aliases over `components['schemas']` of
 * `schema.gen.ts`, which openapi-typescript generates from spec/openapi.yaml (`npm run
 * spec:types`; `npm run spec:check` fails when it is stale). Nothing here restates a schema by
 * hand: a field the spec changes changes here. What this file adds on top is the spec's own
 * tolerance rule ("response objects may gain fields and enum-like strings may gain values;
 * clients must tolerate both"):
 *
 * - every response record admits extra members (`Open<…>`);
 * - every string enum of a response is widened with `(string & {})` (`Tolerant<…>`), so an
 *   unknown value from a newer server type-checks and never throws. Fields the spec marks
 *   `x-known-values` are already plain `string` in the generated types; the friendly aliases
 *   below (RunStatus, AgentStatus, …) list their known values for completion only.
 *
 * Client-only types (pages, call options, decoded results, inputs the client encodes) are
 * written by hand at the end and, where they mirror a schema, are derived from it.
 */
import type { components } from './schema.gen';

/** The generated schemas of spec/openapi.yaml. */
type S = components['schemas'];

/** A string enum that also admits values this client does not know yet. */
export type OpenString<T extends string> = T | (string & {});

/** A response record: the schema's members plus any the server adds. */
export type Open<T> = T & { [extra: string]: unknown };

/**
 * A response type with every string-literal enum (at any depth) widened to OpenString. Plain
 * `string`, numbers, booleans and null pass through unchanged.
 */
export type Tolerant<T> = T extends string
	? string extends T
		? T
		: OpenString<T>
	: T extends ReadonlyArray<infer U>
		? Tolerant<U>[]
		: T extends object
			? { [K in keyof T]: Tolerant<T[K]> }
			: T;

/** A response schema as the client sees it: enums widened, extra members admitted. */
type Wire<T> = Open<Tolerant<T>>;

/** `T` with the members of `O` replacing its own. */
type With<T, O> = Omit<T, keyof O> & O;

/** `T` with the members `K` made optional. */
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

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

export type Me = Wire<S['Me']>;
export type SshHostKey = Wire<S['SshHostKey']>;

// ---------------------------------------------------------------- auth / device flow

export type DeviceAuthorizationRequest = S['DeviceAuthorizationRequest'];
export type DeviceAuthorization = Wire<S['DeviceAuthorizationResponse']>;
export type DeviceTokenRequest = S['DeviceTokenRequest'];
export type DeviceToken = Wire<S['DeviceTokenResponse']>;
/** 400 body of a device-token poll (pending, slow_down, expired, denied, …). */
export type DeviceTokenError = Wire<S['DeviceTokenError']>;

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

/** Agent status (spec x-known-values); other values may appear. */
export type AgentStatus = OpenString<'provisioning' | 'idle' | 'running' | 'error' | 'deleting'>;

export type LatestReply = Wire<NonNullable<S['AgentLatestReply']>>;

export type Agent = Wire<With<S['Agent'], { status: AgentStatus }>>;

export type RepositoryRef = S['RepositoryRef'];
export type CreateAgentRequest = S['AgentCreateRequest'];
export type UpdateAgentRequest = S['AgentUpdateRequest'];

/** Answer of DELETE /v2/agents/{id}: 202 with an AgentDeletion body when the runtime goes too, else 204. */
export type DeleteAgentResult = Partial<S['AgentDeletion']> & {
	/** true when the runtime deletion was requested (202). */
	runtimeDeletionRequested: boolean;
};

export type ComputerSession = Wire<S['ComputerSession']>;

// ---------------------------------------------------------------- runs and events

/** Run status (spec x-known-values); other values may appear and are not terminal. */
export type RunStatus = OpenString<'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'>;

export type Run = Wire<With<S['Run'], { status: RunStatus }>>;

/**
 * A prompt image as the client accepts it: the wire form `{data: base64, media_type?}`, or raw
 * bytes the client encodes. The media type is checked against the bytes (case-insensitively).
 */
export type PromptImage = With<
	S['PromptImage'],
	{ data: S['PromptImage']['data'] | Uint8Array; media_type?: OpenString<NonNullable<S['PromptImage']['media_type']>> }
>;

export type CreateRunRequest = With<S['RunCreateRequest'], { images?: PromptImage[] }>;
export type FollowUpRequest = With<S['FollowUpRequest'], { images?: PromptImage[] }>;
export type ResumeRunRequest = S['RunResumeRequest'];

/** Event type (spec x-known-values); other values may appear and are to be ignored. */
export type EventType = OpenString<
	'run.status' | 'message' | 'tool.call' | 'tool.result' | 'log' | 'file.changed' | 'artifact.created' | 'run.completed'
>;

/**
 * One run event record, as carried in SSE `data:` and in session replays. `run_id`,
 * `created_at` and `data` are required by the spec but optional here: for a frame whose data is
 * not a JSON object the stream still hands out a record (`{seq, type, data: {raw} | {value}}`),
 * and consumers must not assume a server never leaves one out.
 */
export type EventRecord = Wire<Optional<With<S['EventRecord'], { type: EventType }>, 'run_id' | 'created_at' | 'data'>>;

/** Answer of GET /v2/agents/{id}/events. */
export type AgentEvents = Wire<With<S['AgentEvents'], { events: EventRecord[] }>>;

// ---------------------------------------------------------------- artifacts

export type Artifact = Wire<S['Artifact']>;

/** Input of createArtifact: the wire body with raw bytes in place of `content_base64`. */
export type CreateArtifactRequest = With<
	Omit<S['ArtifactCreateRequest'], 'content_base64'>,
	{
		/** Raw bytes; the client base64-encodes them. */
		content: Uint8Array;
	}
>;

// ---------------------------------------------------------------- workspace

/** Workspace entry type (spec x-known-values); other values may appear. */
export type WorkspaceEntryType = OpenString<'file' | 'directory'>;

export type WorkspaceEntry = Wire<With<S['WorkspaceEntry'], { type: WorkspaceEntryType }>>;
export type WorkspaceRequest = S['WorkspaceRequest'];

/** Result of a stat operation, without the `op` echo. */
export type WorkspaceStat = With<Omit<S['WorkspaceStatResult'], 'op'>, { entry: WorkspaceEntry }>;

/** One decoded chunk of a read operation (`content` in place of `content_base64`). */
export type WorkspaceReadChunk = With<
	Omit<S['WorkspaceReadResult'], 'op' | 'content_base64'>,
	{
		/** Absent only when a server leaves it out. */
		mtime_unix_ms?: number;
		/** Decoded content of this chunk. */
		content: Uint8Array;
	}
>;

/** A whole file read chunk by chunk (client-side result). */
export interface WorkspaceFile {
	path: string;
	size: number;
	mtime_unix_ms?: number;
	content: Uint8Array;
}

export type WorkspaceSearchMatch = Wire<S['WorkspaceSearchMatch']>;

export interface WorkspaceSearchOptions extends CallOptions {
	path?: string;
	maxResults?: number;
	caseSensitive?: boolean;
}

/** Result of a search operation, without the `op` echo. */
export type WorkspaceSearchResult = With<Omit<S['WorkspaceSearchResult'], 'op'>, { matches: WorkspaceSearchMatch[] }>;

export type WorkspaceWriteResult = Wire<S['WorkspaceWriteResult']>;

// ---------------------------------------------------------------- runtimes

export type RuntimeStatus = OpenString<S['Runtime']['status']>;
export type RuntimeDesiredStatus = OpenString<S['Runtime']['desired_status']>;

export type RuntimeResources = Wire<S['RuntimeResources']>;
export type MemoryResources = RuntimeResources['limits'];

/**
 * Egress policy: the spec's variants, plus any other `mode` a newer server sends (kept apart so
 * the known variants still narrow on `mode`).
 */
export type EgressPolicy = S['EgressPolicy'] | { mode: string; [extra: string]: unknown };

/** Idle policy: the spec's variants, plus any other `mode` a newer server sends. */
export type IdlePolicy = S['IdlePolicy'] | { mode: string; [extra: string]: unknown };

/**
 * A runtime as decoded (src/api/decode.ts `decodeRuntime`): its attached SSH keys and GitHub
 * bindings, when the record carries them, are decoded like the records of their own kind.
 */
export type Runtime = Open<
	Tolerant<Omit<S['Runtime'], 'egress_policy' | 'idle_policy' | 'ssh_keys' | 'github_bindings'>> & {
		egress_policy: EgressPolicy;
		idle_policy: IdlePolicy;
		ssh_keys?: SshKey[];
		github_bindings?: GitHubRuntimeBinding[];
	}
>;

export interface RuntimeListOptions extends PageOptions {
	/** Public status aliases, sent comma-separated. */
	status?: string[];
}

export type VncCredential = Wire<S['VncCredential']>;
/** An SSH key as decoded (`decodeSshKey`): a checked id; the other members only when they are text. */
export type SshKey = Wire<
	Optional<S['SshKey'], 'organization_id' | 'user_id' | 'display_name' | 'public_key' | 'fingerprint' | 'created_at'>
>;

export type TokenSavingMethod = Wire<S['TokenSavingMethod']>;
/** A runtime-scoped token-saving record (GET /v1/runtimes/{id}/tokensaver/savings). */
export type TokenSavingRecord = Wire<S['TokenSavingRecord']>;
export type TokenSavingSummary = Wire<S['TokenSavingSummary']>;
/** An account-wide token-saving event (GET /v2/token-savings). */
export type TokenSavingEvent = Wire<S['TokenSavingEvent']>;
export type TokenSavingTotals = Wire<S['TokenSavingTotals']>;

/**
 * A runtime's savings summary as decoded (src/api/decode.ts): each count undefined when the
 * server's value is not a non-negative integer.
 */
export type TokenSavingSummaryCounts = { [K in keyof S['TokenSavingSummary']]: number | undefined };

/** Account totals over the whole filter as decoded; each count undefined when malformed. */
export type TokenSavingTotalsCounts = { [K in keyof S['TokenSavingTotals']]: number | undefined };

/**
 * An account-wide token-saving event as decoded (src/api/decode.ts `decodeTokenSavingEvent`): the
 * documented member names whatever the server called them, only the members the dashboard uses,
 * malformed members undefined (the event is counted as malformed, not dropped).
 */
export interface TokenSavingEventRecord {
	id: string | undefined;
	event_id: string | undefined;
	runtime_id: string | undefined;
	runtime_name: string | undefined;
	observed_at: string | undefined;
	saved_wire_bytes: number | undefined;
	saved_estimated_tokens: number | undefined;
	/** The names of the methods applied (bounded by SAFETY.savingsMethodsPerEvent). */
	methods: string[];
}

/** A page of runtime-scoped token savings with the listing's summary. */
export interface TokenSavingsPage extends Page<TokenSavingRecord> {
	summary: TokenSavingSummaryCounts | undefined;
}

export interface TokenSavingsQuery extends PageOptions {
	runtimeId?: string;
	method?: string;
}

/** A page of account-wide token savings with totals over the whole filter. */
export interface AccountTokenSavingsPage extends Page<TokenSavingEventRecord> {
	totals: TokenSavingTotalsCounts | undefined;
	/** Events the decoder refused (an unsafe id, not an object). */
	dropped: number;
	/**
	 * True when a runtime filter was asked for and this server ignored every parameter name tried
	 * for it (the page holds other runtimes' events, and the totals are not the runtime's).
	 */
	runtimeFilterIgnored: boolean;
}

// ---------------------------------------------------------------- images, builds, checkpoints

export type ImageVariant = Wire<With<S['ImageVariant'], { kind: OpenString<'builtin' | 'custom'> }>>;

/** Image build status (spec x-known-values); other values may appear. */
export type ImageBuildStatus = OpenString<'pending' | 'running' | 'succeeded' | 'failed'>;

export type ImageBuildAttempt = Wire<S['ImageBuildAttempt']>;
export type ImageBuild = Wire<With<S['ImageBuild'], { status: ImageBuildStatus }>>;

/** Input of createImageBuild; `architecture` defaults to x86_64 on the server. */
export type CreateImageBuildRequest = With<S['ImageBuildCreateRequest'], { architecture?: S['ImageBuildCreateRequest']['architecture'] }>;

export type Checkpoint = Wire<S['Checkpoint']>;

// ---------------------------------------------------------------- secrets, stubs, GitHub, providers

/** A secret's metadata as decoded (`decodeSecret`): name and TTL only when the server sent them well-formed. */
export type Secret = Wire<Optional<S['Secret'], 'cache_ttl_secs' | 'display_name'>>;
/** A secret stub as decoded (`decodeSecretStub`): a checked id; the other members only when they are (bounded) text. */
export type SecretStub = Wire<
	Optional<S['SecretStub'], 'host_pattern' | 'path_pattern' | 'runtime_display_name' | 'stub_config_json' | 'stub_value_display_name'>
>;
export type SecretStubConfig = S['SecretStubCreateRequest']['config'];
export type CreateSecretStubRequest = S['SecretStubCreateRequest'];

/** A request's lifecycle as decoded (`decodeGitHubAuthorizationRequest`): the URL https, the expiry a non-negative integer. */
export type GitHubAuthorizationLifecycle = Wire<Optional<S['GithubAuthorizationLifecycle'], 'status'>>;
/** A GitHub authorization request as decoded: a checked id; who asked only when it is text; the lifecycle when sent. */
export type GitHubAuthorizationRequest = Wire<
	With<
		Optional<S['GithubAuthorizationRequest'], 'requested_by' | 'created_at_unix_seconds' | 'lifecycle'>,
		{ lifecycle?: GitHubAuthorizationLifecycle }
	>
>;
/** A GitHub binding; on a runtime record decoded by `decodeGitHubBinding` (repository id and branch checked). */
export type GitHubRuntimeBinding = Wire<Optional<S['GithubRuntimeBinding'], 'id' | 'tenant_id' | 'runtime_id' | 'sort_order'>>;
export type GitHubRuntimeBindingsRequest = S['GithubRuntimeBindingsRequest'];

export type ModelProvider = Wire<S['ModelProvider']>;
export type ModelProviderList = With<S['ModelProviderList'], { model_providers: ModelProvider[] }>;
export type UpdateModelProviderRequest = S['ModelProviderUpdateRequest'];

/**
 * Run statuses known to be final (the emulator's three, and the spellings other servers use; run
 * status values are not shown in the description). The one list every layer uses. Unknown values
 * are not terminal by this list: whether such a run still runs comes from what the server does
 * (RunEventStream ends when the server ends the stream again without news).
 */
export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set([
	'succeeded',
	'failed',
	'cancelled',
	'canceled',
	'completed',
	'complete',
	'errored',
	'error',
	'done',
	'finished',
	'timed_out',
	'expired',
	'aborted',
	'rejected',
]);

/** True when the run status is one of TERMINAL_RUN_STATUSES (compared case-insensitively). */
export function isTerminalRunStatus(status: string | undefined): boolean {
	return typeof status === 'string' && TERMINAL_RUN_STATUSES.has(status.toLowerCase());
}

/** What a run status means, whatever the server's spelling: the one classification views, notifications and the status bar use. */
export type RunStatusClass = 'succeeded' | 'failed' | 'cancelled' | 'running' | 'waiting' | 'unknown';

const RUN_STATUS_CLASSES: ReadonlyMap<string, RunStatusClass> = new Map([
	...['succeeded', 'completed', 'complete', 'done', 'finished', 'success', 'successful'].map((s) => [s, 'succeeded'] as const),
	...['failed', 'errored', 'error', 'timed_out', 'expired', 'aborted', 'rejected', 'failure'].map((s) => [s, 'failed'] as const),
	...['cancelled', 'canceled'].map((s) => [s, 'cancelled'] as const),
	...['running', 'in_progress', 'started', 'working', 'active', 'blocked'].map((s) => [s, 'running'] as const),
	...['queued', 'pending', 'starting', 'scheduled', 'waiting'].map((s) => [s, 'waiting'] as const),
]);

/** The class of a run status (case-insensitive); `unknown` for words no list knows (shown as they are). */
export function runStatusClass(status: string | undefined): RunStatusClass {
	return (typeof status === 'string' ? RUN_STATUS_CLASSES.get(status.toLowerCase()) : undefined) ?? 'unknown';
}

/** What an agent status means, whatever the server's spelling. */
export type AgentStatusClass = 'ready' | 'busy' | 'failed' | 'unknown';

const AGENT_STATUS_CLASSES: ReadonlyMap<string, AgentStatusClass> = new Map([
	...['idle', 'ready', 'available'].map((s) => [s, 'ready'] as const),
	...['running', 'busy', 'provisioning', 'starting', 'deleting', 'working', 'creating'].map((s) => [s, 'busy'] as const),
	...['error', 'failed', 'errored'].map((s) => [s, 'failed'] as const),
]);

/** The class of an agent status (case-insensitive); `unknown` for words no list knows. */
export function agentStatusClass(status: string | undefined): AgentStatusClass {
	return (typeof status === 'string' ? AGENT_STATUS_CLASSES.get(status.toLowerCase()) : undefined) ?? 'unknown';
}
