import * as vscode from 'vscode';
import { runtimesList } from '../resources';
import { LIMITS, sleep, utf8Length } from '../api';
import type { Agent } from '../api';
import { iconSafe, notificationText } from '../util/text';
import type { CommandLogger } from './registry';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { argString, displayName, isAutomation, rememberAgent, showInfo, showModalWarning, showWarning, toAbortSignal } from './support';
import { resolveTarget } from '../views/targets';
import { agentsList } from '../resources';

/** Checks an agent name as the service will (1–255 UTF-8 bytes after trimming); a message or undefined. */
export function agentNameProblem(name: string): string | undefined {
	const bytes = utf8Length(name.trim());
	if (bytes < LIMITS.agentNameBytes.min) {
		return vscode.l10n.t('Enter a name.');
	}
	if (bytes > LIMITS.agentNameBytes.max) {
		return vscode.l10n.t(
			'The name is {0} bytes long; the limit is {1} bytes (UTF-8, after trimming).',
			bytes,
			LIMITS.agentNameBytes.max,
		);
	}
	return undefined;
}

/** Checks a prompt against the 65,536-byte limit; a message or undefined. */
export function promptProblem(text: string, allowEmpty: boolean): string | undefined {
	const bytes = utf8Length(text.trim());
	if (bytes === 0 && !allowEmpty) {
		return vscode.l10n.t('Enter a prompt.');
	}
	if (bytes > LIMITS.promptBytes) {
		return vscode.l10n.t('The prompt is {0} bytes long; the limit is {1} bytes (UTF-8, after trimming).', bytes, LIMITS.promptBytes);
	}
	return undefined;
}

/** A repository the new agent's runtime checks out: a GitHub repository id and a branch. */
export interface RepositoryChoice {
	repository_id: number;
	branch: string;
}

/**
 * Parses "id@branch" entries separated by commas or spaces (e.g. "123456@main, 789@develop"):
 * the repositories of Create Agent's optional step. Returns the list, or a message for the first
 * entry that is not a positive integer id with a 1–255 character branch.
 */
export function parseRepositories(text: string): { repositories: RepositoryChoice[] } | { problem: string } {
	const repositories: RepositoryChoice[] = [];
	for (const entry of text.split(/[\s,]+/).filter((e) => e !== '')) {
		const match = /^(\d{1,15})@(\S{1,255})$/.exec(entry);
		const id = match ? Number(match[1]) : 0;
		if (!match || !Number.isSafeInteger(id) || id < 1) {
			return {
				problem: vscode.l10n.t(
					'"{0}" is not a repository: write the GitHub repository id and the branch, as in 123456789@main.',
					entry.slice(0, 60),
				),
			};
		}
		repositories.push({ repository_id: id, branch: match[2]! });
	}
	return { repositories };
}

const RUNTIME_GONE_POLL_MS = 500;
const RUNTIME_GONE_TIMEOUT_MS = 120_000;

/**
 * Registers the agent commands: refresh, load more, create, rename, delete (optionally with its
 * runtime, waiting until the runtime is gone) and copy id.
 *
 * Automation (tests, other extensions) may pass an object instead of a tree node:
 * create `{name, initialMessage?, repositories?}` (repositories as typed: "id@branch, …"), rename `{agentId, name}`, delete `{agentId, deleteRuntime}`
 * (the caller has decided, so no confirmation is asked), copy id `{agentId}`.
 */
export function registerAgentCommands(deps: FeatureDeps): vscode.Disposable[] {
	const log: CommandLogger = deps.log;
	const registerCommand = commandRegistrar(log, { onUnauthorized: deps.onUnauthorized });
	return [
		registerCommand('cloudAgents.agents.create', (arg?: unknown) => createAgent(deps, arg)),
		registerCommand('cloudAgents.agents.rename', (arg?: unknown) => renameAgent(deps, arg)),
		registerCommand('cloudAgents.agents.delete', (arg?: unknown) => deleteAgent(deps, arg)),
		registerCommand('cloudAgents.agents.copyId', async (arg?: unknown) => {
			const agent = (await resolveTarget(deps, agentsList, arg, { title: vscode.l10n.t('Copy Agent ID'), useSelection: true }))
				?.agent;
			if (agent) {
				await vscode.env.clipboard.writeText(agent.id);
				vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Copied the agent ID {0}', agent.id)), 3000);
			}
		}),
	];
}

/** A runtime as the Runtimes view names it (its display name when loaded there), else its id. */
function runtimeLabel(deps: FeatureDeps, runtimeId: string): string {
	return deps.views.providerOf(runtimesList).records.find((r) => r.id === runtimeId)?.display_name || runtimeId;
}

async function createAgent(deps: FeatureDeps, arg: unknown): Promise<Agent | undefined> {
	let name = argString(arg, 'name');
	let initialMessage = argString(arg, 'initialMessage');
	let repositoriesText = argString(arg, 'repositories');
	if (name === undefined) {
		name = await vscode.window.showInputBox({
			title: vscode.l10n.t('Create Agent (1/3)'),
			prompt: vscode.l10n.t('Name of the new agent'),
			placeHolder: vscode.l10n.t('e.g. Refactor billing module'),
			validateInput: agentNameProblem,
			ignoreFocusOut: true,
		});
		if (name === undefined) {
			return undefined;
		}
		repositoriesText = await vscode.window.showInputBox({
			title: vscode.l10n.t('Create Agent (2/3)'),
			prompt: vscode.l10n.t(
				'Optional repositories for the new runtime: GitHub repository id and branch, comma-separated (e.g. 123456789@main). Leave empty for none.',
			),
			validateInput: (v) => {
				const parsed = parseRepositories(v);
				return 'problem' in parsed ? parsed.problem : undefined;
			},
			ignoreFocusOut: true,
		});
		if (repositoriesText === undefined) {
			return undefined;
		}
		initialMessage = await vscode.window.showInputBox({
			title: vscode.l10n.t('Create Agent (3/3)'),
			prompt: vscode.l10n.t('Optional first message: the agent starts a run with it once it is ready. Leave empty for none.'),
			validateInput: (v) => promptProblem(v, true),
			ignoreFocusOut: true,
		});
		if (initialMessage === undefined) {
			return undefined;
		}
	}
	const parsedRepositories = parseRepositories(repositoriesText ?? '');
	const problem =
		agentNameProblem(name) ??
		(initialMessage ? promptProblem(initialMessage, true) : undefined) ??
		('problem' in parsedRepositories ? parsedRepositories.problem : undefined);
	if (problem) {
		void showWarning(vscode.l10n.t('Not sent: {0}', problem));
		return undefined;
	}
	const message = initialMessage?.trim();
	const agent = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: notificationText(vscode.l10n.t('Creating agent {0}…', name.trim())) },
		() =>
			deps.session.client.createAgent({
				name: name.trim(),
				...(message ? { initial_message: message } : {}),
				...('repositories' in parsedRepositories && parsedRepositories.repositories.length > 0
					? { repositories: parsedRepositories.repositories }
					: {}),
			}),
	);
	await rememberAgent(deps.context, agent.id);
	await deps.views.providerOf(agentsList).refresh();
	void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Created agent {0}', agent.name)), 4000);
	return agent;
}

async function renameAgent(deps: FeatureDeps, arg: unknown): Promise<Agent | undefined> {
	const agent = (await resolveTarget(deps, agentsList, arg, { title: vscode.l10n.t('Rename Agent'), useSelection: true }))?.agent;
	if (!agent) {
		return undefined;
	}
	let name = argString(arg, 'name');
	if (name === undefined) {
		name = await vscode.window.showInputBox({
			title: vscode.l10n.t('Rename Agent'),
			prompt: vscode.l10n.t('New name of {0}', displayName(agent.name, agent.id)),
			value: agent.name,
			validateInput: agentNameProblem,
		});
		if (name === undefined || name.trim() === agent.name) {
			return undefined;
		}
	}
	const problem = agentNameProblem(name);
	if (problem) {
		void showWarning(vscode.l10n.t('Not sent: {0}', problem));
		return undefined;
	}
	const renamed = await deps.session.client.renameAgent(agent.id, name.trim());
	await deps.views.providerOf(agentsList).refresh();
	if (deps.views.selected(agentsList)?.id === agent.id) {
		deps.views.select(agentsList, { ...agent, ...renamed });
	}
	return renamed;
}

async function deleteAgent(deps: FeatureDeps, arg: unknown): Promise<boolean> {
	const agent = (await resolveTarget(deps, agentsList, arg, { title: vscode.l10n.t('Delete Agent'), useSelection: true }))?.agent;
	if (!agent) {
		return false;
	}
	let deleteRuntime: boolean;
	const given = isAutomation(arg) ? arg.deleteRuntime : undefined;
	if (typeof given === 'boolean') {
		deleteRuntime = given;
	} else {
		const agentOnly = vscode.l10n.t('Delete Agent');
		const withRuntime = vscode.l10n.t('Delete Agent and Runtime');
		const choice = await showModalWarning(
			vscode.l10n.t('Delete the agent "{0}"?', agent.name),
			agent.runtime_id
				? vscode.l10n.t(
						'"Delete Agent" keeps its runtime {0} and the runtime\'s other agents. "Delete Agent and Runtime" also deletes the runtime when no other agent uses it. This cannot be undone.',
						runtimeLabel(deps, agent.runtime_id),
					)
				: vscode.l10n.t('This cannot be undone.'),
			agentOnly,
			...(agent.runtime_id ? [withRuntime] : []),
		);
		if (choice === undefined) {
			return false;
		}
		deleteRuntime = choice === withRuntime;
	}
	const client = deps.session.client;
	const result = await client.deleteAgent(agent.id, { deleteRuntime });
	if (deps.views.selected(agentsList)?.id === agent.id) {
		deps.views.select(agentsList, undefined);
	}
	await deps.views.providerOf(agentsList).refresh();
	const runtimeId = result.runtime_id ?? agent.runtime_id;
	if (deleteRuntime && result.runtimeDeletionRequested && runtimeId) {
		await vscode.window.withProgress(
			{
				location: vscode.ProgressLocation.Notification,
				title: notificationText(vscode.l10n.t('Deleting the runtime of {0}…', agent.name)),
				cancellable: true,
			},
			async (progress, token) => {
				const abort = toAbortSignal(token);
				try {
					const deadline = Date.now() + RUNTIME_GONE_TIMEOUT_MS;
					for (;;) {
						let found: { status: string } | undefined;
						for await (const runtime of client.iterateRuntimes({ limit: 100 })) {
							if (abort.signal.aborted) {
								throw new vscode.CancellationError();
							}
							if (runtime.id === runtimeId) {
								found = runtime;
								break;
							}
						}
						if (!found) {
							return;
						}
						progress.report({ message: notificationText(vscode.l10n.t('runtime is {0}', found.status)) });
						if (Date.now() > deadline) {
							void showWarning(
								vscode.l10n.t(
									'The runtime {0} is still being deleted; it will disappear from the Runtimes view when it is gone.',
									runtimeLabel(deps, runtimeId),
								),
							);
							return;
						}
						await sleep(RUNTIME_GONE_POLL_MS, abort.signal);
					}
				} finally {
					abort.dispose();
				}
			},
		);
		void deps.views.providerOf(runtimesList).refresh();
		void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Deleted agent {0} and its runtime', agent.name)), 4000);
	} else {
		void deps.views.providerOf(runtimesList).refresh();
		if (deleteRuntime && !result.runtimeDeletionRequested) {
			void showInfo(vscode.l10n.t('Deleted agent {0}. Its runtime was kept because other agents use it.', agent.name));
		} else {
			void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Deleted agent {0}', agent.name)), 4000);
		}
	}
	return true;
}
