// Signs of life for the long steps of `npm start` and the test harness (issue 33, item 13): the
// first start installs code-server and builds its native modules for 3 to 7 minutes; a line every
// few seconds with the time so far and the step's latest output shows that it is working.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** How often a long step says it is still working. */
export const HEARTBEAT_MS = 10_000;
/** How much of a step's output is kept for its last line and for the error when it fails. */
const TAIL_BYTES = 64 * 1024;
const ESC = String.fromCharCode(27);
/** ANSI escape sequences (colours, cursor moves) in a tool's output. */
const ANSI = new RegExp(`${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}[@-Z\\\\-_]`, 'g');

/** `45 s`, `3 min 05 s`. */
export function formatDuration(ms) {
	const s = Math.max(0, Math.floor(ms / 1000));
	return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * The last line of `text` that has something to read: escape sequences dropped, a line that
 * rewrites itself with carriage returns read as its last state, cut to `max` characters.
 */
export function lastOutputLine(text, max = 100) {
	const lines = String(text)
		.replace(ANSI, '')
		.split('\n')
		.map((line) =>
			(
				line
					.split('\r')
					.filter((part) => part.trim() !== '')
					.pop() ?? ''
			).trim(),
		)
		.filter((line) => line !== '');
	const last = lines.pop() ?? '';
	return last.length > max ? `${last.slice(0, max - 1)}…` : last;
}

/** The line a long step prints while it works. */
export function progressLine(what, elapsedMs, lastLine) {
	return `${what}: still working, ${formatDuration(elapsedMs)} so far${lastLine ? ` (last output: ${lastLine})` : ''}`;
}

/**
 * Runs `cmd` without blocking (unlike spawnSync, which would also block the progress lines) and
 * logs `progressLine` every `everyMs`. Resolves with its output; rejects, with its last 40 lines,
 * when it exits with another status than 0.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ what: string, log: (line: string) => void, everyMs?: number, cwd?: string, env?: NodeJS.ProcessEnv }} opts
 * @returns {Promise<string>}
 */
export function runWithProgress(cmd, args, { what, log, everyMs = HEARTBEAT_MS, cwd, env }) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		let tail = '';
		const keep = (chunk) => {
			tail += chunk;
			if (tail.length > TAIL_BYTES) {
				tail = tail.slice(-TAIL_BYTES);
			}
		};
		const child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
		child.stdout.setEncoding('utf8').on('data', keep);
		child.stderr.setEncoding('utf8').on('data', keep);
		const timer = setInterval(() => log(progressLine(what, Date.now() - started, lastOutputLine(tail))), everyMs);
		child.once('error', (err) => {
			clearInterval(timer);
			reject(err);
		});
		child.once('close', (code, signal) => {
			clearInterval(timer);
			if (code === 0) {
				resolve(tail);
				return;
			}
			const last = tail.trim().split('\n').slice(-40).join('\n');
			reject(
				new Error(
					`${cmd} ${args.join(' ')} failed (exit ${code ?? signal}) after ${formatDuration(Date.now() - started)}:\n${last}`,
				),
			);
		});
	});
}

/** Awaits `promise`, logging `progressLine(what, …)` every `everyMs` until it settles. */
export async function withHeartbeat(what, promise, { log, everyMs = HEARTBEAT_MS }) {
	const started = Date.now();
	const timer = setInterval(() => log(progressLine(what, Date.now() - started, '')), everyMs);
	try {
		return await promise;
	} finally {
		clearInterval(timer);
	}
}

/**
 * The environment of code-server's postinstall (its native modules built with node-gyp for `nodeDir`):
 * every core compiling (node-gyp's JOBS; one compiler at a time took 7 minutes on a busy 2-core
 * machine), and the build scripts' output in the foreground, so the progress line's "last output"
 * names what is being compiled instead of staying on npm's first line (issue 42, item 14).
 */
export function nativeBuildEnv(env, nodeDir, nodeVersion) {
	return {
		...env,
		PATH: `${join(nodeDir, 'bin')}:${env.PATH}`,
		npm_config_nodedir: nodeDir,
		npm_config_user_agent: `npm/11 node/${nodeVersion} linux x64`,
		npm_config_foreground_scripts: 'true',
		JOBS: 'max',
	};
}
