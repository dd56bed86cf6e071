import * as vscode from 'vscode';
import { LIMITS, ValidationError, isTerminalRunStatus, sleep } from '../api';
import type { Agent, PromptImage, Run } from '../api';
import { AgentNode } from '../views';
import { promptProblem } from './agents';
import type { CommandLogger } from './registry';
import { isPromptSource } from '../ids';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { displayName, followRun, isAutomation, isStatus, pickAgent, rememberAgent, showModalWarning, showWarning, toAbortSignal, validationMessage } from './support';
import { notificationText } from '../util/text';

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

/** Decoded size that base64-encodes to the per-image limit. */
const MAX_IMAGE_FILE_BYTES = Math.floor(LIMITS.imageEncodedBytes / 4) * 3;
const CANCEL_POLL_MS = 500;
const CANCEL_TIMEOUT_MS = 60_000;

/** Registers "Cloud Agents: Send Prompt…" (`cloudAgents.runs.sendPrompt`). */
export function registerPromptCommands(deps: FeatureDeps): vscode.Disposable[] {
	const log: CommandLogger = deps.log;
	const registerCommand = commandRegistrar(log, { onUnauthorized: deps.onUnauthorized });
	return [registerCommand('cloudAgents.runs.sendPrompt', (arg?: unknown) => sendPrompt(deps, arg))];
}

/**
 * Sends a prompt to an agent: picks the agent (recently used first), takes the prompt from an
 * input box or the active editor, optionally attaches images, checks every limit before sending,
 * handles an active run (409) with follow-up / cancel-and-send, then follows the new run.
 * Returns the run that received the prompt, or undefined when nothing was sent.
 */
export async function sendPrompt(deps: FeatureDeps, arg: unknown): Promise<Run | undefined> {
	const args: SendPromptArgs = isAutomation(arg) ? arg : {};
	const client = deps.session.client;
	let agent: Agent | undefined;
	if (arg instanceof AgentNode) {
		agent = arg.agent;
	} else if (args.agentId) {
		agent = deps.views.agents.find(args.agentId) ?? (await client.getAgent(args.agentId));
	} else {
		agent = await pickAgent(deps, vscode.l10n.t('Send Prompt: pick an agent'));
	}
	if (!agent) {
		return undefined;
	}

	const prompt = args.prompt ?? (await askPrompt(agent));
	if (prompt === undefined) {
		return undefined;
	}
	let imagePaths = args.images;
	if (imagePaths === undefined && args.prompt === undefined) {
		const attach = await askImages();
		if (attach === undefined) {
			return undefined;
		}
		imagePaths = attach;
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
		run = await resolveConflict(deps, agent, prompt, images, args.onConflict);
	}
	if (!run) {
		return undefined;
	}
	await rememberAgent(deps.context, agent.id);
	if (deps.views.selectedAgent?.id !== agent.id) {
		await deps.views.selectAgentById(agent.id).catch(() => undefined);
	}
	await deps.views.runs.refresh();
	await followRun(deps, agent.id, run.id);
	return run;
}

async function askPrompt(agent: Agent): Promise<string | undefined> {
	// Only real text documents: the Output panel and logs are text editors too, but never a prompt.
	const active = vscode.window.activeTextEditor;
	const editor = active && isPromptSource(active.document.uri.scheme) ? active : undefined;
	interface SourcePick extends vscode.QuickPickItem {
		source: 'type' | 'selection' | 'editor';
	}
	if (editor) {
		const items: SourcePick[] = [{ label: vscode.l10n.t('$(edit) Type a prompt'), source: 'type' }];
		if (!editor.selection.isEmpty) {
			items.push({ label: vscode.l10n.t('$(selection) Use the selection in the active editor'), description: vscode.workspace.asRelativePath(editor.document.uri), source: 'selection' });
		}
		items.push({ label: vscode.l10n.t('$(file) Use the whole active editor'), description: vscode.workspace.asRelativePath(editor.document.uri), source: 'editor' });
		const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Send Prompt to {0}', displayName(agent.name, agent.id)), placeHolder: vscode.l10n.t('Where does the prompt come from?') });
		if (!pick) {
			return undefined;
		}
		if (pick.source === 'selection') {
			return editor.document.getText(editor.selection);
		}
		if (pick.source === 'editor') {
			return editor.document.getText();
		}
	}
	return vscode.window.showInputBox({
		title: vscode.l10n.t('Send Prompt to {0}', displayName(agent.name, agent.id)),
		prompt: vscode.l10n.t('What should the agent do? (For long prompts, write them in an editor and use "Send Prompt…" with the editor active.)'),
		validateInput: (v) => promptProblem(v, false),
		ignoreFocusOut: true,
	});
}

/** Asks whether to attach images; [] to send without, undefined when dismissed. */
async function askImages(): Promise<string[] | undefined> {
	const send = vscode.l10n.t('$(send) Send');
	const attach = vscode.l10n.t('$(file-media) Attach Images…');
	const choice = await vscode.window.showQuickPick([send, attach], { title: vscode.l10n.t('Send Prompt'), placeHolder: vscode.l10n.t('Send now, or attach images first?') });
	if (choice === undefined) {
		return undefined;
	}
	if (choice === send) {
		return [];
	}
	const uris = await vscode.window.showOpenDialog({
		canSelectMany: true,
		openLabel: vscode.l10n.t('Attach'),
		filters: { [vscode.l10n.t('Images')]: ['png', 'jpg', 'jpeg', 'gif', 'webp'] },
	});
	if (!uris) {
		return undefined;
	}
	return uris.map((u) => u.fsPath);
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
		if (stat.size > MAX_IMAGE_FILE_BYTES) {
			throw new ValidationError(`images[${i}] (${path})`, vscode.l10n.t('at most {0} bytes per image file', MAX_IMAGE_FILE_BYTES));
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

async function resolveConflict(deps: FeatureDeps, agent: Agent, prompt: string, images: PromptImage[] | undefined, given: ConflictChoice | undefined): Promise<Run | undefined> {
	const client = deps.session.client;
	const runs = await client.listRuns(agent.id, { limit: 20 });
	const active = runs.find((r) => !isTerminalRunStatus(r.status));
	let choice = given;
	if (choice === undefined) {
		const followUp = vscode.l10n.t('Send as Follow-up');
		const cancelAndSend = vscode.l10n.t('Cancel Active Run and Send');
		const picked = await showModalWarning(
			vscode.l10n.t('{0} already has an active run.', agent.name),
			active ? vscode.l10n.t('Run {0} is {1}: "{2}". Send the prompt to it as a follow-up, or cancel it and start a new run?', active.id, active.status, (active.prompt ?? '').slice(0, 120)) : undefined,
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
	await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: notificationText(vscode.l10n.t('Cancelling run {0}…', active.id)), cancellable: true },
		async (progress, token) => {
			const abort = toAbortSignal(token);
			try {
				await client.cancelRun(agent.id, active.id);
				const deadline = Date.now() + CANCEL_TIMEOUT_MS;
				for (;;) {
					const run = await client.getRun(agent.id, active.id);
					if (isTerminalRunStatus(run.status)) {
						return;
					}
					progress.report({ message: notificationText(run.status) });
					if (Date.now() > deadline) {
						throw new Error(vscode.l10n.t('Run {0} did not stop within {1} seconds; the prompt was not sent.', active.id, CANCEL_TIMEOUT_MS / 1000));
					}
					await sleep(CANCEL_POLL_MS, abort.signal);
				}
			} finally {
				abort.dispose();
			}
		},
	);
	return client.createRun(agent.id, { prompt, images });
}

