import * as vscode from 'vscode';
import { SAFETY, decodeSessionEvent } from '../api';
import type { Agent, CloudAgentsClient, EventRecord, Run } from '../api';
import { formatEvent } from '../runFollowing';
import { RunEventStore } from '../runFollowing/runStore';
import { ChannelCloser } from '../util/outputChannels';
import { outputLine } from '../util/text';
import type { ActionKit, RecordAction } from '../views/actions';
import { argBoolean, displayName, isStatus, toAbortSignal } from '../views/ui';
import { agentsList } from './agents';
import type { AgentTarget } from './agents';

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
 * Reads a stored session's lines (RunEventStore.lines: one segment in memory at a time): the last
 * `keep` events for the output, how many there are, and the last sequence number.
 */
async function readTail(lines: AsyncIterable<string>, keep: number): Promise<{ tail: EventRecord[]; count: number; lastSeq: number }> {
	const tail: EventRecord[] = [];
	let count = 0;
	let lastSeq = -1;
	for await (const line of lines) {
		if (line.length > SAFETY.outputLineMaxChars * 10) {
			continue;
		}
		let event: EventRecord | undefined;
		try {
			event = decodeSessionEvent(JSON.parse(line));
		} catch {
			// A torn line from an interrupted write: skipped.
		}
		if (event !== undefined && event.seq > lastSeq) {
			lastSeq = event.seq;
			count++;
			tail.push(event);
			if (tail.length > keep) {
				tail.shift();
			}
		}
	}
	return { tail, count, lastSeq };
}

/** The store key of a session (files `<agent>/session-<id>.jsonl` under the `sessions` folder). */
const sessionKey = (sessionId: string): string => `session-${sessionId}`;

/** The newest run of a session (of any session when `sessionId` is undefined), or undefined. */
function newestSessionRun(runs: readonly Run[], sessionId: string | undefined): Run | undefined {
	return runs
		.filter(
			(r) =>
				typeof r.dsh_session_id === 'string' &&
				r.dsh_session_id !== '' &&
				(sessionId === undefined || r.dsh_session_id === sessionId),
		)
		.sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')))[0];
}

/**
 * Hands a stream's events to `keep` in batches of the session history's size until it ends or
 * `added()` reaches the history's cap; true when stopped at the cap.
 */
async function keepInBatches(
	stream: AsyncIterable<EventRecord>,
	keep: (events: EventRecord[]) => Promise<void>,
	added: () => number,
): Promise<boolean> {
	let batch: EventRecord[] = [];
	let capped = false;
	for await (const event of stream) {
		batch.push(event);
		if (batch.length >= SAFETY.sessionHistoryBatch) {
			await keep(batch);
			batch = [];
		}
		if (added() >= SAFETY.sessionHistoryMaxEvents) {
			capped = true;
			break;
		}
	}
	await keep(batch);
	return capped;
}

/**
 * The session histories read so far: where they are stored, the session last shown per agent (so
 * the next call resumes after the stored events) and one output channel per agent (bounded). One
 * per extension context, made on first use and disposed with the context's subscriptions.
 */
class SessionHistories implements vscode.Disposable {
	private readonly store: RunEventStore;
	private readonly lastSession = new Map<string, string>();
	private readonly channels = new Map<string, vscode.OutputChannel>();
	/** Shows the channels, and disposes those the bound closed once the Output view has let go of them. */
	private readonly closer = new ChannelCloser();

	constructor(context: vscode.ExtensionContext) {
		this.store = new RunEventStore(vscode.Uri.joinPath(context.globalStorageUri, 'sessions'));
	}

	/** The agent's output channel (the oldest is closed past SAFETY.sessionChannelsMax). */
	channelOf(agent: Agent): vscode.OutputChannel {
		const channels = this.channels;
		let channel = channels.get(agent.id);
		if (!channel) {
			channel = vscode.window.createOutputChannel(
				outputLine(vscode.l10n.t('Cloud Agents Session: {0}', displayName(agent.name, agent.id)), SAFETY.labelMaxChars),
			);
			channels.set(agent.id, channel);
			if (channels.size > SAFETY.sessionChannelsMax) {
				const [oldest, ch] = channels.entries().next().value!;
				channels.delete(oldest);
				// Its history may still be being read into it, or shown: see ChannelCloser.
				this.closer.close(ch);
			}
		}
		return channel;
	}

	/** `channel` while it is open: the bound may close it while a history is read into it (the events still go to the file). */
	private open(channel: vscode.OutputChannel | undefined): vscode.OutputChannel | undefined {
		return channel && !this.closer.isClosed(channel) ? channel : undefined;
	}

	/** Shows an agent's channel in the Output view (through the closer: see ChannelCloser). */
	reveal(channel: vscode.OutputChannel): void {
		this.closer.reveal(channel, true);
	}

	/** Resolves when every event appended so far is on disk. */
	flushed(): Promise<void> {
		return this.store.flushed();
	}

	/**
	 * Reads the agent's session events after the stored ones into the store and the channel (none
	 * with `quiet`); over the output cap (422) from the session run's event stream, batch by batch.
	 */
	async show(
		client: CloudAgentsClient,
		agent: Agent,
		shownIn: vscode.OutputChannel | undefined,
		signal: AbortSignal,
		progress: vscode.Progress<{ message?: string }>,
	): Promise<SessionHistoryResult> {
		const { store, lastSession } = this;
		const out = (): vscode.OutputChannel | undefined => this.open(shownIn);
		const write = (events: readonly EventRecord[]): void => {
			if (events.length > 0) {
				out()?.append(`${events.map((e) => formatEvent(e)).join('\n')}\n`);
			}
		};
		let sessionId = lastSession.get(agent.id);
		let prior = sessionId ? await readTail(store.lines(agent.id, sessionKey(sessionId)), SAFETY.sessionHistoryShownEvents) : undefined;
		let streamed = false;
		let added = 0;
		const header = (): void => {
			const channel = out();
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
						store.placeOf(agent.id, sessionKey(sessionId)),
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
			progress.report({ message: added === 1 ? vscode.l10n.t('1 event') : vscode.l10n.t('{0} events', added) });
		};
		try {
			const answer = await client.getAgentEvents(agent.id, {
				signal,
				sessionId,
				after: prior && prior.lastSeq >= 0 ? prior.lastSeq : undefined,
			});
			if (!answer.session_id) {
				out()?.appendLine(vscode.l10n.t('The agent {0} has no session yet.', agent.name || agent.id));
				return { agentId: agent.id, sessionId: undefined, file: undefined, stored: 0, added: 0, via: 'none' };
			}
			if (answer.session_id !== sessionId) {
				sessionId = answer.session_id;
				lastSession.delete(agent.id);
				lastSession.set(agent.id, sessionId);
				if (lastSession.size > SAFETY.sessionChannelsMax * 10) {
					lastSession.delete(lastSession.keys().next().value!);
				}
				prior = await readTail(store.lines(agent.id, sessionKey(sessionId)), SAFETY.sessionHistoryShownEvents);
				header();
			}
			const events = [...answer.events].sort((a, b) => a.seq - b.seq);
			// In batches, so the output grows as it is written.
			for (let i = 0; i < events.length && !signal.aborted; i += SAFETY.sessionHistoryBatch) {
				await keep(events.slice(i, i + SAFETY.sessionHistoryBatch));
			}
		} catch (err) {
			if (!isStatus(err, 422)) {
				throw err;
			}
			// Over the output cap: the session's newest run streams its events instead.
			const run = newestSessionRun(await client.listRuns(agent.id, { signal }), sessionId);
			if (!run) {
				throw err;
			}
			streamed = true;
			if (sessionId !== run.dsh_session_id) {
				sessionId = run.dsh_session_id!;
				lastSession.set(agent.id, sessionId);
				prior = await readTail(store.lines(agent.id, sessionKey(sessionId)), SAFETY.sessionHistoryShownEvents);
				header();
			}
			out()?.appendLine(
				vscode.l10n.t('(The history is larger than one answer can carry: reading the event stream of run {0}.)', run.id),
			);
			const stream = client.streamRunEvents(agent.id, run.id, {
				after: prior && prior.lastSeq >= 0 ? prior.lastSeq : -1,
				signal,
			});
			if (await keepInBatches(stream, keep, () => added)) {
				out()?.appendLine(
					added === 1
						? vscode.l10n.t('(Stopped after 1 event; run the command again for more.)')
						: vscode.l10n.t('(Stopped after {0} events; run the command again for more.)', added),
				);
			}
		}
		return {
			agentId: agent.id,
			sessionId,
			file: sessionId ? store.placeOf(agent.id, sessionKey(sessionId)) : undefined,
			stored: prior?.count ?? 0,
			added,
			via: streamed ? 'stream' : 'replay',
		};
	}

	dispose(): void {
		for (const c of this.channels.values()) {
			c.dispose();
		}
		this.channels.clear();
		this.closer.dispose();
	}
}

/** The session histories of each extension context; filled on first use (nothing runs when the module loads). */
let historiesByContext: WeakMap<vscode.ExtensionContext, SessionHistories> | undefined;

/** The session histories of the extension, made on first use and disposed with the context. */
function historiesOf(context: vscode.ExtensionContext): SessionHistories {
	historiesByContext ??= new WeakMap();
	let histories = historiesByContext.get(context);
	if (!histories) {
		histories = new SessionHistories(context);
		historiesByContext.set(context, histories);
		context.subscriptions.push(histories);
	}
	return histories;
}

/**
 * Show Session History: the agent's session events (GET /v2/agents/{id}/events) into an output
 * channel, appended as they arrive and stored as JSON Lines like run events
 * (`<global storage>/sessions/<agent>/session-<id>.jsonl`). A second call asks only for events
 * after the last stored one. A history over the service's 2 MiB output cap (422) is read from the
 * session run's event stream instead, batch by batch. Bounded: at most
 * SAFETY.sessionHistoryMaxEvents new events per call, and the output shows the last
 * SAFETY.sessionHistoryShownEvents stored ones (the file has all). Cancellable.
 */
async function showSessionHistory(agent: Agent, kit: ActionKit): Promise<SessionHistoryResult> {
	const histories = historiesOf(kit.context);
	const quiet = kit.automation && argBoolean(kit.arg, 'quiet') === true;
	const channel = quiet ? undefined : histories.channelOf(agent);
	if (channel) {
		histories.reveal(channel);
	}
	return vscode.window.withProgress(
		{
			location: vscode.ProgressLocation.Notification,
			title: vscode.l10n.t('Reading the session history of {0}…', displayName(agent.name, agent.id)),
			cancellable: true,
		},
		async (progress, token) => {
			const abort = toAbortSignal(token);
			try {
				return await histories.show(kit.client(), agent, channel, abort.signal, progress);
			} finally {
				abort.dispose();
				await histories.flushed();
			}
		},
	);
}

/**
 * What a user can do with an agent's session history (agent rows, the palette). Automation:
 * `{agentId, quiet?: true}` (quiet: no output channel shown); returns a SessionHistoryResult.
 */
export const sessionHistoryActions = {
	show: {
		on: agentsList,
		command: 'cloudAgents.agents.showSessionHistory',
		useSelection: true,
		run: ({ agent }, kit) => showSessionHistory(agent, kit),
	} satisfies RecordAction<Agent, AgentTarget>,
};
