/**
 * What the client makes of run events whose names and payload shapes the description does not show
 * (service-api.md "Events": "Event names and the payload shape of each event: not shown"). The
 * readable text of an event is taken from whichever member holds it — a documented list of
 * candidates, searched breadth-first to a small depth, then a generic fallback — else compact JSON
 * of the whole payload: never an empty line.
 */
import type { EventRecord } from './types';
import { isJsonObject, membersOf } from './validation';

/** Members that hold readable text, most specific first (emulator: `text`; others: content, message, …). */
export const EVENT_TEXT_MEMBERS: readonly string[] = [
	'text',
	'content',
	'message',
	'output',
	'body',
	'value',
	'result',
	'error',
	'summary',
	'description',
	'detail',
	'line',
	'msg',
];

/** Members that hold the payload itself when the record is not an `{type, data}` envelope. */
const PAYLOAD_MEMBERS: readonly string[] = ['data', 'payload', 'body', 'event'];

/** Members of a flat record that are envelope, not payload. */
const ENVELOPE_MEMBERS = new Set(['seq', 'sequence', 'id', 'type', 'event', 'run_id', 'run', 'created_at', 'at', 'timestamp', 'time']);

const MAX_DEPTH = 4;
const MAX_NODES = 200;

/** The payload of an event record: `data` (or `payload`, `body`), else the record without its envelope members. */
export function eventPayload(record: EventRecord): unknown {
	const r = record as Record<string, unknown>;
	for (const key of PAYLOAD_MEMBERS) {
		if (r[key] !== undefined && key !== 'event') {
			return r[key];
		}
	}
	const rest: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(r)) {
		if (!ENVELOPE_MEMBERS.has(k)) {
			rest[k] = v;
		}
	}
	return rest;
}

/**
 * The first readable text in a payload: the payload itself when it is a string; else a candidate
 * member (EVENT_TEXT_MEMBERS) holding a non-empty string, searched breadth-first through objects
 * and arrays (`message.content[0].text`) to a bounded depth. Undefined when there is none.
 */
export function findText(payload: unknown): string | undefined {
	if (typeof payload === 'string') {
		return payload.trim() === '' ? undefined : payload;
	}
	let level: unknown[] = [payload];
	let nodes = 0;
	for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
		const next: unknown[] = [];
		for (const node of level) {
			if (++nodes > MAX_NODES) {
				return undefined;
			}
			if (Array.isArray(node)) {
				for (const item of node) {
					if (typeof item === 'string' && item.trim() !== '') {
						return item;
					}
					next.push(item);
				}
				continue;
			}
			if (!isJsonObject(node)) {
				continue;
			}
			const o = node;
			for (const key of EVENT_TEXT_MEMBERS) {
				const v = o[key];
				if (typeof v === 'string' && v.trim() !== '') {
					return v;
				}
			}
			for (const key of EVENT_TEXT_MEMBERS) {
				const v = o[key];
				if (v !== null && typeof v === 'object') {
					next.push(v);
				}
			}
		}
		level = next;
	}
	return undefined;
}

/** Compact JSON of a value, `null` for undefined (never an empty string). */
export function compactJson(value: unknown): string {
	try {
		const text = JSON.stringify(value);
		return text === undefined || text === '' ? String(value) : text;
	} catch {
		return String(value);
	}
}

/** The readable text of any event record: found text, else compact JSON of its payload. Never empty. */
export function eventText(record: EventRecord): string {
	const payload = eventPayload(record);
	const text = findText(payload);
	if (text !== undefined) {
		return text;
	}
	const json = compactJson(payload);
	return json === '' ? '{}' : json;
}

/** Where a status may sit in an event of any envelope: the payload's `status` or `state`, else the record's. */
export function eventStatus(record: EventRecord): string | undefined {
	const r = record as Record<string, unknown>;
	const p = membersOf(eventPayload(record));
	for (const v of [p.status, p.state, r.status, r.state]) {
		if (typeof v === 'string' && v !== '') {
			return v;
		}
	}
	return undefined;
}

/**
 * A changed workspace file named by an event of any envelope: event types that mention a file
 * (`file.changed`, `file_change`, …) with a path under the payload (`path`) or a `file` member
 * (`file.path`), and the kind of change (`change`, `action`) when given.
 */
export function eventFileChange(record: EventRecord): { path: string; change: string | undefined } | undefined {
	const type = typeof record.type === 'string' ? record.type : '';
	if (!/file/i.test(type)) {
		return undefined;
	}
	const p = membersOf(eventPayload(record));
	const file = membersOf(p.file);
	const path = [p.path, file.path].find((v): v is string => typeof v === 'string' && v !== '');
	if (path === undefined) {
		return undefined;
	}
	const change = [p.change, p.action, file.change, file.action].find((v): v is string => typeof v === 'string');
	return { path, change };
}

/**
 * The members of an event's `data` object that the output channel shows, read as checked values:
 * strings stay strings, anything else of those names is dropped; `input` and `output` stay as sent
 * (the caller prints them as JSON). Undefined when `data` is not an object (another envelope).
 */
export interface EventDataFields {
	role?: string;
	text?: string;
	level?: string;
	tool?: string;
	input?: unknown;
	output?: unknown;
	change?: string;
	path?: string;
	name?: string;
	artifact_id?: string;
	status?: string;
	error?: string;
	result?: string;
	/** The whole object as sent (for a compact JSON fallback). */
	raw: object;
}

const EVENT_DATA_STRINGS = ['role', 'text', 'level', 'tool', 'change', 'path', 'name', 'artifact_id', 'status', 'error', 'result'] as const;

/** Reads an event's `data` object into `EventDataFields` (see there). */
export function eventDataFields(data: unknown): EventDataFields | undefined {
	if (!isJsonObject(data)) {
		return undefined;
	}
	const fields: EventDataFields = { raw: data };
	for (const name of EVENT_DATA_STRINGS) {
		const value: unknown = Reflect.get(data, name);
		if (typeof value === 'string') {
			fields[name] = value;
		}
	}
	if (Object.hasOwn(data, 'input')) {
		fields.input = data.input;
	}
	if (Object.hasOwn(data, 'output')) {
		fields.output = data.output;
	}
	return fields;
}
