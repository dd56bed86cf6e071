import * as vscode from 'vscode';
import { LIMITS, SAFETY, fromRfc3339, isTerminalRunStatus } from '../api';
import type { Agent, Run } from '../api';
import { type PromptSending, type SentPrompt, pickPromptAgent, sendComposedPrompt, sendPrompt } from './prompt';
import { toRunRef } from '../runFollowing';
import type { FollowedRunAction, RunNameHint } from '../runFollowing';
import { runTitle } from '../runFollowing/format';
import { contextToken, iconSafe, markdownText, singleLine } from '../util/text';
import type { ActionKit, RecordAction, ResourceAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, localTime, oneLine, plainTooltip, relativeTime, runStatusIcon } from '../views/format';
import { runResultUri } from '../views/recordDocuments';
import { argBoolean, argString, displayName, pickItem, showModalQuestion, showValidation } from '../views/ui';
import { agentsList, promptProblem, rememberAgent } from './agents';
import type { AgentTarget } from './agents';

/** How much of the prompt a run row shows: short enough that the status after it fits the default sidebar. */
const RUN_LABEL_CHARS = 32;

/** What a run command receives: `{agentId, run}` (a row, the resolver). */
export interface RunTarget {
	agentId: string;
	run: Run;
}

function joinFlags(...parts: Array<string | false>): string {
	return parts.filter((p): p is string => typeof p === 'string').join(':');
}

/**
 * The Runs view: runs of the agent selected in the Agents view, newest first. The runs endpoint
 * has only `limit` (1–500) and no cursor, so "Load more…" re-fetches with a larger limit
 * (limit += `cloudAgents.pageSize`); the list refreshes itself while a run is queued or running.
 * A row's `contextValue` is `run:<status>` plus `:active` for runs still going or `:terminal` for
 * ended ones (TERMINAL_RUN_STATUSES, any spelling), `:hasResult` when a result or error text exists
 * and `:followed` while its events stream (the flag `followed`, set by the extension).
 */
export const runsList: ListDescriptor<Run, RunTarget, Agent> = {
	key: 'runs',
	kind: 'run',
	viewId: 'cloudAgents.runs',
	parent: {
		as: 'selection',
		of: agentsList,
		selectLabel: () => vscode.l10n.t('Select an agent'),
		selectTooltip: () => vscode.l10n.t('Select an agent in the Agents view to see its runs.'),
	},
	commands: { refresh: 'cloudAgents.runs.refresh', loadMore: 'cloudAgents.runs.loadMore' },
	source: {
		async list(ctx, { pages, pageSize, signal }, agent) {
			const limit = Math.min(pages * pageSize, LIMITS.runListLimit.max);
			const runs = await ctx.client().listRuns(agent.id, { limit, signal });
			return { items: runs, more: runs.length >= limit && limit < LIMITS.runListLimit.max };
		},
	},
	keyOf: (run) => run.id,
	fields: (run, agentId) => ({ agentId: agentId ?? run.agent_id ?? '', run }),
	isActive: (run) => !isTerminalRunStatus(run.status),
	signature: (r) => [r.id, r.status, r.updated_at],
	row(run, ctx) {
		const agentId = ctx.parentKey ?? run.agent_id ?? '';
		const terminal = isTerminalRunStatus(run.status);
		const followed = ctx.flag('followed', run.id, agentId);
		return {
			label: oneLine(run.prompt, RUN_LABEL_CHARS) || run.id,
			contextValue: joinFlags(
				`run:${contextToken(run.status)}`,
				terminal ? 'terminal' : 'active',
				run.result || run.error ? 'hasResult' : false,
				followed && 'followed',
			),
			icon: runStatusIcon(run.status),
			// Status first, so a narrow sidebar still shows it after the short prompt (the icon also says it).
			description: joinParts(run.status, relativeTime(fromRfc3339(run.created_at))),
			tooltip: plainTooltip(vscode.l10n.t('Run {0}', run.id), [
				[vscode.l10n.t('Status'), run.status],
				[vscode.l10n.t('Created'), run.created_at ? new Date(run.created_at).toLocaleString() : undefined],
				[vscode.l10n.t('Updated'), run.updated_at ? new Date(run.updated_at).toLocaleString() : undefined],
				[vscode.l10n.t('Session'), run.dsh_session_id],
				[vscode.l10n.t('Follows run'), run.parent_run_id],
				[vscode.l10n.t('Prompt'), oneLine(run.prompt, 300)],
				[vscode.l10n.t('Result'), run.result ? oneLine(run.result, 300) : undefined],
				[vscode.l10n.t('Error'), run.error ? oneLine(run.error, 300) : undefined],
			]),
			// Clicking a row: an active run opens its live output (following it), a finished one its result.
			command: terminal
				? { command: 'cloudAgents.runs.openResult', title: vscode.l10n.t('Open Result') }
				: { command: 'cloudAgents.runs.follow', title: vscode.l10n.t('Show Run Output'), arguments: [{ agentId, runId: run.id }] },
		};
	},
	target: {
		idField: 'runId',
		get: (ctx, id, agentId) => ctx.client().getRun(agentId ?? '', id),
		choices: (ctx, agentId) => ctx.client().listRuns(agentId ?? '', { limit: 100 }),
		pickText: (run) => ({
			label: singleLine(run.prompt, 80) || run.id,
			description: joinParts(run.status, relativeTime(fromRfc3339(run.created_at))),
			detail: run.id,
		}),
		placeholder: (agent) => vscode.l10n.t('Pick a run of {0}', iconSafe(agent?.name || agent?.id || '')),
	},
};

/** globalState key: true once the user chose "Don't Ask Again" when cancelling a run. */
export const SKIP_CANCEL_CONFIRM_KEY = 'cloudAgents.skipCancelRunConfirmation';

/**
 * Whether Cancel Run asks first: always for a click (tree node, palette, status bar with
 * `confirm: true`) unless the user chose "Don't Ask Again"; never for automation (`{agentId, runId}`).
 */
function cancelNeedsConfirmation(kit: ActionKit): boolean {
	if (kit.context.globalState.get<boolean>(SKIP_CANCEL_CONFIRM_KEY) === true) {
		return false;
	}
	const named = argString(kit.arg, 'runId') !== undefined || argString(kit.arg, 'agentId') !== undefined;
	return !(kit.automation && argBoolean(kit.arg, 'confirm') !== true && named);
}

/** The longest heading of a run's result document (its prompt's start). */
const RESULT_HEADING_MAX_CHARS = 80;

/** One server field on one Markdown line: neutralised, cut, link syntax escaped. */
function mdField(value: string | undefined | null): string {
	return markdownText(singleLine(value, SAFETY.descriptionMaxChars));
}

/**
 * The Markdown document of a run's result: prompt, status and result or error. Every piece of
 * server text goes through `markdownText` (controls and bidi removed; `\ [ ] < &` escaped), so the
 * preview renders headings, lists and emphasis of the result but no link, image, HTML or command URI.
 */
export function runResultMarkdown(agentName: string | undefined, run: Run): string {
	// Headed by what the run was asked (its prompt's start, on one line), as the Runs view names it;
	// the id is a line of its own (issue 42, item 15).
	const asked = singleLine(run.prompt, RESULT_HEADING_MAX_CHARS);
	const lines = [
		`# ${asked ? markdownText(asked) : vscode.l10n.t('Run {0}', mdField(run.id))}`,
		'',
		`- ${vscode.l10n.t('Run')}: ${mdField(run.id)}`,
		`- ${vscode.l10n.t('Agent')}: ${mdField(agentName ?? run.agent_id ?? '')}`,
		`- ${vscode.l10n.t('Status')}: ${mdField(run.status)}`,
		...(run.created_at ? [`- ${vscode.l10n.t('Created')}: ${mdField(localTime(fromRfc3339(run.created_at)) ?? run.created_at)}`] : []),
		...(run.updated_at ? [`- ${vscode.l10n.t('Updated')}: ${mdField(localTime(fromRfc3339(run.updated_at)) ?? run.updated_at)}`] : []),
		'',
		`## ${vscode.l10n.t('Prompt')}`,
		'',
		markdownText(run.prompt ?? ''),
		'',
	];
	if (run.result) {
		lines.push(`## ${vscode.l10n.t('Result')}`, '', markdownText(run.result), '');
	}
	if (run.error) {
		lines.push(`## ${vscode.l10n.t('Error')}`, '', markdownText(run.error), '');
	}
	if (!run.result && !run.error) {
		lines.push(
			isTerminalRunStatus(run.status)
				? vscode.l10n.t('_The run ended without a result._')
				: vscode.l10n.t('_The run has no result yet ({0})._', mdField(run.status)),
			'',
		);
	}
	return lines.join('\n');
}

/**
 * Starts a run of the agent (resume, follow-up), remembers the agent, refreshes the Runs view and
 * follows the new run; a validation error is shown as a warning (undefined), others throw.
 */
async function startFollowed(kit: ActionKit, agentId: string, start: () => Promise<Run>): Promise<Run | undefined> {
	try {
		const run = await start();
		await rememberAgent(kit.context, agentId);
		await kit.list(runsList).refresh();
		try {
			await kit.follow(agentId, run.id);
		} catch (err) {
			// Following is a convenience: the run was started.
			kit.log.warn(`following run ${run.id} failed: ${err instanceof Error ? err.message : String(err)}`);
		}
		return run;
	} catch (err) {
		await showValidation(err);
		return undefined;
	}
}

/** Cancel Run: asks first for a person (with "Don't Ask Again"), not for automation unless `confirm: true`. */
async function cancelRun({ agentId, run: target }: RunTarget, kit: ActionKit): Promise<Run | undefined> {
	if (cancelNeedsConfirmation(kit)) {
		const cancel = vscode.l10n.t('Cancel Run');
		const dontAsk = vscode.l10n.t("Cancel Run, Don't Ask Again");
		const title = runTitle(kit.list(agentsList).find(agentId)?.name, target.prompt, target.id, 120);
		// Server text (agent name, prompt) is made safe by showModalQuestion (notificationText). Its
		// dismiss button says "Keep Running": VS Code's own "Cancel" beside "Cancel Run" reads both ways.
		const choice = await showModalQuestion(
			vscode.l10n.t('Cancel the run "{0}"?', title),
			vscode.l10n.t(
				'The agent stops working on it now ({0}, run {1}). You can resume it later as a new run.',
				target.status,
				target.id,
			),
			vscode.l10n.t('Keep Running'),
			cancel,
			dontAsk,
		);
		if (choice === undefined) {
			return undefined;
		}
		if (choice === dontAsk) {
			await kit.context.globalState.update(SKIP_CANCEL_CONFIRM_KEY, true);
		}
	}
	const run = await kit.client().cancelRun(agentId, target.id);
	await kit.list(runsList).refresh();
	const name = runTitle(kit.list(agentsList).find(agentId)?.name, run.prompt ?? target.prompt, run.id);
	vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('{0} — {1}', name, run.status)), 4000);
	return run;
}

/** Resume Run: asks for an optional prompt unless automation names the run (`{agentId, runId, prompt?}`). */
async function resumeRun({ agentId, run }: RunTarget, kit: ActionKit): Promise<Run | undefined> {
	let prompt = argString(kit.arg, 'prompt');
	if (prompt === undefined && argString(kit.arg, 'runId') === undefined) {
		prompt = await vscode.window.showInputBox({
			title: vscode.l10n.t('Resume Run'),
			prompt: vscode.l10n.t('Optional prompt for the resumed session (empty: "Continue.")'),
			validateInput: (v) => promptProblem(v, true),
			ignoreFocusOut: true,
		});
		if (prompt === undefined) {
			return undefined;
		}
	}
	const given = prompt;
	return startFollowed(kit, agentId, () => kit.client().resumeRun(agentId, run.id, given?.trim() ? { prompt: given } : {}));
}

/** Send Follow-up: asks for the prompt unless automation passes `prompt`. */
async function followUpRun({ agentId, run }: RunTarget, kit: ActionKit): Promise<Run | undefined> {
	let prompt = argString(kit.arg, 'prompt');
	if (prompt === undefined) {
		prompt = await vscode.window.showInputBox({
			title: vscode.l10n.t('Send Follow-up'),
			prompt: isTerminalRunStatus(run.status)
				? vscode.l10n.t('Follow-up prompt: starts a new run that continues this one')
				: vscode.l10n.t('Follow-up prompt: steers the active run'),
			validateInput: (v) => promptProblem(v, false),
			ignoreFocusOut: true,
		});
		if (prompt === undefined) {
			return undefined;
		}
	}
	const given = prompt;
	return startFollowed(kit, agentId, () => kit.client().followUpRun(agentId, run.id, { prompt: given }));
}

/** Open Run Result: the run read again, as a read-only Markdown record shown as a preview. */
async function openResult({ agentId, run: target }: RunTarget, kit: ActionKit): Promise<vscode.TextDocument> {
	const run = await kit.client().getRun(agentId, target.id);
	const agentName = kit.list(agentsList).nameOf(agentId);
	// Server text in a read-only Markdown record, link syntax escaped (runResultMarkdown).
	return kit.records.show(runResultUri(agentId, agentName, run), runResultMarkdown(agentName, run), 'markdown', {
		forceLanguage: true,
		markdownPreview: true,
	});
}

/** What the argument of a follow command tells about the run's name (a run row has the prompt). */
function nameHint(arg: unknown): RunNameHint {
	const run: unknown = arg !== null && typeof arg === 'object' ? (arg as { run?: unknown }).run : undefined;
	return { agentName: argString(arg, 'agentName'), prompt: argString(arg, 'prompt') ?? argString(run, 'prompt') };
}

/**
 * Follow a Run: a run row or `{agentId, runId, agentName?, prompt?}` is followed as given (the
 * names title its channel without a request, and the run is not read first); else the pick.
 */
async function followRun(kit: ActionKit): Promise<void> {
	const given = toRunRef(kit.arg);
	let ref: { agentId: string; runId: string } | undefined = given;
	if (!ref) {
		const target = await kit.resolve(runsList, kit.arg, { title: vscode.l10n.t('Follow a Run') });
		ref = target && { agentId: target.agentId, runId: target.run.id };
	}
	if (ref) {
		await kit.follow(ref.agentId, ref.runId, given ? nameHint(kit.arg) : {});
	}
}

/**
 * Send Prompt (src/resources/prompt.ts), then: the agent remembered and selected (its row revealed),
 * the Runs view refreshed and the run followed. Returns the run that received the prompt.
 */
async function sendPromptTo(agent: Agent, kit: ActionKit): Promise<Run | undefined> {
	const sent = await sendPrompt(agent, kit);
	return sent && showSentRun(agent, kit, sent);
}

/**
 * A prompt another flow composed (Continue in Cloud, handed to it by the shell) sent as Send Prompt
 * sends (src/resources/prompt.ts: limits, the busy agent's choice), then shown and followed as Send
 * Prompt's run is. Returns the run that received the prompt, or undefined when nothing was sent.
 */
export async function sendComposedAndFollow(agent: Agent, kit: ActionKit, prompt: string, how: PromptSending): Promise<Run | undefined> {
	const sent = await sendComposedPrompt(agent, kit, prompt, how);
	return sent && showSentRun(agent, kit, sent);
}

/** After a send: the agent remembered and selected (its row revealed), the Runs view refreshed and the run followed. */
async function showSentRun(agent: Agent, kit: ActionKit, { run, prompt }: SentPrompt): Promise<Run> {
	await rememberAgent(kit.context, agent.id);
	if (kit.selected(agentsList)?.id !== agent.id) {
		await kit.selectById(agentsList, agent.id).catch(() => undefined);
	}
	await kit.list(runsList).refresh();
	try {
		// The names let the follower title the run's channel and notifications without a request.
		await kit.follow(agent.id, run.id, { agentName: agent.name, prompt: run.prompt ?? prompt });
	} catch (err) {
		kit.log.warn(`following run ${run.id} failed: ${err instanceof Error ? err.message : String(err)}`);
	}
	return run;
}

/** The status bar's menu: the followed run's actions, as quick-pick items. */
async function pickFollowedRunAction(kit: ActionKit): Promise<FollowedRunAction | undefined> {
	const info = kit.follower.statusRunInfo;
	if (!info) {
		return undefined;
	}
	const items: Record<FollowedRunAction, string> = {
		showOutput: vscode.l10n.t('$(output) Show Output'),
		openResult: vscode.l10n.t('$(preview) Open Result'),
		cancel: vscode.l10n.t('$(debug-stop) Cancel Run…'),
		stopFollowing: vscode.l10n.t('$(eye-closed) Stop Following'),
		dismiss: vscode.l10n.t('$(close) Hide from Status Bar'),
	};
	const pick = await vscode.window.showQuickPick(
		info.actions.map((action) => ({ label: items[action], action })),
		// The title is server text: one line, `$(` shown as typed (displayName).
		{
			title: displayName(info.title),
			placeHolder: vscode.l10n.t('Run {0}: {1}', info.runId, info.status ?? vscode.l10n.t('connecting')),
		},
	);
	return pick?.action;
}

/** The status bar's click: the followed run's actions (automation may pass `{action}`); returns the action taken. */
async function followedRunActions(kit: ActionKit): Promise<FollowedRunAction | undefined> {
	const info = kit.follower.statusRunInfo;
	if (!info) {
		kit.info(vscode.l10n.t('No run is being followed.'));
		return undefined;
	}
	const given = argString(kit.arg, 'action');
	const action = given !== undefined ? info.actions.find((a) => a === given) : await pickFollowedRunAction(kit);
	const ref = { agentId: info.agentId, runId: info.runId };
	switch (action) {
		case 'showOutput':
			if (!kit.follower.show(ref.agentId, ref.runId)) {
				await kit.follower.follow(ref.agentId, ref.runId, { preserveFocus: false });
			}
			break;
		case 'openResult':
			await kit.invoke(runActions.openResult, ref);
			break;
		case 'cancel':
			// Asks first, like the Runs view's Cancel Run (`confirm`).
			await kit.invoke(runActions.cancel, { ...ref, confirm: true });
			break;
		case 'stopFollowing':
			kit.follower.stop(ref.agentId, ref.runId);
			break;
		case 'dismiss':
			kit.follower.dismissStatus();
			break;
		default:
			break;
	}
	return action;
}

/** Stop Following: the run named (a row, `{agentId, runId}`), else the only followed run, else asks which. */
async function stopFollowing(kit: ActionKit): Promise<void> {
	const { follower } = kit;
	let ref = toRunRef(kit.arg);
	if (!ref) {
		const following = follower.following;
		if (following.length === 0) {
			kit.info(vscode.l10n.t('No run is being followed.'));
			return;
		}
		ref =
			following.length === 1
				? following[0]
				: await vscode.window.showQuickPick(
						following.map((f) =>
							pickItem(
								{
									label: follower.stateOf(f.agentId, f.runId)?.title ?? runTitle(undefined, undefined, f.runId),
									description: f.status,
									detail: f.runId,
								},
								{ agentId: f.agentId, runId: f.runId },
							),
						),
						{ title: vscode.l10n.t('Stop Following'), placeHolder: vscode.l10n.t('Which run?') },
					);
	}
	if (ref) {
		follower.stop(ref.agentId, ref.runId);
	}
}

/**
 * What a user can do with a run (the Runs view's rows, the palette, the status bar of a followed
 * run). Automation may pass `{agentId, runId}` instead of a row, plus `prompt` for resume and
 * follow-up (skipping the input box). Send Prompt starts a run of an agent: it acts on an agent
 * (`{agentId, prompt?, images?, onConflict?}`, src/resources/prompt.ts).
 */
export const runActions = {
	sendPrompt: {
		on: agentsList,
		command: 'cloudAgents.runs.sendPrompt',
		title: () => vscode.l10n.t('Send Prompt: pick an agent'),
		// Its own agent step: the agent selected in the Agents view first, then recently used ones.
		pick: (kit) => pickPromptAgent(kit, vscode.l10n.t('Send Prompt: pick an agent')),
		run: ({ agent }, kit) => sendPromptTo(agent, kit),
	} satisfies RecordAction<Agent, AgentTarget>,
	cancel: {
		on: runsList,
		command: 'cloudAgents.runs.cancel',
		filter: (r) => !isTerminalRunStatus(r.status),
		run: cancelRun,
	} satisfies RecordAction<Run, RunTarget>,
	resume: {
		on: runsList,
		command: 'cloudAgents.runs.resume',
		filter: (r) => isTerminalRunStatus(r.status),
		run: resumeRun,
	} satisfies RecordAction<Run, RunTarget>,
	followUp: { on: runsList, command: 'cloudAgents.runs.followUp', run: followUpRun } satisfies RecordAction<Run, RunTarget>,
	openResult: { on: runsList, command: 'cloudAgents.runs.openResult', run: openResult } satisfies RecordAction<Run, RunTarget>,
	copyId: {
		on: runsList,
		command: 'cloudAgents.runs.copyId',
		run: async ({ run }, kit) => void (await kit.copy(run.id, vscode.l10n.t('Copied the run ID {0}', run.id))),
	} satisfies RecordAction<Run, RunTarget>,
	// Following acts on a run named by ids without reading it first (the follower reads its events):
	// a command of the resource that resolves the run itself only when it has to pick one.
	follow: { command: 'cloudAgents.runs.follow', run: followRun } satisfies ResourceAction,
	followedRunActions: { command: 'cloudAgents.runs.followedRunActions', run: followedRunActions } satisfies ResourceAction,
	stopFollowing: { command: 'cloudAgents.runs.stopFollowing', run: stopFollowing } satisfies ResourceAction,
};
