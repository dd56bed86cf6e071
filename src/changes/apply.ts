/**
 * "Apply to Local" (src/changes/changesActions.ts): the agent's version into the local folder, one
 * WorkspaceEdit per file (text files as an edit of their document, so Undo in its editor restores
 * it; other files and new ones as file operations); a file the agent deleted is deleted locally.
 */
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../api';
import { bytesEqual } from '../base/bytes';
import { agentPathOf } from '../util/paths';
import type { Difference } from '../compare/types';
import type { ActionKit } from '../views/actions';
import type { ChangeFile, ChangesHost } from './changesActions';
import type { LinkSource } from './linkSource';
import { type FilesQuestion, confirmFiles, countFiles, openDocument } from './words';

/** What Apply to Local answers: the paths applied, and those refused with the reason (they stay listed). */
export interface ApplyAnswer {
	applied: string[];
	refused: Array<{ path: string; reason: string }>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Applies `files`, after a question when a local file would be deleted or has unsaved changes. A
 * file refused (a path behind a symlink, an edit VS Code did not apply) stays listed, and the
 * person is told which and why.
 */
export async function applyFiles(host: ChangesHost, files: ChangeFile[], kit: ActionKit): Promise<ApplyAnswer> {
	const answer: ApplyAnswer = { applied: [], refused: [] };
	if (files.length === 0) {
		kit.info(vscode.l10n.t('Nothing to apply: select files in a linked folder of Source Control.'));
		return answer;
	}
	if (!(await confirmApply(files, kit))) {
		return answer;
	}
	await kit.progress(vscode.l10n.t("Applying the agent's changes…"), async (signal, report) => {
		const bySource = new Map<LinkSource, string[]>();
		for (const [n, { source, d }] of files.entries()) {
			signal.throwIfAborted();
			report(`${n + 1}/${files.length} ${d.path}`);
			try {
				await applyOne(source.client(), source, d, signal);
				bySource.set(source, [...(bySource.get(source) ?? []), d.path]);
				answer.applied.push(d.path);
			} catch (err) {
				if (signal.aborted) {
					throw err;
				}
				host.log.warn(`Applying ${d.path} failed:`, err instanceof Error ? err : String(err));
				answer.refused.push({ path: d.path, reason: err instanceof Error ? err.message : String(err) });
			}
		}
		for (const [source, paths] of bySource) {
			source.settled(paths);
		}
	});
	if (answer.refused.length > 0) {
		const reasons = answer.refused.slice(0, 5).map((r) => `${r.path}: ${r.reason}`);
		kit.warn(vscode.l10n.t('{0} could not be applied: {1}', countFiles(answer.refused.length), reasons.join('; ')));
	}
	return answer;
}

/** Asks first when a local file would be deleted or has unsaved changes; true to go on. */
function confirmApply(files: ChangeFile[], kit: ActionKit): Promise<boolean> {
	return confirmFiles(files, kit, applyQuestion());
}

/** The words of Apply to Local's question. */
export function applyQuestion(): FilesQuestion {
	return {
		removes: (d) => d.kind === 'deleted',
		removedLine: (listed, count) =>
			count === 1
				? vscode.l10n.t('Deletes {0} in the local folder (the agent deleted it).', listed)
				: vscode.l10n.t('Deletes {0} in the local folder (the agent deleted them).', listed),
		dirtyLine: (listed) => vscode.l10n.t('Replaces the unsaved changes of {0}.', listed),
		question: (counted) => vscode.l10n.t("Apply the agent's version of {0}?", counted),
		action: vscode.l10n.t('Apply to Local'),
	};
}

async function applyOne(client: CloudAgentsClient, source: LinkSource, d: Difference, signal: AbortSignal): Promise<void> {
	await source.files().checkWrite(d.path);
	const uri = source.localUriOf(d.path);
	const edit = new vscode.WorkspaceEdit();
	const metadata = { label: vscode.l10n.t("Apply the agent's {0}", d.path), needsConfirmation: false };
	if (d.kind === 'deleted') {
		edit.deleteFile(uri, { ignoreIfNotExists: true }, metadata);
		await applyEdit(edit, d.path);
		return;
	}
	const file = await client.readWorkspaceFileAll(source.link.agentId, agentPathOf(source.link.agentFolder, d.path), { signal });
	const bytes = file.content;
	const text = asText(bytes);
	const open = openDocument(uri);
	if (text !== undefined && (open !== undefined || d.kind === 'modified')) {
		const doc = open ?? (await vscode.workspace.openTextDocument(uri));
		const full = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
		const eol = text.eol ?? doc.eol;
		edit.set(uri, [
			[vscode.TextEdit.replace(full, text.text), metadata],
			[vscode.TextEdit.setEndOfLine(eol), metadata],
		]);
		await applyEdit(edit, d.path);
		if (!(await doc.save())) {
			throw new Error(vscode.l10n.t('{0} could not be saved.', d.path));
		}
		if (await sameBytes(uri, bytes)) {
			return;
		}
		// A save participant (format on save, trimmed whitespace) changed it: the agent's bytes as they are.
	}
	const overwrite = new vscode.WorkspaceEdit();
	overwrite.createFile(uri, { overwrite: true, contents: bytes }, metadata);
	await applyEdit(overwrite, d.path);
}

/** UTF-8 text without a BOM whose line ends are all of one kind (else undefined: applied as bytes). */
function asText(bytes: Uint8Array): { text: string; eol: vscode.EndOfLine | undefined } | undefined {
	if (bytes.length > 8 * 1024 * 1024 || (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || bytes.includes(0)) {
		return undefined;
	}
	let text: string;
	try {
		text = utf8.decode(bytes);
	} catch {
		return undefined;
	}
	const crlf = (text.match(/\r\n/g) ?? []).length;
	const cr = (text.match(/\r/g) ?? []).length;
	const lf = (text.match(/\n/g) ?? []).length;
	if (cr !== crlf || (crlf > 0 && crlf !== lf)) {
		return undefined;
	}
	return { text, eol: crlf > 0 ? vscode.EndOfLine.CRLF : lf > 0 ? vscode.EndOfLine.LF : undefined };
}

async function sameBytes(uri: vscode.Uri, bytes: Uint8Array): Promise<boolean> {
	const disk = await vscode.workspace.fs.readFile(uri);
	return bytesEqual(disk, bytes);
}

async function applyEdit(edit: vscode.WorkspaceEdit, path: string): Promise<void> {
	if (!(await vscode.workspace.applyEdit(edit))) {
		throw new Error(vscode.l10n.t('VS Code did not apply the change to {0}.', path));
	}
}
