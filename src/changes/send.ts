/**
 * "Send to Agent" (src/changes/changesActions.ts): the local version into the agent's workspace (a
 * file only the agent has is deleted there, after a question). Refused per file when the agent's
 * copy changed since it was listed: a conflict, told to the person (nothing written for it), and the
 * link refreshes so the diff shows the agent's latest version.
 */
import * as vscode from 'vscode';
import { agentPathOf } from '../util/paths';
import { NotRegularFileError } from '../compare/localFiles';
import { AgentChangedError, sendToAgent } from '../compare/send';
import type { FileFacts } from '../compare/types';
import type { ActionKit } from '../views/actions';
import type { ChangeFile, ChangesHost } from './changesActions';
import type { LinkSource } from './linkSource';
import { confirmFiles, countFiles, listOf } from './words';
import { sha256Hex } from '../base/random';

/** What Send to Agent answers: the paths sent, and those refused as conflicts (they stay listed). */
export interface SendAnswer {
	sent: string[];
	conflicts: string[];
}

/** The agent's copy after a send (with the hash of what was sent), or undefined after a delete. */
type SentFacts = (FileFacts & { sha256?: string }) | undefined;

/** Sends `files`, after a question when a file would be deleted there or has unsaved changes here. */
export async function sendFiles(host: ChangesHost, files: ChangeFile[], kit: ActionKit): Promise<SendAnswer> {
	const answer: SendAnswer = { sent: [], conflicts: [] };
	if (files.length === 0) {
		kit.info(vscode.l10n.t('Nothing to send: select files in a linked folder of Source Control.'));
		return answer;
	}
	if (!(await confirmSend(files, kit))) {
		return answer;
	}
	await kit.progress(vscode.l10n.t('Sending to the agent…'), async (signal, report) => {
		const bySource = new Map<LinkSource, Map<string, SentFacts>>();
		for (const [n, file] of files.entries()) {
			signal.throwIfAborted();
			report(`${n + 1}/${files.length} ${file.d.path}`);
			const facts = await sendOne(host, file, signal);
			if (facts === 'conflict') {
				answer.conflicts.push(file.d.path);
				continue;
			}
			const sent = bySource.get(file.source) ?? new Map<string, SentFacts>();
			bySource.set(file.source, sent.set(file.d.path, facts));
			answer.sent.push(file.d.path);
		}
		for (const [source, facts] of bySource) {
			source.settled([...facts.keys()], facts);
		}
	});
	if (answer.conflicts.length > 0) {
		kit.warn(
			vscode.l10n.t(
				'{0} changed in the agent workspace since it was listed, so nothing was sent for it: {1}. Open the diff again to see its version, then send again to overwrite it.',
				countFiles(answer.conflicts.length),
				listOf(answer.conflicts),
			),
		);
		for (const s of new Set(files.filter((f) => answer.conflicts.includes(f.d.path)).map((f) => f.source))) {
			s.refreshSoon(0);
		}
	}
	return answer;
}

/**
 * Asks first when the agent's copy of a file would be replaced or deleted (nothing undoes a write in
 * the agent workspace) or the file has unsaved changes here; true to go on.
 */
export function confirmSend(files: ChangeFile[], kit: Pick<ActionKit, 'confirm'>): Promise<boolean> {
	return confirmFiles(files, kit, {
		replaces: (d) => d.kind === 'modified',
		replacedLine: (listed) =>
			vscode.l10n.t(
				"Replaces the agent's version of {0} with the local one: what the agent wrote there is lost (Undo cannot bring it back).",
				listed,
			),
		removes: (d) => d.kind === 'added',
		removedLine: (listed, count) =>
			count === 1
				? vscode.l10n.t('Deletes {0} in the agent workspace (the local folder does not have it).', listed)
				: vscode.l10n.t('Deletes {0} in the agent workspace (the local folder does not have them).', listed),
		creates: (d) => d.kind === 'deleted',
		createdLine: (listed, count) =>
			count === 1
				? vscode.l10n.t('Creates {0} again in the agent workspace (the agent deleted it).', listed)
				: vscode.l10n.t('Creates {0} again in the agent workspace (the agent deleted them).', listed),
		dirtyLine: (listed) => vscode.l10n.t('Sends the saved version of {0} (its unsaved changes stay here).', listed),
		question: (counted) => vscode.l10n.t('Send the local version of {0} to the agent?', counted),
		action: vscode.l10n.t('Send to Agent'),
	});
}

/** Sends one file (its saved local bytes, or its absence); the agent's copy after it, or 'conflict'. */
async function sendOne(host: ChangesHost, { source, d }: ChangeFile, signal: AbortSignal): Promise<SentFacts | 'conflict'> {
	const agentPath = agentPathOf(source.link.agentFolder, d.path);
	let content: Uint8Array | undefined;
	if (d.kind !== 'added') {
		try {
			content = await source.files().read(d.path);
		} catch (err) {
			if (err instanceof NotRegularFileError) {
				throw new Error(vscode.l10n.t('{0} is not a regular file here.', d.path), { cause: err });
			}
			throw err;
		}
	}
	let facts: FileFacts | undefined;
	try {
		facts = await sendToAgent(source.client(), source.link.agentId, agentPath, content, d.agent, signal);
	} catch (err) {
		if (err instanceof AgentChangedError) {
			return 'conflict';
		}
		throw err;
	}
	host.agentFileChanged(
		source.link.agentId,
		agentPath,
		content === undefined ? 'deleted' : d.agent ? 'modified' : 'created',
		source.link.deployment,
	);
	if (!facts || !content) {
		return facts;
	}
	return { ...facts, sha256: await sha256Hex(content) };
}
