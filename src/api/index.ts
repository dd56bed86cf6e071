/**
 * Public surface of the Cloud Agents API client (no vscode import anywhere under src/api): the
 * door to the client. Code outside src/api imports the client, its errors, records and events from
 * here. Two kinds of module are imported directly instead (the layers test holds the list,
 * API_LEAVES): the leaves that hold no client — the service's types and its value checks and
 * decoders (types, validation, decode, pagination) — which the helpers of every floor use without
 * loading the client; and what a wire is made of (wire.ts, errors.ts, netErrors.ts, loopback.ts),
 * only by each platform's half of the wire (src/platform/node/network.ts,
 * src/platform/web/fetchWire.ts). What every floor uses and the client needs too (bounds, bytes,
 * hashing and ids, async helpers, the clock, times, the logger's redaction) is the floor below,
 * src/base/; this door still re-exports what the client's users took from here.
 */
export { CloudAgentsClient } from './client';
export type { CloudAgentsClientOptions, StreamRunEventsOptions, ListWorkspaceOptions, ReadChunkOptions } from './client';
export {
	ApiError,
	ValidationError,
	OutcomeUnknownError,
	WorkspaceInterfaceError,
	isAbortError,
	isAuthFailure,
	isUnreachable,
	plausibleRequestId,
	STATUS_BY_CODE,
} from './errors';
export type { FieldError } from './errors';
export {
	buildStatusClass,
	providerConfiguration,
	readBuild,
	readCheckpoint,
	readImage,
	readProvider,
	redactSecrets,
	PROVIDER_READ_ONLY_MEMBERS,
	SECRET_MASK,
} from './records';
export type { BuildAttemptInfo, BuildInfo, CheckpointInfo, ImageInfo, ProviderInfo } from './records';
export type { EpochMillis } from '../base/time';
export { fromRfc3339, fromUnixMillis, fromUnixSeconds, readTimeMember } from '../base/time';
export { InvalidResponseError, decodeSessionEvent } from './decode';
export type { GatewayHostKey } from './decode';
export { ListingStoppedError, PageChain } from './pagination';
export type { ApiErrorCode } from './errors';
export type { Logger } from '../base/logger';
export { redactHeaders, scrub } from '../base/logger';
export type { RetryOptions } from './retry';
export { backoffDelay } from './retry';
export type { Timeouts } from './http';
export { NetworkError, ProxyError, checkBaseUrl } from './http';
// Only the types: a value exported here would put a loader of dist/client.js into activation's bundle.
export type { NetworkSettings, ProxyEnvironment } from './wire';
export type { Connect, Connection, ConnectOptions, Wire, WireRoute } from './wire';
export { RunEventStream } from './sse';
export type { StreamOutageEvent, StreamReconnectOptions } from './sse';
export type { Clock, ClockTimer, SleepWatchOptions, WaitOutcome, WakeEvent } from '../base/clock';
export { SLEEP_JUMP_MS, sleptDuring, systemClock } from '../base/clock';
export { ARTIFACT_NAME, isJsonObject, isSafeId, membersOf, utf8Length } from './validation';
export { type StoredField, restoreRecord, storeRecord } from './stored';
export { LIMITS, SAFETY } from '../base/limits';
export { abortError, clamp, sleep, sleepUntilAborted, throwIfAborted } from '../base/async';
export { isLoopbackHost, isLoopbackUrl } from './loopback';
export type { SseMessage } from './sse';
export { paginate } from './pagination';
export { EVENT_TEXT_MEMBERS, eventDataFields, eventFileChange, eventPayload, eventStatus, eventText, findText } from './events';
export type { EventDataFields } from './events';
export * from './types';
export { meLabel } from './identity';
export { GitHubResolver } from './githubResolver';
export type { GitHubResolverOptions } from './githubResolver';
export {
	GITHUB_API_URL,
	GitHubLookupError,
	decodeGitHubRepository,
	isBranchName,
	needsLookup,
	parseRepositoryRef,
	parseRepositoryRefs,
} from './github';
export type { GitHubLookupFailure, GitHubRepository, RepositoryEntry, RepositoryRefProblem, ResolvedRepository } from './github';
