import { readFileSync } from 'node:fs';

/** One fault-injection rule (docs/contract-choices.md, "Emulator admin API"). */
export interface FaultRule {
	/** HTTP method to match (any when absent). */
	method?: string;
	/** OpenAPI path template, e.g. `/v2/agents/{agent_id}` (any when absent or "*"). */
	route?: string;
	/** Answer with this status and the error envelope instead of running the handler. */
	status?: number;
	/** Probability 0–1 that a matching request is affected (default 1). */
	rate?: number;
	/** Only the first N matching requests are affected. */
	count?: number;
	/** Emulator extension: affect every Nth matching request only (used by the rate-limited profile). */
	every?: number;
	/** Retry-After seconds sent with the status (default 1 for 429 and 503). */
	retry_after?: number;
	/** Added latency before the request is handled. */
	latency_ms?: number;
	/** SSE routes: the stream is cut after this many events. */
	drop_sse_after_events?: number;
	/** SSE routes: the stream is cut this long (ms, wall clock) after it opened, as a proxy or network that drops long connections. */
	drop_sse_after_ms?: number;
	/** The connection is closed half-way through the response body. */
	close_connection?: boolean;
	/** The handler runs (the mutation happens) but the answer never comes: the socket is destroyed. */
	ambiguous_timeout?: boolean;
	/**
	 * Emulator extension: the request waits until the rules change (`PUT` or `DELETE /_emulator/faults`),
	 * at most HOLD_MAX_MS; then it goes on as any other. A test holds an answer as long as it needs
	 * (a read "still under way") and ends the wait when it has looked, instead of guessing a latency.
	 */
	hold?: boolean;
}

/** The longest a `hold` rule keeps a request waiting (then it is answered as usual). */
export const HOLD_MAX_MS = 60_000;

/** Waits out a `hold` (FaultDecision.hold): until the rules change, at most HOLD_MAX_MS. */
export async function waitOutHold(hold: Promise<void>): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	await Promise.race([hold, new Promise<void>((resolve) => (timer = setTimeout(resolve, HOLD_MAX_MS)))]);
	clearTimeout(timer);
}

interface RuleState {
	rule: FaultRule;
	matched: number;
	applied: number;
}

export interface FaultDecision {
	status?: number;
	retryAfter?: number;
	latencyMs: number;
	dropSseAfterEvents?: number;
	dropSseAfterMs?: number;
	closeConnection: boolean;
	ambiguousTimeout: boolean;
	/** Wait for the rules to change (`hold`): resolves then, or after HOLD_MAX_MS. */
	hold?: Promise<void>;
}

const ALLOWED_KEYS = new Set([
	'method',
	'route',
	'status',
	'rate',
	'count',
	'every',
	'retry_after',
	'latency_ms',
	'drop_sse_after_events',
	'drop_sse_after_ms',
	'close_connection',
	'ambiguous_timeout',
	'hold',
]);

/** Validates a `{rules: [...]}` document; returns an error message or the rules. */
export function parseRules(doc: unknown): FaultRule[] | string {
	if (!doc || typeof doc !== 'object' || !Array.isArray((doc as { rules?: unknown }).rules)) return 'body: must be {rules: [...]}';
	const rules = (doc as { rules: unknown[] }).rules;
	const out: FaultRule[] = [];
	for (let i = 0; i < rules.length; i++) {
		const r = rules[i];
		const f = `rules[${i}]`;
		if (!r || typeof r !== 'object' || Array.isArray(r)) return `${f}: must be an object`;
		const o = r as Record<string, unknown>;
		for (const k of Object.keys(o)) if (!ALLOWED_KEYS.has(k)) return `${f}.${k}: unknown fault rule member`;
		const str = (k: string): string | undefined => {
			if (o[k] !== undefined && typeof o[k] !== 'string') throw new Error(`${f}.${k}: must be a string`);
			return o[k];
		};
		const int = (k: string, min: number, max: number): number | undefined => {
			const v = o[k];
			if (v === undefined) return undefined;
			if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
				throw new Error(`${f}.${k}: must be an integer from ${min} to ${max}`);
			}
			return v;
		};
		const bool = (k: string): boolean | undefined => {
			if (o[k] !== undefined && typeof o[k] !== 'boolean') throw new Error(`${f}.${k}: must be a boolean`);
			return o[k];
		};
		try {
			const rule: FaultRule = {};
			const method = str('method');
			if (method !== undefined) rule.method = method.toUpperCase();
			const route = str('route');
			if (route !== undefined) rule.route = route;
			const status = int('status', 400, 599);
			if (status !== undefined) rule.status = status;
			if (o.rate !== undefined) {
				if (typeof o.rate !== 'number' || o.rate < 0 || o.rate > 1) throw new Error(`${f}.rate: must be a number from 0 to 1`);
				rule.rate = o.rate;
			}
			const count = int('count', 0, Number.MAX_SAFE_INTEGER);
			if (count !== undefined) rule.count = count;
			const every = int('every', 1, Number.MAX_SAFE_INTEGER);
			if (every !== undefined) rule.every = every;
			const ra = int('retry_after', 0, 86400);
			if (ra !== undefined) rule.retry_after = ra;
			const lat = int('latency_ms', 0, 600000);
			if (lat !== undefined) rule.latency_ms = lat;
			const drop = int('drop_sse_after_events', 0, Number.MAX_SAFE_INTEGER);
			if (drop !== undefined) rule.drop_sse_after_events = drop;
			const dropMs = int('drop_sse_after_ms', 1, 86_400_000);
			if (dropMs !== undefined) rule.drop_sse_after_ms = dropMs;
			const cc = bool('close_connection');
			if (cc !== undefined) rule.close_connection = cc;
			const at = bool('ambiguous_timeout');
			if (at !== undefined) rule.ambiguous_timeout = at;
			const hold = bool('hold');
			if (hold !== undefined) rule.hold = hold;
			out.push(rule);
		} catch (e) {
			return (e as Error).message;
		}
	}
	return out;
}

export const PROFILES: Record<string, FaultRule[]> = {
	none: [],
	flaky: [{ method: 'GET', status: 503, rate: 0.1, retry_after: 1 }],
	slow: [{ latency_ms: 200 }],
	'rate-limited': [{ status: 429, every: 5, retry_after: 1 }],
	'sse-drops': [{ method: 'GET', route: '/v2/agents/{agent_id}/runs/{run_id}/events', drop_sse_after_events: 500 }],
};

/** Resolves `--faults PROFILE`: a profile name or a path to a JSON file `{rules: [...]}`. */
export function loadProfile(profile: string): FaultRule[] {
	const builtin = PROFILES[profile];
	if (builtin) return builtin.map((r) => ({ ...r }));
	let text: string;
	try {
		text = readFileSync(profile, 'utf8');
	} catch {
		throw new Error(
			`--faults: ${JSON.stringify(profile)} is neither a profile (${Object.keys(PROFILES).join(', ')}) nor a readable JSON file`,
		);
	}
	const rules = parseRules(JSON.parse(text));
	if (typeof rules === 'string') throw new Error(`--faults ${profile}: ${rules}`);
	return rules;
}

export class Faults {
	private states: RuleState[] = [];
	/** Ends the waits of the requests held by the current rules (`hold`). */
	private releaseHeld: () => void = () => {};
	private held: Promise<void> = Promise.resolve();

	constructor(rules: FaultRule[] = []) {
		this.set(rules);
	}

	/** Replaces the rules; requests held by the old ones go on. */
	set(rules: FaultRule[]): void {
		this.states = rules.map((rule) => ({ rule, matched: 0, applied: 0 }));
		this.releaseHeld();
		this.held = new Promise<void>((resolve) => {
			this.releaseHeld = resolve;
		});
	}

	list(): (FaultRule & { matched: number; applied: number })[] {
		return this.states.map((s) => ({ ...s.rule, matched: s.matched, applied: s.applied }));
	}

	/** Decides which faults apply to one request (counting matches as a side effect). */
	decide(method: string, route: string): FaultDecision | undefined {
		let d: FaultDecision | undefined;
		for (const s of this.states) {
			const r = s.rule;
			if (r.method && r.method !== method && !(r.method === 'GET' && method === 'HEAD')) continue;
			if (r.route && r.route !== '*' && r.route !== route) continue;
			s.matched++;
			if (r.count !== undefined && s.applied >= r.count) continue;
			if (r.every !== undefined && s.matched % r.every !== 0) continue;
			if (r.rate !== undefined && r.rate < 1 && Math.random() >= r.rate) continue;
			s.applied++;
			d ??= { latencyMs: 0, closeConnection: false, ambiguousTimeout: false };
			d.latencyMs += r.latency_ms ?? 0;
			if (r.status !== undefined && d.status === undefined) {
				d.status = r.status;
				const ra = r.retry_after ?? (r.status === 429 || r.status === 503 ? 1 : undefined);
				if (ra !== undefined) d.retryAfter = ra;
			}
			if (r.drop_sse_after_events !== undefined) {
				d.dropSseAfterEvents = Math.min(d.dropSseAfterEvents ?? Infinity, r.drop_sse_after_events);
			}
			if (r.drop_sse_after_ms !== undefined) {
				d.dropSseAfterMs = Math.min(d.dropSseAfterMs ?? Infinity, r.drop_sse_after_ms);
			}
			if (r.close_connection) d.closeConnection = true;
			if (r.ambiguous_timeout) d.ambiguousTimeout = true;
			if (r.hold) d.hold = this.held;
		}
		return d;
	}
}
