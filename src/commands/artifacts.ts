import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ARTIFACT_NAME, LIMITS } from '../api';
import type { Artifact } from '../api';
import { ARTIFACT_READ_CAP_BYTES, artifactKind, artifactsList, runsList } from '../resources';
import type { ArtifactTarget } from '../resources';
import { resolveTarget } from '../views/targets';
import { formatBytes } from '../views/format';
import { ImageDocuments } from '../views/imageDocuments';
import { titledRecordUri } from '../views/recordDocuments';
import type { CommandLogger } from './registry';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { argString, displayName, isAutomation, isStatus, showWarning } from './support';
import { agentsList } from '../resources';
import { iconSafe, notificationText, singleLine } from '../util/text';
import { safeFileName } from '../util/localName';

/** globalState key: the folder the user last saved an artifact into (a URI string). */
const LAST_SAVE_FOLDER_KEY = 'cloudAgents.artifacts.lastSaveFolder';

/**
 * The Save dialog's starting point: the folder the user last saved an artifact into, else the first
 * local workspace folder, else the home folder; the file name is the artifact name made safe. The
 * server's name never chooses the folder.
 */
function saveDefaultUri(context: vscode.ExtensionContext, artifactName: string): vscode.Uri {
	const remembered = context.globalState.get<unknown>(LAST_SAVE_FOLDER_KEY);
	let folder: vscode.Uri | undefined;
	if (typeof remembered === 'string') {
		try {
			folder = vscode.Uri.parse(remembered, true);
		} catch {
			folder = undefined;
		}
	}
	folder ??= vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri ?? vscode.Uri.file(os.homedir());
	return vscode.Uri.joinPath(folder, safeFileName(artifactName, 'artifact'));
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
	return MEDIA_TYPES[path.extname(fileName).toLowerCase()] ?? 'application/octet-stream';
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
	return byExt[path.extname(artifact.name).toLowerCase()] ?? 'plaintext';
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

/**
 * Registers the artifact commands: refresh, open (text in an editor, images in the image
 * preview), save to disk, upload a file as an artifact of a run, delete.
 *
 * Automation may pass `{agentId, artifactId}` instead of a tree node; save also takes `target`
 * (a file path); upload takes `{agentId, runId, file, name?}`; delete with an automation object
 * asks no confirmation (the caller has decided).
 */
export function registerArtifactCommands(deps: FeatureDeps): vscode.Disposable[] {
	const log: CommandLogger = deps.log;
	const { views } = deps;
	const client = () => deps.session.client;
	const registerCommand = commandRegistrar(log, { onUnauthorized: deps.onUnauthorized });

	const save = async (target: ArtifactTarget, file?: vscode.Uri): Promise<vscode.Uri | undefined> => {
		const { agentId, artifact } = target;
		if (exceedsReadCap(artifact.size)) {
			void showWarning(tooLargeMessage(artifact));
			return undefined;
		}
		const chosen = file
			? undefined
			: await vscode.window.showSaveDialog({
					title: vscode.l10n.t('Save Artifact {0}', displayName(artifact.name)),
					defaultUri: saveDefaultUri(deps.context, artifact.name),
				});
		const destination = file ?? chosen;
		if (!destination) {
			return undefined;
		}
		if (chosen) {
			// The next dialog starts where the user chose this time.
			await deps.context.globalState.update(LAST_SAVE_FOLDER_KEY, vscode.Uri.joinPath(chosen, '..').toString());
		}
		const { content } = await readContent(agentId, artifact);
		await vscode.workspace.fs.writeFile(destination, content);
		vscode.window.setStatusBarMessage(vscode.l10n.t('Saved {0}', destination.fsPath), 4000);
		return destination;
	};

	const readContent = async (agentId: string, artifact: Artifact): Promise<{ artifact: Artifact; content: Uint8Array }> => {
		try {
			return await client().readArtifactContent(agentId, artifact.id);
		} catch (err) {
			if (isStatus(err, 422)) {
				throw new Error(`${tooLargeMessage(artifact)} (${err.message})`, { cause: err });
			}
			throw err;
		}
	};

	return [
		registerCommand('cloudAgents.artifacts.open', async (arg?: unknown) => {
			const target = await resolveTarget(deps, artifactsList, arg, { title: vscode.l10n.t('Open Artifact') });
			if (!target) {
				return undefined;
			}
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
					return save(target);
				}
				return undefined;
			}
			const { content } = await readContent(agentId, artifact);
			if (kind === 'image') {
				// From memory: the tab and breadcrumbs name the artifact; nothing is written to disk.
				return deps.images.show(ImageDocuments.uri(artifact.name, agentId, artifact.id), content);
			}
			// A read-only record; the name's extension picks the language, else the media type does.
			// The tab is titled by the artifact's name (no ids in the title or breadcrumbs).
			return deps.records.show(
				titledRecordUri(artifact.name, 'artifacts', agentId, artifact.id),
				new TextDecoder('utf-8').decode(content),
				languageOf(artifact),
			);
		}),
		registerCommand('cloudAgents.artifacts.save', async (arg?: unknown) => {
			const target = await resolveTarget(deps, artifactsList, arg, { title: vscode.l10n.t('Save Artifact') });
			if (!target) {
				return undefined;
			}
			const file = argString(arg, 'target');
			return save(target, file ? vscode.Uri.file(file) : undefined);
		}),
		registerCommand('cloudAgents.artifacts.upload', async (arg?: unknown) => {
			const agent = (await resolveTarget(deps, agentsList, arg, { title: vscode.l10n.t('Upload Artifact'), useSelection: true }))
				?.agent;
			if (!agent) {
				return undefined;
			}
			const filePath = argString(arg, 'file');
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
			const stat = await vscode.workspace.fs.stat(file);
			if (stat.size > LIMITS.writeBytes) {
				void vscode.window.showWarningMessage(
					vscode.l10n.t(
						'Not uploaded: {0} is {1}; artifacts may be at most 32 MiB.',
						path.basename(file.fsPath),
						formatBytes(stat.size) ?? '',
					),
				);
				return undefined;
			}
			const runId =
				argString(arg, 'runId') ??
				(
					await resolveTarget(
						deps,
						runsList,
						{ agentId: agent.id },
						{ title: vscode.l10n.t('Upload Artifact: pick the run it belongs to') },
					)
				)?.run.id;
			if (!runId) {
				return undefined;
			}
			let name = argString(arg, 'name');
			if (name === undefined && !isAutomation(arg)) {
				name = await vscode.window.showInputBox({
					title: vscode.l10n.t('Upload Artifact: name'),
					value: toArtifactName(path.basename(file.fsPath)),
					validateInput: artifactNameProblem,
				});
				if (name === undefined) {
					return undefined;
				}
			}
			name ??= toArtifactName(path.basename(file.fsPath));
			const problem = artifactNameProblem(name);
			if (problem) {
				void showWarning(vscode.l10n.t('Not uploaded: the name "{0}" must be {1}', name, problem));
				return undefined;
			}
			const content = await vscode.workspace.fs.readFile(file);
			const artifact = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Uploading {0}…', name) },
				() => client().createArtifact(agent.id, { run_id: runId, name: name, media_type: mediaTypeOf(file.fsPath), content }),
			);
			if (views.selected(agentsList)?.id === agent.id) {
				await views.providerOf(artifactsList).refresh();
			}
			vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Uploaded artifact {0}', artifact.name)), 4000);
			return artifact;
		}),
		registerCommand('cloudAgents.artifacts.delete', async (arg?: unknown) => {
			const target = await resolveTarget(deps, artifactsList, arg, { title: vscode.l10n.t('Delete Artifact') });
			if (!target) {
				return false;
			}
			if (!isAutomation(arg)) {
				const del = vscode.l10n.t('Delete Artifact');
				const choice = await vscode.window.showWarningMessage(
					notificationText(vscode.l10n.t('Delete the artifact "{0}"?', singleLine(target.artifact.name))),
					{ modal: true, detail: vscode.l10n.t('This cannot be undone.') },
					del,
				);
				if (choice !== del) {
					return false;
				}
			}
			await client().deleteArtifact(target.agentId, target.artifact.id);
			await views.providerOf(artifactsList).refresh();
			return true;
		}),
	];
}
