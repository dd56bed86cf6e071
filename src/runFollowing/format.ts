/**
 * Turns run event records into readable output-channel lines. Pure functions (no vscode), so unit
 * tests run in plain Node. Event text comes from the service and is untrusted: ANSI escape
 * sequences, control, bidi and invisible characters are removed (src/util/text.ts), long payloads
 * are shortened, and only the header line of an event starts at the left margin: the event type
 * stays on that line (its line breaks shown as ⏎) and payload lines are indented, so server text
 * cannot forge another event's header.
 */
import { type EventRecord, eventDataFields, eventText, runStatusClass } from '../api';
import { SAFETY } from '../base/limits';
import { cut, outputLine, singleLine, stripControls } from '../util/text';

/** Longest payload text kept on one event line (characters). */
export const MAX_PAYLOAD_CHARS = 2000;

/** Removes ANSI escape sequences and control characters except tab and newline (see `stripControls`). */
export function stripAnsi(text: string): string {
	return stripControls(text);
}

/** JSON on one line, shortened to `max` characters. */
export function compactJson(value: unknown, max = MAX_PAYLOAD_CHARS): string {
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = String(value);
	}
	return shorten(text, max);
}

function shorten(text: string, max = MAX_PAYLOAD_CHARS): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

function two(n: number): string {
	return String(n).padStart(2, '0');
}

/** `HH:MM:SS.mmm` in local time, of the event's `created_at` (or `fallback` when it has none). */
export function formatTime(createdAt: string | undefined, fallback: Date = new Date()): string {
	const parsed = createdAt ? new Date(createdAt) : undefined;
	const d = parsed && !Number.isNaN(parsed.getTime()) ? parsed : fallback;
	return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** The payload text of one event: message → text, log → text, tool.call → tool + input, and so on. */
export function payloadText(event: EventRecord): string {
	const data = eventDataFields(event.data);
	if (data === undefined) {
		// Another envelope (flat record, plain-string data): the text is wherever it is (src/api/events.ts).
		return eventText(event);
	}
	switch (event.type) {
		case 'message': {
			const text = data.text ?? eventText(event);
			return data.role ? `${data.role}: ${text}` : text;
		}
		case 'log': {
			const text = data.text ?? eventText(event);
			return data.level ? `[${data.level}] ${text}` : text;
		}
		case 'tool.call':
			return `${data.tool ?? '?'} ${compactJson(data.input ?? {})}`;
		case 'tool.result': {
			const output = typeof data.output === 'string' ? data.output : compactJson(data.output ?? null);
			return `${data.tool ?? '?'} → ${output}`;
		}
		case 'file.changed':
			return `${data.change ?? 'changed'} ${data.path ?? ''}`.trim();
		case 'artifact.created':
			return `${data.name ?? ''} (${data.artifact_id ?? '?'})`.trim();
		case 'run.status':
			return data.status ?? compactJson(data.raw);
		case 'run.completed': {
			const status = data.status ?? 'completed';
			const error = data.error;
			const result = data.result;
			if (error) {
				return `${status}: ${error}`;
			}
			if (result) {
				const first = result.split('\n').find((line) => line.trim() !== '') ?? '';
				const more = result.trim().includes('\n') ? ' …' : '';
				return `${status}: ${first.trim()}${more}`;
			}
			return status;
		}
		default:
			return eventText(event);
	}
}

/**
 * One event as output lines: `HH:MM:SS.mmm  <type>  <payload>`. Multi-line payloads continue on
 * indented lines so every line stays attributable to its event.
 */
export function formatEvent(event: EventRecord, now: Date = new Date()): string {
	const time = formatTime(typeof event.created_at === 'string' ? event.created_at : undefined, now);
	const text = shorten(stripAnsi(payloadText(event)));
	// The type is server text on the header line: one line (⏎ for breaks), short.
	const type = outputLine(typeof event.type === 'string' ? event.type : String(event.type), SAFETY.eventTypeMaxChars) || '?';
	const [first = '', ...rest] = text.split('\n');
	const head = cut(`${time}  ${type}  ${first}`.trimEnd(), SAFETY.outputLineMaxChars);
	if (rest.length === 0) {
		return head;
	}
	// Continuation lines are indented (never blank at the margin), so none looks like a header.
	const indent = ' '.repeat(time.length + 2);
	return [head, ...rest.map((line) => cut(`${indent}${line}`.trimEnd(), SAFETY.outputLineMaxChars))].join('\n');
}

/** The last 8 characters of a run id (`run_01J…ABCDEFGH` → `ABCDEFGH`), for titles. */
export function shortRunId(runId: string): string {
	const bare = singleLine(runId, SAFETY.idMaxChars).replace(/^run_/, '');
	return bare.length > 8 ? bare.slice(-8) : bare;
}

/** Longest agent name in a run's human name (characters). */
export const RUN_TITLE_AGENT_CHARS = 32;
/** Longest prompt excerpt in a run's human name (characters). */
export const RUN_TITLE_PROMPT_CHARS = 40;

/**
 * A run's human name: `<agent>: <prompt excerpt>` (one line, neutralised, each part cut), for
 * notifications, output channels and the status bar. Falls back to the short run id for a missing
 * part, so the name is never empty: `<agent>: run ABCDEFGH`, `Run ABCDEFGH: <prompt>`.
 */
export function runTitle(
	agentName: string | undefined,
	prompt: string | undefined,
	runId: string,
	maxPrompt = RUN_TITLE_PROMPT_CHARS,
): string {
	const agent = singleLine(agentName ?? '', RUN_TITLE_AGENT_CHARS);
	const excerpt = singleLine(prompt ?? '', maxPrompt);
	const left = agent || `Run ${shortRunId(runId)}`;
	return excerpt ? `${left}: ${excerpt}` : agent ? `${agent}: run ${shortRunId(runId)}` : left;
}

/**
 * An output channel name for a run: `Cloud Agents: <run title>`, with path separators replaced
 * (VS Code names the channel's log file after it).
 */
export function runChannelName(title: string): string {
	return `Cloud Agents: ${title}`.replace(/[/\\]/g, '-');
}

/** An action the status bar offers for the run it shows. */
export type FollowedRunAction = 'showOutput' | 'openResult' | 'cancel' | 'stopFollowing' | 'dismiss';

/** The actions that make sense for a run in this state (the status bar's menu). */
export function followedRunActions(run: { active: boolean; ended: boolean; status: string | undefined }): FollowedRunAction[] {
	const actions: FollowedRunAction[] = ['showOutput'];
	if (run.ended) {
		if (runStatusClass(run.status) !== 'cancelled') {
			actions.push('openResult');
		}
	} else {
		actions.push('cancel');
	}
	actions.push(run.active ? 'stopFollowing' : 'dismiss');
	return actions;
}

/** The actions of an end-of-run notification, by final status: no "Open Result" for a cancelled run. */
export function endNotificationActions(status: string | undefined): ('openResult' | 'showOutput')[] {
	const cls = runStatusClass(status);
	return cls === 'cancelled' ? ['showOutput'] : cls === 'failed' ? ['showOutput', 'openResult'] : ['openResult', 'showOutput'];
}
