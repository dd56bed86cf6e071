import * as vscode from 'vscode';
import { userAgent } from '../auth/session';
import {
	GitHubLookupError,
	GitHubResolver,
	LIMITS,
	fromRfc3339,
	fromUnixSeconds,
	needsLookup,
	parseRepositoryRefs,
	sleep,
	utf8Length,
} from '../api';
import type { Agent, RepositoryEntry, RepositoryRefProblem, ResolvedRepository } from '../api';
import { openComputer } from './computer';
import { type InputStep, MultiStepInput } from '../views/multiStep';
import { contextToken, iconSafe, notificationText } from '../util/text';
import type { ActionKit, RecordAction, ResourceAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { type StoredField, restoreRecord, storeRecord } from '../api';
import { agentStatusIcon, joinParts, oneLine, plainTooltip, relativeTime } from '../views/format';
import { argBoolean, argString, displayName, showModalWarning } from '../views/ui';
import { describeError } from '../messages/errors';
import { findRuntime, runtimesList } from './runtimes';

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

/** The fields of an agent kept with the Agents view's rows as last loaded (no reply text). */
const STORED_AGENT: Readonly<Record<string, StoredField>> = {
	id: 'id',
	name: 'text',
	status: 'text',
	runtime_id: 'id',
	harness_id: 'id',
	created_at_unix_seconds: 'count',
	updated_at_unix_seconds: 'count',
};

/**
 * When an agent last did something, in epoch milliseconds: the latest of its creation, its last
 * change (`updated_at_unix_seconds`) and its latest reply (`latest_reply.updated_at`, which a
 * service may move without touching the agent's own time); 0 when it gives none.
 */
export function agentActivity(agent: Agent): number {
	const reply: unknown = agent.latest_reply?.updated_at;
	return Math.max(
		fromUnixSeconds(agent.created_at_unix_seconds) ?? 0,
		fromUnixSeconds(agent.updated_at_unix_seconds) ?? 0,
		(typeof reply === 'string' ? fromRfc3339(reply) : undefined) ?? 0,
	);
}

/** What an agent command receives: `{agent}` (a row, the resolver). */
export interface AgentTarget {
	agent: Agent;
}

/**
 * The Agents view: every agent, most recent activity first (`agentActivity`: the service documents
 * no order, so the agents loaded are sorted here), a page (`cloudAgents.pageSize`) at a time through
 * the service's cursors. Selecting an agent drives the Runs and Artifacts views. A row's `contextValue`
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
	order: (a, b) => agentActivity(b) - agentActivity(a),
	cache: { store: (agent) => storeRecord(agent, STORED_AGENT), restore: (value) => restoreRecord<Agent>(value, STORED_AGENT) },
	readAhead: true,
	row(agent, ctx) {
		const status = agent.status ?? 'unknown';
		return {
			label: agent.name || agent.id,
			contextValue: `agent:${contextToken(status)}`,
			icon: agentStatusIcon(agent.status),
			description: joinParts(status, relativeTime(fromUnixSeconds(agent.updated_at_unix_seconds ?? agent.created_at_unix_seconds))),
			// Built on hover: its dates would load the locale data before the first rows (RowSpec.tooltip);
			// the runtime's name as the Runtimes view has it then.
			tooltip: () => {
				const runtimeName = agent.runtime_id ? ctx.lookup(runtimesList, agent.runtime_id)?.display_name || undefined : undefined;
				return plainTooltip(agent.name, [
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
				]);
			},
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

const RUNTIME_GONE_POLL_MS = 500;
const RUNTIME_GONE_TIMEOUT_MS = 120_000;

/** A runtime as the Runtimes view names it (its display name when loaded there), else its id. */
function runtimeLabel(kit: ActionKit, runtimeId: string): string {
	return kit.list(runtimesList).records.find((r) => r.id === runtimeId)?.display_name || runtimeId;
}

/** How long the delete confirmation waits for a runtime's name before naming it by id. */
const RUNTIME_NAME_WAIT_MS = 3_000;

/**
 * A runtime's display name: from the Runtimes view when loaded there, else read from the service
 * (at most RUNTIME_NAME_WAIT_MS); its id when it has no name or none came in time.
 */
async function runtimeName(kit: ActionKit, runtimeId: string): Promise<string> {
	const loaded = kit.list(runtimesList).records.find((r) => r.id === runtimeId)?.display_name;
	if (loaded) {
		return loaded;
	}
	let timer: ReturnType<typeof setTimeout> | undefined;
	try {
		const found = await Promise.race([
			findRuntime(kit.client(), runtimeId).catch(() => undefined),
			new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), RUNTIME_NAME_WAIT_MS))),
		]);
		return found?.display_name || runtimeId;
	} finally {
		clearTimeout(timer);
	}
}

/** Words a repository entry's shape problem (before anything is sent). */
function repositoryProblemText(entry: string, problem: RepositoryRefProblem): string {
	switch (problem) {
		case 'owner':
			return vscode.l10n.t('"{0}": not a GitHub owner (letters, digits and single hyphens, at most 39 characters).', entry);
		case 'name':
			return vscode.l10n.t('"{0}": not a GitHub repository name (letters, digits, ".", "_" and "-", at most 100 characters).', entry);
		case 'id':
			return vscode.l10n.t('"{0}": a repository id is a positive whole number.', entry);
		case 'branch':
			return vscode.l10n.t('"{0}": the branch after @ is not one git accepts (no spaces, "..", ~ ^ : ? * [ \\).', entry);
		default:
			return vscode.l10n.t(
				'"{0}" is not a repository: write owner/name or the GitHub repository id, optionally with @branch (e.g. octocat/hello-world, 123456789@main).',
				entry,
			);
	}
}

/** Parses Create Agent's repositories ("owner/name[@branch]" or "id[@branch]", comma- or space-separated): the entries, or a message. */
export function parseRepositories(text: string): { refs: RepositoryEntry[] } | { problem: string } {
	const parsed = parseRepositoryRefs(text);
	return 'problem' in parsed ? { problem: repositoryProblemText(parsed.entry, parsed.problem) } : parsed;
}

/**
 * A GitHub token from VS Code's GitHub account, for a repository GitHub does not show without
 * one: the session already granted to this extension, else (`ask`) VS Code's own sign-in consent.
 * Never the Cloud Agents token. Undefined when declined or when there is no GitHub account provider.
 */
async function githubToken(ask: boolean): Promise<string | undefined> {
	const scopes = ['repo'];
	try {
		const granted = await vscode.authentication.getSession('github', scopes, { silent: true });
		if (granted || !ask) {
			return granted?.accessToken;
		}
		return (await vscode.authentication.getSession('github', scopes, { createIfNone: true })).accessToken;
	} catch {
		return undefined;
	}
}

/** Words a failed GitHub lookup. */
function lookupProblemText(err: GitHubLookupError): string {
	const entry = err.entry.slice(0, 60);
	switch (err.failure) {
		case 'not_found':
			return err.signedIn
				? vscode.l10n.t('GitHub has no repository {0}, or your GitHub account cannot see it.', entry)
				: vscode.l10n.t(
						"GitHub shows no public repository {0}. For a private one, allow VS Code's GitHub sign-in when asked, or type its numeric id and branch (e.g. 123456789@main).",
						entry,
					);
		case 'rate_limited':
			return err.signedIn
				? vscode.l10n.t("GitHub's rate limit was reached while looking up {0}; try again later.", entry)
				: vscode.l10n.t(
						"GitHub's rate limit was reached while looking up {0}; try again later, or sign in to GitHub when asked.",
						entry,
					);
		case 'invalid_response':
			return vscode.l10n.t(
				"GitHub's answer about {0} is not a repository ({1}); type its numeric id and branch instead.",
				entry,
				err.message,
			);
		case 'unreachable':
			return vscode.l10n.t(
				'GitHub could not be reached to look up {0} ({1}); check the connection, or type its numeric id and branch (e.g. 123456789@main).',
				entry,
				err.message,
			);
		default:
			return vscode.l10n.t('GitHub refused to look up {0} ({1}).', entry, err.message);
	}
}

/** What the GitHub look-up reads from the kit: the network settings and the API base (the harness's stub). */
type GitHubLookup = Pick<ActionKit, 'session' | 'githubApiUrl'>;

/**
 * Resolves typed repositories to the service's ids and branches: names through GitHub's REST API
 * (anonymously first; VS Code's GitHub account only for what GitHub does not show anonymously,
 * asking for it when `ask`), an id without a branch to its default branch, an id with one as it is.
 */
export async function resolveRepositories(
	refs: readonly RepositoryEntry[],
	ask: boolean,
	github: GitHubLookup,
	signal?: AbortSignal,
): Promise<{ repositories: ResolvedRepository[] } | { problem: string }> {
	if (!refs.some(needsLookup)) {
		return { repositories: refs.map((r) => ({ repository_id: (r as { id: number }).id, branch: r.branch ?? '' })) };
	}
	let resolver: GitHubResolver;
	try {
		resolver = new GitHubResolver({
			baseUrl: github.githubApiUrl(),
			getToken: () => githubToken(ask),
			userAgent: userAgent(),
			connect: github.session.connect,
			network: github.session.networkSettings,
		});
	} catch (err) {
		return { problem: vscode.l10n.t('The GitHub API address is not usable: {0}', err instanceof Error ? err.message : String(err)) };
	}
	try {
		return { repositories: await resolver.resolveAll(refs, signal) };
	} catch (err) {
		if (err instanceof GitHubLookupError) {
			return { problem: lookupProblemText(err) };
		}
		if (signal?.aborted) {
			return { problem: vscode.l10n.t('Cancelled.') };
		}
		return { problem: vscode.l10n.t('GitHub could not be asked: {0}', err instanceof Error ? err.message : String(err)) };
	} finally {
		resolver.close();
	}
}

/** Create Agent's answers, kept from step to step (Back shows them again). */
interface CreateAgentAnswers {
	name: string;
	repositoriesText: string;
	/** The repositories `repositoriesText` resolved to (set when step 2 is accepted). */
	repositories: ResolvedRepository[];
	resolvedFor: string | undefined;
	initialMessage: string;
}

/** Asks Create Agent's three steps (Back from the second on keeps what was typed); undefined when dismissed. */
async function askCreateAgent(github: GitHubLookup): Promise<CreateAgentAnswers | undefined> {
	const a: CreateAgentAnswers = { name: '', repositoriesText: '', repositories: [], resolvedFor: undefined, initialMessage: '' };
	const title = vscode.l10n.t('Create Agent');
	const messageStep: InputStep<CreateAgentAnswers> = async (input) => {
		a.initialMessage = await input.showInputBox({
			title,
			step: 3,
			totalSteps: 3,
			value: a.initialMessage,
			prompt: vscode.l10n.t('Optional first message: the agent starts a run with it once it is ready. Leave empty for none.'),
			validate: (v) => promptProblem(v, true),
			remember: (v) => (a.initialMessage = v),
		});
		return undefined;
	};
	const repositoriesStep: InputStep<CreateAgentAnswers> = async (input) => {
		a.repositoriesText = await input.showInputBox({
			title,
			step: 2,
			totalSteps: 3,
			value: a.repositoriesText,
			prompt: vscode.l10n.t(
				'Optional repositories for the new runtime: owner/name or GitHub repository id, @branch for another than the default branch, comma-separated. Leave empty for none.',
			),
			placeholder: vscode.l10n.t('e.g. octocat/hello-world, octocat/spoon-knife@dev, 123456789@main'),
			remember: (v) => (a.repositoriesText = v),
			validate: (v) => {
				const parsed = parseRepositories(v);
				return 'problem' in parsed ? parsed.problem : undefined;
			},
			accept: async (v, signal) => {
				if (a.resolvedFor === v) {
					return undefined;
				}
				const parsed = parseRepositories(v);
				const resolved = 'problem' in parsed ? parsed : await resolveRepositories(parsed.refs, true, github, signal);
				if ('problem' in resolved) {
					return resolved.problem;
				}
				a.repositories = resolved.repositories;
				a.resolvedFor = v;
				return undefined;
			},
		});
		return messageStep;
	};
	const nameStep: InputStep<CreateAgentAnswers> = async (input) => {
		a.name = await input.showInputBox({
			title,
			step: 1,
			totalSteps: 3,
			value: a.name,
			prompt: vscode.l10n.t('Name of the new agent'),
			placeholder: vscode.l10n.t('e.g. Refactor billing module'),
			validate: agentNameProblem,
			remember: (v) => (a.name = v),
		});
		return repositoriesStep;
	};
	return (await MultiStepInput.run(nameStep, a)) ? a : undefined;
}

/**
 * Create Agent: name, optional repositories ("owner/name[@branch]" or "id[@branch]", resolved
 * through GitHub on their step) and optional first message, in three steps; automation passes
 * `{name, initialMessage?, repositories?}` (repositories as typed; GitHub's sign-in is not asked for
 * then, only a session already granted is used).
 */
async function createAgent(kit: ActionKit): Promise<Agent | undefined> {
	let name = argString(kit.arg, 'name');
	let initialMessage = argString(kit.arg, 'initialMessage');
	let repositories: ResolvedRepository[];
	if (name === undefined) {
		const answers = await askCreateAgent(kit);
		if (!answers) {
			return undefined;
		}
		({ name, initialMessage, repositories } = answers);
	} else {
		const problem = agentNameProblem(name) ?? (initialMessage ? promptProblem(initialMessage, true) : undefined);
		const parsed = parseRepositories(argString(kit.arg, 'repositories') ?? '');
		const resolved = problem ? { problem } : 'problem' in parsed ? parsed : await resolveRepositories(parsed.refs, false, kit);
		if ('problem' in resolved) {
			kit.warn(vscode.l10n.t('Not sent: {0}', resolved.problem));
			return undefined;
		}
		repositories = resolved.repositories;
	}
	const message = initialMessage?.trim();
	const trimmed = name.trim();
	const agent = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: notificationText(vscode.l10n.t('Creating agent {0}…', trimmed)) },
		() =>
			kit.client().createAgent({
				name: trimmed,
				...(message ? { initial_message: message } : {}),
				...(repositories.length > 0 ? { repositories } : {}),
			}),
	);
	await rememberAgent(kit.context, agent.id);
	await kit.list(agentsList).refresh();
	// The new agent is selected (its row revealed; Runs and Artifacts follow it), as Send Prompt does.
	await kit.selectById(agentsList, agent.id).catch(() => undefined);
	if (message) {
		void followFirstRun(agent, message, kit);
		kit.info(
			vscode.l10n.t(
				'Created agent {0}. Its first message runs once the agent is ready; that run will be followed in the Output panel.',
				agent.name,
			),
		);
	} else {
		void vscode.window.setStatusBarMessage(iconSafe(vscode.l10n.t('Created agent {0}', agent.name)), 4000);
	}
	return agent;
}

/** How long Create Agent looks for the run of its first message (the agent provisions first). */
const FIRST_RUN_WAIT_MS = 10 * 60_000;
/** The first wait between two looks, growing ×1.5 up to FIRST_RUN_POLL_MAX_MS. */
const FIRST_RUN_POLL_MIN_MS = 1_000;
const FIRST_RUN_POLL_MAX_MS = 10_000;

/**
 * Follows the run a new agent's first message starts (the service starts it once the agent is
 * ready, so the create answer names none): lists the agent's runs with back-off until one is there,
 * then follows it as Send Prompt follows its run. Bounded by FIRST_RUN_WAIT_MS; a session change
 * (sign-out) or the extension's end stops it.
 */
async function followFirstRun(agent: Agent, prompt: string, kit: ActionKit): Promise<void> {
	const controller = new AbortController();
	const stop = kit.session.onDidChange(() => controller.abort());
	const owned = { dispose: () => controller.abort() };
	kit.context.subscriptions.push(owned);
	const { signal } = controller;
	try {
		const deadline = Date.now() + FIRST_RUN_WAIT_MS;
		let delay = FIRST_RUN_POLL_MIN_MS;
		while (!signal.aborted) {
			await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), signal);
			try {
				const runs = await kit.client().listRuns(agent.id, { limit: 100, signal });
				const run = runs.find((r) => r.prompt === prompt) ?? runs.at(-1);
				if (run) {
					// The Runs view read the new agent's runs when it was selected (none yet): it lists this one now.
					if (kit.selected(agentsList)?.id === agent.id) {
						await kit.refreshFollowing(agentsList);
					}
					await kit.follow(agent.id, run.id, { agentName: agent.name, prompt: run.prompt ?? prompt });
					return;
				}
			} catch (err) {
				if (signal.aborted) {
					return;
				}
				kit.log.warn(`agent ${agent.id}: looking for the run of its first message failed: ${describeError(err)}`);
			}
			if (Date.now() >= deadline) {
				kit.warn(
					vscode.l10n.t(
						'The first message of agent {0} has started no run in {1} minutes; it is not awaited any longer (Follow Run follows it once it starts).',
						agent.name,
						FIRST_RUN_WAIT_MS / 60_000,
					),
				);
				return;
			}
			delay = Math.min(delay * 1.5, FIRST_RUN_POLL_MAX_MS);
		}
	} catch (err) {
		if (!signal.aborted) {
			kit.log.warn(`agent ${agent.id}: following the run of its first message failed: ${describeError(err)}`);
		}
	} finally {
		stop.dispose();
		const i = kit.context.subscriptions.indexOf(owned);
		if (i >= 0) {
			kit.context.subscriptions.splice(i, 1);
		}
	}
}

/** Rename Agent: asks for the new name unless automation passes `{agentId, name}`. */
async function renameAgent({ agent }: AgentTarget, kit: ActionKit): Promise<Agent | undefined> {
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
async function deleteAgent({ agent }: AgentTarget, kit: ActionKit): Promise<boolean> {
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
						await runtimeName(kit, agent.runtime_id),
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
	// Its runs go with it: following them stops before the request (a stream would otherwise end in
	// "deleted with its agent" first), resumes when the delete fails, and their channels close after.
	const followed = kit.follower.following.filter((f) => f.agentId === agent.id);
	for (const f of followed) {
		kit.follower.stop(f.agentId, f.runId);
	}
	let result: Awaited<ReturnType<typeof client.deleteAgent>>;
	try {
		result = await client.deleteAgent(agent.id, { deleteRuntime });
	} catch (err) {
		for (const f of followed) {
			void kit.follower.follow(f.agentId, f.runId).catch(() => undefined);
		}
		throw err;
	}
	await kit.follower.forget(agent.id);
	if (kit.selected(agentsList)?.id === agent.id) {
		kit.select(agentsList, undefined);
	}
	await kit.list(agentsList).refresh();
	const runtimeId = result.runtime_id ?? agent.runtime_id;
	if (deleteRuntime && result.runtimeDeletionRequested && runtimeId) {
		await kit.progress(vscode.l10n.t('Deleting the runtime of {0}…', agent.name), async (signal, report) => {
			const deadline = Date.now() + RUNTIME_GONE_TIMEOUT_MS;
			for (;;) {
				let found: { status: string } | undefined;
				for await (const runtime of client.iterateRuntimes({ limit: 100 })) {
					if (signal.aborted) {
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
				report(vscode.l10n.t('runtime is {0}', found.status));
				if (Date.now() > deadline) {
					kit.warn(
						vscode.l10n.t(
							'The runtime {0} is still being deleted; it will disappear from the Runtimes view when it is gone.',
							runtimeLabel(kit, runtimeId),
						),
					);
					return;
				}
				await sleep(RUNTIME_GONE_POLL_MS, signal);
			}
		});
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

/** An action on an agent (a row of the Agents view, or one picked). */
export type AgentAction = RecordAction<Agent, AgentTarget>;

/**
 * What a user can do with an agent (the Agents view's rows, the palette). Automation may pass an
 * object instead of a row: create `{name, initialMessage?, repositories?}`, rename `{agentId, name}`,
 * delete `{agentId, deleteRuntime}` (no confirmation), copy id and open computer `{agentId}`. Send
 * Prompt, which starts a run of an agent, is a run action (src/resources/runs.ts); Show Session
 * History is its own resource (src/resources/sessionHistory.ts).
 */
export const agentActions = {
	create: { command: 'cloudAgents.agents.create', run: createAgent } satisfies ResourceAction,
	rename: { on: agentsList, command: 'cloudAgents.agents.rename', useSelection: true, run: renameAgent } satisfies AgentAction,
	delete: { on: agentsList, command: 'cloudAgents.agents.delete', useSelection: true, run: deleteAgent } satisfies AgentAction,
	copyId: {
		on: agentsList,
		command: 'cloudAgents.agents.copyId',
		useSelection: true,
		run: async ({ agent }, kit) => void (await kit.copy(agent.id, vscode.l10n.t('Copied the agent ID {0}', agent.id))),
	} satisfies RecordAction<Agent, AgentTarget>,
	openComputer: {
		on: agentsList,
		command: 'cloudAgents.agents.openComputer',
		// The panel flow (one panel per agent, restored after a reload) is src/resources/computer.ts.
		run: ({ agent }, kit) => {
			void rememberAgent(kit.context, agent.id);
			return openComputer(agent, kit);
		},
	} satisfies RecordAction<Agent, AgentTarget>,
};
