/**
 * Bench report: sections of rows printed as a table and written to bench/RESULTS.md. A section is
 * a file under bench/sections/ exporting `run(ctx)`; register it in bench/run.ts.
 */
import { cpus } from 'node:os';

export interface Row {
	metric: string;
	value: string;
	target?: string;
	/** undefined when the row has no target. */
	pass?: boolean;
}

export interface Section {
	title: string;
	rows: Row[];
	notes?: string[];
}

export interface BenchContext {
	/** Base URL of the in-process emulator. */
	emulatorUrl: string;
	token: string;
	addSection(section: Section): void;
	log(message: string): void;
}

export function machine(): string {
	return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}, ${process.platform}/${process.arch}`;
}

export function renderTable(sections: Section[]): string {
	const lines: string[] = [];
	for (const s of sections) {
		lines.push(`### ${s.title}`, '', '| Metric | Value | Target | Result |', '|---|---|---|---|');
		for (const r of s.rows) {
			lines.push(`| ${r.metric} | ${r.value} | ${r.target ?? '—'} | ${r.pass === undefined ? '—' : r.pass ? 'pass' : 'FAIL'} |`);
		}
		for (const n of s.notes ?? []) {
			lines.push('', n);
		}
		lines.push('');
	}
	return lines.join('\n');
}

/**
 * Every row that has a target, one line each (result, metric, value, goal), so a reader sees each
 * target of the bench on one line without reading the tables.
 */
export function renderTargets(sections: Section[]): string {
	const lines = ['### Targets', ''];
	for (const s of sections) {
		for (const r of s.rows) {
			if (r.target !== undefined) {
				lines.push(`- ${r.pass === undefined ? '—' : r.pass ? 'pass' : '**FAIL**'}: ${r.metric} = ${r.value} (goal ${r.target})`);
			}
		}
	}
	lines.push('');
	return lines.join('\n');
}

/** The q-quantile (0 ≤ q ≤ 1) by linear interpolation between the sorted values. */
export function quantile(values: number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	const pos = (sorted.length - 1) * q;
	const lo = Math.floor(pos);
	const hi = Math.ceil(pos);
	return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
