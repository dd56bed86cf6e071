import * as vscode from 'vscode';
import { agentsList } from '../resources';
import { SAFETY, isTerminalRunStatus } from '../api';
import type { Run } from '../api';
import { iconSafe, markdownText, singleLine } from '../util/text';
import { runResultUri } from '../views/recordDocuments';
import type { CommandLogger } from './registry';
import { commandRegistrar } from './registry';
import { promptProblem } from './agents';
import type { FeatureDeps } from './support';
import { argString, followRun, isAutomation, rememberAgent, showModalWarning, showValidation } from './support';
import { resolveTarget } from '../views/targets';
import { runsList } from '../resources';
import { runTitle } from '../logs/format';

/** globalState key: true once the user chose "Don't Ask Again" when cancelling a run. */
export const SKIP_CANCEL_CONFIRM_KEY = 'cloudAgents.skipCancelRunConfirmation';

/**
 * Whether Cancel Run asks first: always for a click (tree node, palette, status bar with
 * `confirm: true`) unless the user chose "Don't Ask Again"; never for automation (`{agentId, runId}`).
 */
export function cancelNeedsConfirmation(arg: unknown, skipped: boolean): boolean {
	if (skipped) {
		return false;
	}
	if (
		isAutomation(arg) &&
		(arg as { confirm?: unknown }).confirm !== true &&
		(typeof arg.runId === 'string' || typeof arg.agentId === 'string')
	) {
		return false;
	}
	return true;
}

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
	const lines = [
		`# ${vscode.l10n.t('Run {0}', mdField(run.id))}`,
		'',
		`- ${vscode.l10n.t('Agent')}: ${mdField(agentName ?? run.agent_id ?? '')}`,
		`- ${vscode.l10n.t('Status')}: ${mdField(run.status)}`,
		...(run.created_at ? [`- ${vscode.l10n.t('Created')}: ${mdField(run.created_at)}`] : []),
		...(run.updated_at ? [`- ${vscode.l10n.t('Updated')}: ${mdField(run.updated_at)}`] : []),
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
 * Registers the run commands: refresh, load more, cancel, resume, follow up, open result, copy id
 * ("Send Prompt…" lives in prompt.ts; following is `cloudAgents.runs.follow` of the logs feature).
 *
 * Automation may pass `{agentId, runId}` instead of a tree node, plus `prompt` for resume and
 * follow-up (skipping the input box).
 */
export function registerRunCommands(deps: FeatureDeps): vscode.Disposable[] {
	const log: CommandLogger = deps.log;
	const registerCommand = commandRegistrar(log, { onUnauthorized: deps.onUnauthorized });
	const { views } = deps;
	const client = () => deps.session.client;
	/**
	 * Starts a run of the agent (resume, follow-up), remembers the agent, refreshes the Runs view
	 * and follows the new run; a validation error is shown as a warning (undefined), others throw.
	 */
	const startFollowed = async (agentId: string, start: () => Promise<Run>): Promise<Run | undefined> => {
		try {
			const run = await start();
			await rememberAgent(deps.context, agentId);
			await views.providerOf(runsList).refresh();
			await followRun(deps, agentId, run.id);
			return run;
		} catch (err) {
			await showValidation(err);
			return undefined;
		}
	};
	return [
		registerCommand('cloudAgents.runs.cancel', async (arg?: unknown) => {
			const target = await resolveTarget(deps, runsList, arg, {
				title: vscode.l10n.t('Cancel Run'),
				filter: (r) => !isTerminalRunStatus(r.status),
			});
			if (!target) {
				return undefined;
			}
			if (cancelNeedsConfirmation(arg, deps.context.globalState.get<boolean>(SKIP_CANCEL_CONFIRM_KEY) === true)) {
				const cancelRun = vscode.l10n.t('Cancel Run');
				const dontAsk = vscode.l10n.t("Cancel Run, Don't Ask Again");
				const title = runTitle(views.providerOf(agentsList).find(target.agentId)?.name, target.run.prompt, target.run.id, 120);
				// Server text (agent name, prompt) is made safe by showModalWarning (notificationText).
				const choice = await showModalWarning(
					vscode.l10n.t('Cancel the run "{0}"?', title),
					vscode.l10n.t(
						'The agent stops working on it now ({0}, run {1}). You can resume it later as a new run.',
						target.run.status,
						target.run.id,
					),
					cancelRun,
					dontAsk,
				);
				if (choice === undefined) {
					return undefined;
				}
				if (choice === dontAsk) {
					await deps.context.globalState.update(SKIP_CANCEL_CONFIRM_KEY, true);
				}
			}
			const run = await client().cancelRun(target.agentId, target.run.id);
			await views.providerOf(runsList).refresh();
			const name = runTitle(views.providerOf(agentsList).find(target.agentId)?.name, run.prompt ?? target.run.prompt, run.id);
			vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('{0} — {1}', name, run.status)), 4000);
			return run;
		}),
		registerCommand('cloudAgents.runs.resume', async (arg?: unknown) => {
			const target = await resolveTarget(deps, runsList, arg, {
				title: vscode.l10n.t('Resume Run'),
				filter: (r) => isTerminalRunStatus(r.status),
			});
			if (!target) {
				return undefined;
			}
			let prompt = argString(arg, 'prompt');
			if (prompt === undefined && argString(arg, 'runId') === undefined) {
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
			return startFollowed(target.agentId, () => client().resumeRun(target.agentId, target.run.id, prompt?.trim() ? { prompt } : {}));
		}),
		registerCommand('cloudAgents.runs.followUp', async (arg?: unknown) => {
			const target = await resolveTarget(deps, runsList, arg, { title: vscode.l10n.t('Send Follow-up') });
			if (!target) {
				return undefined;
			}
			let prompt = argString(arg, 'prompt');
			if (prompt === undefined) {
				prompt = await vscode.window.showInputBox({
					title: vscode.l10n.t('Send Follow-up'),
					prompt: isTerminalRunStatus(target.run.status)
						? vscode.l10n.t('Follow-up prompt: starts a new run that continues this one')
						: vscode.l10n.t('Follow-up prompt: steers the active run'),
					validateInput: (v) => promptProblem(v, false),
					ignoreFocusOut: true,
				});
				if (prompt === undefined) {
					return undefined;
				}
			}
			return startFollowed(target.agentId, () => client().followUpRun(target.agentId, target.run.id, { prompt }));
		}),
		registerCommand('cloudAgents.runs.openResult', async (arg?: unknown) => {
			const target = await resolveTarget(deps, runsList, arg, { title: vscode.l10n.t('Open Run Result') });
			if (!target) {
				return undefined;
			}
			const run = await client().getRun(target.agentId, target.run.id);
			const agentName = views.providerOf(agentsList).nameOf(target.agentId);
			// Server text in a read-only Markdown record, link syntax escaped (runResultMarkdown).
			return deps.records.show(runResultUri(target.agentId, agentName, run), runResultMarkdown(agentName, run), 'markdown', {
				forceLanguage: true,
				markdownPreview: true,
			});
		}),
		registerCommand('cloudAgents.runs.copyId', async (arg?: unknown) => {
			const target = await resolveTarget(deps, runsList, arg, { title: vscode.l10n.t('Copy Run ID') });
			if (target) {
				await vscode.env.clipboard.writeText(target.run.id);
				vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Copied the run ID {0}', target.run.id)), 3000);
			}
		}),
	];
}
