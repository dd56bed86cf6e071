/**
 * What happened in the account, worked out from two looks at it (issue 45): the kinds of activity
 * event, the account as one look saw it (`AccountSnapshot`), and `diffSnapshots`, which compares
 * the look before with the look now and returns what is new. Pure: no vscode, no I/O, no clock.
 *
 * The run and agent status values are not shown in the service's description. Everything this
 * module decides about a status is in `statusMeaning` (the one place; its doc comment states the
 * assumption the README repeats).
 */
import { type BuildInfo, buildStatusClass } from '../api';
import { type Agent, type GitHubAuthorizationRequest, type Run, type Runtime, agentStatusClass, runStatusClass } from '../api/types';
import { SAFETY } from '../base/limits';
import { fromRfc3339, fromUnixSeconds } from '../base/time';
import { cut, stripControls } from '../util/text';

/** The kinds of activity event. */
export type ActivityEventKind =
	/** A run ended (succeeded, failed, cancelled, or a word of the service's that means it ended). */
	| 'runEnded'
	/** A run waits for a person (a waiting status of the run). */
	| 'runWaiting'
	/** An agent waits for a person (a waiting status of the agent). */
	| 'agentWaiting'
	/** An open GitHub authorization request: an agent asked for access. */
	| 'githubAuthorization'
	/** A runtime went to `error` or `crashed`. */
	| 'runtimeFailed'
	/** An image build ended. */
	| 'buildEnded';

/** How something ended: the client's reading of the service's word (`status` keeps the word itself). */
export type ActivityOutcome = 'succeeded' | 'failed' | 'cancelled' | 'ended';

/**
 * One thing that happened. Every text member came from the server and is bounded here
 * (`ACTIVITY_TEXT_MAX_CHARS`, `ACTIVITY_REASON_MAX_CHARS`) and stripped of control and bidi
 * characters; what shows it still passes it through src/util/text.ts for its context.
 */
export interface ActivityEvent {
	/** Stable identity: the same thing never makes two events with different keys, nor one key twice. */
	readonly key: string;
	readonly kind: ActivityEventKind;
	/** When it happened (ms since the epoch): the record's own time when it has one, else when it was seen. */
	readonly at: number;
	/** The service's status word (run, agent, runtime, build), as it wrote it; absent for GitHub requests. */
	readonly status?: string;
	/** For ends: what the word means to the client. */
	readonly outcome?: ActivityOutcome;
	readonly agentId?: string;
	readonly agentName?: string;
	readonly runId?: string;
	readonly runtimeId?: string;
	readonly runtimeName?: string;
	readonly buildId?: string;
	readonly buildName?: string;
	/** GitHub authorization: the request's id. */
	readonly requestId?: string;
	/** GitHub authorization: who asked (the service's `requested_by`). */
	readonly requestedBy?: string;
	/** GitHub authorization: the reason the agent gave. */
	readonly reason?: string;
	/** GitHub authorization: where a person grants it; only an https: URL is kept. */
	readonly authorizationUrl?: string;
	/** A run's error text (failed runs), bounded. */
	readonly detail?: string;
	/**
	 * The name of the event's deployment, set by Activity (activity.ts) when two or more deployments
	 * are configured (issue 47): rows and notifications name it. Never stored.
	 */
	readonly deployment?: string;
	/**
	 * The id of the event's deployment when it is not the default one (its `key` then starts with it):
	 * set by Activity, never stored; what opening the event would do with the default deployment's
	 * records is not offered for it.
	 */
	readonly deploymentId?: string;
}

/** Longest name, id or status kept in an event. */
export const ACTIVITY_TEXT_MAX_CHARS = SAFETY.labelMaxChars;
/** Longest reason or error detail kept in an event. */
export const ACTIVITY_REASON_MAX_CHARS = SAFETY.descriptionMaxChars * 2;
/** Longest authorization URL kept (longer ones are dropped, not cut: a cut URL is another URL). */
export const ACTIVITY_URL_MAX_CHARS = 2_048;

/** Server text as an event keeps it: controls and bidi characters removed, cut to `max`. */
export function eventText(value: unknown, max: number = ACTIVITY_TEXT_MAX_CHARS): string | undefined {
	if (typeof value !== 'string') {
		return undefined;
	}
	const text = cut(stripControls(value).replace(/\s+/g, ' ').trim(), max);
	return text === '' ? undefined : text;
}

/** An https: URL without credentials, at most ACTIVITY_URL_MAX_CHARS, as a string; anything else undefined. */
export function httpsUrl(value: unknown): string | undefined {
	if (typeof value !== 'string' || value.length > ACTIVITY_URL_MAX_CHARS) {
		return undefined;
	}
	try {
		const url = new URL(value);
		return url.protocol === 'https:' && url.username === '' && url.password === '' ? url.toString() : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The key of a run's end: what a window that follows the run itself (src/runFollowing) claims
 * through the Announcer when it tells of the end, so no window announces it a second time.
 */
export function runEndedKey(runId: string): string {
	return `run-ended:${runId}`;
}

// ---------------------------------------------------------------- what a status means

/** What a run's or an agent's status means to the watcher. */
export type StatusMeaning =
	| { readonly state: 'ended'; readonly outcome: ActivityOutcome }
	| { readonly state: 'waiting' }
	| { readonly state: 'active' }
	| { readonly state: 'idle' };

/**
 * Status words (any case) that mean a run or an agent waits for a person: its input, an approval,
 * an action. Not `queued`/`pending`: those wait for the service.
 */
export const NEEDS_PERSON_STATUSES: ReadonlySet<string> = new Set([
	'waiting_for_input',
	'waiting_for_user',
	'awaiting_input',
	'awaiting_user',
	'awaiting_approval',
	'needs_input',
	'input_required',
	'requires_input',
	'requires_action',
	'action_required',
	'needs_attention',
	'needs_approval',
	'approval_required',
	'paused_for_input',
]);

/** The parts of a run record that tell whether it ended, besides its status. */
export interface RunEvidence {
	/** The run's result text, when the record carries one. */
	readonly result?: string;
	/** The run's error text, when the record carries one. */
	readonly error?: string;
	/** The agent's status is a known ready or failed word and the agent's latest reply is this run. */
	readonly agentSettled?: boolean;
}

/**
 * The one place that decides what a status means (README "Activity": the assumption).
 *
 * The service's description shows neither the run nor the agent status values. The watcher reads
 * them as the rest of the client does (src/api/types.ts `runStatusClass`, `agentStatusClass`: the
 * words of comparable services, any case) and, for a word no list knows, from what the records say:
 * - a run whose status is a known end (`succeeded`, `completed`, `failed`, `errored`, `cancelled`,
 *   `canceled`, `timed_out`, …) ended, with that outcome; a word in NEEDS_PERSON_STATUSES waits for
 *   a person; a known running or queued word is active;
 * - a run whose word is unknown **ended when its record says so**: it carries a result or an error
 *   text, or its agent's word is a known ready or failed one and names this run as its latest reply.
 *   The event keeps the service's word and says `ended`. Otherwise the run counts as active (no event);
 * - an agent whose word is in NEEDS_PERSON_STATUSES waits for a person; a busy word (`running`,
 *   `provisioning`, `busy`, …) is active; a ready or failed word, and an unknown one, is idle (an
 *   agent that sleeps under a word of its own, such as `HIBERNATING`, must not keep the watcher
 *   polling fast; a change of its record still has its runs read, and their words decide).
 */
export function statusMeaning(subject: 'run', status: string | undefined, evidence?: RunEvidence): StatusMeaning;
export function statusMeaning(subject: 'agent', status: string | undefined): StatusMeaning;
export function statusMeaning(subject: 'run' | 'agent', status: string | undefined, evidence: RunEvidence = {}): StatusMeaning {
	const word = (status ?? '').toLowerCase();
	if (NEEDS_PERSON_STATUSES.has(word)) {
		return { state: 'waiting' };
	}
	if (subject === 'agent') {
		switch (agentStatusClass(status)) {
			case 'ready':
			case 'failed':
				return { state: 'idle' };
			case 'busy':
				return { state: 'active' };
			case 'unknown':
				return { state: 'idle' };
		}
	}
	switch (runStatusClass(status)) {
		case 'succeeded':
			return { state: 'ended', outcome: 'succeeded' };
		case 'failed':
			return { state: 'ended', outcome: 'failed' };
		case 'cancelled':
			return { state: 'ended', outcome: 'cancelled' };
		case 'running':
		case 'waiting':
			return { state: 'active' };
		case 'unknown':
			return nonEmpty(evidence.result) || nonEmpty(evidence.error) || evidence.agentSettled === true
				? { state: 'ended', outcome: 'ended' }
				: { state: 'active' };
	}
}

function nonEmpty(value: string | undefined): boolean {
	return typeof value === 'string' && value.trim() !== '';
}

/** Runtime statuses (any case) the watcher reports as a failure. */
export const FAILED_RUNTIME_STATUSES: ReadonlySet<string> = new Set(['error', 'crashed']);

// ---------------------------------------------------------------- the account as one look saw it

/** An agent as a snapshot keeps it. */
export interface AgentFacts {
	readonly id: string;
	readonly name: string | undefined;
	readonly status: string | undefined;
	readonly meaning: StatusMeaning['state'];
	/** The agent's word is a known ready or failed one (`idle`, `READY`, `error`…): its work is over. */
	readonly settled: boolean;
	readonly runtimeId: string | undefined;
	/** The run the agent's latest reply belongs to. */
	readonly latestRunId: string | undefined;
	/** The agent's last change (ms), from `updated_at_unix_seconds`. */
	readonly updatedAt: number | undefined;
	/** What changes when the agent does (status, time, latest reply): a changed signature means "read its runs". */
	readonly signature: string;
}

/** A run as a snapshot keeps it. */
export interface RunFacts {
	readonly id: string;
	readonly agentId: string;
	readonly status: string | undefined;
	readonly meaning: StatusMeaning;
	/** The run's last change (ms): when it ended, for an ended run. */
	readonly updatedAt: number | undefined;
	readonly detail: string | undefined;
}

/** A runtime as a snapshot keeps it. */
export interface RuntimeFacts {
	readonly id: string;
	readonly name: string | undefined;
	readonly status: string | undefined;
	readonly updatedAt: number | undefined;
}

/** An open GitHub authorization request as a snapshot keeps it. */
export interface AuthorizationFacts {
	readonly id: string;
	readonly requestedBy: string | undefined;
	readonly reason: string | undefined;
	readonly url: string | undefined;
	readonly createdAt: number | undefined;
}

/** An image build as a snapshot keeps it. */
export interface BuildFacts {
	readonly id: string;
	readonly name: string | undefined;
	readonly status: string | undefined;
	readonly ended: boolean;
	readonly outcome: ActivityOutcome | undefined;
	readonly updatedAt: number | undefined;
}

/**
 * The account as the watcher last saw it. Each map holds what the latest read of its list returned,
 * or what the snapshot before held when that list was not read this time (`watcher.ts` reads some
 * lists less often). Sizes are bounded by the watcher's item caps.
 */
export interface AccountSnapshot {
	/** When the look was taken (the watcher's clock). */
	readonly takenAt: number;
	/**
	 * Things that ended at or after this time (ms, by the records' own times) and were first seen
	 * ended are still news: the first snapshot's `since` (a catch-up after a pause or reload), else
	 * its `takenAt`; carried over unchanged by every later snapshot.
	 */
	readonly horizon: number;
	readonly agents: ReadonlyMap<string, AgentFacts>;
	readonly runs: ReadonlyMap<string, RunFacts>;
	readonly runtimes: ReadonlyMap<string, RuntimeFacts>;
	readonly authorizations: ReadonlyMap<string, AuthorizationFacts>;
	readonly builds: ReadonlyMap<string, BuildFacts>;
}

/** An agent record as a snapshot keeps it. */
export function agentFacts(agent: Agent): AgentFacts {
	const updatedAt = fromUnixSeconds(agent.updated_at_unix_seconds);
	const latestRunId = typeof agent.latest_reply?.run_id === 'string' ? agent.latest_reply.run_id : undefined;
	const status = eventText(agent.status);
	return {
		id: agent.id,
		name: eventText(agent.name),
		status,
		meaning: statusMeaning('agent', status).state,
		settled: agentStatusClass(status) === 'ready' || agentStatusClass(status) === 'failed',
		runtimeId: typeof agent.runtime_id === 'string' ? agent.runtime_id : undefined,
		latestRunId,
		updatedAt,
		signature: JSON.stringify([status, updatedAt, latestRunId, agent.latest_reply?.updated_at]),
	};
}

/** A run record as a snapshot keeps it; `agent` (the run's agent as the same look saw it) supplies the evidence of an unknown word. */
export function runFacts(run: Run, agent: AgentFacts | undefined): RunFacts {
	const status = eventText(run.status);
	const agentSettled = agent !== undefined && agent.settled && agent.latestRunId !== undefined && agent.latestRunId === run.id;
	return {
		id: run.id,
		agentId: run.agent_id ?? agent?.id ?? '',
		status,
		meaning: statusMeaning('run', status, { result: run.result ?? undefined, error: run.error ?? undefined, agentSettled }),
		updatedAt: fromRfc3339(run.updated_at) ?? fromRfc3339(run.created_at),
		detail: eventText(run.error, ACTIVITY_REASON_MAX_CHARS),
	};
}

/** A runtime record as a snapshot keeps it. */
export function runtimeFacts(runtime: Runtime): RuntimeFacts {
	return {
		id: runtime.id,
		name: eventText(runtime.display_name),
		status: eventText(runtime.status),
		updatedAt: fromRfc3339(typeof runtime.updated_at === 'string' ? runtime.updated_at : undefined),
	};
}

/** A GitHub authorization request as a snapshot keeps it; undefined when it is not open (its lifecycle says another status). */
export function authorizationFacts(request: GitHubAuthorizationRequest): AuthorizationFacts | undefined {
	const status = request.lifecycle?.status;
	if (typeof status === 'string' && status.toLowerCase() !== 'pending') {
		return undefined;
	}
	return {
		id: request.request_id,
		requestedBy: eventText(request.requested_by),
		reason: eventText(request.reason, ACTIVITY_REASON_MAX_CHARS),
		url: httpsUrl(request.lifecycle?.authorization_url),
		createdAt: fromUnixSeconds(request.created_at_unix_seconds),
	};
}

/** An image build (as src/api/records.ts `readBuild` reads it) as a snapshot keeps it. */
export function buildFacts(build: BuildInfo): BuildFacts {
	const cls = buildStatusClass(build.status);
	return {
		id: build.id,
		name: eventText(build.name),
		status: eventText(build.status),
		ended: cls !== 'active',
		outcome: cls === 'active' ? undefined : cls,
		updatedAt: build.updatedAt ?? build.createdAt,
	};
}

/** True when the snapshot shows work going on: an active agent or run, a build not ended. The watcher polls faster then. */
export function isBusy(snapshot: AccountSnapshot): boolean {
	for (const agent of snapshot.agents.values()) {
		if (agent.meaning === 'active') {
			return true;
		}
	}
	for (const run of snapshot.runs.values()) {
		if (run.meaning.state === 'active') {
			return true;
		}
	}
	for (const build of snapshot.builds.values()) {
		if (!build.ended) {
			return true;
		}
	}
	return false;
}

// ---------------------------------------------------------------- the diff

/**
 * The events that `current` shows and `previous` did not, oldest first. With no `previous` (the
 * first look since the watcher started) an end counts only when the record's time is at or after
 * `current.horizon` (the catch-up's `since`); a run first seen already ended counts the same way
 * later on. Waiting states and open GitHub requests count whenever they are new to the watcher,
 * the first look included: they still wait. Keys make the same thing one event: a run ends once
 * (`run-ended:<run>`), waits once (`run-waiting:<run>`), an agent waits once per latest run,
 * a request is one event, a build ends once, a runtime fails once per time it records.
 */
export function diffSnapshots(previous: AccountSnapshot | undefined, current: AccountSnapshot): ActivityEvent[] {
	const out: ActivityEvent[] = [];
	const seenAt = current.takenAt;
	const isNews = (time: number | undefined): boolean => time !== undefined && time >= current.horizon;
	const agentOf = (id: string): AgentFacts | undefined => current.agents.get(id) ?? previous?.agents.get(id);

	for (const run of current.runs.values()) {
		const before = previous?.runs.get(run.id);
		const agent = agentOf(run.agentId);
		const base = { runId: run.id, agentId: run.agentId || undefined, agentName: agent?.name, status: run.status };
		if (run.meaning.state === 'ended') {
			const wasEnded = before?.meaning.state === 'ended';
			const sawRunning = before !== undefined && !wasEnded;
			if (!wasEnded && (sawRunning || isNews(run.updatedAt))) {
				out.push({
					...base,
					key: runEndedKey(run.id),
					kind: 'runEnded',
					at: run.updatedAt ?? seenAt,
					outcome: run.meaning.outcome,
					detail: run.detail,
				});
			}
		} else if (run.meaning.state === 'waiting' && before?.meaning.state !== 'waiting') {
			out.push({ ...base, key: `run-waiting:${run.id}`, kind: 'runWaiting', at: run.updatedAt ?? seenAt });
		}
	}

	for (const agent of current.agents.values()) {
		const before = previous?.agents.get(agent.id);
		if (agent.meaning === 'waiting' && (before?.meaning !== 'waiting' || before.latestRunId !== agent.latestRunId)) {
			out.push({
				key: `agent-waiting:${agent.id}:${agent.latestRunId ?? agent.updatedAt ?? ''}`,
				kind: 'agentWaiting',
				at: agent.updatedAt ?? seenAt,
				status: agent.status,
				agentId: agent.id,
				agentName: agent.name,
				runId: agent.latestRunId,
			});
		}
	}

	for (const request of current.authorizations.values()) {
		if (previous?.authorizations.has(request.id)) {
			continue;
		}
		out.push({
			key: `github:${request.id}`,
			kind: 'githubAuthorization',
			at: request.createdAt ?? seenAt,
			requestId: request.id,
			requestedBy: request.requestedBy,
			reason: request.reason,
			authorizationUrl: request.url,
		});
	}

	for (const runtime of current.runtimes.values()) {
		const failed = FAILED_RUNTIME_STATUSES.has((runtime.status ?? '').toLowerCase());
		if (!failed) {
			continue;
		}
		const before = previous?.runtimes.get(runtime.id);
		const wasFailed = before !== undefined && FAILED_RUNTIME_STATUSES.has((before.status ?? '').toLowerCase());
		if (wasFailed || (before === undefined && !isNews(runtime.updatedAt))) {
			continue;
		}
		out.push({
			key: `runtime-failed:${runtime.id}:${runtime.updatedAt ?? seenAt}`,
			kind: 'runtimeFailed',
			at: runtime.updatedAt ?? seenAt,
			status: runtime.status,
			runtimeId: runtime.id,
			runtimeName: runtime.name,
		});
	}

	for (const build of current.builds.values()) {
		if (!build.ended) {
			continue;
		}
		const before = previous?.builds.get(build.id);
		if (before?.ended === true || (before === undefined && !isNews(build.updatedAt))) {
			continue;
		}
		out.push({
			key: `build-ended:${build.id}`,
			kind: 'buildEnded',
			at: build.updatedAt ?? seenAt,
			status: build.status,
			outcome: build.outcome,
			buildId: build.id,
			buildName: build.name,
		});
	}

	return out.sort((a, b) => a.at - b.at);
}
