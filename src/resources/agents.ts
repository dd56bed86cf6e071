import * as vscode from 'vscode';
import { LIMITS, fromUnixSeconds, sleep, utf8Length } from '../api';
import type { Agent } from '../api';
import { openComputer } from '../commands/computer';
import { contextToken, iconSafe, notificationText } from '../util/text';
import type { ActionKit, RecordAction, ResourceAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { agentStatusIcon, joinParts, oneLine, plainTooltip, relativeTime } from '../views/format';
import { argBoolean, argString, displayName, showModalWarning, toAbortSignal } from '../views/ui';
import { runtimesList } from './runtimes';

/** Agent statuses that change on their own, so the list refreshes itself while one is shown. */
const MOVING_AGENT_STATUSES = new Set(['provisioning', 'running', 'deleting']);

/** globalState key: agent ids used recently, most recent first (the agent pick lists them first). */
export const RECENT_AGENTS_KEY = 'cloudAgents.recentAgents';

const RECENT_MAX = 10;

/** Agent ids used recently, most recent first (globalState). */
export function recentAgentIds(context: vscode.ExtensionContext): string[] {
	const ids = context.globalState.get<unknown>(RECENT_AGENTS_KEY);
	return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
}

/** Moves an agent id to the front of the recently used list. */
export async function rememberAgent(context: vscode.ExtensionContext, agentId: string): Promise<void> {
	const ids = [agentId, ...recentAgentIds(context).filter((id) => id !== agentId)].slice(0, RECENT_MAX);
	await context.globalState.update(RECENT_AGENTS_KEY, ids);
}

/** What an agent command receives: `{agent}` (a row, the resolver). */
export interface AgentTarget {
	agent: Agent;
}

/**
 * The Agents view: every agent, newest first, a page (`cloudAgents.pageSize`) at a time through the
 * service's cursors. Selecting an agent drives the Runs and Artifacts views. A row's `contextValue`
 * is `agent:<status>` (menus match `^agent:`); its tooltip names the runtime as the Runtimes view does.
 */
export const agentsList: ListDescriptor<Agent, AgentTarget> = {
	key: 'agents',
	kind: 'agent',
	viewId: 'cloudAgents.agents',
	commands: { refresh: 'cloudAgents.agents.refresh', loadMore: 'cloudAgents.agents.loadMore' },
	source: { page: (ctx, request) => ctx.client().listAgents(request) },
	keyOf: (agent) => agent.id,
	name: (agent) => agent.name || undefined,
	fields: (agent) => ({ agent }),
	isActive: (agent) => agent.status !== undefined && MOVING_AGENT_STATUSES.has(agent.status),
	signature: (a) => [a.id, a.name, a.status, a.updated_at_unix_seconds],
	row(agent, ctx) {
		const status = agent.status ?? 'unknown';
		const runtimeName = agent.runtime_id ? ctx.lookup(runtimesList, agent.runtime_id)?.display_name || undefined : undefined;
		return {
			label: agent.name || agent.id,
			contextValue: `agent:${contextToken(status)}`,
			icon: agentStatusIcon(agent.status),
			description: joinParts(status, relativeTime(fromUnixSeconds(agent.updated_at_unix_seconds ?? agent.created_at_unix_seconds))),
			tooltip: plainTooltip(agent.name, [
				[vscode.l10n.t('Status'), status],
				[vscode.l10n.t('ID'), agent.id],
				[vscode.l10n.t('Runtime'), runtimeName ? `${runtimeName} (${agent.runtime_id ?? ''})` : agent.runtime_id],
				[vscode.l10n.t('Harness'), agent.harness_id],
				[
					vscode.l10n.t('Created'),
					agent.created_at_unix_seconds !== undefined
						? new Date(agent.created_at_unix_seconds * 1000).toLocaleString()
						: undefined,
				],
				[
					vscode.l10n.t('Updated'),
					agent.updated_at_unix_seconds !== undefined
						? new Date(agent.updated_at_unix_seconds * 1000).toLocaleString()
						: undefined,
				],
				[vscode.l10n.t('Latest reply'), agent.latest_reply?.text ? oneLine(agent.latest_reply.text, 200) : undefined],
			]),
		};
	},
	target: {
		idField: 'agentId',
		get: (ctx, id) => ctx.client().getAgent(id),
		choices: async (ctx) => (await ctx.client().listAgents({ limit: 100 })).items,
		pickText: (agent) => ({ label: agent.name || agent.id, description: agent.status, detail: agent.id }),
		placeholder: () => vscode.l10n.t('Pick an agent'),
		preferLoaded: true,
		recentKey: RECENT_AGENTS_KEY,
	},
};

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

/** Checks a prompt (of a run or an agent's first message) against the 65,536-byte limit; a message or undefined. */
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

/** A runtime as the Runtimes view names it (its display name when loaded there), else its id. */
function runtimeLabel(kit: ActionKit, runtimeId: string): string {
	return kit.list(runtimesList).records.find((r) => r.id === runtimeId)?.display_name || runtimeId;
}

/**
 * Create Agent: name, optional repositories ("id@branch, …") and optional first message, in three
 * steps; automation passes `{name, initialMessage?, repositories?}` (repositories as typed).
 */
async function createAgent(kit: ActionKit): Promise<Agent | undefined> {
	let name = argString(kit.arg, 'name');
	let initialMessage = argString(kit.arg, 'initialMessage');
	let repositoriesText = argString(kit.arg, 'repositories');
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
		kit.warn(vscode.l10n.t('Not sent: {0}', problem));
		return undefined;
	}
	const message = initialMessage?.trim();
	const trimmed = name.trim();
	const agent = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: notificationText(vscode.l10n.t('Creating agent {0}…', trimmed)) },
		() =>
			kit.client().createAgent({
				name: trimmed,
				...(message ? { initial_message: message } : {}),
				...('repositories' in parsedRepositories && parsedRepositories.repositories.length > 0
					? { repositories: parsedRepositories.repositories }
					: {}),
			}),
	);
	await rememberAgent(kit.context, agent.id);
	await kit.list(agentsList).refresh();
	void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Created agent {0}', agent.name)), 4000);
	return agent;
}

/** Rename Agent: asks for the new name unless automation passes `{agentId, name}`. */
async function renameAgent(agent: Agent, kit: ActionKit): Promise<Agent | undefined> {
	let name = argString(kit.arg, 'name');
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
		kit.warn(vscode.l10n.t('Not sent: {0}', problem));
		return undefined;
	}
	const renamed = await kit.client().renameAgent(agent.id, name.trim());
	await kit.list(agentsList).refresh();
	if (kit.selected(agentsList)?.id === agent.id) {
		kit.select(agentsList, { ...agent, ...renamed });
	}
	return renamed;
}

/**
 * Delete Agent, optionally with its runtime (then waits, cancellably, until the runtime is gone).
 * Asks which unless automation passes `{agentId, deleteRuntime}` (the caller has decided).
 */
async function deleteAgent(agent: Agent, kit: ActionKit): Promise<boolean> {
	let deleteRuntime: boolean;
	const given = kit.automation ? argBoolean(kit.arg, 'deleteRuntime') : undefined;
	if (given !== undefined) {
		deleteRuntime = given;
	} else {
		const agentOnly = vscode.l10n.t('Delete Agent');
		const withRuntime = vscode.l10n.t('Delete Agent and Runtime');
		const choice = await showModalWarning(
			vscode.l10n.t('Delete the agent "{0}"?', agent.name),
			agent.runtime_id
				? vscode.l10n.t(
						'"Delete Agent" keeps its runtime {0} and the runtime\'s other agents. "Delete Agent and Runtime" also deletes the runtime when no other agent uses it. This cannot be undone.',
						runtimeLabel(kit, agent.runtime_id),
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
	const client = kit.client();
	const result = await client.deleteAgent(agent.id, { deleteRuntime });
	if (kit.selected(agentsList)?.id === agent.id) {
		kit.select(agentsList, undefined);
	}
	await kit.list(agentsList).refresh();
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
							kit.warn(
								vscode.l10n.t(
									'The runtime {0} is still being deleted; it will disappear from the Runtimes view when it is gone.',
									runtimeLabel(kit, runtimeId),
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
		void kit.list(runtimesList).refresh();
		void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Deleted agent {0} and its runtime', agent.name)), 4000);
	} else {
		void kit.list(runtimesList).refresh();
		if (deleteRuntime && !result.runtimeDeletionRequested) {
			kit.info(vscode.l10n.t('Deleted agent {0}. Its runtime was kept because other agents use it.', agent.name));
		} else {
			void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Deleted agent {0}', agent.name)), 4000);
		}
	}
	return true;
}

/**
 * What a user can do with an agent (the Agents view's rows, the palette). Automation may pass an
 * object instead of a row: create `{name, initialMessage?, repositories?}`, rename `{agentId, name}`,
 * delete `{agentId, deleteRuntime}` (no confirmation), copy id and open computer `{agentId}`. Send
 * Prompt, which starts a run of an agent, is a run action (src/resources/runs.ts); Show Session
 * History is its own resource (src/resources/sessionHistory.ts).
 */
export const agentActions = {
	create: { command: 'cloudAgents.agents.create', run: createAgent } satisfies ResourceAction,
	rename: {
		on: agentsList,
		command: 'cloudAgents.agents.rename',
		useSelection: true,
		run: ({ agent }, kit) => renameAgent(agent, kit),
	} satisfies RecordAction<Agent, AgentTarget>,
	delete: {
		on: agentsList,
		command: 'cloudAgents.agents.delete',
		useSelection: true,
		run: ({ agent }, kit) => deleteAgent(agent, kit),
	} satisfies RecordAction<Agent, AgentTarget>,
	copyId: {
		on: agentsList,
		command: 'cloudAgents.agents.copyId',
		useSelection: true,
		run: async ({ agent }) => {
			await vscode.env.clipboard.writeText(agent.id);
			vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Copied the agent ID {0}', agent.id)), 3000);
			return undefined;
		},
	} satisfies RecordAction<Agent, AgentTarget>,
	openComputer: {
		on: agentsList,
		command: 'cloudAgents.agents.openComputer',
		// The panel flow (one panel per agent, restored after a reload) is src/commands/computer.ts.
		run: ({ agent }, kit) => {
			void rememberAgent(kit.context, agent.id);
			return openComputer(agent, kit);
		},
	} satisfies RecordAction<Agent, AgentTarget>,
};
