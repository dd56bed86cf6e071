/**
 * The Source Control commands (issue 21) as actions of the one registry (src/views/actionRegistry.ts):
 * the registry finds what each acts on (an agent for Compare with Local Folder; a link or files for
 * the rest: src/views/targets.ts), asks, tells and reports failures by its one rule; these act.
 */
import * as vscode from 'vscode';
import type { Agent } from '../api';
import { type Deployment, addressPart } from '../auth/deployments';
import type { LocalFiles } from '../compare/localFiles';
import type { CompareMode, CompareResult, Difference } from '../compare/types';
import { parseWorkspaceUri } from '../workspace/fs/workspaceFs';
import { FS_SCHEME } from '../ids';
import { notificationText } from '../util/text';
import type { ActionKit, FilesAction, LinkAction, RecordAction, ResourceAction, ResourceActions, ScmTargets } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { argString } from '../views/ui';
import { applyFiles } from './apply';
import { type LinkSource, cannotCompareWith } from './linkSource';
import { pickAgentFolder, pickLocalFolder } from './pickFolders';
import { sendFiles } from './send';
import { type PromptFlow, continueInCloud } from './continueInCloud';

/** A difference together with the link it belongs to: what a Source Control file command acts on. */
export interface ChangeFile {
	source: LinkSource;
	d: Difference;
}

/** What a new link joins. */
export interface LinkSpec {
	agentId: string;
	agentName: string;
	agentFolder: string;
	localFolder: string;
	/** The agent's deployment's id (`addressPart`); absent for the default deployment. */
	deployment?: string;
}

/** What the actions need from the feature (src/changes/changesFeature.ts). */
export interface ChangesHost {
	readonly targets: ScmTargets<LinkSource, ChangeFile>;
	readonly log: vscode.LogOutputChannel;
	/** The deployment a command's argument belongs to (a row of another deployment, automation's `deployment`); undefined: the default one. */
	deploymentOf(arg: unknown): Deployment | undefined;
	/** Tells the `cloud-agent:` file system (of the deployment whose addresses carry `deploymentPart`) that the agent's copy of a file changed (a send). */
	agentFileChanged(agentId: string, path: string, change: 'created' | 'modified' | 'deleted', deploymentPart?: string): void;
	/** A local folder as this extension host reaches it; undefined: it cannot (a comparison with it would fail). */
	localFiles(root: vscode.Uri): LocalFiles | undefined;
	/** Links (or links again) an agent's folder to a local one; its source control opens. */
	link(spec: LinkSpec): Promise<{ source: LinkSource; existed: boolean }>;
	/** Removes a link: its source control closes and the link is forgotten. */
	unlink(source: LinkSource): Promise<void>;
	/** Send Prompt's flow (handed by the shell): Continue in Cloud's agent and prompt steps and its send. */
	readonly prompts: PromptFlow;
}

/** What a comparison command returns (for automation and tests). */
export interface ComparisonAnswer {
	link: string;
	differences: Difference[];
	stats: CompareResult['stats'] | undefined;
	incomplete: string | undefined;
	/** Why the comparison failed (automation callers only: a person is shown the error). */
	error?: string;
}

/** The Source Control commands; `agents` is the Agents list (Compare with Local Folder acts on its records). */
export function changesActions(host: ChangesHost, agents: ListDescriptor<Agent, { agent: Agent }, unknown>): ResourceActions {
	const scm = host.targets;
	const onLink = (
		command: LinkAction<LinkSource, ChangeFile>['command'],
		placeHolder: () => string,
		run: (source: LinkSource, kit: ActionKit) => Promise<unknown>,
	): LinkAction<LinkSource, ChangeFile> => ({ command, scm, acts: 'link', placeHolder, run });
	const onFiles = (
		command: FilesAction<LinkSource, ChangeFile>['command'],
		run: (files: ChangeFile[], kit: ActionKit) => Promise<unknown>,
	): FilesAction<LinkSource, ChangeFile> => ({ command, scm, acts: 'files', run });
	const which = (): string => vscode.l10n.t('Which link?');
	return {
		compareWithLocal: {
			on: agents,
			command: 'cloudAgents.changes.compareWithLocal',
			// An agent's folder in the Explorer (`cloud-agent:`) names its agent.
			targetArg: (arg) => (isAgentFolder(arg) ? parseWorkspaceUri(arg).agentId : arg),
			run: ({ agent }, kit) => answered(kit, () => compareWithLocal(host, agent, kit)),
		} satisfies RecordAction<Agent, { agent: Agent }>,
		refresh: onLink(
			'cloudAgents.changes.refresh',
			() => vscode.l10n.t('Compare which link?'),
			(source, kit) => answered(kit, () => compare(source, 'refresh', kit), source),
		),
		compareEverything: onLink(
			'cloudAgents.changes.compareEverything',
			() => vscode.l10n.t('Compare which link?'),
			(source, kit) => answered(kit, () => compare(source, 'everything', kit), source),
		),
		unlink: onLink(
			'cloudAgents.changes.unlink',
			() => vscode.l10n.t('Unlink which folder?'),
			// Nothing is asked (no file is touched, and Compare with Local Folder links them again), so
			// the title has no ellipsis; what was done is said.
			async (source, kit) => {
				const label = source.label();
				await host.unlink(source);
				kit.info(
					vscode.l10n.t(
						'Unlinked {0}: Source Control no longer compares them; no file was changed. "Compare with Local Folder…" links them again.',
						label,
					),
				);
				return true;
			},
		),
		openAllChanges: onLink('cloudAgents.changes.openAllChanges', () => vscode.l10n.t('Open the changes of which link?'), openAll),
		applyAllToLocal: onLink('cloudAgents.changes.applyAllToLocal', which, (source, kit) => applyFiles(host, allFiles(source), kit)),
		sendAllToAgent: onLink('cloudAgents.changes.sendAllToAgent', which, (source, kit) => sendFiles(host, allFiles(source), kit)),
		applyToLocal: onFiles('cloudAgents.changes.applyToLocal', (files, kit) => applyFiles(host, files, kit)),
		sendToAgent: onFiles('cloudAgents.changes.sendToAgent', (files, kit) => sendFiles(host, files, kit)),
		openChanges: onFiles('cloudAgents.changes.openChanges', openChanges),
		openAgentVersion: onFiles('cloudAgents.changes.openAgentVersion', (files, kit) => openSide(files, 'agent', kit)),
		openLocalFile: onFiles('cloudAgents.changes.openLocalFile', (files, kit) => openSide(files, 'local', kit)),
		// From a link's title menu (its source control is the argument) or the palette (it asks): issue 46.
		continueInCloud: {
			command: 'cloudAgents.changes.continueInCloud',
			run: (kit) => continueInCloud(host, kit),
		} satisfies ResourceAction,
	};
}

function isAgentFolder(arg: unknown): arg is vscode.Uri {
	return arg instanceof vscode.Uri && arg.scheme === FS_SCHEME;
}

function allFiles(source: LinkSource): ChangeFile[] {
	return source.all().map((d) => ({ source, d }));
}

/**
 * A comparison's failure, for an automation caller, is its answer's `error` (and the log's), not a
 * rejection; a person's failure goes to the registry, which shows it (with the request id).
 */
async function answered(
	kit: ActionKit,
	work: () => Promise<ComparisonAnswer | undefined>,
	source?: LinkSource,
): Promise<ComparisonAnswer | undefined> {
	try {
		return await work();
	} catch (err) {
		if (!kit.automation || (err instanceof Error && err.name === 'AbortError')) {
			throw err;
		}
		const error = notificationText(err instanceof Error ? err.message : String(err));
		kit.log.warn(`Comparison failed: ${error}`);
		return { link: source?.link.id ?? '', differences: [], stats: undefined, incomplete: undefined, error };
	}
}

function answer(source: LinkSource, result: CompareResult | undefined): ComparisonAnswer {
	return { link: source.link.id, differences: source.all(), stats: result?.stats ?? source.lastStats, incomplete: source.incomplete };
}

/**
 * "Compare with Local Folder…" on an agent (its row, an agent's folder in the Explorer, `{agentId}`,
 * or a pick): the agent's folder (the one given, or the root or a top-level folder picked; automation:
 * `agentFolder`, else the root), the local folder (a workspace folder or a dialog; automation:
 * `localFolder`), then the first comparison. A new link whose first comparison fails is not kept.
 */
async function compareWithLocal(host: ChangesHost, agent: Agent, kit: ActionKit): Promise<ComparisonAnswer | undefined> {
	const given = kit.automation
		? { name: argString(kit.arg, 'agentName'), folder: argString(kit.arg, 'agentFolder'), local: argString(kit.arg, 'localFolder') }
		: { name: undefined, folder: undefined, local: undefined };
	const agentName = given.name ?? (agent.name || agent.id);
	let agentFolder = isAgentFolder(kit.arg) ? parseWorkspaceUri(kit.arg).path : given.folder;
	agentFolder ??= kit.automation ? '' : await pickAgentFolder(kit.client(), agent.id, agentName, kit.title);
	if (agentFolder === undefined) {
		return undefined;
	}
	agentFolder = agentFolder.replace(/^\/+|\/+$/g, '');
	const local =
		given.local !== undefined
			? localFolderUri(given.local)
			: await pickLocalFolder(agentFolder || agentName, kit.title, (uri) => host.localFiles(uri) !== undefined);
	if (!local) {
		return undefined;
	}
	if (!host.localFiles(local)) {
		throw new Error(cannotCompareWith(local));
	}
	// The agent of another deployment's row (or of automation's `deployment`) is linked with its deployment.
	const deployment = host.deploymentOf(kit.arg);
	const part = deployment && addressPart(deployment);
	const { source, existed } = await host.link({
		agentId: agent.id,
		agentName,
		agentFolder,
		localFolder: local.toString(),
		...(part !== undefined ? { deployment: part } : {}),
	});
	let result: CompareResult | undefined;
	try {
		result = await kit.progress(vscode.l10n.t('Comparing {0}…', source.label()), (signal, report) =>
			source.refresh('link', { signal, report }),
		);
	} catch (err) {
		// Nothing half-compared is kept: a new link whose first comparison failed (or was cancelled) goes.
		if (!existed) {
			await host.unlink(source);
		}
		throw err;
	}
	if (!kit.automation) {
		void vscode.commands.executeCommand('workbench.view.scm');
	}
	return answer(source, result);
}

/** Automation's `localFolder`: a URI (`scheme:…`, the scheme at least two characters: not a drive letter) or a path of this machine. */
function localFolderUri(given: string): vscode.Uri {
	return /^[A-Za-z][A-Za-z0-9+.-]+:/.test(given) ? vscode.Uri.parse(given, true) : vscode.Uri.file(given);
}

/** Refresh (what changed since the baseline) or Compare Everything (under a progress notification); says when it was partial, and when everything was compared and nothing differs. */
async function compare(source: LinkSource, mode: CompareMode, kit: ActionKit): Promise<ComparisonAnswer> {
	const result =
		mode === 'refresh'
			? await source.refresh(mode)
			: await kit.progress(vscode.l10n.t('Comparing everything in {0}…', source.label()), (signal, report) =>
					source.refresh(mode, { signal, report }),
				);
	if (source.incomplete) {
		kit.warn(source.incomplete);
	} else if (mode === 'everything' && source.all().length === 0) {
		// A person who asked for everything hears the answer, not only a 0 badge (issue 42, item 10).
		kit.info(
			vscode.l10n.t(
				"{0}: nothing differs. The local folder and the agent's workspace hold the same files (ignored files left out).",
				source.label(),
			),
		);
	}
	return answer(source, result);
}

/** "Open All Changes": every difference of the link in VS Code's multi-file diff editor. */
async function openAll(source: LinkSource, kit: ActionKit): Promise<void> {
	const all = source.all();
	if (all.length === 0) {
		kit.info(vscode.l10n.t('{0}: no differences.', source.label()));
		return;
	}
	const resources = all.map((d) => {
		const diff = source.diffOf(d);
		return [source.localUriOf(d.path), diff.left, diff.right];
	});
	await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('Changes: {0}', source.label()), resources);
}

/** "Open Changes" (a click on a file): the diff local ↔ agent, titled "‹file› (local ↔ ‹agent›)". */
async function openChanges(files: ChangeFile[]): Promise<void> {
	for (const { source, d } of files.slice(0, 20)) {
		const diff = source.diffOf(d);
		await vscode.commands.executeCommand('vscode.diff', diff.left, diff.right, diff.title);
	}
}

/** "Open Agent's Version" / "Open Local File"; a side that does not have the file says so. */
async function openSide(files: ChangeFile[], side: 'agent' | 'local', kit: ActionKit): Promise<void> {
	for (const { source, d } of files.slice(0, 20)) {
		if (side === 'agent' ? d.kind === 'deleted' : d.kind === 'added') {
			kit.info(
				side === 'agent'
					? vscode.l10n.t('{0} is not in the agent workspace.', d.path)
					: vscode.l10n.t('{0} is not in the local folder.', d.path),
			);
			continue;
		}
		await vscode.commands.executeCommand('vscode.open', side === 'agent' ? source.agentUriOf(d.path) : source.localUriOf(d.path));
	}
}
