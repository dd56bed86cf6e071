/**
 * Reading a followed run's events to its end, without `vscode` (the unit tests drive it in plain
 * Node). It consumes: reconnecting after drops, pacing and capping reconnects, and telling an ended
 * run from a pause all happen once, in the client's run-event stream (`src/api/runEventStream.ts`).
 * A stream that gives up ends the reading with its error; nothing here opens it again.
 */
import type { CloudAgentsClient, EventRecord, Run, StreamOutageEvent } from '../api';

/** The client methods reading a run's events uses (a real `CloudAgentsClient` fits). */
export type RunEventsClient = Pick<CloudAgentsClient, 'streamRunEvents' | 'getRun'>;

/** What `readRunEvents` reads and where the events go. */
export interface ReadRunEventsOptions {
	/** The last sequence already received: only later events are delivered. */
	after: number;
	/** Stops reading: the promise then rejects with an AbortError. */
	signal: AbortSignal;
	/** Called for each new event, in sequence order, never twice for one sequence. */
	onEvent: (event: EventRecord) => void;
	/** Whether the events delivered so far show that the run ended (a completion or terminal status event). */
	ended: () => boolean;
	/** The service went out of reach, and came back (the stream keeps trying meanwhile, until `signal` aborts). */
	onOutage?: (event: StreamOutageEvent) => void;
}

/**
 * Streams a run's events after `after` into `onEvent` until the stream ends. Resolves with the run
 * as read at the end when the events did not show the end themselves (the stream ends only when the
 * run has: a terminal status, or a status no list knows that the server keeps ending the stream
 * on), else with undefined. While the service is out of reach it keeps trying (every 30 s at most)
 * and resumes after the last event delivered. Rejects with the stream's error (4xx, a 401 among
 * them; `reconnect_limit`; a server that kept answering badly) or an AbortError.
 */
export async function readRunEvents(
	client: RunEventsClient,
	agentId: string,
	runId: string,
	options: ReadRunEventsOptions,
): Promise<Run | undefined> {
	const { signal, onEvent } = options;
	let cursor = options.after;
	// A followed run waits for the service however long it is away: only aborting (stop following) ends the wait.
	const events = client.streamRunEvents(agentId, runId, { after: cursor, signal, waitForService: true, onOutage: options.onOutage });
	// A chunk's records at once (RunEventStream.nextBatch): one await per network chunk, not per event.
	for (let batch = await events.nextBatch(); batch !== undefined; batch = await events.nextBatch()) {
		for (const event of batch) {
			if (typeof event.seq === 'number') {
				if (event.seq <= cursor) {
					continue;
				}
				cursor = event.seq;
			}
			onEvent(event);
		}
	}
	if (options.ended()) {
		return undefined;
	}
	return events.finalRun ?? (await client.getRun(agentId, runId, { signal }));
}
