/**
 * Bench driver: starts the emulator in-process, runs every section, prints the table and writes
 * bench/RESULTS.md. Add a section: create bench/sections/<name>.ts exporting `run(ctx)` and list
 * it in SECTIONS below. Run through `npm run bench` (node --expose-gc).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '../emulator/src/server';
import { type BenchContext, type Section, machine, renderTable } from './report';
import * as api from './sections/api';
import * as workspace from './sections/workspace';

const SECTIONS: Array<{ name: string; run: (ctx: BenchContext) => Promise<void> }> = [{ name: 'api', run: api.run }, { name: 'workspace', run: workspace.run }];

async function main(): Promise<void> {
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
	const when = new Date().toISOString();
	process.stdout.write(`\n${table}\n`);
	const md = `# Bench results\n\nLatest run of \`npm run bench\`: ${when}\n\nMachine: ${machine()}\n\n${table}`;
	writeFileSync(join(__dirname, '..', '..', 'bench', 'RESULTS.md'), md);
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
