/**
 * "Send Prompt…" (`cloudAgents.runs.sendPrompt`), the flow: its agent step, the prompt step with
 * its busy check, images and editor buttons, the limits, and the conflict with an active run. The
 * command is an action of the runs resource on an agent (src/resources/runs.ts): it finds the
 * agent (a row, `{agentId}`, or this flow's agent step, `pickPromptAgent`), calls `sendPrompt`,
 * and then shows and follows the new run.
 */
import * as vscode from 'vscode';
import { LIMITS, ValidationError, isTerminalRunStatus, sleep } from '../api';
import type { Agent, PromptImage, Run } from '../api';
import { isPromptSource } from '../ids';
import { agentsList, promptProblem, recentAgentIds } from './agents';
import { iconSafe } from '../util/text';
import type { ActionKit } from '../views/actions';
import { joinParts } from '../views/format';
import { argString, displayName, isStatus, pickItem, pickWhenLoaded, showModalWarning, showWarning, validationMessage } from '../views/ui';

/** What to do when the agent already has an active run (the service answers 409). */
export type ConflictChoice = 'followUp' | 'cancelAndSend' | 'cancel';

/** The automation argument of `cloudAgents.runs.sendPrompt`; every field skips its picker. */
export interface SendPromptArgs {
	agentId?: string;
	prompt?: string;
	/** Image file paths (PNG, JPEG, GIF, WebP). */
	images?: string[];
	onConflict?: ConflictChoice;
}

/** What Send Prompt sent: the run that received the prompt (new, or the active run followed up) and the prompt. */
export interface SentPrompt {
	run: Run;
	prompt: string;
}

/** Decoded size that base64-encodes to the per-image limit (a function: nothing runs when the module loads). */
const maxImageFileBytes = (): number => Math.floor(LIMITS.imageEncodedBytes / 4) * 3;
const CANCEL_POLL_MS = 500;
const CANCEL_TIMEOUT_MS = 60_000;

/** The automation argument's fields (each skips its step); anything else in it is ignored. */
function sendPromptArgs(kit: ActionKit): Omit<SendPromptArgs, 'agentId'> {
	if (!kit.automation) {
		return {};
	}
	const given = kit.arg as { images?: unknown };
	const onConflict = argString(kit.arg, 'onConflict');
	return {
		prompt: argString(kit.arg, 'prompt'),
		images: Array.isArray(given.images) ? given.images.filter((p): p is string => typeof p === 'string') : undefined,
		onConflict: onConflict === 'followUp' || onConflict === 'cancelAndSend' || onConflict === 'cancel' ? onConflict : undefined,
	};
}

/**
 * Sends a prompt to an agent in at most three steps from the palette (command, agent, prompt) and
 * one from an agent row (the prompt): the agent picker (`pickPromptAgent`) starts at the agent
 * selected in the Agents view (then recently used ones); the prompt input shows at once whether
 * the agent is busy (its active run is looked up while the input opens) and has buttons to attach
 * images, to send the selection or the whole active editor (multi-line prompts), and, for a busy
 * agent, to cancel the active run and start a new one instead of sending a follow-up. Every limit
 * is checked before sending; a 409 that still happens (the agent became busy meanwhile) is handled
 * as before. Returns the run that received the prompt and the prompt, or undefined when nothing
 * was sent.
 */
export async function sendPrompt(agent: Agent, kit: ActionKit): Promise<SentPrompt | undefined> {
	const args = sendPromptArgs(kit);
	const client = kit.client();
	let prompt = args.prompt;
	let imagePaths = args.images;
	let onConflict = args.onConflict;
	if (prompt === undefined) {
		const answer = await askPrompt(kit, agent);
		if (!answer) {
			return undefined;
		}
		prompt = answer.prompt;
		imagePaths = imagePaths ?? answer.images;
		onConflict = onConflict ?? answer.onConflict;
	}
	let images: PromptImage[] | undefined;
	try {
		images = imagePaths && imagePaths.length > 0 ? await readImages(imagePaths) : undefined;
	} catch (err) {
		if (err instanceof ValidationError) {
			void showWarning(validationMessage(err));
			return undefined;
		}
		throw err;
	}
	const problem = promptProblem(prompt, (images?.length ?? 0) > 0);
	if (problem) {
		void showWarning(vscode.l10n.t('Not sent: {0}', problem));
		return undefined;
	}

	let run: Run | undefined;
	try {
		run = await client.createRun(agent.id, { prompt, images });
	} catch (err) {
		if (err instanceof ValidationError) {
			void showWarning(describeImageField(err, imagePaths));
			return undefined;
		}
		if (!isStatus(err, 409)) {
			throw err;
		}
		run = await resolveConflict(kit, agent, prompt, images, onConflict);
	}
	return run && { run, prompt };
}

interface AgentPick extends vscode.QuickPickItem {
	agent: Agent;
}

/**
 * Send Prompt's agent step: the agent selected in the Agents view first (active), then recently
 * used ones.
 */
export async function pickPromptAgent(kit: ActionKit, title: string): Promise<Agent | undefined> {
	const selected = kit.selected(agentsList)?.id;
	const loading = (): Promise<AgentPick[]> =>
		kit
			.client()
			.listAgents({ limit: 100 })
			.then((page) => {
				const recent = recentAgentIds(kit.context);
				const rank = (a: Agent): number => {
					if (a.id === selected) {
						return -1;
					}
					const i = recent.indexOf(a.id);
					return i < 0 ? recent.length : i;
				};
				return [...page.items]
					.sort((a, b) => rank(a) - rank(b))
					.map((agent): AgentPick =>
						pickItem(
							{
								label: agent.name || agent.id,
								description: joinParts(
									agent.status,
									agent.id === selected
										? vscode.l10n.t('selected')
										: recent.includes(agent.id) && vscode.l10n.t('recently used'),
								),
								detail: agent.id,
							},
							{ agent },
						),
					);
			});
	const pick = await pickWhenLoaded(loading, { title, placeHolder: vscode.l10n.t('Pick an agent'), matchOnDetail: true });
	return pick?.agent;
}

/** What the prompt input returns. */
interface PromptAnswer {
	prompt: string;
	images: string[];
	/** Set when the agent was seen busy before sending: how to treat its active run. */
	onConflict?: ConflictChoice;
}

/** The agent's active run, if any (undefined also when the lookup fails: the 409 path still applies). */
async function activeRunOf(kit: ActionKit, agent: Agent): Promise<Run | undefined> {
	try {
		const runs = await kit.client().listRuns(agent.id, { limit: 20 });
		return runs.find((r) => !isTerminalRunStatus(r.status));
	} catch {
		return undefined;
	}
}

/**
 * The prompt step: one input box (VS Code's InputBox is single-line, as in the Azure and Coder
 * extensions) with buttons for images, the active editor (multi-line prompts) and, for a busy
 * agent, "cancel the active run and send". Enter sends.
 */
async function askPrompt(kit: ActionKit, agent: Agent): Promise<PromptAnswer | undefined> {
	// Only real text documents: the Output panel and logs are text editors too, but never a prompt.
	const active = vscode.window.activeTextEditor;
	const editor = active && isPromptSource(active.document.uri.scheme) ? active : undefined;
	const name = displayName(agent.name, agent.id);
	const input = vscode.window.createInputBox();
	const attachButton: vscode.QuickInputButton = {
		iconPath: new vscode.ThemeIcon('file-media'),
		tooltip: vscode.l10n.t('Attach Images…'),
	};
	const selectionButton: vscode.QuickInputButton = {
		iconPath: new vscode.ThemeIcon('selection'),
		tooltip: vscode.l10n.t('Send the Selection of the Active Editor'),
	};
	const editorButton: vscode.QuickInputButton = {
		iconPath: new vscode.ThemeIcon('file'),
		tooltip: vscode.l10n.t('Send the Whole Active Editor'),
	};
	const cancelActiveButton: vscode.QuickInputButton = {
		iconPath: new vscode.ThemeIcon('debug-stop'),
		tooltip: vscode.l10n.t('Cancel the Active Run and Send as a New Run'),
	};
	const followUpButton: vscode.QuickInputButton = {
		iconPath: new vscode.ThemeIcon('reply'),
		tooltip: vscode.l10n.t('Send as a Follow-up to the Active Run'),
	};
	let images: string[] = [];
	let busy: Run | undefined;
	let conflict: ConflictChoice | undefined;
	let choosing = false;
	const update = (): void => {
		const buttons: vscode.QuickInputButton[] = [attachButton];
		if (editor && !editor.selection.isEmpty) {
			buttons.push(selectionButton);
		}
		if (editor) {
			buttons.push(editorButton);
		}
		if (busy) {
			buttons.push(conflict === 'cancelAndSend' ? followUpButton : cancelActiveButton);
		}
		input.buttons = buttons;
		const attached = images.length > 0 ? ` ${vscode.l10n.t('({0} images attached)', images.length)}` : '';
		if (busy) {
			const runName = iconSafe(busy.prompt || busy.id, 60);
			input.title = vscode.l10n.t('{0} is busy: "{1}" ({2})', name, runName, iconSafe(busy.status, 40));
			input.prompt =
				(conflict === 'cancelAndSend'
					? vscode.l10n.t('Enter cancels the active run, then sends this as a new run.')
					: vscode.l10n.t(
							'Enter sends this as a follow-up to the active run (the stop button cancels it and starts a new run instead).',
						)) + attached;
		} else {
			input.title = vscode.l10n.t('Send Prompt to {0}', name);
			input.prompt =
				vscode.l10n.t(
					'What should the agent do? Enter sends. Buttons: attach images, or send the active editor for a multi-line prompt.',
				) + attached;
		}
		input.validationMessage = input.value === '' ? undefined : promptProblem(input.value, images.length > 0);
	};
	input.placeholder = vscode.l10n.t('Prompt for {0}', name);
	input.ignoreFocusOut = true;
	input.busy = true;
	update();
	try {
		return await new Promise<PromptAnswer | undefined>((resolve) => {
			const done = (answer: PromptAnswer | undefined): void => {
				resolve(answer);
				input.hide();
			};
			const withConflict = (answer: PromptAnswer): PromptAnswer =>
				busy ? { ...answer, onConflict: conflict ?? 'followUp' } : answer;
			input.onDidChangeValue(() => update());
			input.onDidAccept(() => {
				const problem = promptProblem(input.value, images.length > 0);
				if (problem) {
					input.validationMessage = problem;
					return;
				}
				done(withConflict({ prompt: input.value, images }));
			});
			input.onDidTriggerButton(async (button) => {
				if (button === selectionButton && editor) {
					done(withConflict({ prompt: editor.document.getText(editor.selection), images }));
				} else if (button === editorButton && editor) {
					done(withConflict({ prompt: editor.document.getText(), images }));
				} else if (button === cancelActiveButton || button === followUpButton) {
					conflict = button === cancelActiveButton ? 'cancelAndSend' : 'followUp';
					update();
				} else if (button === attachButton) {
					// The open dialog may itself be a quick input (code-server): the box hides meanwhile.
					choosing = true;
					const chosen = await askImages();
					choosing = false;
					if (chosen) {
						images = chosen;
					}
					update();
					input.show();
				}
			});
			input.onDidHide(() => {
				if (!choosing) {
					resolve(undefined);
				}
			});
			input.show();
			// The busy check runs while the box is open, so it is known before the prompt is typed.
			void activeRunOf(kit, agent).then((run) => {
				busy = run;
				input.busy = false;
				update();
			});
		});
	} finally {
		input.dispose();
	}
}

/** Asks for image files; undefined when dismissed. */
async function askImages(): Promise<string[] | undefined> {
	const uris = await vscode.window.showOpenDialog({
		canSelectMany: true,
		openLabel: vscode.l10n.t('Attach'),
		filters: { [vscode.l10n.t('Images')]: ['png', 'jpg', 'jpeg', 'gif', 'webp'] },
	});
	return uris?.map((u) => u.fsPath);
}

/** Reads image files, refusing too many or too large ones before reading them. */
async function readImages(paths: string[]): Promise<PromptImage[]> {
	if (paths.length > LIMITS.images) {
		throw new ValidationError('images', vscode.l10n.t('at most {0} images (got {1})', LIMITS.images, paths.length));
	}
	const out: PromptImage[] = [];
	for (const [i, path] of paths.entries()) {
		const uri = vscode.Uri.file(path);
		const stat = await vscode.workspace.fs.stat(uri);
		if (stat.size > maxImageFileBytes()) {
			throw new ValidationError(`images[${i}] (${path})`, vscode.l10n.t('at most {0} bytes per image file', maxImageFileBytes()));
		}
		out.push({ data: await vscode.workspace.fs.readFile(uri) });
	}
	return out;
}

function describeImageField(err: ValidationError, paths: string[] | undefined): string {
	const m = /^images\[(\d+)\]/.exec(err.field);
	const path = m && paths ? paths[Number(m[1])] : undefined;
	return path ? vscode.l10n.t('Not sent: the image {0} must be {1}.', path, err.limit) : validationMessage(err);
}

async function resolveConflict(
	kit: ActionKit,
	agent: Agent,
	prompt: string,
	images: PromptImage[] | undefined,
	given: ConflictChoice | undefined,
): Promise<Run | undefined> {
	const client = kit.client();
	const runs = await client.listRuns(agent.id, { limit: 20 });
	const active = runs.find((r) => !isTerminalRunStatus(r.status));
	let choice = given;
	if (choice === undefined) {
		const followUp = vscode.l10n.t('Send as Follow-up');
		const cancelAndSend = vscode.l10n.t('Cancel Active Run and Send');
		const picked = await showModalWarning(
			vscode.l10n.t('{0} already has an active run.', agent.name),
			active
				? vscode.l10n.t(
						'Run {0} is {1}: "{2}". Send the prompt to it as a follow-up, or cancel it and start a new run?',
						active.id,
						active.status,
						(active.prompt ?? '').slice(0, 120),
					)
				: undefined,
			followUp,
			cancelAndSend,
		);
		choice = picked === followUp ? 'followUp' : picked === cancelAndSend ? 'cancelAndSend' : 'cancel';
	}
	if (choice === 'cancel') {
		return undefined;
	}
	if (!active) {
		// The active run ended meanwhile: a plain new run is what the user wanted.
		return client.createRun(agent.id, { prompt, images });
	}
	if (choice === 'followUp') {
		return client.followUpRun(agent.id, active.id, { prompt, images });
	}
	await kit.progress(vscode.l10n.t('Cancelling run {0}…', active.id), async (signal, report) => {
		await client.cancelRun(agent.id, active.id);
		const deadline = Date.now() + CANCEL_TIMEOUT_MS;
		for (;;) {
			const run = await client.getRun(agent.id, active.id);
			if (isTerminalRunStatus(run.status)) {
				return;
			}
			report(run.status);
			if (Date.now() > deadline) {
				throw new Error(
					vscode.l10n.t('Run {0} did not stop within {1} seconds; the prompt was not sent.', active.id, CANCEL_TIMEOUT_MS / 1000),
				);
			}
			await sleep(CANCEL_POLL_MS, signal);
		}
	});
	return client.createRun(agent.id, { prompt, images });
}
