/**
 * A history of token savings for the demo seed: a few events a day over the past three weeks
 * across the given runtimes, so the Token Savings dashboard has a trend to draw (a weekday rhythm,
 * every method, two events with a parse error). Deterministic (no randomness): tests compute
 * their expectations from the service's answers, never from here.
 */
import { stableUuid } from './ids';
import type { Data, RuntimeRow, TokenSavingRow } from './state';
import { nowIso } from './util';

/** What varies between two seeded savings events. */
export interface SavingsRowSpec {
	id: string;
	eventId: string;
	runtime: RuntimeRow;
	/** The Anthropic provider and model (else OpenAI's). */
	anthropic: boolean;
	/** When the event was observed (ms since the epoch). */
	observed: number;
	/** Wire bytes before and after (estimated tokens are a quarter of each). */
	before: number;
	after: number;
	elapsedMicros: number;
	method: TokenSavingRow['methods'][number];
}

/** One seeded token-savings event (the demo's recent events and its history). */
export function savingsRow(spec: SavingsRowSpec): TokenSavingRow {
	const tb = Math.round(spec.before / 4);
	const ta = Math.round(spec.after / 4);
	return {
		id: spec.id,
		event_id: spec.eventId,
		runtime_id: spec.runtime.id,
		runtime_name: spec.runtime.display_name,
		provider: spec.anthropic ? 'anthropic' : 'openai',
		endpoint: spec.anthropic ? 'https://api.anthropic.example/v1/messages' : 'https://api.openai.example/v1/chat/completions',
		transport: 'https',
		model: spec.anthropic ? 'claude-sonnet-4' : 'gpt-4.1',
		observed_at: nowIso(spec.observed),
		observed_unix_ms: spec.observed,
		wire_bytes_before: spec.before,
		wire_bytes_after: spec.after,
		saved_wire_bytes: spec.before - spec.after,
		estimated_tokens_before: tb,
		estimated_tokens_after: ta,
		saved_estimated_tokens: tb - ta,
		elapsed_micros: spec.elapsedMicros,
		methods: [spec.method],
	};
}

/** Events added by `seedSavingsHistory`. */
export const SAVINGS_HISTORY_EVENTS = 180;

/** Adds SAVINGS_HISTORY_EVENTS savings events observed between 12 hours and 21 days before `t0`. */
export function seedSavingsHistory(d: Data, t0: number, runtimes: readonly RuntimeRow[]): void {
	const methods = ['json_array', 'log', 'search_results', 'git_diff'];
	const span = 21 * 24 * 60 - 12 * 60; // minutes
	for (let i = 0; i < SAVINGS_HISTORY_EVENTS; i++) {
		const rt = runtimes[(i * 7) % runtimes.length]!;
		const observed = t0 - (12 * 60 + Math.floor(((i + 0.5) * span) / SAVINGS_HISTORY_EVENTS)) * 60_000;
		const day = Math.floor((t0 - observed) / 86_400_000);
		const weekday = day % 7 < 5 ? 1 : 0.35; // quieter "weekends"
		const before = Math.round((20_000 + ((i * 4099) % 60_000)) * weekday) + 2_000;
		const after = Math.round(before * (0.3 + ((i * 13) % 5) * 0.08));
		const m = methods[(i * 3) % methods.length]!;
		const row = savingsRow({
			id: stableUuid(`ts-history:${i}`),
			eventId: `evt_h${String(i + 1).padStart(4, '0')}`,
			runtime: rt,
			anthropic: i % 3 === 0,
			observed,
			before,
			after,
			elapsedMicros: 250 + ((i * 37) % 900),
			method: { method: m, blocks: 1 + (i % 4), input_units: 80 + (i % 50), output_units: 20 + (i % 30) },
		});
		if (i % 11 === 5) {
			row.methods.push({ method: 'search_results', blocks: 1, input_units: 12, output_units: 9 });
		}
		if (i === 40 || i === 133) {
			row.methods.push({ method: 'log', blocks: 0, input_units: 2, output_units: 0, parse_error: 'unexpected end of log line' });
		}
		d.tokenSavings.push(row);
	}
}
