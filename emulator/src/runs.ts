import type { Emulator } from './emulator';
import { ulid } from './ids';
import type { AgentRow, RunEvent, RunRow, RunStatus } from './state';
import { TERMINAL } from './state';
import { nowIso } from './util';
import { normalizePath } from './workspace';

/** What a run did to a workspace file (the `change` of a `file.changed` event). */
export type ChangeKind = 'created' | 'modified' | 'deleted';
const CHANGE_KINDS: readonly ChangeKind[] = ['created', 'modified', 'deleted'];
/** What one step of `[[changes:N:KIND]]` does: a change kind, or `same-size` (a modification that keeps the size). */
export type ScriptedChangeKind = ChangeKind | 'same-size';
const SCRIPTED_KINDS: readonly string[] = [...CHANGE_KINDS, 'same-size'];

/** Scripted-agent directives read from the prompt (docs/contract-choices.md, "Runs and events"). */
export interface Directives {
	events?: number;
	/** `[[ticks:N]]`: N log events, one per step (`delay` apart): a run that keeps talking for a while. */
	ticks?: number;
	delay?: number;
	fail: boolean;
	hold: boolean;
	nosession: boolean;
	writes: string[];
	deletes: string[];
	/**
	 * `[[changes:N]]` (created, modified, deleted in turn) or `[[changes:N:KIND]]` (N of one kind;
	 * `same-size`: modified, the content rewritten at the same length).
	 */
	changes: { n: number; kind?: ScriptedChangeKind | undefined }[];
	artifacts: string[];
	/** Whether any directive other than delay/nosession was given. */
	custom: boolean;
}

const MAX_SCRIPTED_EVENTS = 1_000_000;
/** At most this many `[[ticks:N]]` steps. */
export const MAX_SCRIPTED_TICKS = 100_000;
/** At most this many files changed by one `[[changes:N]]`. */
export const MAX_SCRIPTED_CHANGES = 1000;

export function parseDirectives(prompt: string): Directives {
	const d: Directives = {
		fail: false,
		hold: false,
		nosession: false,
		writes: [],
		deletes: [],
		changes: [],
		artifacts: [],
		custom: false,
	};
	const re = /\[\[(events|ticks|delay|write|delete|changes|artifact):([^\]]*)\]\]|\[\[(fail|hold|nosession)\]\]/g;
	for (const m of prompt.matchAll(re)) {
		const [, key, arg = '', flag] = m;
		if (flag === 'fail') d.fail = d.custom = true;
		else if (flag === 'hold') d.hold = d.custom = true;
		else if (flag === 'nosession') d.nosession = true;
		else if (key === 'events') {
			const n = Number.parseInt(arg, 10);
			if (Number.isFinite(n) && n >= 0) d.events = Math.min(n, MAX_SCRIPTED_EVENTS);
			d.custom = true;
		} else if (key === 'ticks') {
			const n = Number.parseInt(arg, 10);
			if (Number.isFinite(n) && n >= 0) d.ticks = Math.min(n, MAX_SCRIPTED_TICKS);
			d.custom = true;
		} else if (key === 'delay') {
			const n = Number.parseInt(arg, 10);
			if (Number.isFinite(n) && n >= 0) d.delay = Math.min(n, 60_000);
		} else if (key === 'write') {
			d.writes.push(arg.trim());
			d.custom = true;
		} else if (key === 'delete') {
			d.deletes.push(arg.trim());
			d.custom = true;
		} else if (key === 'changes') {
			const [count = '', kind] = arg.split(':').map((x) => x.trim());
			const n = Number.parseInt(count, 10);
			if (Number.isFinite(n) && n > 0) {
				d.changes.push({
					n: Math.min(n, MAX_SCRIPTED_CHANGES),
					kind: SCRIPTED_KINDS.includes(kind ?? '') ? (kind as ScriptedChangeKind) : undefined,
				});
			}
			d.custom = true;
		} else if (key === 'artifact') {
			d.artifacts.push(arg.trim());
			d.custom = true;
		}
	}
	return d;
}

/**
 * `prev` with its first ASCII bytes overwritten by `marker` (cycled), the length kept; a byte of a
 * multi-byte character is left alone so UTF-8 stays valid. When that changes nothing (the marker was
 * already there), the first ASCII letter's case is flipped instead, or the first ASCII byte toggled.
 */
export function sameSizeRewrite(prev: Buffer, marker: string): Buffer {
	const out = Buffer.from(prev);
	const m = Buffer.from(marker, 'ascii');
	for (let i = 0, j = 0; i < out.length && j < m.length; i++) {
		if (out[i]! < 0x80 && out[i] !== 0x0a) out[i] = m[j++]!;
	}
	if (out.equals(prev)) {
		const i = out.findIndex((b) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
		if (i >= 0) out[i] = out[i]! ^ 0x20;
		else {
			const a = out.findIndex((b) => b < 0x80);
			if (a >= 0) out[a] = out[a] === 0x30 ? 0x31 : 0x30;
		}
	}
	return out;
}

/** Where `[[changes:N]]` puts the files it creates. */
export const CHANGES_FOLDER = 'agent-changes';
/** Where a run without directives keeps its notes. */
export const NOTES_FOLDER = 'notes';

type Step = { kind: 'do'; fn: (run: RunRow) => void } | { kind: 'logs'; n: number } | { kind: 'hold' };

interface ScriptState {
	steps: Step[];
	delay: number;
	timer?: NodeJS.Timeout | undefined;
	/** The script stopped at its `[[hold]]` step and waits there. */
	holding?: boolean;
	/** `releaseHold` was called: the `[[hold]]` step is passed (now, or when the script reaches it). */
	released?: boolean;
}

type Listener = () => void;

const ARTIFACT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

export class RunEngine {
	private readonly listeners = new Map<string, Set<Listener>>();
	private readonly scripts = new Map<string, ScriptState>();
	/** Runs removed while a stream was open: the reason their streams end with an error event. */
	private readonly gone = new Map<string, string>();

	constructor(private readonly emu: Emulator) {}

	activeRun(agentId: string): RunRow | undefined {
		return this.emu.data.runs.find((r) => r.agent_id === agentId && !TERMINAL.has(r.status));
	}

	create(
		agent: AgentRow,
		opts: { prompt: string; imageCount: number; parentRunId?: string | undefined; sessionId?: string | undefined },
	): RunRow {
		const now = Date.now();
		const directives = parseDirectives(opts.prompt);
		const iso = nowIso(now);
		const run: RunRow = {
			id: `run_${ulid(now)}`,
			agent_id: agent.id,
			status: 'queued',
			prompt: opts.prompt,
			parent_run_id: opts.parentRunId,
			dsh_session_id: directives.nosession ? undefined : (opts.sessionId ?? `ses_${ulid(now)}`),
			created_at: iso,
			updated_at: iso,
			created_ms: now,
			image_count: opts.imageCount,
			events: [],
			event_bytes: 0,
			hold: directives.hold,
		};
		this.emu.data.runs.push(run);
		agent.status = 'running';
		agent.updated_at_ms = this.emu.activityClock();
		this.emit(run, 'run.status', { status: 'queued' });
		const script: ScriptState = { steps: this.buildScript(agent, run, directives), delay: directives.delay ?? 330 };
		this.scripts.set(run.id, script);
		this.schedule(run, script);
		this.emu.markDirty();
		return run;
	}

	private buildScript(agent: AgentRow, run: RunRow, d: Directives): Step[] {
		const steps: Step[] = [];
		const doStep = (fn: (run: RunRow) => void): void => {
			steps.push({ kind: 'do', fn });
		};
		const short =
			run.prompt
				.replace(/\[\[[^\]]*\]\]/g, '')
				.trim()
				.slice(0, 80) || '(images only)';
		// A word a test gave the run while it was queued (`PUT /_emulator/agents/{id}/runs/{id}/status`:
		// it waits for a person) is kept: the script starting does not set it back to running.
		doStep((r) => {
			if (r.status === 'queued') this.setStatus(r, 'running');
		});
		doStep((r) => this.emit(r, 'message', { role: 'assistant', text: `Looking into: ${short}` }));
		const changed: { path: string; change: ChangeKind }[] = [];
		const note = (path: string, change: ChangeKind | undefined): void => {
			if (change) changed.push({ path, change });
		};
		const made: string[] = [];
		if (!d.custom) {
			doStep((r) => this.emit(r, 'tool.call', { tool: 'workspace.search', input: { query: 'TODO' } }));
			doStep((r) => {
				const found = this.emu.workspace(agent.id).search('TODO', '', 50, false).matches.length;
				this.emit(r, 'tool.result', { tool: 'workspace.search', output: `${found} match(es)` });
			});
			doStep((r) => this.emit(r, 'log', { level: 'info', text: `Recording progress in ${NOTES_FOLDER}/agent-log.md` }));
			doStep((r) => note(`${NOTES_FOLDER}/agent-log.md`, this.writeFile(agent, r, `${NOTES_FOLDER}/agent-log.md`, null)));
			// A note of this run replaces the previous runs' notes: from the second run on, a run
			// without directives adds, modifies and deletes a file.
			const own = `${NOTES_FOLDER}/run-${run.id.slice(-10).toLowerCase()}.md`;
			doStep((r) => {
				note(own, this.writeFile(agent, r, own, `# Run ${r.id}\n\nPrompt: ${short}\n`));
				const old = this.emu
					.workspace(agent.id)
					.filePaths(NOTES_FOLDER)
					.filter((p) => /^notes\/run-[^/]*\.md$/.test(p) && p !== own);
				for (const p of old) if (this.deleteFile(agent, r, p)) note(p, 'deleted');
			});
			doStep((r) => {
				const name = `summary-${r.id.slice(-10).toLowerCase()}.md`;
				this.createArtifact(agent, r, name, 'text/markdown', `# Run summary\n\nPrompt: ${short}\n`);
				made.push(name);
			});
		} else {
			if (d.events !== undefined && d.events > 0) steps.push({ kind: 'logs', n: d.events });
			for (let i = 1; i <= (d.ticks ?? 0); i++) {
				doStep((r) => this.emit(r, 'log', { level: 'info', text: `tick ${i} of ${d.ticks}` }));
			}
			for (const p of d.writes) {
				doStep((r) => note(p, this.writeFile(agent, r, p, null)));
			}
			for (const p of d.deletes) {
				doStep((r) => {
					if (this.deleteFile(agent, r, p)) note(normalizePath('delete', p), 'deleted');
				});
			}
			let k = 0;
			for (const c of d.changes) {
				for (let i = 0; i < c.n; i++) {
					const kind = c.kind ?? CHANGE_KINDS[i % 3]!;
					doStep((r) => {
						const done = this.scriptedChange(agent, r, kind, k++, new Set(changed.map((x) => x.path)));
						if (done) changed.push(done);
					});
				}
			}
			for (const n of d.artifacts) {
				doStep((r) => {
					if (
						this.createArtifact(agent, r, n, n.endsWith('.md') ? 'text/markdown' : 'text/plain', `Artifact ${n} from ${r.id}\n`)
					) {
						made.push(n);
					}
				});
			}
			if (d.hold) steps.push({ kind: 'hold' });
		}
		doStep((r) => {
			if (d.fail) {
				this.emit(r, 'message', { role: 'assistant', text: 'The task failed.' });
				this.complete(r, 'failed', undefined, 'Scripted failure requested with [[fail]]');
				return;
			}
			const lines = ['## Done', '', `Task: ${short}`];
			if (changed.length) lines.push('', '### Files changed', ...changed.map((c) => `- \`${c.path}\` (${c.change})`));
			if (made.length) lines.push('', '### Artifacts', ...made.map((m) => `- ${m}`));
			const result = lines.join('\n');
			this.emit(r, 'message', { role: 'assistant', text: result });
			this.complete(r, 'succeeded', result);
		});
		return steps;
	}

	private schedule(run: RunRow, script: ScriptState): void {
		const step = script.steps.shift();
		if (!step || TERMINAL.has(run.status)) {
			this.scripts.delete(run.id);
			return;
		}
		if (step.kind === 'hold') {
			// Stays running until cancelled, or until the test releases it (releaseHold).
			if (!script.released) {
				script.holding = true;
				return;
			}
			this.schedule(run, script);
			return;
		}
		script.timer = this.emu.later(step.kind === 'logs' ? 0 : script.delay, () => {
			script.timer = undefined;
			if (TERMINAL.has(run.status)) return;
			if (step.kind === 'do') {
				step.fn(run);
				this.schedule(run, script);
			} else if (step.kind === 'logs') {
				this.emitLogs(run, script, step.n, 0);
			}
		});
	}

	private emitLogs(run: RunRow, script: ScriptState, total: number, done: number): void {
		const batch = Math.min(1000, total - done);
		for (let i = 0; i < batch; i++) this.emit(run, 'log', { level: 'info', text: `step ${done + i + 1} of ${total}` }, false);
		this.notify(run.id);
		const next = done + batch;
		if (next >= total) {
			this.schedule(run, script);
			return;
		}
		script.timer = this.emu.later(0, () => {
			script.timer = undefined;
			if (!TERMINAL.has(run.status)) this.emitLogs(run, script, total, next);
		});
	}

	/** Writes `content` (or appends a line to the file) and says so in a file.changed event; the change made, if any. */
	private writeFile(agent: AgentRow, run: RunRow, rawPath: string, content: string | Buffer | null): ChangeKind | undefined {
		let path: string;
		try {
			path = normalizePath('write', rawPath);
		} catch (e) {
			this.emit(run, 'log', { level: 'warn', text: `skipped [[write:${rawPath}]]: ${(e as Error).message}` });
			return undefined;
		}
		const ws = this.emu.workspace(agent.id);
		try {
			const existed = ws.has(path);
			const prev = existed ? ws.read(path, 0, 1 << 20).data.toString('utf8') : '';
			const body = content ?? `${prev}- ${nowIso()} ${run.id}: ${run.prompt.replace(/\s+/g, ' ').slice(0, 120)}\n`;
			ws.write(path, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
			const change: ChangeKind = existed ? 'modified' : 'created';
			this.emit(run, 'file.changed', { path, change });
			return change;
		} catch (e) {
			this.emit(run, 'log', { level: 'warn', text: `could not write ${path}: ${(e as Error).message}` });
			return undefined;
		}
	}

	/** Deletes a workspace file and says so in a file.changed event. */
	private deleteFile(agent: AgentRow, run: RunRow, rawPath: string): boolean {
		try {
			const path = normalizePath('delete', rawPath);
			const ws = this.emu.workspace(agent.id);
			if (ws.content(path) === undefined) throw new Error('no such file');
			ws.delete(path, false);
			this.emit(run, 'file.changed', { path, change: 'deleted' });
			return true;
		} catch (e) {
			this.emit(run, 'log', { level: 'warn', text: `skipped [[delete:${rawPath}]]: ${(e as Error).message}` });
			return false;
		}
	}

	/**
	 * One file of `[[changes:N]]`: creates `agent-changes/<run>-<k>.txt`, or modifies (appends a line to)
	 * or deletes an existing file this run has not touched yet, picked by a fixed stride through the
	 * sorted file list so that changes spread over the tree. Modifications pick text files only;
	 * `same-size` ones pick non-empty text files and overwrite their first bytes with a marker (ASCII
	 * bytes only, so UTF-8 stays valid), keeping the length. Where nothing is left to modify or delete,
	 * the file is created instead.
	 */
	private scriptedChange(
		agent: AgentRow,
		run: RunRow,
		kind: ScriptedChangeKind,
		k: number,
		touched: ReadonlySet<string>,
	): { path: string; change: ChangeKind } | undefined {
		const ws = this.emu.workspace(agent.id);
		if (kind !== 'created') {
			const pool = ws
				.filePaths()
				.filter(
					(p) =>
						!touched.has(p) &&
						(kind === 'deleted' || !ws.content(p)!.includes(0)) &&
						(kind !== 'same-size' || ws.content(p)!.byteLength > 0),
				);
			const path = pool.length > 0 ? pool[(k * 7919) % pool.length]! : undefined;
			if (path !== undefined && kind === 'deleted') {
				return this.deleteFile(agent, run, path) ? { path, change: 'deleted' } : undefined;
			}
			if (path !== undefined && kind === 'same-size') {
				const change = this.writeFile(agent, run, path, sameSizeRewrite(ws.content(path)!, `~${run.id.slice(-8)}:${k + 1}~`));
				return change ? { path, change } : undefined;
			}
			if (path !== undefined) {
				const prev = ws.content(path)!.toString('utf8');
				const sep = prev === '' || prev.endsWith('\n') ? '' : '\n';
				const change = this.writeFile(agent, run, path, `${prev}${sep}changed by ${run.id} (${k + 1})\n`);
				return change ? { path, change } : undefined;
			}
		}
		const path = `${CHANGES_FOLDER}/${run.id.slice(-10).toLowerCase()}-${String(k + 1).padStart(4, '0')}.txt`;
		const change = this.writeFile(agent, run, path, `Created by ${run.id} (change ${k + 1})\n`);
		return change ? { path, change } : undefined;
	}

	private createArtifact(agent: AgentRow, run: RunRow, name: string, mediaType: string, text: string): boolean {
		if (!ARTIFACT_NAME_RE.test(name)) {
			this.emit(run, 'log', { level: 'warn', text: `skipped [[artifact:${name}]]: invalid artifact name` });
			return false;
		}
		const id = `art_${ulid()}`;
		this.emu.data.artifacts.push({
			id,
			agent_id: agent.id,
			run_id: run.id,
			harness_id: agent.harness_id,
			name,
			media_type: mediaType,
			created_at: nowIso(),
			content: Buffer.from(text, 'utf8'),
		});
		this.emit(run, 'artifact.created', { artifact_id: id, name });
		return true;
	}

	emit(run: RunRow, type: string, data: Record<string, unknown>, notify = true): RunEvent {
		const ev: RunEvent = { seq: run.events.length, run_id: run.id, type, created_at: nowIso(), data };
		run.events.push(ev);
		run.event_bytes += JSON.stringify(ev).length;
		if (notify) this.notify(run.id);
		return ev;
	}

	private setStatus(run: RunRow, status: RunStatus): void {
		run.status = status;
		run.updated_at = nowIso();
		this.emit(run, 'run.status', { status });
	}

	complete(run: RunRow, status: 'succeeded' | 'failed' | 'cancelled', result?: string, error?: string): void {
		if (TERMINAL.has(run.status)) return;
		const script = this.scripts.get(run.id);
		if (script) {
			this.emu.cancelLater(script.timer);
			this.scripts.delete(run.id);
		}
		this.setStatus(run, status);
		if (result !== undefined) run.result = result;
		if (error !== undefined) run.error = error;
		const data: Record<string, unknown> = { status };
		if (result !== undefined) data.result = result;
		if (error !== undefined) data.error = error;
		this.emit(run, 'run.completed', data);
		const agent = this.emu.data.agents.find((a) => a.id === run.agent_id);
		if (agent) {
			const now = this.emu.activityClock();
			if (agent.status === 'running' && !this.activeRun(agent.id)) agent.status = 'idle';
			agent.updated_at_ms = now;
			if (result !== undefined) {
				const iso = nowIso(now);
				agent.latest_reply = {
					run_id: run.id,
					text: result,
					created_at: agent.latest_reply?.run_id === run.id ? agent.latest_reply.created_at : iso,
					updated_at: iso,
				};
			}
		}
		this.enforceCaps(run.agent_id);
		this.emu.markDirty();
	}

	/**
	 * Releases a `[[hold]]` run (`POST /_emulator/runs/{run_id}/release`): its script goes on after the
	 * hold to its scripted end (succeeded, or failed with `[[fail]]`), one step later; a run not yet at
	 * its hold passes it. False for a run with no script of ours left to release: ended, without
	 * `[[hold]]`, or held from a state file or the seed (those end by cancelling only).
	 */
	releaseHold(run: RunRow): boolean {
		const script = this.scripts.get(run.id);
		if (!script || TERMINAL.has(run.status) || !run.hold || script.released) return false;
		script.released = true;
		run.hold = false;
		if (script.holding) {
			script.holding = false;
			this.schedule(run, script);
		}
		this.emu.markDirty();
		return true;
	}

	cancel(run: RunRow): void {
		if (TERMINAL.has(run.status)) return;
		this.emit(run, 'log', { level: 'info', text: 'Cancellation requested' });
		this.complete(run, 'cancelled', undefined, 'Cancelled by the caller');
	}

	/** A follow-up steering an active run arrives in it as a user message. */
	steer(run: RunRow, prompt: string): void {
		this.emit(run, 'message', { role: 'user', text: prompt });
		run.updated_at = nowIso();
	}

	subscribe(runId: string, fn: Listener): () => void {
		let set = this.listeners.get(runId);
		if (!set) {
			set = new Set();
			this.listeners.set(runId, set);
		}
		set.add(fn);
		return () => {
			const s = this.listeners.get(runId);
			if (!s) return;
			s.delete(fn);
			if (s.size === 0) this.listeners.delete(runId);
		};
	}

	goneReason(runId: string): string | undefined {
		return this.gone.get(runId);
	}

	private notify(runId: string): void {
		const set = this.listeners.get(runId);
		if (set) for (const fn of [...set]) fn();
	}

	/** The run is being removed (its agent was deleted): stop its script and end open streams. */
	stop(run: RunRow, reason: string): void {
		const script = this.scripts.get(run.id);
		if (script) this.emu.cancelLater(script.timer);
		this.scripts.delete(run.id);
		if (this.listeners.has(run.id)) {
			this.gone.set(run.id, reason);
			this.notify(run.id);
			if (this.gone.size > 1000) this.gone.clear();
		}
	}

	stopAll(): void {
		for (const s of this.scripts.values()) this.emu.cancelLater(s.timer);
		this.scripts.clear();
		for (const runId of [...this.listeners.keys()]) {
			this.gone.set(runId, 'unavailable');
			this.notify(runId);
		}
	}

	/** After loading a state file: scripted runs that were in flight are failed; held runs keep holding. */
	recoverAfterLoad(): void {
		for (const run of this.emu.data.runs) {
			if (TERMINAL.has(run.status) || run.hold) continue;
			this.complete(run, 'failed', undefined, 'Interrupted: the emulator restarted');
		}
		for (const a of this.emu.data.agents) if (a.status === 'running' && !this.activeRun(a.id)) a.status = 'idle';
	}

	/** Memory bound: completed runs per agent and total stored event bytes; a kept run keeps all its events. */
	private enforceCaps(agentId: string): void {
		const { maxRunsPerAgent, maxTotalEventBytes } = this.emu.config;
		const runs = this.emu.data.runs;
		const ofAgent = runs.filter((r) => r.agent_id === agentId);
		const evict = new Set<RunRow>();
		if (ofAgent.length > maxRunsPerAgent) {
			const terminal = ofAgent.filter((r) => TERMINAL.has(r.status)).sort((a, b) => a.created_ms - b.created_ms);
			for (const r of terminal.slice(0, ofAgent.length - maxRunsPerAgent)) evict.add(r);
		}
		let total = 0;
		for (const r of runs) if (!evict.has(r)) total += r.event_bytes;
		if (total > maxTotalEventBytes) {
			const terminal = runs.filter((r) => TERMINAL.has(r.status) && !evict.has(r)).sort((a, b) => a.created_ms - b.created_ms);
			for (const r of terminal) {
				if (total <= maxTotalEventBytes) break;
				// never evict the newest run of an agent: the client is most likely reading it
				if (runs.some((o) => o.agent_id === r.agent_id && o.created_ms > r.created_ms) === false) continue;
				evict.add(r);
				total -= r.event_bytes;
			}
		}
		if (evict.size > 0) this.emu.data.runs = runs.filter((r) => !evict.has(r));
	}
}
