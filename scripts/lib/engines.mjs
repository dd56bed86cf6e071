// The Node versions a package's `engines.node` accepts, as intervals, so that a unit test can check
// that every version our own `engines.node` admits is one that every installed package accepts too
// (npm ci prints "EBADENGINE Unsupported engine" otherwise). Covers the range syntax npm packages
// write there (node-semver's: `>=`, `>`, `<`, `<=`, `=`, `^`, `~`, x-ranges such as `20`, `10.x`
// and `*`, hyphen ranges, space for "and", `||` for "or"); pre-release versions are ignored, as npm
// ignores them when it checks a release of Node. Anything else throws rather than guessing.

/** A version as [major, minor, patch]. */
const INFINITY = [Infinity, 0, 0];
const ZERO = [0, 0, 0];

function compare(a, b) {
	for (let i = 0; i < 3; i++) {
		if (a[i] !== b[i]) {
			return a[i] < b[i] ? -1 : 1;
		}
	}
	return 0;
}

/** `20`, `20.19`, `20.19.0`, `10.x`, `v18`, `*`: the numbers given and how many (x or missing = not given). */
function parsePartial(text, range) {
	const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
	if (!m) {
		throw new Error(`cannot read the engines range ${JSON.stringify(range)} (at ${JSON.stringify(text)})`);
	}
	const parts = [];
	for (const p of m.slice(1)) {
		if (p === undefined || /^[xX*]$/.test(p)) {
			break;
		}
		parts.push(Number(p));
	}
	return parts;
}

/** The first version after every version that starts with `parts` (`20` → 21.0.0, `20.19` → 20.20.0). */
function after(parts) {
	if (parts.length === 0) {
		return INFINITY;
	}
	const v = [...parts, 0, 0].slice(0, 3);
	v[parts.length - 1]++;
	for (let i = parts.length; i < 3; i++) {
		v[i] = 0;
	}
	return v;
}

function full(parts) {
	return [...parts, 0, 0, 0].slice(0, 3);
}

/** One comparator as the interval [lo, hi) it admits. */
function comparator(op, text, range) {
	const parts = parsePartial(text, range);
	switch (op) {
		case '>=':
			return [full(parts), INFINITY];
		case '>':
			return [after(parts), INFINITY];
		case '<':
			return [ZERO, parts.length === 0 ? ZERO : full(parts)];
		case '<=':
			return [ZERO, after(parts)];
		case '^': {
			// The leftmost non-zero number given stays fixed (^0.2.3 → <0.3.0, ^0.0.3 → <0.0.4, ^0.x → <1.0.0).
			const fixed = parts.findIndex((n) => n !== 0);
			const upTo = fixed < 0 ? parts.length : fixed + 1;
			return [full(parts), after(parts.slice(0, Math.max(1, Math.min(upTo, parts.length))))];
		}
		case '~':
			return [full(parts), after(parts.slice(0, Math.min(2, Math.max(1, parts.length))))];
		case '':
		case '=':
			return [full(parts), after(parts)];
		default:
			throw new Error(`cannot read the engines range ${JSON.stringify(range)} (operator ${JSON.stringify(op)})`);
	}
}

function intersect(a, b) {
	const lo = compare(a[0], b[0]) >= 0 ? a[0] : b[0];
	const hi = compare(a[1], b[1]) <= 0 ? a[1] : b[1];
	return [lo, hi];
}

/**
 * The versions `range` admits, as sorted, disjoint, non-adjacent intervals [lo, hi) of
 * [major, minor, patch] (hi may be [Infinity, 0, 0]). Throws on syntax it does not know.
 */
export function rangeIntervals(range) {
	const out = [];
	for (const alternative of String(range).split('||')) {
		const set = alternative.trim();
		let interval = [ZERO, INFINITY];
		if (set !== '' && set !== '*') {
			const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(set);
			if (hyphen) {
				interval = intersect(comparator('>=', hyphen[1], range), comparator('<=', hyphen[2], range));
			} else {
				// `>= 18` is `>=18`: join an operator to the version after it, then split on spaces.
				for (const token of set.replace(/(<=|>=|<|>|=|\^|~)\s+/g, '$1').split(/\s+/)) {
					const m = /^(<=|>=|<|>|=|\^|~>?)?(.*)$/.exec(token);
					const op = m[1] === '~>' ? '~' : (m[1] ?? '');
					interval = intersect(interval, comparator(op, m[2], range));
				}
			}
		}
		if (compare(interval[0], interval[1]) < 0) {
			out.push(interval);
		}
	}
	out.sort((a, b) => compare(a[0], b[0]));
	const merged = [];
	for (const iv of out) {
		const last = merged[merged.length - 1];
		if (last && compare(iv[0], last[1]) <= 0) {
			if (compare(iv[1], last[1]) > 0) {
				last[1] = iv[1];
			}
		} else {
			merged.push([iv[0], iv[1]]);
		}
	}
	return merged;
}

/** Whether every version `range` admits is one `accepted` admits too. */
export function rangeWithin(range, accepted) {
	const outer = rangeIntervals(accepted);
	return rangeIntervals(range).every(([lo, hi]) => outer.some(([olo, ohi]) => compare(olo, lo) <= 0 && compare(hi, ohi) <= 0));
}

/** A version [major, minor, patch] written as `20.19.0` (`∞` for the open end). */
export function versionText(v) {
	return v[0] === Infinity ? '∞' : v.join('.');
}

/**
 * The packages of a package-lock.json (v2/v3) whose `engines.node` does not admit every version
 * our own `engines.node` (the lockfile's root entry) admits: `[{ path, version, node }]`. These are
 * the packages `npm ci` warns EBADENGINE about on some Node the project says it supports.
 */
export function enginesConflicts(lock) {
	const ours = lock.packages?.['']?.engines?.node;
	if (typeof ours !== 'string') {
		throw new Error('package-lock.json has no engines.node for the project itself');
	}
	const conflicts = [];
	for (const [path, entry] of Object.entries(lock.packages)) {
		const node = entry.engines?.node;
		if (path === '' || typeof node !== 'string') {
			continue;
		}
		if (!rangeWithin(ours, node)) {
			conflicts.push({ path, version: entry.version, node });
		}
	}
	return conflicts;
}
