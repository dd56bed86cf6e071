/**
 * A link's baseline read back from disk (src/changes/linkStore.ts writes it as JSON): checked entry
 * by entry, never trusted. A damaged, foreign or tampered file yields undefined (the next comparison
 * is a first one) or drops what is unusable: paths that are not plain relative paths, sizes and
 * times that are not non-negative safe integers, hashes that are not SHA-256 hex. No `vscode`, no Node.
 */
import { isJsonObject } from '../api/validation';
import { checkRelativePath } from '../util/paths';
import type { Baseline, BaselineEntry } from './types';

function isCount(v: unknown): v is number {
	return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isSafePath(path: string): boolean {
	try {
		checkRelativePath(path);
		return true;
	} catch {
		return false;
	}
}

function member(value: object, name: string): unknown {
	return Object.prototype.hasOwnProperty.call(value, name) ? (Reflect.get(value, name) as unknown) : undefined;
}

/** The baseline in `raw` (parsed JSON), at most `maxEntries` entries and deleted paths, or undefined. */
export function checkBaseline(raw: unknown, maxEntries: number): Baseline | undefined {
	if (!isJsonObject(raw)) {
		return undefined;
	}
	const since = member(raw, 'since');
	const taken = member(raw, 'taken');
	const rawEntries = member(raw, 'entries');
	const rawDeleted = member(raw, 'deleted');
	if (member(raw, 'version') !== 1 || !isCount(taken) || !(since === undefined || isCount(since))) {
		return undefined;
	}
	if (!isJsonObject(rawEntries) || !Array.isArray(rawDeleted)) {
		return undefined;
	}
	// No prototype: a path named "__proto__" or "constructor" is a key like any other.
	const entries = Object.create(null) as Record<string, BaselineEntry>;
	let n = 0;
	for (const [path, e] of Object.entries(rawEntries)) {
		if (n >= maxEntries) {
			break;
		}
		if (!isSafePath(path) || !isJsonObject(e)) {
			continue;
		}
		const size = member(e, 'size');
		const mtime = member(e, 'mtime');
		const sha256 = member(e, 'sha256');
		if (!isCount(size) || !isCount(mtime)) {
			continue;
		}
		n++;
		entries[path] = {
			size,
			mtime,
			...(typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256) ? { sha256 } : {}),
			...(member(e, 'agentChanged') === true ? { agentChanged: true } : {}),
		};
	}
	const deleted = [...new Set(rawDeleted.filter((p): p is string => typeof p === 'string' && isSafePath(p)))].slice(0, maxEntries);
	return { version: 1, since, taken, entries, deleted };
}
