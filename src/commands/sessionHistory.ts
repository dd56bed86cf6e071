import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import { SAFETY } from '../api';
import type { Agent, EventRecord } from '../api';
import { formatEvent } from '../logs';
import { RunEventStore } from '../logs/runStore';
import { outputLine } from '../util/text';
import { agentsList } from '../resources';
import { commandRegistrar } from './registry';
import { resolveTarget } from '../views/targets';
import type { FeatureDeps } from './support';
import { displayName, isAutomation, isStatus, toAbortSignal } from './support';

/** What "Show Session History" did (its result for automation and tests). */
export interface SessionHistoryResult {
	agentId: string;
	sessionId: string | undefined;
	/** The JSON Lines file the session's events are stored in. */
	file: string | undefined;
	/** Events stored before this call, and added by it. */
	stored: number;
	added: number;
	/** How the new events came: the session replay, or (over the output cap) the run's event stream. */
	via: 'replay' | 'stream' | 'none';
}

/**
 * A session replay item as an event record: `seq` (or the variant's `sequence`), `type` (or
 * `event`), `created_at` (or `at`); items that are not objects or carry no usable sequence are
 * skipped (undefined).
 */
export function sessionEvent(item: unknown): EventRecord | undefined {
	if (item === null || typeof item !== 'object' || Array.isArray(item)) {
		return undefined;
	}
	const o = item as Record<string, unknown>;
	const seq = typeof o.seq === 'number' ? o.seq : o.sequence;
	if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
		return undefined;
	}
	const type = typeof o.type === 'string' ? o.type : typeof o.event === 'string' ? o.event : 'event';
	const createdAt = typeof o.created_at === 'string' ? o.created_at : typeof o.at === 'string' ? o.at : undefined;
	return { ...o, seq, type, ...(createdAt !== undefined ? { created_at: createdAt } : {}) };
}

/**
 * Reads a stored session file line by line (never the whole file as one string): the last
 * `keep` events for the output, how many there are, and the last sequence number.
 */
async function readTail(file: string, keep: number): Promise<{ tail: EventRecord[]; count: number; lastSeq: number }> {
	const tail: EventRecord[] = [];
	let count = 0;
	let lastSeq = -1;
	let stream: ReturnType<typeof createReadStream>;
	try {
		stream = createReadStream(file, { encoding: 'utf8' });
		await new Promise<void>((resolve, reject) => {
			stream.once('open', () => resolve());
			stream.once('error', reject);
		});
	} catch {
		return { tail, count, lastSeq };
	}
	const lines = createInterface({ input: stream, crlfDelay: Infinity });
	for await (const line of lines) {
		if (line.trim() === '' || line.length > SAFETY.outputLineMaxChars * 10) {
			continue;
		}
		try {
			const event = JSON.parse(line) as EventRecord;
			if (typeof event.seq === 'number' && event.seq > lastSeq) {
				lastSeq = event.seq;
				count++;
				tail.push(event);
				if (tail.length > keep) {
					tail.shift();
				}
			}
		} catch {
			// A torn line from an interrupted write: skipped.
		}
	}
	return { tail, count, lastSeq };
}

/** The store key of a session (files `<agent>/session-<id>.jsonl` under the `sessions` folder). */
const sessionKey = (sessionId: string): string => `session-${sessionId}`;

/**
 * Registers "Show Session History" (agent rows, palette): the agent's session events
 * (GET /v2/agents/{id}/events) into an output channel, appended as they arrive and stored as
 * JSON Lines like run events (`<global storage>/sessions/<agent>/session-<id>.jsonl`). A second
 * call asks only for events after the last stored one. A history over the service's 2 MiB output
 * cap (422) is read from the session run's event stream instead, batch by batch. Bounded: at most
 * SAFETY.sessionHistoryMaxEvents new events per call, and the output shows the last
 * SAFETY.sessionHistoryShownEvents stored ones (the file has all). Cancellable.
 *
 * Automation: `{agentId, quiet?: true}` (quiet: no output channel shown); returns a SessionHistoryResult.
 */
export function registerSessionHistoryCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, {
		onUnauthorized: deps.onUnauthorized,
		rethrow: (arg) => isAutomation(arg) && arg.rethrow === true,
	});
	const store = new RunEventStore(vscode.Uri.joinPath(deps.context.globalStorageUri, 'sessions').fsPath);
	/** The session last shown per agent (bounded), so the next call resumes after the stored events. */
	const lastSession = new Map<string, string>();
	const channels = new Map<string, vscode.OutputChannel>();
	const channelOf = (agent: Agent): vscode.OutputChannel => {
		let channel = channels.get(agent.id);
		if (!channel) {
			channel = vscode.window.createOutputChannel(
				outputLine(vscode.l10n.t('Cloud Agents Session: {0}', displayName(agent.name, agent.id)), SAFETY.labelMaxChars),
			);
			channels.set(agent.id, channel);
			if (channels.size > SAFETY.sessionChannelsMax) {
				const [oldest, ch] = channels.entries().next().value!;
				channels.delete(oldest);
				ch.dispose();
			}
		}
		return channel;
	};

	const show = async (
		agent: Agent,
		channel: vscode.OutputChannel | undefined,
		signal: AbortSignal,
		progress: vscode.Progress<{ message?: string }>,
	): Promise<SessionHistoryResult> => {
		const write = (events: readonly EventRecord[]): void => {
			if (channel && events.length > 0) {
				channel.append(`${events.map((e) => formatEvent(e)).join('\n')}\n`);
			}
		};
		let sessionId = lastSession.get(agent.id);
		let prior = sessionId ? await readTail(store.fileOf(agent.id, sessionKey(sessionId)), SAFETY.sessionHistoryShownEvents) : undefined;
		let streamed = false;
		let added = 0;
		const header = (): void => {
			if (!channel || !sessionId || !prior) {
				return;
			}
			channel.clear();
			channel.appendLine(
				outputLine(
					vscode.l10n.t(
						'Session {0} of {1}; stored in {2}',
						sessionId,
						agent.name || agent.id,
						store.fileOf(agent.id, sessionKey(sessionId)),
					),
				),
			);
			if (prior.count > prior.tail.length) {
				channel.appendLine(vscode.l10n.t('… {0} earlier events are in the file', prior.count - prior.tail.length));
			}
			write(prior.tail);
		};
		header();
		const keep = async (events: EventRecord[]): Promise<void> => {
			const fresh = events
				.filter((e) => prior === undefined || e.seq > prior.lastSeq)
				.slice(0, Math.max(0, SAFETY.sessionHistoryMaxEvents - added));
			if (fresh.length === 0 || !sessionId) {
				return;
			}
			await store.append(agent.id, sessionKey(sessionId), fresh);
			write(fresh);
			added += fresh.length;
			if (prior) {
				prior.lastSeq = fresh[fresh.length - 1]!.seq;
			}
			progress.report({ message: vscode.l10n.t('{0} events', added) });
		};
		try {
			const answer = await deps.session.client.getAgentEvents(agent.id, {
				signal,
				sessionId,
				after: prior && prior.lastSeq >= 0 ? prior.lastSeq : undefined,
			});
			if (!answer.session_id) {
				channel?.appendLine(vscode.l10n.t('The agent {0} has no session yet.', agent.name || agent.id));
				return { agentId: agent.id, sessionId: undefined, file: undefined, stored: 0, added: 0, via: 'none' };
			}
			if (answer.session_id !== sessionId) {
				sessionId = answer.session_id;
				lastSession.delete(agent.id);
				lastSession.set(agent.id, sessionId);
				if (lastSession.size > SAFETY.sessionChannelsMax * 10) {
					lastSession.delete(lastSession.keys().next().value!);
				}
				prior = await readTail(store.fileOf(agent.id, sessionKey(sessionId)), SAFETY.sessionHistoryShownEvents);
				header();
			}
			const events = answer.events
				.map(sessionEvent)
				.filter((e): e is EventRecord => e !== undefined)
				.sort((a, b) => a.seq - b.seq);
			// In batches, so the output grows as it is written.
			for (let i = 0; i < events.length && !signal.aborted; i += SAFETY.sessionHistoryBatch) {
				await keep(events.slice(i, i + SAFETY.sessionHistoryBatch));
			}
		} catch (err) {
			if (!isStatus(err, 422)) {
				throw err;
			}
			// Over the output cap: the session's newest run streams its events instead.
			const runs = await deps.session.client.listRuns(agent.id, { signal });
			const run = runs
				.filter(
					(r) =>
						typeof r.dsh_session_id === 'string' &&
						r.dsh_session_id !== '' &&
						(sessionId === undefined || r.dsh_session_id === sessionId),
				)
				.sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')))[0];
			if (!run) {
				throw err;
			}
			streamed = true;
			if (sessionId !== run.dsh_session_id) {
				sessionId = run.dsh_session_id!;
				lastSession.set(agent.id, sessionId);
				prior = await readTail(store.fileOf(agent.id, sessionKey(sessionId)), SAFETY.sessionHistoryShownEvents);
				header();
			}
			channel?.appendLine(
				vscode.l10n.t('(The history is larger than one answer can carry: reading the event stream of run {0}.)', run.id),
			);
			let batch: EventRecord[] = [];
			const stream = deps.session.client.streamRunEvents(agent.id, run.id, {
				after: prior && prior.lastSeq >= 0 ? prior.lastSeq : -1,
				signal,
			});
			for await (const event of stream) {
				batch.push(event);
				if (batch.length >= SAFETY.sessionHistoryBatch) {
					await keep(batch);
					batch = [];
				}
				if (added >= SAFETY.sessionHistoryMaxEvents) {
					channel?.appendLine(vscode.l10n.t('(Stopped after {0} events; run the command again for more.)', added));
					break;
				}
			}
			await keep(batch);
		}
		return {
			agentId: agent.id,
			sessionId,
			file: sessionId ? store.fileOf(agent.id, sessionKey(sessionId)) : undefined,
			stored: prior?.count ?? 0,
			added,
			via: streamed ? 'stream' : 'replay',
		};
	};

	return [
		{
			dispose: () => {
				for (const c of channels.values()) {
					c.dispose();
				}
				channels.clear();
			},
		},
		registerCommand('cloudAgents.agents.showSessionHistory', async (arg?: unknown) => {
			const agent = (await resolveTarget(deps, agentsList, arg, { title: vscode.l10n.t('Show Session History'), useSelection: true }))
				?.agent;
			if (!agent) {
				return undefined;
			}
			const quiet = isAutomation(arg) && arg.quiet === true;
			const channel = quiet ? undefined : channelOf(agent);
			channel?.show(true);
			return vscode.window.withProgress(
				{
					location: vscode.ProgressLocation.Notification,
					title: vscode.l10n.t('Reading the session history of {0}…', displayName(agent.name, agent.id)),
					cancellable: true,
				},
				async (progress, token) => {
					const abort = toAbortSignal(token);
					try {
						return await show(agent, channel, abort.signal, progress);
					} finally {
						abort.dispose();
						await store.flushed();
					}
				},
			);
		}),
	];
}
