/**
 * Hostile-server tests: runs the compiled hostile unit tests (`out/test/unit/**\/*hostile*.test.js`)
 * with mocha in a child Node process and reports that process's peak resident set size (goal
 * under 300 MB), so a server that sends endless pages, huge bodies or event floods is seen not to
 * make the client hold them.
 *
 * BENCH_HOSTILE_TESTS replaces the default pattern: comma-separated paths or globs (`*`, `**`)
 * relative to the repository root, e.g. `out/test/unit/api/transport.test.js`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { ProbeLine } from '../rssProbe';
import { procStatusKb } from '../rssProbe';
import type { BenchContext, Row } from '../report';

/** The default selection: every compiled hostile unit test. */
export const HOSTILE_PATTERN = 'out/test/unit/**/*hostile*.test.js';
/** The goal of the issue, in MiB. */
const GOAL_MB = 300;
/** How often the parent samples the child's /proc status (the fallback figure). */
const SAMPLE_MS = 25;
/** The child is killed after this long (a hung hostile test must not hang the bench). */
const CHILD_TIMEOUT_MS = 15 * 60_000;

const ROOT = join(__dirname, '..', '..', '..');

/** A glob (`**` = any folders, `*` = any characters but `/`) as an anchored regular expression. */
function globToRegExp(glob: string): RegExp {
	let re = '';
	for (let i = 0; i < glob.length; i++) {
		const ch = glob[i] as string;
		if (glob.startsWith('**/', i)) {
			re += '(?:.*/)?';
			i += 2;
		} else if (glob.startsWith('**', i)) {
			re += '.*';
			i += 1;
		} else if (ch === '*') {
			re += '[^/]*';
		} else {
			re += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
		}
	}
	return new RegExp(`^${re}$`);
}

function walk(dir: string, out: string[]): void {
	if (!existsSync(dir)) {
		return;
	}
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		const p = join(dir, e.name);
		if (e.isDirectory()) {
			walk(p, out);
		} else if (e.isFile()) {
			out.push(relative(ROOT, p).split(sep).join('/'));
		}
	}
}

/**
 * The compiled test files the patterns select, sorted (mocha's load order), leaving out any whose
 * TypeScript source is gone (tsc never deletes its old output). Returns them and the stale ones.
 */
export function selectTests(patterns: string[]): { files: string[]; stale: string[] } {
	const all: string[] = [];
	walk(join(ROOT, 'out', 'test'), all);
	const res = patterns.map((p) => globToRegExp(p.trim().replace(/^\.\//, '')));
	const picked = all.filter((f) => res.some((re) => re.test(f))).sort();
	const files: string[] = [];
	const stale: string[] = [];
	for (const f of picked) {
		const source = f.replace(/^out\//, '').replace(/\.js$/, '.ts');
		(existsSync(join(ROOT, source)) ? files : stale).push(f);
	}
	return { files, stale };
}

/** The repository's .mocharc.json options as CLI flags, without its `spec` (the files are ours). */
function mocharcFlags(): string[] {
	const path = join(ROOT, '.mocharc.json');
	if (!existsSync(path)) {
		return [];
	}
	const rc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
	const flags: string[] = [];
	for (const [key, value] of Object.entries(rc)) {
		if (key === 'spec') {
			continue;
		}
		for (const v of Array.isArray(value) ? (value as unknown[]) : [value]) {
			if (v === true) {
				flags.push(`--${key}`);
			} else if (v === false) {
				flags.push(`--no-${key}`);
			} else {
				flags.push(`--${key}`, String(v));
			}
		}
	}
	return flags;
}

interface ChildResult {
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	timedOut: boolean;
	output: string;
	probe: ProbeLine[];
	/** Largest VmRSS the parent saw while sampling, KiB. */
	sampledRssKb: number;
	/** Last VmHWM the parent read (monotonic, so the latest is the largest), KiB. */
	sampledHwmKb: number;
	samples: number;
	seconds: number;
}

/** Runs mocha on the files in a child process with the RSS probe, sampling its /proc status meanwhile. */
async function runChild(files: string[]): Promise<ChildResult> {
	const dir = mkdtempSync(join(tmpdir(), 'bench-hostile-'));
	const report = join(dir, 'rss.jsonl');
	const mocha = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
	const probe = join(ROOT, 'out', 'bench', 'rssProbe.js');
	const args = [mocha, '--no-config', ...mocharcFlags(), '--reporter', 'dot', '--require', probe, ...files];
	const t0 = performance.now();
	const child = spawn(process.execPath, args, {
		cwd: ROOT,
		env: { ...process.env, BENCH_RSS_REPORT: report },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	const keep = (chunk: Buffer): void => {
		output = (output + chunk.toString('utf8')).slice(-20_000);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);

	let sampledRssKb = 0;
	let sampledHwmKb = 0;
	let samples = 0;
	// mocha's bin re-executes itself when given Node flags; the probe names the process that runs the tests.
	const testPid = (): number | undefined => {
		try {
			const first = readFileSync(report, 'utf8').split('\n')[0];
			return first ? (JSON.parse(first) as ProbeLine).pid : undefined;
		} catch {
			return undefined;
		}
	};
	let pid: number | undefined;
	const sample = (): void => {
		pid ??= testPid();
		try {
			const status = readFileSync(`/proc/${pid ?? child.pid}/status`, 'utf8');
			sampledRssKb = Math.max(sampledRssKb, procStatusKb(status, 'VmRSS') ?? 0);
			sampledHwmKb = Math.max(sampledHwmKb, procStatusKb(status, 'VmHWM') ?? 0);
			samples++;
		} catch {
			// Not started yet, already gone, or not Linux.
		}
	};
	const timer = setInterval(sample, SAMPLE_MS);
	let timedOut = false;
	const killer = setTimeout(() => {
		timedOut = true;
		child.kill('SIGKILL');
	}, CHILD_TIMEOUT_MS);
	let exitCode: number | null;
	let signal: NodeJS.Signals | null;
	try {
		[exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', (code, sig) => resolve([code, sig]));
		});
	} finally {
		clearInterval(timer);
		clearTimeout(killer);
	}
	const seconds = (performance.now() - t0) / 1000;
	let probeLines: ProbeLine[] = [];
	try {
		probeLines = readFileSync(report, 'utf8')
			.split('\n')
			.filter((l) => l.trim() !== '')
			.map((l) => JSON.parse(l) as ProbeLine);
	} catch {
		// The child never loaded the probe.
	}
	rmSync(dir, { recursive: true, force: true });
	return { exitCode, signal, timedOut, output, probe: probeLines, sampledRssKb, sampledHwmKb, samples, seconds };
}

/** Mocha's summary counts from the dot reporter's output. */
function counts(output: string): { passing: number; failing: number; pending: number } {
	const n = (word: string): number => Number(new RegExp(`(\\d+) ${word}`).exec(output)?.[1] ?? 0);
	return { passing: n('passing'), failing: n('failing'), pending: n('pending') };
}

const mb = (kb: number): number => kb / 1024;

export async function run(ctx: BenchContext): Promise<void> {
	const override = process.env.BENCH_HOSTILE_TESTS?.trim();
	const patterns = override ? override.split(',').filter((p) => p.trim() !== '') : [HOSTILE_PATTERN];
	const { files, stale } = selectTests(patterns);
	const title = 'Hostile-server tests (peak memory of the client under attack)';
	const selection = `${patterns.join(', ')}${override ? ' (BENCH_HOSTILE_TESTS)' : ''}`;
	const notes = [
		`How it works: mocha runs the compiled files matching ${selection} in a child Node process, with the repository's .mocharc.json options (its spec list aside) and out/bench/rssProbe.js loaded first. The probe records the process's VmRSS when it loads (Node + mocha, no test yet) and, in an exit handler, VmHWM from /proc/self/status and process.resourceUsage().maxRSS; meanwhile the bench reads the child's /proc/<pid>/status every ${SAMPLE_MS} ms. The figure is VmHWM, the kernel's own high-water mark of the resident set over the whole life of the process, which misses no spike however short; as it only grows, the largest reading (the exit handler's, or the parent's last sample if teardown after the handler added a little) is reported. maxRSS (getrusage) is the same counter on Linux and is shown as a cross-check (it is the figure off Linux). The parent's samples are the fallback if the child dies without running its exit handler (e.g. killed); their VmRSS maximum alone would be a lower bound, missing spikes shorter than the interval. The figure includes the test process's own share (Node, mocha, the in-process hostile server and its test data), so the client's part is at most this.`,
	];
	if (stale.length > 0) {
		notes.push(`Left out (compiled output whose TypeScript source is gone): ${stale.join(', ')}.`);
	}
	if (files.length === 0) {
		ctx.log(`hostile: no test file matches ${selection}`);
		ctx.addSection({
			title,
			rows: [
				{
					metric: `peak RSS of the test process while the hostile tests run`,
					value: `not measured: no compiled test matches ${selection}`,
					target: `< ${GOAL_MB} MB`,
					pass: false,
				},
			],
			notes,
		});
		return;
	}
	ctx.log(`hostile: running ${files.length} test file(s) in a child process…`);
	const r = await runChild(files);
	const start = r.probe.find((l) => l.event === 'start');
	const exit = r.probe.find((l) => l.event === 'exit');
	const c = counts(r.output);
	const testsOk = r.exitCode === 0 && !r.timedOut && c.failing === 0 && c.passing > 0;
	if (!testsOk) {
		ctx.log(
			`hostile: the tests did not pass (exit ${r.exitCode ?? r.signal}${r.timedOut ? ', timed out' : ''}); last output:\n${r.output.slice(-4000)}`,
		);
	}

	// VmHWM only grows, so the latest of its readings (the exit handler's, or the parent's last sample
	// when teardown after the handler grew the set a little) is the closest to the true peak.
	let peakKb: number;
	let source: string;
	if (exit?.hwmKb !== undefined || r.sampledHwmKb > 0) {
		peakKb = Math.max(exit?.hwmKb ?? 0, r.sampledHwmKb);
		source = exit ? 'VmHWM, largest reading' : 'VmHWM, last parent sample: the exit handler did not run';
	} else if (exit) {
		peakKb = exit.maxRssKb;
		source = 'resourceUsage().maxRSS at exit';
	} else {
		peakKb = r.sampledRssKb;
		source = 'max sampled VmRSS: the exit handler did not run; a lower bound';
	}
	const peakMb = mb(peakKb);
	const rows: Row[] = [
		{
			metric: `hostile tests (${files.length} file(s)): ${c.passing} passing, ${c.failing} failing, ${c.pending} pending, exit ${r.exitCode ?? r.signal}, ${r.seconds.toFixed(1)} s`,
			value: testsOk ? 'all passed' : r.timedOut ? 'timed out' : 'failed',
			target: 'all pass',
			pass: testsOk,
		},
		{
			metric: `peak RSS of the test process while the ${override ? `selected tests (stand-in, BENCH_HOSTILE_TESTS=${override})` : 'hostile tests'} run (${source})`,
			value: peakKb > 0 ? `${peakMb.toFixed(1)} MB` : 'not measured',
			target: `< ${GOAL_MB} MB`,
			pass: peakKb > 0 && peakMb < GOAL_MB,
		},
	];
	if (start?.rssKb !== undefined) {
		rows.push({ metric: 'RSS when the probe loaded (Node + mocha, before any test file)', value: `${mb(start.rssKb).toFixed(1)} MB` });
	}
	if (exit) {
		rows.push({ metric: 'cross-check: process.resourceUsage().maxRSS at exit', value: `${mb(exit.maxRssKb).toFixed(1)} MB` });
	}
	if (exit?.hwmKb !== undefined) {
		rows.push({ metric: 'VmHWM read by the exit handler', value: `${mb(exit.hwmKb).toFixed(1)} MB` });
	}
	rows.push({
		metric: `parent's samples every ${SAMPLE_MS} ms (${r.samples}): max VmRSS / last VmHWM`,
		value: `${mb(r.sampledRssKb).toFixed(1)} MB / ${mb(r.sampledHwmKb).toFixed(1)} MB`,
	});
	ctx.addSection({ title, rows, notes: [...notes, `Files: ${files.join(', ')}.`] });
}
