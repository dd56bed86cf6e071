/**
 * Helpers of the auth and run-following suites: the extension's test API (what `activate` returns
 * under the harness), emulator admin calls and a scan of everything the extension wrote to disk.
 */
import * as vscode from 'vscode';
import type { CloudAgentsTestApi } from '../../../src/extension';
import type { ShownMessage, StatusBarSnapshot } from '../../../src/testing';
import type { EventRecord } from '../../../src/api';
import type { FollowOutcome } from '../../../src/runFollowing/runFollower';
import { EXTENSION_ID } from '../../../src/ids';
import { devToken, emulatorUrl, words } from './env';

/** CLOUD_AGENTS_TEST_SLOWDOWN: the harness's factor for every ceiling on a slow machine (1 by default). */
export const SLOWDOWN = Math.max(1, Number(process.env.CLOUD_AGENTS_TEST_SLOWDOWN ?? 1) || 1);

/** Activates the extension and returns its test API (set up, with the dev token stored). */
export async function testApi(): Promise<CloudAgentsTestApi> {
	const extension = vscode.extensions.getExtension<CloudAgentsTestApi | undefined>(EXTENSION_ID);
	if (!extension) {
		throw new Error(`${EXTENSION_ID} is not installed`);
	}
	const api = await extension.activate();
	if (!api) {
		throw new Error('the extension returned no test API (CLOUD_AGENTS_TEST_REPORT not set?)');
	}
	await api.ready;
	return api;
}

/** The texts of the messages of one severity the extension showed so far whose text matches `pattern` (in order). */
export async function messagesShown(severity: ShownMessage['severity'], pattern: RegExp): Promise<string[]> {
	const all = (await vscode.commands.executeCommand<ShownMessage[]>('_cloudAgents.window.messages')) ?? [];
	return all.filter((m) => m.severity === severity && pattern.test(m.text)).map((m) => m.text);
}

/** The followed run's status bar item as shown, or undefined while it is hidden (what the user sees). */
export function followedRunStatus(api: CloudAgentsTestApi): StatusBarSnapshot | undefined {
	return api.recorder.statusBarItem('cloudAgents.followedRun');
}

/** The run output channels open now ("Cloud Agents: <agent>: <prompt>"), oldest first. */
export function runChannels(api: CloudAgentsTestApi): string[] {
	return api.recorder.outputChannels().filter((name) => name.startsWith('Cloud Agents: '));
}

/** The events the run follower stored on disk for a run (its pending writes done first). */
export async function storedEvents(api: CloudAgentsTestApi, agentId: string, runId: string): Promise<EventRecord[]> {
	await api.runStore.flushed();
	return api.runStore.read(agentId, runId);
}

/**
 * Resolves with how following the run ended, once every step of that end is done (what the
 * follower's state tells; its change event wakes the check). At once for a run this window does
 * not know. Callers bound the wait with `within`.
 */
export function followEnded(api: CloudAgentsTestApi, agentId: string, runId: string): Promise<FollowOutcome> {
	const follower = api.runFollower;
	return new Promise<FollowOutcome>((resolve) => {
		const check = (): boolean => {
			const state = follower.stateOf(agentId, runId);
			const outcome = state ? state.outcome : { status: undefined };
			if (outcome) {
				resolve(outcome);
				return true;
			}
			return false;
		};
		if (check()) {
			return;
		}
		const sub = follower.onDidChangeFollowing(() => {
			if (check()) {
				sub.dispose();
			}
		});
	});
}

/** The end-of-run notifications shown so far, in order: messages whose only buttons are Open Result and Show Output. */
export function endOfRunNotices(api: CloudAgentsTestApi): ShownMessage[] {
	return api.recorder.messages.filter((m) => m.items.length > 0 && m.items.every((i) => i === 'Open Result' || i === 'Show Output'));
}

/** How many "sign in again" prompts were shown so far. */
export function signInAgainPrompts(api: CloudAgentsTestApi): number {
	return api.recorder.messages.filter((m) => m.text.startsWith('Your Cloud Agents session expired or the token was rejected.')).length;
}

/**
 * What a link's source control shows now (no comparison), as the user reads it: each row's path
 * below `localRoot`, its group and kind (from the row's context value `group:kind`), in path order;
 * undefined when the link has no source control.
 */
export function shownChanges(
	api: CloudAgentsTestApi,
	linkId: string,
	localRoot: string,
): Array<{ path: string; group: string; kind: string }> | undefined {
	const rows = api.recorder.scmRows(`cloudAgents.changes.${linkId}`);
	const root = vscode.Uri.file(localRoot).toString();
	return rows
		?.map((r) => {
			const [group = '', kind = ''] = (r.contextValue ?? '').split(':');
			const path = r.uri.startsWith(`${root}/`) ? decodeURIComponent(r.uri.slice(root.length + 1)) : r.uri;
			return { path, group, kind };
		})
		.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Signs in with the dev token through the command, so later suites find the usual state. */
export async function restoreDevToken(): Promise<void> {
	const ok = await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: devToken() });
	if (ok !== true) {
		throw new Error('could not sign in again with the dev token');
	}
}

/** A JSON call to the emulator (admin API or /v2 with a token). */
export async function emu<T = unknown>(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
	const headers: Record<string, string> = {};
	if (body !== undefined) {
		headers['content-type'] = 'application/json';
	}
	if (token !== undefined) {
		headers.authorization = `Bearer ${token}`;
	}
	const res = await fetch(`${emulatorUrl()}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await res.text();
	let parsed: unknown;
	try {
		parsed = text === '' ? undefined : JSON.parse(text);
	} catch {
		parsed = text;
	}
	return { status: res.status, body: parsed as T };
}

/** An agent of the demo seed, by name (the standard profile lists `agents`, the variant `data`), read with the dev token. */
export async function seedAgent(name: string): Promise<{ id: string; name: string }> {
	const res = await emu<{ agents?: Array<{ id: string; name: string }>; data?: Array<{ id: string; name: string }> }>(
		'GET',
		'/v2/agents?limit=100',
		undefined,
		devToken(),
	);
	const agent = (res.body.agents ?? res.body.data ?? []).find((a) => a.name === name);
	if (!agent) {
		throw new Error(`the demo seed has no agent named ${JSON.stringify(name)} (HTTP ${res.status})`);
	}
	return agent;
}

/** A caller of the emulator's API (`emu`, or a suite's own when its requests must not go through VS Code's proxy settings). */
export type EmulatorCall = <T>(method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: T }>;

/** Creates an agent named `prefix-<time>` with the dev token and waits until the emulator says it is idle; resolves with its id. */
export async function createIdleAgent(prefix: string, call: EmulatorCall = emu): Promise<string> {
	const created = await call<{ id: string }>('POST', '/v2/agents', { name: `${prefix}-${Date.now()}` }, devToken());
	if (created.status !== 201) {
		throw new Error(`creating an agent: HTTP ${created.status} ${JSON.stringify(created.body)}`);
	}
	const id = created.body.id;
	await waitFor('the agent to become idle', async () => {
		const agent = await call<{ status: string }>('GET', `/v2/agents/${encodeURIComponent(id)}`, undefined, devToken());
		return agent.body.status === words().agentIdle ? true : undefined;
	});
	return id;
}

/** A run as the emulator answers its creation (the members the follow suites read). */
export interface RunBody {
	id: string;
	status: string;
	dsh_session_id?: string | null;
}

/** Starts a run of `agentId` with the dev token (202 expected). */
export async function startAgentRun(agentId: string, prompt: string): Promise<RunBody> {
	const res = await emu<RunBody>('POST', `/v2/agents/${encodeURIComponent(agentId)}/runs`, { prompt }, devToken());
	if (res.status !== 202) {
		throw new Error(`starting a run: HTTP ${res.status} ${JSON.stringify(res.body)}`);
	}
	return res.body;
}

/**
 * The run's events as the emulator has them (the session replay of its newest run), as `seq` and
 * type: the replay's query and item members are not shown in the description (standard
 * `session_id` and event records; variant `session` and the stream's JSON with `sequence`,
 * `event` and `run.id`).
 */
export async function emulatorRunEvents(agentId: string, run: RunBody): Promise<Array<{ seq: number; type: string }>> {
	const q = run.dsh_session_id ? `?${words().sessionQuery}=${encodeURIComponent(run.dsh_session_id)}` : '';
	type Item = { seq?: number; sequence?: number; type?: string; event?: string; run_id?: string; run?: { id?: string } };
	const res = await emu<{ events: Item[] }>('GET', `/v2/agents/${encodeURIComponent(agentId)}/events${q}`, undefined, devToken());
	if (res.status !== 200) {
		throw new Error(`reading the run's events: HTTP ${res.status} ${JSON.stringify(res.body)}`);
	}
	return res.body.events
		.filter((e) => (e.run_id ?? e.run?.id) === undefined || (e.run_id ?? e.run?.id) === run.id)
		.map((e) => ({ seq: (e.seq ?? e.sequence)!, type: (e.type ?? e.event)! }));
}

/**
 * Holds the emulator clock (issue 41): builds, checkpoints, runtime transitions, agent provisioning,
 * GitHub request expiry and an outage's end stand still until `advanceClock` moves them, so a test
 * can assert a state in between and then move on explicitly. Resolves with the release (the clock
 * runs on from where it stood; calling it again does nothing); release it in a `finally` (the
 * runner's restore after each suite releases a hold left behind). An agent created meanwhile stays
 * provisioning until the clock moves (createIdleAgent would wait in vain). Runs are not held by the
 * clock: hold one with `[[hold]]` and end it with `releaseRun` or a cancel.
 */
export async function holdClock(call: EmulatorCall = emu): Promise<() => Promise<void>> {
	await setClockHeld(call, true);
	let released = false;
	return async () => {
		if (!released) {
			released = true;
			await setClockHeld(call, false);
		}
	};
}

async function setClockHeld(call: EmulatorCall, held: boolean): Promise<void> {
	const res = await call<{ held?: boolean }>('PUT', '/_emulator/clock', { held });
	if (res.status !== 200 || res.body.held !== held) {
		throw new Error(`${held ? 'holding' : 'releasing'} the emulator clock: HTTP ${res.status} ${JSON.stringify(res.body)}`);
	}
}

/** Moves the emulator clock `seconds` on (held or not), applying every transition due on the way; resolves with its time then (epoch ms). */
export async function advanceClock(seconds: number, call: EmulatorCall = emu): Promise<number> {
	const res = await call<{ now_ms: number }>('POST', '/_emulator/clock/advance', { ms: Math.round(seconds * 1000) });
	if (res.status !== 200) {
		throw new Error(`advancing the emulator clock: HTTP ${res.status} ${JSON.stringify(res.body)}`);
	}
	return res.body.now_ms;
}

/** Lets a run held by `[[hold]]` go on to its scripted end (`POST /_emulator/runs/{id}/release`). */
export async function releaseRun(runId: string): Promise<void> {
	const res = await emu('POST', `/_emulator/runs/${encodeURIComponent(runId)}/release`);
	if (res.status !== 200) {
		throw new Error(`releasing run ${runId}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
	}
}

/** The emulator's request counters. */
export async function counters(): Promise<{
	requests: { by_route: Record<string, number> };
	mutations: { by_kind: Record<string, number> };
}> {
	return (
		await emu<{ requests: { by_route: Record<string, number> }; mutations: { by_kind: Record<string, number> } }>(
			'GET',
			'/_emulator/counters',
		)
	).body;
}

/** Polls `fn` until it returns a value other than undefined. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
	const end = Date.now() + timeoutMs * SLOWDOWN;
	for (;;) {
		const value = await fn();
		if (value !== undefined) {
			return value;
		}
		if (Date.now() > end) {
			throw new Error(`timed out waiting for ${what}`);
		}
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** Rejects after `ms` with a message naming what was awaited. */
export function within<T>(what: string, promise: PromiseLike<T>, ms = 20_000): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`timed out after ${ms * SLOWDOWN} ms: ${what}`)), ms * SLOWDOWN);
		Promise.resolve(promise).then(
			(v) => {
				clearTimeout(timer);
				resolve(v);
			},
			(e: unknown) => {
				clearTimeout(timer);
				reject(e instanceof Error ? e : new Error(String(e)));
			},
		);
	});
}

/** The files under `dir`, recursively, through vscode.workspace.fs (both extension hosts: Node's and the web worker's). */
async function filesUnder(dir: vscode.Uri): Promise<vscode.Uri[]> {
	let entries: [string, vscode.FileType][];
	try {
		entries = await vscode.workspace.fs.readDirectory(dir);
	} catch {
		return [];
	}
	const out: vscode.Uri[] = [];
	for (const [name, type] of entries) {
		const p = vscode.Uri.joinPath(dir, name);
		if (type & vscode.FileType.Directory) {
			out.push(...(await filesUnder(p)));
		} else if (type & vscode.FileType.File) {
			out.push(p);
		}
	}
	return out;
}

/**
 * Everything the extension host wrote that a person could read: every log and output-channel file
 * of this extension host (the parent of context.logUri holds the LogOutputChannel files and the
 * output_logging_* folders of plain output channels) and the run event files.
 */
export async function writtenText(api: CloudAgentsTestApi): Promise<{ file: string; text: string }[]> {
	// Output channels write to disk asynchronously, in order: a line written to the extension's log
	// now is on disk after every line logged before it (a fixed wait of 1.5 s missed a warning on a
	// busy machine).
	const barrier = `log flush barrier ${crypto.randomUUID()}`;
	api.log.info(barrier);
	const logRoot = vscode.Uri.joinPath(api.logUri, '..');
	const runsRoot = vscode.Uri.joinPath(api.globalStorageUri, 'runs');
	return waitFor(
		'the log flush barrier in the extension log file',
		async () => {
			const files = [...(await filesUnder(logRoot)), ...(await filesUnder(runsRoot))];
			const decoder = new TextDecoder();
			const written = await Promise.all(
				files.map(async (file) => ({
					file: file.scheme === 'file' ? file.fsPath : `${file.scheme}:${file.path}`,
					text: await vscode.workspace.fs.readFile(file).then(
						(bytes) => decoder.decode(bytes),
						() => '',
					),
				})),
			);
			return written.some((w) => w.text.includes(barrier)) ? written : undefined;
		},
		30_000,
	);
}
