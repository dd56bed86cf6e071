/**
 * "Continue in Cloud…" (issue 46): local work handed to an agent in one step. From Source Control
 * (a link's title menu: the linked local folder and its agent) or the palette (the agent, then a
 * linked folder of it, else a workspace folder): the local changes to hand over (the uncommitted
 * files git reports when the folder is a git repository, through the built-in git extension's API;
 * else the link's differences; else files chosen in a dialog), all preselected in a multi-select
 * pick; the prompt (Send Prompt's prompt step, the file list added to it and the whole checked
 * against the service's limit); then what would replace a different copy on the agent's side is
 * asked first (as Send to Agent asks); then, under one cancellable progress, the files are written
 * to the agent's workspace and the run starts with the prompt (a follow-up when the agent is busy),
 * followed as Send Prompt's runs are. Files deleted locally are not handed over (said in the pick
 * and in the answer): nothing is deleted on the agent's side. What was typed is kept when nothing
 * was sent (Send Prompt and Continue in Cloud offer it again).
 *
 * Web: local files only through the platform's LocalFiles or vscode.workspace.fs; no git there
 * usually (the link's differences or the dialog then).
 */
import * as vscode from 'vscode';
import { LIMITS } from '../api';
import type { Agent, CloudAgentsClient, Run } from '../api';
import { utf8Length, bytesEqual } from '../base/bytes';
import { quoteJson, renderResult } from '../util/quotedData';
import { NotRegularFileError } from '../compare/localFiles';
import { AgentChangedError, sendToAgent, statAgentFile } from '../compare/send';
import type { FileFacts } from '../compare/types';
import { agentPathOf, checkRelativePath, hasInvisibleCharacters } from '../util/paths';
import { singleLine } from '../util/text';
import type { ActionKit } from '../views/actions';
import { argString, argValue, displayName, showModalQuestion } from '../views/ui';
import type { ChangesHost } from './changesActions';
import { addressPart } from '../auth/deployments';
import type { LinkSource } from './linkSource';
import { countFiles, listOf, openDocument } from './words';
import type { HandoverAnswer } from '../util/handover';

/** At most this many files are handed over at once (the pick offers at most this many). */
export const MAX_HANDOVER_FILES = 200;
/** At most this many bytes are handed over at once (each file also within the service's write limit). */
export const MAX_HANDOVER_BYTES = 64 * 1024 * 1024;
/** At most this many paths are named in the prompt (the rest are counted). */
export const MAX_NAMED_FILES = 100;
/** How long the git extension may take to start and report (then the link's differences or the dialog). */
const GIT_WAIT_MS = 5_000;

/** What the busy agent's run gets (Send Prompt's choices). */
export type ConflictChoice = 'followUp' | 'cancelAndSend' | 'cancel';

/**
 * Send Prompt's flow, handed to Source Control by the shell (src/shell/featureEntry.ts: a feature
 * never imports another): the agent step, the prompt step, the send (limits, the busy agent's
 * choice) with the run followed, and the kept prompt.
 */
export interface PromptFlow {
	pickAgent(this: void, kit: ActionKit, title: string): Promise<Agent | undefined>;
	ask(
		this: void,
		kit: ActionKit,
		agent: Agent,
		words: { title: string; prompt: string; compose(this: void, typed: string): string },
	): Promise<{ prompt: string; typed: string; images: string[]; onConflict?: ConflictChoice } | undefined>;
	send(
		this: void,
		agent: Agent,
		kit: ActionKit,
		prompt: string,
		how: { images?: string[]; onConflict?: ConflictChoice; typed: boolean },
	): Promise<Run | undefined>;
	keepDraft(this: void, agentId: string, typed: string): void;
}

/** What to do with a file whose copy on the agent's side differs (automation's `onOverwrite`). */
export type OverwriteChoice = 'replace' | 'keep' | 'cancel';

/** Where the work comes from and goes to. */
interface Handover {
	agent: Agent;
	/** The agent-side folder the local folder stands for ('' = the workspace root). */
	agentFolder: string;
	folder: vscode.Uri;
	source?: LinkSource;
}

/** The local changes found, by relative path. */
export interface Candidates {
	files: string[];
	deleted: string[];
	refused: string[];
	/** Where they came from. */
	from: 'git' | 'link' | 'chosen' | 'given';
}

/** One file to hand over: its bytes and what the agent's side holds. */
interface Outgoing {
	rel: string;
	agentPath: string;
	bytes: Uint8Array;
	/** The agent's copy when checked (undefined: none). */
	agent: FileFacts | undefined;
	/** 'new': none there; 'same': the same bytes; 'differs'. */
	state: 'new' | 'same' | 'differs';
}

// ---- Pure rules (unit-tested) ----

/**
 * `rel` when it can be handed over: a plain relative path (src/util/paths.ts checkRelativePath) with
 * no control, bidi or invisible character (its name must read in the prompt as it is); else why not.
 */
export function handoverPathProblem(rel: string): string | undefined {
	try {
		checkRelativePath(rel);
	} catch (err) {
		return err instanceof Error ? err.message : String(err);
	}
	return hasInvisibleCharacters(rel) ? `${JSON.stringify(rel.slice(0, 200))}: invisible or bidi characters in the name` : undefined;
}

/** `filePath` relative to `folderPath` (both `/`-separated URI paths) when it lies strictly inside it, else undefined. */
export function relativeUnder(folderPath: string, filePath: string): string | undefined {
	const folder = folderPath.replace(/\/+$/, '');
	return filePath.startsWith(`${folder}/`) && filePath.length > folder.length + 1 ? filePath.slice(folder.length + 1) : undefined;
}

/** The git API's statuses of a file deleted in the working tree or the index (INDEX_DELETED, DELETED, BOTH_DELETED). */
const GIT_DELETED = new Set([2, 6, 15]);

/**
 * The uncommitted changes git reports (`changes`: every group's, as the git API lists them), as
 * candidates under `folderPath`: files changed or added, deleted ones apart, unsafe names refused,
 * each path once, sorted.
 */
export function gitCandidates(folderPath: string, changes: readonly { path: string; status: number }[]): Candidates {
	const files = new Set<string>();
	const deleted = new Set<string>();
	const refused = new Set<string>();
	for (const change of changes) {
		const rel = relativeUnder(folderPath, change.path);
		if (rel === undefined) {
			continue;
		}
		const problem = handoverPathProblem(rel);
		if (problem) {
			refused.add(problem);
		} else if (GIT_DELETED.has(change.status)) {
			deleted.add(rel);
		} else {
			files.add(rel);
		}
	}
	for (const rel of files) {
		deleted.delete(rel);
	}
	const sorted = (s: Set<string>): string[] => [...s].sort();
	return { files: sorted(files), deleted: sorted(deleted), refused: sorted(refused), from: 'git' };
}

/**
 * A link's differences as candidates: the files whose local side differs (`modified`, or the agent
 * has none: `deleted` seen from the agent); those the local folder lacks (`added`) are deleted here.
 */
export function linkCandidates(differences: readonly { path: string; kind: 'added' | 'modified' | 'deleted' }[]): Candidates {
	const files: string[] = [];
	const deleted: string[] = [];
	const refused: string[] = [];
	for (const d of differences) {
		const problem = handoverPathProblem(d.path);
		if (problem) {
			refused.push(problem);
		} else {
			(d.kind === 'added' ? deleted : files).push(d.path);
		}
	}
	return { files, deleted, refused, from: 'link' };
}

/**
 * The prompt sent: what the person typed, then the files handed over, named as data (a JSON list
 * between markers no file name can forge: src/util/quotedData.ts), at most MAX_NAMED_FILES of them and
 * the rest counted.
 */
export function handoverPrompt(typed: string, agentFolder: string, paths: readonly string[], nonce?: string): string {
	const named = paths.slice(0, MAX_NAMED_FILES);
	const where = agentFolder === '' ? 'the workspace root' : `the folder ${JSON.stringify(singleLine(agentFolder, 200))}`;
	const lines = [
		typed.trim(),
		'',
		`Continued from my local work: I wrote ${paths.length === 1 ? 'this file' : `these ${paths.length} files`} from my local folder into your workspace (paths relative to ${where}), replacing your copies.`,
	];
	if (paths.length > named.length) {
		lines.push(`${named.length} of them are named below; ${paths.length - named.length} more are not named.`);
	}
	return renderResult(lines, [quoteJson('the paths of the files handed over', named)], nonce);
}

/** Why `prompt` cannot be sent (the service's limit, in UTF-8 bytes after trimming), or undefined. */
export function promptTooLong(prompt: string): string | undefined {
	const bytes = utf8Length(prompt.trim());
	return bytes > LIMITS.promptBytes
		? vscode.l10n.t(
				'The prompt with the list of files is {0} bytes long; the limit is {1} bytes (UTF-8). Write less, or hand over fewer files.',
				bytes,
				LIMITS.promptBytes,
			)
		: undefined;
}

// ---- The flow ----

/** "Continue in Cloud…": see the file's comment. */
export async function continueInCloud(host: ChangesHost, kit: ActionKit): Promise<HandoverAnswer | undefined> {
	const handover = await whereFrom(host, kit);
	if (!handover) {
		return undefined;
	}
	const { agent } = handover;
	const answer: HandoverAnswer = { agentId: agent.id, written: [], same: [], kept: [], conflicts: [], deleted: [], refused: [] };
	const candidates = await findCandidates(host, handover, kit);
	if (!candidates) {
		return undefined;
	}
	answer.deleted = candidates.deleted;
	answer.refused = candidates.refused;
	if (candidates.refused.length > 0) {
		kit.warn(vscode.l10n.t('Not handed over (unsafe names): {0}', listOf(candidates.refused)));
	}
	const chosen = await chooseFiles(candidates, kit);
	if (!chosen) {
		return undefined;
	}
	if (chosen.length === 0) {
		return stop(kit, answer, vscode.l10n.t('Nothing to hand over: no changed file was chosen.'));
	}
	if (chosen.length > MAX_HANDOVER_FILES) {
		throw new Error(
			vscode.l10n.t('{0} chosen; Continue in Cloud hands over at most {1} at once.', countFiles(chosen.length), MAX_HANDOVER_FILES),
		);
	}
	const outgoing = await readLocal(host, handover, chosen, kit);

	// The prompt: the person's (Send Prompt's step, the file list added and the whole checked), or automation's.
	const given = kit.automation ? argString(kit.arg, 'prompt') : undefined;
	const compose = (typed: string): string => handoverPrompt(typed, handover.agentFolder, chosen);
	const asked =
		given !== undefined
			? { prompt: given, typed: given, images: [] as string[], onConflict: conflictArg(kit) }
			: await host.prompts.ask(kit, agent, {
					title: vscode.l10n.t('Continue in Cloud with {0}', displayName(agent.name, agent.id)),
					prompt: vscode.l10n.t(
						'{0} go to the agent workspace with this prompt. What should the agent do with them? Enter hands them over.',
						countFiles(chosen.length),
					),
					compose,
				});
	if (!asked) {
		return undefined;
	}
	let sent = false;
	try {
		return await handOver(host, kit, handover, outgoing, asked, answer, () => (sent = true));
	} finally {
		if (given === undefined) {
			// Not sent (refused, failed, cancelled): what was typed is offered again; sent: forgotten.
			host.prompts.keepDraft(agent.id, sent && asked.prompt === asked.typed ? '' : asked.typed);
		}
	}
}

/** The checks, the question, then the one step: the files written and the run started. */
async function handOver(
	host: ChangesHost,
	kit: ActionKit,
	handover: Handover,
	outgoing: Outgoing[],
	asked: { prompt: string; typed: string; images: string[]; onConflict?: ConflictChoice },
	answer: HandoverAnswer,
	onSent: () => void,
): Promise<HandoverAnswer> {
	const { agent } = handover;
	const firstCheck = promptTooLong(
		handoverPrompt(
			asked.prompt,
			handover.agentFolder,
			outgoing.map((o) => o.rel),
		),
	);
	if (asked.prompt.trim() === '' || firstCheck) {
		throw new Error(vscode.l10n.t('Nothing was handed over: {0}', firstCheck ?? vscode.l10n.t('Enter a prompt.')));
	}
	// Said only when it takes a while (usually a request or two per file).
	await kit.pending(vscode.l10n.t("Checking the agent's copies…"), (signal) => checkAgentSide(kit.client(), agent.id, outgoing, signal));
	const choice = await askOverwrite(kit, handover.folder, outgoing);
	if (choice === 'cancel') {
		return stop(kit, answer, vscode.l10n.t("Nothing was handed over: the agent's versions were kept."));
	}
	const going = outgoing.filter((o) => choice === 'replace' || o.state !== 'differs');
	answer.kept = outgoing.filter((o) => !going.includes(o)).map((o) => o.rel);
	if (going.length === 0) {
		return stop(kit, answer, vscode.l10n.t("Nothing was handed over: the agent's versions were kept."));
	}
	const prompt = handoverPrompt(
		asked.prompt,
		handover.agentFolder,
		going.map((o) => o.rel),
	);
	answer.prompt = prompt;
	const title = vscode.l10n.t('Handing {0} over to {1}…', countFiles(going.length), displayName(agent.name, agent.id));
	const run = await kit.progress(title, async (signal, report) => {
		for (const [n, o] of going.entries()) {
			signal.throwIfAborted();
			report(`${n + 1}/${going.length} ${o.rel}`);
			if (o.state === 'same') {
				answer.same.push(o.rel);
				continue;
			}
			try {
				await sendToAgent(kit.client(), agent.id, o.agentPath, o.bytes, o.agent, signal);
			} catch (err) {
				if (err instanceof AgentChangedError) {
					answer.conflicts.push(o.rel);
					continue;
				}
				throw err;
			}
			host.agentFileChanged(agent.id, o.agentPath, o.agent ? 'modified' : 'created');
			answer.written.push(o.rel);
		}
		handover.source?.refreshSoon(500);
		if (answer.conflicts.length > 0) {
			return undefined;
		}
		signal.throwIfAborted();
		report(vscode.l10n.t('Starting the run…'));
		return host.prompts.send(agent, kit, prompt, { images: asked.images, onConflict: asked.onConflict, typed: !kit.automation });
	});
	if (answer.conflicts.length > 0) {
		kit.warn(
			vscode.l10n.t(
				'{0} changed in the agent workspace while it was handed over, so nothing was written for it and the run was not started: {1}. The other files are there; run Continue in Cloud again (your prompt is kept).',
				countFiles(answer.conflicts.length),
				listOf(answer.conflicts),
			),
		);
		return answer;
	}
	if (run) {
		onSent();
		answer.runId = run.id;
	}
	return answer;
}

/** Says why it stopped (a person sees it; automation's goes to the log) and answers so. */
function stop(kit: ActionKit, answer: HandoverAnswer, why: string): HandoverAnswer {
	kit.info(why);
	return { ...answer, stopped: why };
}

function conflictArg(kit: ActionKit): ConflictChoice | undefined {
	const v = argString(kit.arg, 'onConflict');
	return v === 'followUp' || v === 'cancelAndSend' || v === 'cancel' ? v : undefined;
}

// ---- The steps ----

/**
 * The agent and the local folder: a link (its source control from Source Control's title menu, or
 * automation's `{link}`), automation's `{agentId, localFolder?, agentFolder?}`, or the palette's
 * agent step and then one of its linked folders, else a workspace folder (else a dialog).
 */
async function whereFrom(host: ChangesHost, kit: ActionKit): Promise<Handover | undefined> {
	const linkId = argString(kit.arg, 'link');
	const source =
		host.targets.linkOfControl(kit.arg) ?? (linkId !== undefined ? (host.targets.linkById(linkId) ?? missingLink(linkId)) : undefined);
	// The kit acts with one deployment's client (a row's, automation's `deployment`, else the default's): its links only.
	const part = deploymentPart(host, kit);
	if (source && source.link.deployment !== part) {
		throw new Error(
			vscode.l10n.t(
				"Continue in Cloud from Source Control works with links of the default deployment only for now: this link's agent belongs to another deployment.",
			),
		);
	}
	if (source) {
		const agent = await kit.pending(vscode.l10n.t('Reading the agent…'), (signal) =>
			kit.client().getAgent(source.link.agentId, { signal }),
		);
		return { agent, agentFolder: source.link.agentFolder, folder: source.localRoot, source };
	}
	const agentId = kit.automation ? argString(kit.arg, 'agentId') : undefined;
	const agent =
		agentId !== undefined
			? await kit.client().getAgent(agentId)
			: await host.prompts.pickAgent(kit, vscode.l10n.t('Continue in Cloud: pick an agent'));
	if (!agent) {
		return undefined;
	}
	const localFolder = kit.automation ? argString(kit.arg, 'localFolder') : undefined;
	if (localFolder !== undefined) {
		const folder = /^[A-Za-z][A-Za-z0-9+.-]+:/.test(localFolder) ? vscode.Uri.parse(localFolder, true) : vscode.Uri.file(localFolder);
		const agentFolder = (argString(kit.arg, 'agentFolder') ?? '').replace(/^\/+|\/+$/g, '');
		if (agentFolder !== '') {
			checkRelativePath(agentFolder);
		}
		return { agent, agentFolder, folder };
	}
	if (kit.automation) {
		// An automation caller is never asked: the agent's one linked folder, else it must say which.
		const linked = host.targets.links().filter((s) => s.link.agentId === agent.id && s.link.deployment === part);
		if (linked.length !== 1) {
			throw new Error(
				vscode.l10n.t(
					'Continue in Cloud: name the local folder (`localFolder` or `link`): the agent has {0} linked folders.',
					linked.length,
				),
			);
		}
		const only = linked[0]!;
		return { agent, agentFolder: only.link.agentFolder, folder: only.localRoot, source: only };
	}
	return pickFolder(host, kit, agent);
}

/** The address part of the deployment the kit acts with (undefined: the default deployment's). */
function deploymentPart(host: ChangesHost, kit: ActionKit): string | undefined {
	const deployment = host.deploymentOf(kit.arg);
	return deployment && addressPart(deployment);
}

function missingLink(id: string): never {
	throw new Error(vscode.l10n.t('No link {0}: it was unlinked or never made.', singleLine(id, 80)));
}

/** The palette's folder step: a linked folder of the agent, else a workspace folder, else a dialog. */
async function pickFolder(host: ChangesHost, kit: ActionKit, agent: Agent): Promise<Handover | undefined> {
	type Item = vscode.QuickPickItem & { handover?: Handover };
	const linked = host.targets.links().filter((s) => s.link.agentId === agent.id && s.link.deployment === deploymentPart(host, kit));
	const items: Item[] = linked.map((source) => ({
		label: `$(link) ${source.label()}`,
		description: source.localRoot.fsPath,
		handover: { agent, agentFolder: source.link.agentFolder, folder: source.localRoot, source },
	}));
	if (items.length === 0) {
		for (const f of vscode.workspace.workspaceFolders ?? []) {
			items.push({
				label: `$(folder) ${f.name}`,
				description: f.uri.fsPath,
				detail: vscode.l10n.t("Its files go to the root of the agent's workspace."),
				handover: { agent, agentFolder: '', folder: f.uri },
			});
		}
	}
	if (items.length === 1) {
		return items[0]!.handover;
	}
	let picked: Item | undefined;
	if (items.length > 1) {
		picked = await vscode.window.showQuickPick(items, { title: kit.title, placeHolder: vscode.l10n.t('Which local folder?') });
		if (!picked) {
			return undefined;
		}
	}
	if (picked?.handover) {
		return picked.handover;
	}
	const uris = await vscode.window.showOpenDialog({
		canSelectFiles: false,
		canSelectFolders: true,
		canSelectMany: false,
		openLabel: kit.title,
	});
	return uris?.[0] && { agent, agentFolder: '', folder: uris[0] };
}

/**
 * The local changes: automation's `paths`; else git's uncommitted files (the folder in a git
 * repository); else the link's differences; else files chosen in a dialog.
 */
async function findCandidates(host: ChangesHost, handover: Handover, kit: ActionKit): Promise<Candidates | undefined> {
	const paths = argValue(kit.arg, 'paths');
	if (Array.isArray(paths)) {
		const given = paths.filter((p): p is string => typeof p === 'string');
		const bad = given.map(handoverPathProblem).filter((p): p is string => p !== undefined);
		if (bad.length > 0 || given.length !== paths.length) {
			// Automation's own input: refused as a whole, before anything is read or sent.
			throw new Error(vscode.l10n.t('Nothing was handed over: unsafe paths: {0}', listOf(bad.length > 0 ? bad : ['(not a string)'])));
		}
		return { files: [...new Set(given)], deleted: [], refused: [], from: 'given' };
	}
	const git = await gitChanges(handover.folder, kit);
	if (git) {
		return git;
	}
	if (handover.source) {
		return linkCandidates(handover.source.all());
	}
	if (kit.automation) {
		return { files: [], deleted: [], refused: [], from: 'chosen' };
	}
	const uris = await vscode.window.showOpenDialog({
		canSelectFiles: true,
		canSelectFolders: false,
		canSelectMany: true,
		defaultUri: handover.folder,
		openLabel: vscode.l10n.t('Hand Over'),
		title: vscode.l10n.t('Which files of {0} go to the agent?', handover.folder.path.split('/').filter(Boolean).pop() ?? ''),
	});
	if (!uris) {
		return undefined;
	}
	const files: string[] = [];
	const refused: string[] = [];
	for (const uri of uris) {
		const rel = uri.scheme === handover.folder.scheme ? relativeUnder(handover.folder.path, uri.path) : undefined;
		const problem = rel === undefined ? vscode.l10n.t('{0} is not inside the folder', uri.path) : handoverPathProblem(rel);
		if (problem || rel === undefined) {
			refused.push(problem ?? uri.path);
		} else {
			files.push(rel);
		}
	}
	return { files, deleted: [], refused, from: 'chosen' };
}

/** The multi-select pick, every file preselected (automation: all of them). Undefined when dismissed. */
async function chooseFiles(candidates: Candidates, kit: ActionKit): Promise<string[] | undefined> {
	if (kit.automation || candidates.from === 'chosen') {
		return candidates.files;
	}
	const deleted =
		candidates.deleted.length > 0
			? ' ' +
				vscode.l10n.t('Deleted here, not handed over (nothing is deleted in the agent workspace): {0}.', listOf(candidates.deleted))
			: '';
	if (candidates.files.length === 0) {
		kit.info(vscode.l10n.t('No changed file to hand over in this folder.') + deleted);
		return undefined;
	}
	const source = {
		git: vscode.l10n.t('Uncommitted changes (git)'),
		link: vscode.l10n.t('Files that differ from the agent workspace'),
		given: '',
		chosen: '',
	}[candidates.from];
	const items = candidates.files.slice(0, MAX_HANDOVER_FILES).map((rel): vscode.QuickPickItem & { rel: string } => {
		const slash = rel.lastIndexOf('/');
		return { label: rel.slice(slash + 1), description: slash > 0 ? rel.slice(0, slash) : undefined, picked: true, rel };
	});
	const picked = await vscode.window.showQuickPick(items, {
		title: kit.title,
		canPickMany: true,
		placeHolder:
			vscode.l10n.t('{0}: which files go to the agent?', source) +
			(items.length < candidates.files.length
				? ' ' + vscode.l10n.t('The first {0} of {1} are offered (at most {0} at once).', items.length, candidates.files.length)
				: '') +
			deleted,
		ignoreFocusOut: true,
	});
	return picked?.map((p) => p.rel);
}

/** Reads the chosen files (regular files only, within the bounds) before anything is asked or sent. */
async function readLocal(host: ChangesHost, handover: Handover, chosen: readonly string[], kit: ActionKit): Promise<Outgoing[]> {
	const files = handover.source?.files() ?? host.localFiles(handover.folder);
	let total = 0;
	return kit.pending(vscode.l10n.t('Reading {0}…', countFiles(chosen.length)), async (signal) => {
		const out: Outgoing[] = [];
		for (const rel of chosen) {
			signal.throwIfAborted();
			const agentPath = agentPathOf(handover.agentFolder, rel);
			let bytes: Uint8Array;
			try {
				bytes = files
					? await files.read(rel)
					: await vscode.workspace.fs.readFile(vscode.Uri.joinPath(handover.folder, ...rel.split('/')));
			} catch (err) {
				if (err instanceof NotRegularFileError) {
					throw new Error(vscode.l10n.t('Nothing was handed over: {0} is not a regular file here.', rel), { cause: err });
				}
				throw err;
			}
			if (bytes.byteLength > LIMITS.writeBytes) {
				throw new Error(
					vscode.l10n.t(
						'Nothing was handed over: {0} is {1} bytes; the service takes at most {2} per file.',
						rel,
						bytes.byteLength,
						LIMITS.writeBytes,
					),
				);
			}
			total += bytes.byteLength;
			if (total > MAX_HANDOVER_BYTES) {
				throw new Error(
					vscode.l10n.t('Nothing was handed over: the files chosen hold more than {0} bytes together.', MAX_HANDOVER_BYTES),
				);
			}
			out.push({ rel, agentPath, bytes, agent: undefined, state: 'new' });
		}
		return out;
	});
}

/** What the agent's side holds for each file: none, the same bytes, or different ones (read only when the sizes match). */
async function checkAgentSide(client: CloudAgentsClient, agentId: string, outgoing: Outgoing[], signal: AbortSignal): Promise<void> {
	for (const o of outgoing) {
		signal.throwIfAborted();
		o.agent = await statAgentFile(client, agentId, o.agentPath, signal);
		if (!o.agent) {
			o.state = 'new';
		} else if (o.agent.size !== o.bytes.byteLength) {
			o.state = 'differs';
		} else {
			const theirs = await client.readWorkspaceFileAll(agentId, o.agentPath, { signal });
			o.state = bytesEqual(theirs.content, o.bytes) ? 'same' : 'differs';
		}
	}
}

/**
 * Asks first when an agent's copy would be replaced (Send to Agent's words: nothing undoes a write
 * there), and names files with unsaved changes here (their saved version goes). Automation's
 * `onOverwrite` decides for it (default 'replace': the registry's rule, the caller has decided).
 */
async function askOverwrite(kit: ActionKit, folder: vscode.Uri, outgoing: Outgoing[]): Promise<OverwriteChoice> {
	const differs = outgoing.filter((o) => o.state === 'differs').map((o) => o.rel);
	if (kit.automation) {
		const v = argString(kit.arg, 'onOverwrite');
		return differs.length === 0 ? 'replace' : v === 'keep' || v === 'cancel' ? v : 'replace';
	}
	const dirty = outgoing.filter((o) => openDocument(vscode.Uri.joinPath(folder, ...o.rel.split('/')))?.isDirty).map((o) => o.rel);
	if (differs.length === 0 && dirty.length === 0) {
		return 'replace';
	}
	const lines: string[] = [];
	if (differs.length > 0) {
		lines.push(
			vscode.l10n.t(
				"Replaces the agent's version of {0} with the local one: what the agent wrote there is lost (Undo cannot bring it back).",
				listOf(differs),
			),
		);
	}
	if (dirty.length > 0) {
		lines.push(vscode.l10n.t('Sends the saved version of {0} (its unsaved changes stay here).', listOf(dirty)));
	}
	const replace = vscode.l10n.t('Replace and Continue');
	const keep = vscode.l10n.t("Keep the Agent's Versions");
	const picked = await showModalQuestion(
		differs.length > 0
			? vscode.l10n.t('Continue in Cloud: the agent workspace has other versions of {0}.', countFiles(differs.length))
			: vscode.l10n.t('Continue in Cloud: hand over {0}?', countFiles(outgoing.length)),
		lines.join('\n'),
		vscode.l10n.t('Cancel'),
		differs.length > 0 ? replace : vscode.l10n.t('Continue'),
		...(differs.length > 0 && differs.length < outgoing.length ? [keep] : []),
	);
	if (differs.length === 0) {
		return picked === undefined ? 'cancel' : 'replace';
	}
	return picked === replace ? 'replace' : picked === keep ? 'keep' : 'cancel';
}

/**
 * The git extension's uncommitted changes under `folder`, when it is in a git repository the
 * extension knows; undefined when there is no git extension (VS Code for the Web, disabled), it did
 * not answer in time, or the folder is in no repository.
 */
async function gitChanges(folder: vscode.Uri, kit: ActionKit): Promise<Candidates | undefined> {
	try {
		const api = await gitApi();
		const repo = api?.getRepository(folder);
		if (!repo) {
			return undefined;
		}
		await within(repo.status?.(), GIT_WAIT_MS);
		const s = repo.state;
		const all = [...s.indexChanges, ...s.workingTreeChanges, ...(s.untrackedChanges ?? []), ...(s.mergeChanges ?? [])];
		return gitCandidates(
			folder.path,
			all.filter((c) => c.uri.scheme === folder.scheme).map((c) => ({ path: c.uri.path, status: c.status })),
		);
	} catch (err) {
		kit.log.warn(`Continue in Cloud: git's changes not read: ${err instanceof Error ? err.message : String(err)}`);
		return undefined;
	}
}

/** The parts of the built-in git extension's API (version 1) used here. */
interface GitChange {
	readonly uri: vscode.Uri;
	readonly status: number;
}
interface GitRepository {
	readonly state: {
		readonly indexChanges: readonly GitChange[];
		readonly workingTreeChanges: readonly GitChange[];
		readonly untrackedChanges?: readonly GitChange[];
		readonly mergeChanges?: readonly GitChange[];
	};
	status?(): Promise<void>;
}
interface GitApi {
	readonly state?: 'uninitialized' | 'initialized';
	readonly onDidChangeState?: vscode.Event<'uninitialized' | 'initialized'>;
	getRepository(uri: vscode.Uri): GitRepository | null;
}
interface GitExtension {
	readonly enabled?: boolean;
	getAPI(version: 1): GitApi;
}

async function gitApi(): Promise<GitApi | undefined> {
	const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
	if (!ext) {
		return undefined;
	}
	const exports = ext.isActive ? ext.exports : await within(Promise.resolve(ext.activate()), GIT_WAIT_MS);
	if (!exports || exports.enabled === false) {
		return undefined;
	}
	const api = exports.getAPI(1);
	if (api.state === 'uninitialized' && api.onDidChangeState) {
		let sub: vscode.Disposable | undefined;
		await within(new Promise<void>((resolve) => (sub = api.onDidChangeState!((s) => s === 'initialized' && resolve()))), GIT_WAIT_MS);
		sub?.dispose();
	}
	return api;
}

/** `promise`'s value, or undefined after `ms`. */
async function within<T>(promise: Promise<T> | undefined, ms: number): Promise<T | undefined> {
	if (!promise) {
		return undefined;
	}
	let timer: ReturnType<typeof setTimeout> | undefined;
	try {
		return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
	} finally {
		clearTimeout(timer);
	}
}
