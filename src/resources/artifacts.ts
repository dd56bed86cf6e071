import * as vscode from 'vscode';
import { ARTIFACT_NAME, LIMITS, fromRfc3339 } from '../api';
import type { Agent, Artifact } from '../api';
import { baseName, extensionOf } from '../util/fileNames';
import { safeFileName } from '../util/paths';
import { iconSafe, singleLine } from '../util/text';
import type { ActionKit, RecordAction, UserFiles } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { formatBytes, joinParts, plainTooltip, relativeTime } from '../views/format';
import { ImageDocuments } from '../views/imageDocuments';
import { titledRecordUri } from '../views/recordDocuments';
import { argString, displayName, isStatus, showWarning } from '../views/ui';
import { agentsList } from './agents';
import type { AgentAction, AgentTarget } from './agents';
import { runsList } from './runs';

/** The output cap of a single answer: an artifact larger than this cannot be read back whole. */
export const ARTIFACT_READ_CAP_BYTES = 2 * 1024 * 1024;

/** How an artifact opens: as an image, as text, or only by saving it. */
export function artifactKind(artifact: Pick<Artifact, 'media_type' | 'name'>): 'image' | 'text' | 'binary' {
	const type = (artifact.media_type ?? '').toLowerCase();
	if (/^image\/(png|jpeg|gif|webp|svg\+xml|bmp)$/.test(type)) {
		return 'image';
	}
	if (type.startsWith('text/') || /(json|xml|yaml|javascript|typescript|markdown|csv|x-sh|toml)/.test(type)) {
		return 'text';
	}
	if (type === '' || type === 'application/octet-stream') {
		return /\.(md|txt|json|log|ya?ml|csv|ts|js|py|sh|toml|xml|html?|diff|patch)$/i.test(artifact.name) ? 'text' : 'binary';
	}
	return 'binary';
}

/** What an artifact command receives: `{agentId, artifact}` (a row, the resolver). */
export interface ArtifactTarget {
	agentId: string;
	artifact: Artifact;
}

/**
 * The Artifacts view: artifacts of the agent selected in the Agents view. The listing has no
 * paging, so there is no "Load more…" row; it refreshes when a run of that agent finishes. A row's
 * `contextValue` is `artifact:<image|text|binary>` plus `:large` past the read cap; a click opens it.
 */
export const artifactsList: ListDescriptor<Artifact, ArtifactTarget, Agent> = {
	key: 'artifacts',
	kind: 'artifact',
	viewId: 'cloudAgents.artifacts',
	parent: {
		as: 'selection',
		of: agentsList,
		selectLabel: () => vscode.l10n.t('Select an agent'),
		selectTooltip: () => vscode.l10n.t('Select an agent in the Agents view to see its artifacts.'),
	},
	commands: { refresh: 'cloudAgents.artifacts.refresh' },
	source: {
		async list(ctx, { signal }, agent) {
			return { items: await ctx.client().listArtifacts(agent.id, { signal }), more: false };
		},
	},
	keyOf: (artifact) => artifact.id,
	name: (artifact) => artifact.name,
	fields: (artifact, agentId) => ({ agentId: agentId ?? '', artifact }),
	row(artifact) {
		const kind = artifactKind(artifact);
		return {
			label: artifact.name,
			contextValue: `artifact:${kind}${(artifact.size ?? 0) > ARTIFACT_READ_CAP_BYTES ? ':large' : ''}`,
			icon: new vscode.ThemeIcon(kind === 'image' ? 'file-media' : kind === 'text' ? 'file-text' : 'file-binary'),
			description: joinParts(formatBytes(artifact.size), relativeTime(fromRfc3339(artifact.created_at))),
			tooltip: plainTooltip(artifact.name, [
				[vscode.l10n.t('ID'), artifact.id],
				[vscode.l10n.t('Run'), artifact.run_id],
				[vscode.l10n.t('Media type'), artifact.media_type],
				[vscode.l10n.t('Size'), formatBytes(artifact.size)],
				[vscode.l10n.t('Created'), artifact.created_at ? new Date(artifact.created_at).toLocaleString() : undefined],
			]),
			command: { command: 'cloudAgents.artifacts.open', title: vscode.l10n.t('Open Artifact') },
		};
	},
	target: {
		idField: 'artifactId',
		get: (ctx, id, agentId) => ctx.client().getArtifact(agentId ?? '', id),
		choices: (ctx, agentId) => ctx.client().listArtifacts(agentId ?? ''),
		pickText: (artifact) => ({
			label: artifact.name,
			description: joinParts(formatBytes(artifact.size), relativeTime(fromRfc3339(artifact.created_at))),
			detail: artifact.id,
		}),
		placeholder: (agent) => vscode.l10n.t('Pick an artifact of {0}', iconSafe(agent?.name || '')),
		matchOnDetail: false,
	},
};

/** globalState key: the folder the user last saved an artifact into (a URI string). */
const LAST_SAVE_FOLDER_KEY = 'cloudAgents.artifacts.lastSaveFolder';

/**
 * The Save dialog's starting point: the folder the user last saved an artifact into, else the first
 * local workspace folder, else the home folder (Node's extension host), else the first workspace
 * folder (VS Code for the Web has no home folder); the file name is the artifact name made safe.
 * Undefined when there is no folder at all: the dialog starts where VS Code chooses. The server's
 * name never chooses the folder.
 */
function saveDefaultUri(context: vscode.ExtensionContext, userFiles: UserFiles, artifactName: string): vscode.Uri | undefined {
	const remembered = context.globalState.get<unknown>(LAST_SAVE_FOLDER_KEY);
	let folder: vscode.Uri | undefined;
	if (typeof remembered === 'string') {
		try {
			folder = vscode.Uri.parse(remembered, true);
		} catch {
			folder = undefined;
		}
	}
	const folders = vscode.workspace.workspaceFolders ?? [];
	folder ??= folders.find((f) => f.uri.scheme === 'file')?.uri ?? userFiles.homeFolder() ?? folders[0]?.uri;
	return folder && vscode.Uri.joinPath(folder, safeFileName(artifactName, 'artifact'));
}

/** A message when the artifact name breaks the pattern, else undefined. */
export function artifactNameProblem(name: string): string | undefined {
	return ARTIFACT_NAME.test(name)
		? undefined
		: vscode.l10n.t('1 to 255 ASCII characters: a letter or digit first, then letters, digits, ".", "_" or "-".');
}

/** A file name turned into a valid artifact name (invalid characters become "-"). */
export function toArtifactName(fileName: string): string {
	const cleaned = fileName
		.replace(/[^A-Za-z0-9._-]/g, '-')
		.replace(/^[^A-Za-z0-9]+/, '')
		.slice(0, 255);
	return cleaned || 'artifact';
}

const MEDIA_TYPES: Record<string, string> = {
	'.png': 'image/png',
	'.jpg': 'image/jpeg',
	'.jpeg': 'image/jpeg',
	'.gif': 'image/gif',
	'.webp': 'image/webp',
	'.svg': 'image/svg+xml',
	'.md': 'text/markdown',
	'.txt': 'text/plain',
	'.log': 'text/plain',
	'.csv': 'text/csv',
	'.html': 'text/html',
	'.json': 'application/json',
	'.yaml': 'application/yaml',
	'.yml': 'application/yaml',
	'.xml': 'application/xml',
	'.js': 'text/javascript',
	'.ts': 'text/typescript',
	'.py': 'text/x-python',
	'.sh': 'application/x-sh',
	'.diff': 'text/x-diff',
	'.patch': 'text/x-diff',
	'.pdf': 'application/pdf',
	'.zip': 'application/zip',
};

/** A media type from a file name's extension (application/octet-stream when unknown). */
export function mediaTypeOf(fileName: string): string {
	return MEDIA_TYPES[extensionOf(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/** The editor language of a text artifact, from its media type or name. */
export function languageOf(artifact: Pick<Artifact, 'media_type' | 'name'>): string {
	const type = (artifact.media_type ?? '').toLowerCase();
	const byType: Array<[RegExp, string]> = [
		[/markdown/, 'markdown'],
		[/json/, 'json'],
		[/yaml/, 'yaml'],
		[/xml/, 'xml'],
		[/html/, 'html'],
		[/typescript/, 'typescript'],
		[/javascript/, 'javascript'],
		[/x-python/, 'python'],
		[/x-sh/, 'shellscript'],
		[/x-diff/, 'diff'],
		[/csv/, 'plaintext'],
	];
	for (const [re, language] of byType) {
		if (re.test(type)) {
			return language;
		}
	}
	const byExt: Record<string, string> = {
		'.md': 'markdown',
		'.json': 'json',
		'.yaml': 'yaml',
		'.yml': 'yaml',
		'.ts': 'typescript',
		'.js': 'javascript',
		'.py': 'python',
		'.sh': 'shellscript',
		'.diff': 'diff',
		'.patch': 'diff',
	};
	return byExt[extensionOf(artifact.name).toLowerCase()] ?? 'plaintext';
}

/** True when the base64 answer for `size` bytes would pass the service's 2 MiB output cap. */
export function exceedsReadCap(size: number | undefined): boolean {
	return size !== undefined && Math.ceil(size / 3) * 4 > ARTIFACT_READ_CAP_BYTES;
}

function tooLargeMessage(artifact: Artifact): string {
	return vscode.l10n.t(
		'The artifact {0} ({1}) is larger than the service returns in one answer (2 MiB output cap), so it cannot be opened here.',
		artifact.name,
		formatBytes(artifact.size) ?? '?',
	);
}

/** Reads an artifact's content; the service's 422 (past its output cap) becomes the too-large message. */
async function readContent(kit: ActionKit, agentId: string, artifact: Artifact): Promise<{ artifact: Artifact; content: Uint8Array }> {
	try {
		return await kit.client().readArtifactContent(agentId, artifact.id);
	} catch (err) {
		if (isStatus(err, 422)) {
			throw new Error(`${tooLargeMessage(artifact)} (${err.message})`, { cause: err });
		}
		throw err;
	}
}

/** Saves an artifact to `file`, or where the Save dialog says (remembered for the next one). */
async function saveArtifact({ agentId, artifact }: ArtifactTarget, kit: ActionKit, file?: vscode.Uri): Promise<vscode.Uri | undefined> {
	if (exceedsReadCap(artifact.size)) {
		kit.warn(tooLargeMessage(artifact));
		return undefined;
	}
	const chosen = file
		? undefined
		: await vscode.window.showSaveDialog({
				title: vscode.l10n.t('Save Artifact {0}', displayName(artifact.name)),
				defaultUri: saveDefaultUri(kit.context, kit.userFiles, artifact.name),
			});
	const destination = file ?? chosen;
	if (!destination) {
		return undefined;
	}
	if (chosen) {
		// The next dialog starts where the user chose this time.
		await kit.context.globalState.update(LAST_SAVE_FOLDER_KEY, vscode.Uri.joinPath(chosen, '..').toString());
	}
	const { content } = await readContent(kit, agentId, artifact);
	await vscode.workspace.fs.writeFile(destination, content);
	vscode.window.setStatusBarMessage(
		vscode.l10n.t('Saved {0}', destination.scheme === 'file' ? destination.fsPath : destination.toString(true)),
		4000,
	);
	return destination;
}

/**
 * Opens an artifact: text as a read-only document, an image in the image preview (from memory);
 * a binary one or one past the read cap only offers saving.
 */
async function openArtifact(target: ArtifactTarget, kit: ActionKit): Promise<unknown> {
	const { agentId, artifact } = target;
	const kind = artifactKind(artifact);
	if (exceedsReadCap(artifact.size) || kind === 'binary') {
		const saveAs = vscode.l10n.t('Save As…');
		const choice = await showWarning(
			exceedsReadCap(artifact.size)
				? tooLargeMessage(artifact)
				: vscode.l10n.t(
						'The artifact {0} is binary ({1}); save it to open it with another program.',
						artifact.name,
						artifact.media_type ?? 'application/octet-stream',
					),
			...(exceedsReadCap(artifact.size) ? [] : [saveAs]),
		);
		if (choice === saveAs) {
			return saveArtifact(target, kit);
		}
		return undefined;
	}
	const { content } = await readContent(kit, agentId, artifact);
	if (kind === 'image') {
		// From memory: the tab and breadcrumbs name the artifact; nothing is written to disk.
		return kit.images.show(ImageDocuments.uri(artifact.name, agentId, artifact.id), content);
	}
	// A read-only record; the name's extension picks the language, else the media type does.
	// The tab is titled by the artifact's name (no ids in the title or breadcrumbs).
	return kit.records.show(
		titledRecordUri(artifact.name, 'artifacts', agentId, artifact.id),
		new TextDecoder('utf-8').decode(content),
		languageOf(artifact),
	);
}

/**
 * Uploads a file (`file`, else an Open dialog) as an artifact of one of the agent's runs (`runId`,
 * else a pick), named `name` (else asked, prefilled with the file name made valid; automation
 * takes that name without asking). Nothing is sent past 32 MiB or with a name that breaks the pattern.
 */
async function uploadArtifact({ agent }: AgentTarget, kit: ActionKit): Promise<Artifact | undefined> {
	const filePath = argString(kit.arg, 'file');
	let file: vscode.Uri | undefined = filePath ? vscode.Uri.file(filePath) : undefined;
	if (!file) {
		const picked = await vscode.window.showOpenDialog({
			canSelectMany: false,
			openLabel: vscode.l10n.t('Upload'),
			title: vscode.l10n.t('Upload a file as an artifact of {0}', displayName(agent.name)),
		});
		file = picked?.[0];
	}
	if (!file) {
		return undefined;
	}
	const fileName = baseName(file.path);
	const stat = await vscode.workspace.fs.stat(file);
	if (stat.size > LIMITS.writeBytes) {
		kit.warn(vscode.l10n.t('Not uploaded: {0} is {1}; artifacts may be at most 32 MiB.', fileName, formatBytes(stat.size) ?? ''));
		return undefined;
	}
	const runId =
		argString(kit.arg, 'runId') ??
		(await kit.resolve(runsList, { agentId: agent.id }, { title: vscode.l10n.t('Upload Artifact: pick the run it belongs to') }))?.run
			.id;
	if (!runId) {
		return undefined;
	}
	let name = argString(kit.arg, 'name');
	if (name === undefined && !kit.automation) {
		name = await vscode.window.showInputBox({
			title: vscode.l10n.t('Upload Artifact: name'),
			value: toArtifactName(fileName),
			validateInput: artifactNameProblem,
		});
		if (name === undefined) {
			return undefined;
		}
	}
	name ??= toArtifactName(fileName);
	const problem = artifactNameProblem(name);
	if (problem) {
		kit.warn(vscode.l10n.t('Not uploaded: the name "{0}" must be {1}', name, problem));
		return undefined;
	}
	const content = await vscode.workspace.fs.readFile(file);
	const request = { run_id: runId, name, media_type: mediaTypeOf(fileName), content };
	const artifact = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Uploading {0}…', name) },
		() => kit.client().createArtifact(agent.id, request),
	);
	if (kit.selected(agentsList)?.id === agent.id) {
		await kit.list(artifactsList).refresh();
	}
	vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Uploaded artifact {0}', artifact.name)), 4000);
	return artifact;
}

/**
 * What a user can do with artifacts: open, save to disk, upload a file as an artifact of a run,
 * delete. Automation may pass `{agentId, artifactId}` instead of a row; save also takes `target`
 * (a file path); upload takes `{agentId, runId, file, name?}`; delete with an automation object
 * asks no confirmation (the caller has decided).
 */
export const artifactActions = {
	open: {
		on: artifactsList,
		command: 'cloudAgents.artifacts.open',
		run: (target, kit) => openArtifact(target, kit),
	} satisfies RecordAction<Artifact, ArtifactTarget>,
	save: {
		on: artifactsList,
		command: 'cloudAgents.artifacts.save',
		title: () => vscode.l10n.t('Save Artifact'),
		run: (target, kit) => {
			const file = argString(kit.arg, 'target');
			return saveArtifact(target, kit, file ? vscode.Uri.file(file) : undefined);
		},
	} satisfies RecordAction<Artifact, ArtifactTarget>,
	/** Acts on an agent (the one the Artifacts view follows, else a pick), then asks for the run. */
	upload: { on: agentsList, command: 'cloudAgents.artifacts.upload', useSelection: true, run: uploadArtifact } satisfies AgentAction,
	delete: {
		on: artifactsList,
		command: 'cloudAgents.artifacts.delete',
		async run({ agentId, artifact }, kit): Promise<boolean> {
			const ok = await kit.confirm(
				vscode.l10n.t('Delete the artifact "{0}"?', singleLine(artifact.name)),
				vscode.l10n.t('This cannot be undone.'),
				vscode.l10n.t('Delete Artifact'),
			);
			if (!ok) {
				return false;
			}
			await kit.client().deleteArtifact(agentId, artifact.id);
			await kit.refresh();
			return true;
		},
	} satisfies RecordAction<Artifact, ArtifactTarget>,
};
