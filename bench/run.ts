/**
 * Bench driver: starts the emulator in-process, runs every section, prints the table and writes
 * bench/RESULTS.md. Add a section: create bench/sections/<name>.ts exporting `run(ctx)` and list
 * it in SECTIONS below. Run through `npm run bench` (node --expose-gc).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../emulator/src/server';
import { type BenchContext, type Section, machine, renderTable, renderTargets } from './report';
import * as activation from './sections/activation';
import * as activity from './sections/activity';
import * as api from './sections/api';
import * as compare from './sections/compare';
import * as firstRows from './sections/firstRows';
import * as hostile from './sections/hostile';
import * as savings from './sections/savings';
import * as soak from './sections/soak';
import * as workspace from './sections/workspace';
import * as vnc from './sections/vnc';

// hostile last: its child process would otherwise share the cores with the timed sections.
const SECTIONS: Array<{ name: string; run: (ctx: BenchContext) => Promise<void> }> = [
	{ name: 'api', run: api.run },
	{ name: 'workspace', run: workspace.run },
	{ name: 'savings', run: savings.run },
	{ name: 'compare', run: compare.run },
	// Simulated time: the Activity watcher over 500 agents (issue 45).
	{ name: 'activity', run: activity.run },
	// Two and a half minutes of following 20 runs through drops and outages (its emulator in a process of its own).
	{ name: 'soak', run: soak.run },
	// After the timed sections: it starts code-server and Chromium a dozen times.
	{ name: 'activation', run: activation.run },
	// Click → first agent rows against a static tree, and after a reload (code-server and Chromium again).
	{ name: 'firstRows', run: firstRows.run },
	// Headless Chromium running noVNC against the emulator's animated desktop.
	{ name: 'vnc', run: vnc.run },
	{ name: 'hostile', run: hostile.run },
];

async function main(): Promise<void> {
	const startLoad = loadavg();
	const only = process.argv.slice(2);
	const emu = await startEmulator({ port: 0, seed: 'demo', quiet: true });
	const sections: Section[] = [];
	const ctx: BenchContext = {
		emulatorUrl: emu.url,
		token: 'ca_dev_0123456789abcdef',
		addSection: (s) => sections.push(s),
		log: (m) => process.stderr.write(`bench: ${m}\n`),
	};
	try {
		for (const s of SECTIONS) {
			if (only.length === 0 || only.includes(s.name)) {
				await s.run(ctx);
			}
		}
	} finally {
		await emu.close();
	}
	const table = renderTable(sections);
	const targets = renderTargets(sections);
	const when = new Date().toISOString();
	process.stdout.write(`\n${table}\n${targets}\n`);
	if (only.length === 0) {
		// A partial run (sections named on the command line) leaves RESULTS.md alone.
		const end = loadavg();
		const cores = cpus().length;
		const fmt = (a: number[]): string => a.map((x) => x.toFixed(2)).join(', ');
		const load = `load average (1, 5, 15 min) at the start: ${fmt(startLoad)}, at the end: ${fmt(end)}`;
		// The bench itself keeps about one core busy; more than a quarter of the cores on top of that is load from others.
		const busy = (startLoad[0] ?? 0) > cores * 0.25 || (end[1] ?? 0) - 1 > cores * 0.25;
		const busyNote = busy
			? ` The machine was under load from other processes during this run: ratios are paired within interleaved rounds and so hold up best, absolute latencies and rates are not comparable across runs.`
			: '';
		const md = `# Bench results\n\nLatest run of \`npm run bench\`: ${when}\n\nMachine: ${machine()}; ${load}.${busyNote}\n\nHow the bench measures, and what the hostile section does: bench/README.md.\n\n${targets}\n${table}`;
		writeFileSync(join(__dirname, '..', '..', 'bench', 'RESULTS.md'), md);
	}
	const failed = sections.flatMap((s) => s.rows).filter((r) => r.pass === false);
	if (failed.length > 0) {
		process.stderr.write(`bench: ${failed.length} target(s) missed\n`);
		process.exitCode = 1;
	}
}

main().catch((err: unknown) => {
	process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
	process.exit(1);
});
