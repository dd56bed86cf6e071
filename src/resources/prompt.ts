/**
 * "Send Prompt…" (`cloudAgents.runs.sendPrompt`), the flow: its agent step, the prompt step with
 * its busy check, images and editor buttons, the limits, and the conflict with an active run. The
 * command is an action of the runs resource on an agent (src/resources/runs.ts): it finds the
 * agent (a row, `{agentId}`, or this flow's agent step, `pickPromptAgent`), calls `sendPrompt`,
 * and then shows and follows the new run.
 */
import * as vscode from 'vscode';
import { LIMITS, ValidationError, isAbortError, isTerminalRunStatus, sleep } from '../api';
import type { Agent, PromptImage, Run, Runtime } from '../api';
import { isPromptSource } from '../ids';
import { agentActivity, agentsList, promptProblem, recentAgentIds } from './agents';
import { iconSafe } from '../util/text';
import type { ActionKit } from '../views/actions';
import { joinParts } from '../views/format';
import { argString, displayName, isStatus, pickItem, pickWhenLoaded, showModalQuestion, showWarning, validationMessage } from '../views/ui';
import { describeError, requestIdNote } from '../messages/errors';
import { notRunningAdvice, runtimeBroken, runtimeInTransition, runtimeOfAgent, showRuntimeDetails } from './runtimes';

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
	if (args.prompt !== undefined) {
		return sendTo({ agent, kit, prompt: args.prompt, typed: false }, args.images, args.onConflict);
	}
	const answer = await askPrompt(kit, agent);
	if (!answer) {
		return undefined;
	}
	let sent: SentPrompt | undefined;
	try {
		const typed = answer.prompt === answer.typed;
		sent = await sendTo(
			{ agent, kit, prompt: answer.prompt, typed },
			args.images ?? answer.images,
			args.onConflict ?? answer.onConflict,
		);
		return sent;
	} finally {
		// What was typed and not sent (refused, failed, or the editor's text went instead) comes back next time.
		keepDraft(agent.id, sent && answer.prompt === answer.typed ? '' : answer.typed);
	}
}

/** How a prompt another flow wrote goes (Continue in Cloud): its images, the busy agent's choice, whether a person typed it. */
export interface PromptSending {
	images?: string[];
	/** Undefined: a 409 asks (a person) or is refused (automation). */
	onConflict?: ConflictChoice;
	/** A person typed it: when it is not sent, the warning says it is kept (the caller keeps it: keepDraft). */
	typed: boolean;
}

/**
 * Sends a prompt another flow composed (Continue in Cloud) as Send Prompt sends its own: the limits
 * checked, a new run, or the busy agent's active run as `how.onConflict` says (the 409's question).
 */
export function sendComposedPrompt(agent: Agent, kit: ActionKit, prompt: string, how: PromptSending): Promise<SentPrompt | undefined> {
	return sendTo({ agent, kit, prompt, typed: how.typed }, how.images, how.onConflict);
}

/** One prompt on its way: to whom, and whether a person typed it (then it is kept when not sent). */
interface Sending {
	readonly agent: Agent;
	readonly kit: ActionKit;
	readonly prompt: string;
	readonly typed: boolean;
}

/** Reads the images, checks the limits and creates the run; a 409 goes to `resolveConflict`. */
async function sendTo(
	sending: Sending,
	imagePaths: string[] | undefined,
	onConflict: ConflictChoice | undefined,
): Promise<SentPrompt | undefined> {
	const { agent, kit, prompt } = sending;
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
		run = await kit.pending(sendingTitle(agent), (signal) => kit.client().createRun(agent.id, { prompt, images }, { signal }));
	} catch (err) {
		if (err instanceof ValidationError) {
			void showWarning(describeImageField(err, imagePaths));
			return undefined;
		}
		if (isAbortError(err) && !kit.automation) {
			return stoppedWaiting(sending);
		}
		if (!isStatus(err, 409)) {
			throw err;
		}
		run = await resolveConflict(sending, images, onConflict, err);
	}
	return run && { run, prompt };
}

/** The progress notification's title while a prompt waits for the service (ActionKit.pending). */
function sendingTitle(agent: Agent): string {
	return vscode.l10n.t('Sending the prompt to {0}: waiting for the service…', displayName(agent.name, agent.id));
}

/**
 * Cancel pressed while the prompt waited: the request may have reached the service all the same,
 * so it says where the run would show; a typed prompt is kept.
 */
function stoppedWaiting(sending: Sending): undefined {
	const name = displayName(sending.agent.name, sending.agent.id);
	const why = vscode.l10n.t('Stopped waiting for the service. If the prompt reached it, its run shows in the Runs view of {0}.', name);
	void showWarning(sending.typed ? vscode.l10n.t('{0} Your prompt is kept: Send Prompt offers it again.', why) : why);
	return undefined;
}

/** How many agents' unsent prompts are kept (the oldest goes first); each is at most one prompt's limit. */
const MAX_DRAFTS = 20;

/**
 * Prompts a person typed that were not sent (refused, failed, or the box dismissed), per agent, in
 * memory only: the next Send Prompt to the agent offers it again as the input's value.
 */
const drafts = new Map<string, string>();

/** Keeps `typed` as the agent's unsent prompt (Send Prompt and Continue in Cloud offer it again); an empty one forgets it. */
export function keepDraft(agentId: string, typed: string): void {
	drafts.delete(agentId);
	if (typed.trim() === '') {
		return;
	}
	drafts.set(agentId, typed);
	for (const oldest of drafts.keys()) {
		if (drafts.size <= MAX_DRAFTS) {
			break;
		}
		drafts.delete(oldest);
	}
}

interface AgentPick extends vscode.QuickPickItem {
	agent: Agent;
}

/**
 * Send Prompt's agent step: the agent selected in the Agents view first (active), then recently
 * used ones, then the others in the Agents view's order.
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
				// After those, the Agents view's order (most recent activity first), not the service's.
				return [...page.items]
					.sort((a, b) => rank(a) - rank(b) || agentActivity(b) - agentActivity(a))
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
export interface PromptAnswer {
	prompt: string;
	/** What the input box held when it closed (the prompt, unless the editor's text was sent instead). */
	typed: string;
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

/** What the prompt box knows of the agent once it has looked: its active run, and its runtime when only the service can repair it. */
async function agentState(kit: ActionKit, agent: Agent): Promise<{ busy: Run | undefined; broken: Runtime | undefined }> {
	const [busy, runtime] = await Promise.all([
		activeRunOf(kit, agent),
		agent.runtime_id ? runtimeOfAgent(kit.client(), { id: agent.id, runtimeId: agent.runtime_id }) : undefined,
	]);
	return { busy, broken: runtimeBroken(runtime) ? runtime : undefined };
}

/** The prompt box's message: what is wrong with the prompt typed, else why the agent cannot take one now (a warning). */
function boxMessage(
	name: string,
	value: string,
	images: boolean,
	broken: Runtime | undefined,
	whole: (typed: string) => string,
): string | vscode.InputBoxValidationMessage | undefined {
	const problem = value === '' ? undefined : (promptProblem(value, images) ?? promptProblem(whole(value), true));
	return (
		problem ??
		(broken && {
			message: vscode.l10n.t('{0} cannot take a prompt now: {1}', name, notRunningAdvice(broken)),
			severity: vscode.InputBoxValidationSeverity.Warning,
		})
	);
}

/** The prompt input's buttons: images, the active editor's selection or whole text, and the two ways past a busy agent. */
function promptButtons(): Record<
	'attachButton' | 'selectionButton' | 'editorButton' | 'cancelActiveButton' | 'followUpButton',
	vscode.QuickInputButton
> {
	const button = (icon: string, tooltip: string): vscode.QuickInputButton => ({ iconPath: new vscode.ThemeIcon(icon), tooltip });
	return {
		attachButton: button('file-media', vscode.l10n.t('Attach Images…')),
		selectionButton: button('selection', vscode.l10n.t('Send the Selection of the Active Editor')),
		editorButton: button('file', vscode.l10n.t('Send the Whole Active Editor')),
		cancelActiveButton: button('debug-stop', vscode.l10n.t('Cancel the Active Run and Send as a New Run')),
		followUpButton: button('reply', vscode.l10n.t('Send as a Follow-up to the Active Run')),
	};
}

/**
 * How another flow uses the prompt step (Continue in Cloud, src/changes/continueInCloud.ts): its own
 * title and words, and what it adds to what is typed (the limits are checked on the whole prompt).
 */
export interface PromptStepWords {
	/** The box's title while the agent is not busy. */
	title: string;
	/** The box's prompt line while the agent is not busy. */
	prompt: string;
	/** The prompt sent for what is typed (the limits apply to it). */
	compose(this: void, typed: string): string;
}

/**
 * The prompt step: one input box (VS Code's InputBox is single-line, as in the Azure and Coder
 * extensions) with buttons for images, the active editor (multi-line prompts) and, for a busy
 * agent, "cancel the active run and send". Enter sends. `words`: another flow's title, words and
 * addition (the answer's prompt is then what was typed or taken from the editor, not yet composed).
 */
export async function askPrompt(kit: ActionKit, agent: Agent, words?: PromptStepWords): Promise<PromptAnswer | undefined> {
	const whole = words?.compose ?? ((typed: string): string => typed);
	// Only real text documents: the Output panel and logs are text editors too, but never a prompt.
	const active = vscode.window.activeTextEditor;
	const editor = active && isPromptSource(active.document.uri.scheme) ? active : undefined;
	const name = displayName(agent.name, agent.id);
	const input = vscode.window.createInputBox();
	const { attachButton, selectionButton, editorButton, cancelActiveButton, followUpButton } = promptButtons();
	let images: string[] = [];
	// The prompt typed last time and not sent comes back (it is kept until sent or emptied).
	const draft = drafts.get(agent.id);
	let busy: Run | undefined;
	/** The agent's runtime when it is in a state only the service can repair (said in the box before anything is typed). */
	let broken: Runtime | undefined;
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
		const attached =
			(images.length > 0 ? ` ${vscode.l10n.t('({0} images attached)', images.length)}` : '') +
			(draft !== undefined && input.value === draft ? ` ${vscode.l10n.t('(the prompt not sent last time)')}` : '');
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
			input.title = words?.title ?? vscode.l10n.t('Send Prompt to {0}', name);
			input.prompt =
				(words?.prompt ??
					vscode.l10n.t(
						'What should the agent do? Enter sends. Buttons: attach images, or send the active editor for a multi-line prompt.',
					)) + attached;
		}
		input.validationMessage = boxMessage(name, input.value, images.length > 0, broken, whole);
	};
	input.placeholder = vscode.l10n.t('Prompt for {0}', name);
	input.value = draft ?? '';
	input.ignoreFocusOut = true;
	input.busy = true;
	update();
	try {
		return await new Promise<PromptAnswer | undefined>((resolve) => {
			let answered = false;
			const done = (answer: PromptAnswer): void => {
				answered = true;
				resolve(answer);
				input.hide();
			};
			const withConflict = (answer: PromptAnswer): PromptAnswer =>
				busy ? { ...answer, onConflict: conflict ?? 'followUp' } : answer;
			input.onDidChangeValue(() => update());
			input.onDidAccept(() => {
				const problem = promptProblem(input.value, images.length > 0) ?? promptProblem(whole(input.value), true);
				if (problem) {
					input.validationMessage = problem;
					return;
				}
				done(withConflict({ prompt: input.value, typed: input.value, images }));
			});
			input.onDidTriggerButton(async (button) => {
				if (button === selectionButton && editor) {
					done(withConflict({ prompt: editor.document.getText(editor.selection), typed: input.value, images }));
				} else if (button === editorButton && editor) {
					done(withConflict({ prompt: editor.document.getText(), typed: input.value, images }));
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
				if (!choosing && !answered) {
					// Dismissed: what was typed is offered again next time (an emptied box forgets it).
					keepDraft(agent.id, input.value);
					resolve(undefined);
				}
			});
			input.show();
			// The busy check runs while the box is open, so it is known before the prompt is typed; so
			// does the runtime's (issue 42, item 9: a runtime in error was told only after the prompt).
			void agentState(kit, agent).then((state) => {
				({ busy, broken } = state);
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

/**
 * The service refused the new run (409): the agent's runs and its runtime say why, not the status
 * alone. An active run: the person chooses (follow-up, cancel it and send, or not send) unless
 * `given` decided. No active run: a runtime that is not running gets what helps by its status (no
 * "active run" question, whose answers would fail the same way); a running one had its run end
 * meanwhile, so the run is created once more.
 */
async function resolveConflict(
	sending: Sending,
	images: PromptImage[] | undefined,
	given: ConflictChoice | undefined,
	refusal: unknown,
): Promise<Run | undefined> {
	const { agent, kit, prompt } = sending;
	const client = kit.client();
	const runs = await client.listRuns(agent.id, { limit: 20 });
	const active = runs.find((r) => !isTerminalRunStatus(r.status));
	if (!active) {
		return sendWithoutActiveRun(sending, images, refusal);
	}
	const choice = given ?? (await askConflict(agent, active));
	if (choice === 'cancel') {
		return undefined;
	}
	if (choice === 'followUp') {
		return client.followUpRun(agent.id, active.id, { prompt, images });
	}
	await cancelAndWait(kit, agent, active);
	return client.createRun(agent.id, { prompt, images });
}

/**
 * The busy dialog: the active run named, its two ways on, and "Don't Send" as the dismiss button
 * (VS Code's own "Cancel" beside "Cancel Active Run and Send" could be read either way).
 */
async function askConflict(agent: Agent, active: Run): Promise<ConflictChoice> {
	const followUp = vscode.l10n.t('Send as Follow-up');
	const cancelAndSend = vscode.l10n.t('Cancel Active Run and Send');
	const picked = await showModalQuestion(
		vscode.l10n.t('{0} already has an active run.', displayName(agent.name, agent.id)),
		vscode.l10n.t(
			'Run {0} is {1}: "{2}". Send the prompt to it as a follow-up, or cancel it and start a new run? Not sending keeps the prompt for the next Send Prompt.',
			active.id,
			active.status,
			(active.prompt ?? '').slice(0, 120),
		),
		vscode.l10n.t("Don't Send"),
		followUp,
		cancelAndSend,
	);
	return picked === followUp ? 'followUp' : picked === cancelAndSend ? 'cancelAndSend' : 'cancel';
}

/** Cancels the active run and waits (bounded) until it has ended. */
async function cancelAndWait(kit: ActionKit, agent: Agent, active: Run): Promise<void> {
	const client = kit.client();
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
}

/**
 * A 409 with no active run. The runtime not running (in error, paused, starting, going away): what
 * helps, by its status. Running (or unreadable): the active run ended meanwhile, so one more try;
 * a second refusal is told in the service's words.
 */
async function sendWithoutActiveRun(sending: Sending, images: PromptImage[] | undefined, refusal: unknown): Promise<Run | undefined> {
	const { agent, kit, prompt } = sending;
	const runtime = await runtimeOfAgent(kit.client(), { id: agent.id, runtimeId: agent.runtime_id || undefined });
	if (runtime && (runtime.status !== 'running' || runtimeInTransition(runtime))) {
		return notSent(sending, `${notRunningAdvice(runtime)} ${requestIdNote(refusal)}`.trimEnd(), refusal, runtime);
	}
	try {
		return await kit.client().createRun(agent.id, { prompt, images });
	} catch (err) {
		if (!isStatus(err, 409)) {
			throw err;
		}
		return notSent(sending, describeError(err), err);
	}
}

/**
 * Tells a person why the prompt was not sent (and that a typed one is kept for the next Send
 * Prompt); an automation caller gets the refusal back instead.
 */
function notSent(sending: Sending, why: string, refusal: unknown, runtime?: Runtime): undefined {
	if (sending.kit.automation) {
		throw refusal;
	}
	const name = displayName(sending.agent.name, sending.agent.id);
	// The runtime that refused: its details one click away (issue 42, item 9), rather than in the Runtimes view.
	const details = vscode.l10n.t('Show Runtime Details');
	void showWarning(
		sending.typed
			? vscode.l10n.t('Not sent to {0}: {1} Your prompt is kept: Send Prompt offers it again.', name, why)
			: vscode.l10n.t('Not sent to {0}: {1}', name, why),
		...(runtime ? [details] : []),
	)
		.then(
			async (choice) => {
				if (choice === details && runtime) {
					await showRuntimeDetails(runtime, sending.kit);
				}
			},
			() => undefined,
		)
		.then(undefined, (err: unknown) => sending.kit.log.warn(`Show Runtime Details failed: ${describeError(err)}`));
	return undefined;
}
