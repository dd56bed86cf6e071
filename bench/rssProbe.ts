/**
 * Loaded into the mocha process of the bench's hostile section with `--require`: it appends one
 * JSON line when it loads (the pid and the resident set of Node + mocha before any test file) and
 * one on process exit (the kernel's resident high-water mark, `VmHWM`, and
 * `process.resourceUsage().maxRSS`) to the file named by BENCH_RSS_REPORT. It imports nothing but
 * `node:fs`, so it adds nothing to the figure it measures.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/** One line of the report file. Sizes are in KiB, as the kernel reports them. */
export interface ProbeLine {
	event: 'start' | 'exit';
	pid: number;
	/** VmRSS from /proc/self/status (undefined off Linux). */
	rssKb?: number;
	/** VmHWM from /proc/self/status: peak resident set over the process's whole life. */
	hwmKb?: number;
	/** getrusage(RUSAGE_SELF).ru_maxrss through process.resourceUsage(). */
	maxRssKb: number;
	/** The exit code mocha set, on the exit line. */
	exitCode?: number;
}

/** Reads one `Name:   1234 kB` field of /proc/self/status, or undefined where there is none. */
export function procStatusKb(status: string, field: 'VmRSS' | 'VmHWM'): number | undefined {
	const m = new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, 'm').exec(status);
	return m ? Number(m[1]) : undefined;
}

function line(event: ProbeLine['event'], exitCode?: number): ProbeLine {
	let status = '';
	try {
		status = readFileSync('/proc/self/status', 'utf8');
	} catch {
		// Not Linux: maxRSS alone.
	}
	return {
		event,
		pid: process.pid,
		rssKb: procStatusKb(status, 'VmRSS'),
		hwmKb: procStatusKb(status, 'VmHWM'),
		maxRssKb: process.resourceUsage().maxRSS,
		exitCode,
	};
}

const target = process.env.BENCH_RSS_REPORT;
if (target) {
	appendFileSync(target, `${JSON.stringify(line('start'))}\n`);
	// 'exit' handlers run synchronously on process.exit() (mocha --exit) and on a natural exit.
	process.on('exit', (code) => {
		appendFileSync(target, `${JSON.stringify(line('exit', code))}\n`);
	});
}
