/**
 * Small helpers the Source Control commands share: counted and listed file names, the open document
 * of a file, the question before Apply or Send.
 */
import * as vscode from 'vscode';
import type { Difference } from '../compare/types';
import type { ActionKit } from '../views/actions';
import type { ChangeFile } from './changesActions';

/** "1 file", "3 files". */
export function countFiles(n: number): string {
	return n === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', n);
}

/** Up to five paths, then "and N more". */
export function listOf(paths: readonly string[]): string {
	const shown = paths.slice(0, 5).join(', ');
	return paths.length > 5 ? vscode.l10n.t('{0} and {1} more', shown, paths.length - 5) : shown;
}

/** The open text document of a file, if any. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
	const key = uri.toString();
	return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === key);
}

/** The words of the question Apply or Send asks before it goes on. */
export interface FilesQuestion {
	/** The files the action removes (on the side it writes). */
	removes(this: void, d: Difference): boolean;
	/** The line about them, given their paths listed and how many they are (one file reads "it", several "them"). */
	removedLine(this: void, listed: string, count: number): string;
	/** The files whose copy on the side it writes is replaced, with what that copy holds lost (Send: the agent's; no Undo there). */
	replaces?(this: void, d: Difference): boolean;
	/** The line about them, given their paths listed. */
	replacedLine?(this: void, listed: string): string;
	/** The files the action creates on the side it writes (named when the question is asked for others: it names every file it counts). */
	creates?(this: void, d: Difference): boolean;
	/** The line about them, given their paths listed and how many they are. */
	createdLine?(this: void, listed: string, count: number): string;
	/** The line about files with unsaved changes here, given their paths listed. */
	dirtyLine(this: void, listed: string): string;
	/** The question, given the counted files. */
	question(this: void, counted: string): string;
	/** The action's button. */
	action: string;
}

/**
 * Asks first when some of `files` would be removed or replaced where nothing can undo it, or have
 * unsaved changes here (the registry's rule: a person is asked, an automation caller has decided);
 * true to go on.
 */
export async function confirmFiles(files: ChangeFile[], kit: Pick<ActionKit, 'confirm'>, words: FilesQuestion): Promise<boolean> {
	const removed = files.filter((f) => words.removes(f.d));
	const replaced = words.replaces ? files.filter((f) => words.replaces!(f.d)) : [];
	const dirty = files.filter((f) => openDocument(f.source.localUriOf(f.d.path))?.isDirty);
	if (removed.length === 0 && replaced.length === 0 && dirty.length === 0) {
		return true;
	}
	// Issue 42, item 13: "Send 8 files" named the six it replaced or deleted, not the two it re-created.
	const created = words.creates ? files.filter((f) => words.creates!(f.d)) : [];
	const lines = [
		replaced.length > 0 && words.replacedLine ? words.replacedLine(listOf(replaced.map((f) => f.d.path))) : undefined,
		removed.length > 0 ? words.removedLine(listOf(removed.map((f) => f.d.path)), removed.length) : undefined,
		created.length > 0 && words.createdLine ? words.createdLine(listOf(created.map((f) => f.d.path)), created.length) : undefined,
		dirty.length > 0 ? words.dirtyLine(listOf(dirty.map((f) => f.d.path))) : undefined,
	].filter((l): l is string => l !== undefined);
	return kit.confirm(words.question(countFiles(files.length)), lines.join('\n'), words.action);
}
