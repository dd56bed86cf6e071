/**
 * Readers for the records whose member names the description does not show (images, image
 * builds, checkpoints, model providers): each turns one record as the server sent it into the few
 * checked values the UI needs, reading our names (docs/contract-choices.md) and the other common
 * spellings, and keeps the record itself for the read-only JSON document. A record without a
 * usable id is dropped (undefined): it could not be addressed in a route anyway.
 */
import { isSafeId } from './decode';
import { SAFETY } from '../base/limits';
import type { EpochMillis } from '../base/time';
import { readTimeMember } from '../base/time';
import { isJsonObject } from './validation';

type Obj = Record<string, unknown>;

/** The first member of `names` that is a non-empty string (cut to SAFETY.recordTextMaxChars). */
function text(o: Obj, ...names: string[]): string | undefined {
	for (const name of names) {
		const v = o[name];
		if (typeof v === 'string' && v !== '') {
			return v.length > SAFETY.recordTextMaxChars ? v.slice(0, SAFETY.recordTextMaxChars) : v;
		}
	}
	return undefined;
}

function bool(o: Obj, ...names: string[]): boolean | undefined {
	for (const name of names) {
		if (typeof o[name] === 'boolean') {
			return o[name];
		}
	}
	return undefined;
}

function id(o: Obj, ...names: string[]): string | undefined {
	for (const name of names) {
		if (isSafeId(o[name])) {
			return o[name];
		}
	}
	return undefined;
}

/** Strings of an array member (at most SAFETY.recordArrayMaxItems). */
function strings(o: Obj, ...names: string[]): string[] {
	for (const name of names) {
		const v = o[name];
		if (Array.isArray(v)) {
			return v.slice(0, SAFETY.recordArrayMaxItems).filter((x): x is string => typeof x === 'string');
		}
	}
	return [];
}

/** The first of `names` that holds a time (RFC 3339, Unix seconds or milliseconds: `readTimeMember`). */
function time(o: Obj, ...names: string[]): EpochMillis | undefined {
	for (const name of names) {
		const t = readTimeMember(o[name]);
		if (t !== undefined) {
			return t;
		}
	}
	return undefined;
}

/** A runtime image variant as the UI shows it. */
export interface ImageInfo {
	id: string;
	name: string | undefined;
	description: string | undefined;
	/** `builtin`, `custom`, or what the server says. */
	kind: string | undefined;
	/** Whether a runtime uses it, when the server says. */
	inUse: boolean | undefined;
	architectures: string[];
	tags: string[];
	/** The record as sent. */
	raw: Obj;
}

/** Reads an image variant (`id`, `display_name`|`name`, `kind`|`type`, `description`, `tags`, `in_use`). */
export function readImage(raw: unknown): ImageInfo | undefined {
	if (!isJsonObject(raw)) {
		return undefined;
	}
	const imageId = id(raw, 'id', 'image_id');
	if (!imageId) {
		return undefined;
	}
	return {
		id: imageId,
		name: text(raw, 'display_name', 'name', 'title'),
		description: text(raw, 'description', 'summary'),
		kind: text(raw, 'kind', 'type'),
		inUse: bool(raw, 'in_use', 'used'),
		architectures: strings(raw, 'architectures'),
		tags: strings(raw, 'tags', 'labels'),
		raw,
	};
}

/** One attempt of an image build. */
export interface BuildAttemptInfo {
	number: number;
	outcome: string | undefined;
	startedAt: EpochMillis | undefined;
	finishedAt: EpochMillis | undefined;
	raw: Obj;
}

/** An image build as the UI shows it. */
export interface BuildInfo {
	id: string;
	name: string | undefined;
	status: string | undefined;
	architecture: string | undefined;
	/** The image the build produced, once it has. */
	imageId: string | undefined;
	attempts: BuildAttemptInfo[];
	createdAt: EpochMillis | undefined;
	updatedAt: EpochMillis | undefined;
	raw: Obj;
}

/** Reads an image build (`id`|`build_id`, `display_name`|`name`, `status`, `attempts[]`, `image_id`|`image.id`). */
export function readBuild(raw: unknown): BuildInfo | undefined {
	if (!isJsonObject(raw)) {
		return undefined;
	}
	const buildId = id(raw, 'id', 'build_id');
	if (!buildId) {
		return undefined;
	}
	const attemptsRaw = Array.isArray(raw.attempts) ? raw.attempts.slice(0, SAFETY.recordArrayMaxItems) : [];
	const attempts: BuildAttemptInfo[] = [];
	attemptsRaw.forEach((a, i) => {
		if (!isJsonObject(a)) {
			return;
		}
		const n = typeof a.number === 'number' ? a.number : typeof a.attempt === 'number' ? a.attempt : i + 1;
		attempts.push({
			number: Number.isSafeInteger(n) ? n : i + 1,
			outcome: text(a, 'outcome', 'status', 'result'),
			startedAt: time(a, 'started_at', 'began_at', 'start_time'),
			finishedAt: time(a, 'finished_at', 'ended_at', 'end_time'),
			raw: a,
		});
	});
	return {
		id: buildId,
		name: text(raw, 'display_name', 'name'),
		status: text(raw, 'status', 'state'),
		architecture: text(raw, 'architecture', 'platform'),
		imageId: id(raw, 'image_id') ?? (isJsonObject(raw.image) ? id(raw.image, 'id') : undefined),
		attempts,
		createdAt: time(raw, 'created_at'),
		updatedAt: time(raw, 'updated_at', 'modified_at'),
		raw,
	};
}

/** Build statuses (any spelling, any case) after which nothing more happens. */
const TERMINAL_BUILD_STATUSES = new Set([
	'succeeded',
	'success',
	'ready',
	'completed',
	'complete',
	'done',
	'failed',
	'failure',
	'error',
	'errored',
	'cancelled',
	'canceled',
	'aborted',
	'timed_out',
	'expired',
	'rejected',
]);
/** Build statuses (any case) that mean the build produced an image. */
const SUCCESS_BUILD_STATUSES = new Set(['succeeded', 'success', 'ready', 'completed', 'complete', 'done']);

/** How a build stands: `active` (pending, running, or an unknown word), `succeeded` or `failed`. */
export function buildStatusClass(status: string | undefined): 'active' | 'succeeded' | 'failed' {
	const s = (status ?? '').toLowerCase();
	if (!TERMINAL_BUILD_STATUSES.has(s)) {
		return 'active';
	}
	return SUCCESS_BUILD_STATUSES.has(s) ? 'succeeded' : 'failed';
}

/** A checkpoint as the UI shows it. */
export interface CheckpointInfo {
	id: string;
	name: string | undefined;
	kind: string | undefined;
	/** The lifecycle state (`creating`, …), as sent. */
	state: string | undefined;
	/** Why creation failed, when it did. */
	failureReason: string | undefined;
	/** The source runtime's id; undefined after it was deleted (null on the wire). */
	sourceRuntimeId: string | undefined;
	/** The source runtime's name captured when the checkpoint was made. */
	sourceRuntimeName: string | undefined;
	createdAt: EpochMillis | undefined;
	raw: Obj;
}

/**
 * Reads a checkpoint: ours (`state: {status, failure_reason}`, `source_runtime: {id, display_name}`)
 * or flat spellings (`lifecycle`|`status`|`state`, `failure`|`failure_reason`, `source: {runtime_id, runtime_name}`).
 */
export function readCheckpoint(raw: unknown): CheckpointInfo | undefined {
	if (!isJsonObject(raw)) {
		return undefined;
	}
	const checkpointId = id(raw, 'id', 'checkpoint_id');
	if (!checkpointId) {
		return undefined;
	}
	const state = isJsonObject(raw.state) ? raw.state : isJsonObject(raw.lifecycle) ? raw.lifecycle : undefined;
	const source = isJsonObject(raw.source_runtime) ? raw.source_runtime : isJsonObject(raw.source) ? raw.source : undefined;
	return {
		id: checkpointId,
		name: text(raw, 'display_name', 'name'),
		kind: text(raw, 'kind'),
		state: (state && text(state, 'status', 'state', 'lifecycle')) ?? text(raw, 'lifecycle', 'status', 'state', 'lifecycle_state'),
		failureReason: (state && text(state, 'failure_reason', 'failure', 'reason')) ?? text(raw, 'failure_reason', 'failure'),
		sourceRuntimeId: source ? id(source, 'id', 'runtime_id') : id(raw, 'source_runtime_id'),
		sourceRuntimeName: source ? text(source, 'display_name', 'runtime_name', 'name') : text(raw, 'source_runtime_name'),
		createdAt: time(raw, 'created_at'),
		raw,
	};
}

/** A model provider as the UI shows it. */
export interface ProviderInfo {
	id: string;
	name: string | undefined;
	kind: string | undefined;
	endpoint: string | undefined;
	model: string | undefined;
	enabled: boolean | undefined;
	updatedAt: EpochMillis | undefined;
	raw: Obj;
}

/** Members of a provider record that are not configuration: never sent back in the PATCH. */
export const PROVIDER_READ_ONLY_MEMBERS: readonly string[] = [
	'id',
	'provider_id',
	'kind',
	'type',
	'created_at',
	'updated_at',
	'modified_at',
	'organization_id',
];

/** Reads a model provider (`id`|`provider_id`, `display_name`|`name`, `endpoint`|`base_url`, `model`|`default_model`, `enabled`|`is_enabled`). */
export function readProvider(raw: unknown): ProviderInfo | undefined {
	if (!isJsonObject(raw)) {
		return undefined;
	}
	const providerId = id(raw, 'id', 'provider_id');
	if (!providerId) {
		return undefined;
	}
	return {
		id: providerId,
		name: text(raw, 'display_name', 'name'),
		kind: text(raw, 'kind', 'type'),
		endpoint: text(raw, 'endpoint', 'base_url', 'url'),
		model: text(raw, 'model', 'default_model'),
		enabled: bool(raw, 'enabled', 'is_enabled'),
		updatedAt: time(raw, 'updated_at', 'modified_at'),
		raw,
	};
}

/**
 * The configuration fields of a provider record: every member but the read-only ones
 * (PROVIDER_READ_ONLY_MEMBERS) and extension members (`x_…`), under the server's own names, so a
 * PATCH sends back all of them as the service requires.
 */
export function providerConfiguration(raw: Obj): Obj {
	const out: Obj = {};
	for (const [k, v] of Object.entries(raw)) {
		if (!PROVIDER_READ_ONLY_MEMBERS.includes(k) && !k.startsWith('x_')) {
			out[k] = v;
		}
	}
	return out;
}

/** What a secret value is shown as (`redactSecrets`). */
export const SECRET_MASK = '••••';

/** Member names whose values are secret: replaced before a record is shown. */
const SECRET_MEMBER = /(secret|token|password|api_?key|credential_value|private_key|authorization)/i;

/**
 * A copy of a record safe to show: values of members named like secrets become `"••••"` (a
 * masked preview the server made, `*_preview`, stays), nested to SAFETY.recordDepthMax levels.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
	if (depth > SAFETY.recordDepthMax) {
		return '…';
	}
	if (Array.isArray(value)) {
		return value.slice(0, SAFETY.recordArrayMaxItems).map((v) => redactSecrets(v, depth + 1));
	}
	if (!isJsonObject(value)) {
		return value;
	}
	const out: Obj = {};
	for (const [k, v] of Object.entries(value)) {
		out[k] =
			SECRET_MEMBER.test(k) && !k.endsWith('_preview') && typeof v === 'string' && v !== ''
				? SECRET_MASK
				: redactSecrets(v, depth + 1);
	}
	return out;
}
