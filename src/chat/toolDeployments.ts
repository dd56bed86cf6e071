/**
 * Which deployment a language-model tool acts on (issue 47): the agent a call names is looked up in
 * every signed-in deployment (src/auth/deploymentSessions.ts). Found in exactly one, the call acts
 * through that deployment's session and client; found in two or more, nothing is done and the
 * result asks for `deployment` (its name or id). A `deployment` the call names that is not
 * configured, or is signed out, is said before any request. With one deployment configured, the
 * results are those the tools have always given: no deployment is named anywhere. List agents
 * reads one page of a place (`agentPage`), or with several deployments the first page of each.
 */
import * as vscode from 'vscode';
import {
	ApiError,
	LIMITS,
	SAFETY,
	ValidationError,
	agentStatusClass,
	isTerminalRunStatus,
	type Agent,
	type CloudAgentsClient,
	type Run,
} from '../api';
import type { Deployment } from '../auth/deployments';
import { describeError, isCancellation } from '../messages/errors';
import { type QuotedBlock, matchAgent, quoteJson, renderResult } from '../util/quotedData';
import { singleLine } from '../util/text';
import type { ActionSession } from '../views/actions';

/** Most agents one agent look-up reads (pages of 100). */
const AGENT_LOOKUP_PAGES = 10;
/** Known agents a "not found" result lists. */
const KNOWN_AGENTS_SHOWN = 50;
/** List agents looks up the active run of at most this many busy agents per call (one request each). */
const MAX_RUN_LOOKUPS = 10;

/** A failure the tools turn into a result as it is (our words, already safe). */
export class ToolProblem extends Error {
	constructor(
		message: string,
		readonly blocks: QuotedBlock[] = [],
	) {
		super(message);
	}
}

/** A deployment and its session, as the tools use them. */
export interface ToolDeployment {
	readonly deployment: Deployment;
	readonly session: ActionSession;
}

/** The configured deployments (src/auth/deploymentSessions.ts's DeploymentSessions). */
export interface ToolDeployments {
	/** Every configured deployment, the default one first. */
	readonly all: readonly ToolDeployment[];
	/** Those whose session holds a token. */
	readonly signedIn: readonly ToolDeployment[];
	/** The deployment of this id or name (any case). */
	find(nameOrId: string): ToolDeployment | undefined;
}

/** Where one call acts: the session (its client, its API URL for messages) and, when it is to be named, its deployment. */
export interface CallPlace {
	session: ActionSession;
	/** The deployment the call acts on; undefined when the tools were given no deployments (one session). */
	deployment?: Deployment;
	/** True when two or more deployments are configured: results name the deployment. */
	named: boolean;
}

/** What one deployment holds for an agent query. */
export type AgentLookUp = { kind: 'found'; agent: Agent } | { kind: 'ambiguous'; agents: Agent[] } | { kind: 'none'; known: Agent[] };

/** The agent named by `query` (an id or a name) among the agents `client` lists (at most AGENT_LOOKUP_PAGES pages), else asked by id. */
export async function lookUpAgent(client: CloudAgentsClient, query: string, signal: AbortSignal): Promise<AgentLookUp> {
	const agents: Agent[] = [];
	let cursor: string | undefined;
	for (let page = 0; page < AGENT_LOOKUP_PAGES; page++) {
		const got = await client.listAgents({ limit: LIMITS.agentListLimit.max, cursor, signal });
		agents.push(...got.items);
		const match = matchAgent(agents, query);
		if (match.kind === 'found' && match.agent.id === query.trim()) {
			return match;
		}
		cursor = got.nextCursor;
		if (!cursor) {
			break;
		}
	}
	const match = matchAgent(agents, query);
	if (match.kind !== 'none') {
		return match;
	}
	// An id on a later page than the look-up reads: asked directly.
	try {
		return { kind: 'found', agent: await client.getAgent(query.trim(), { signal }) };
	} catch (err) {
		if (!(err instanceof ValidationError) && !(err instanceof ApiError && err.status === 404)) {
			throw err;
		}
	}
	return { kind: 'none', known: agents };
}

/** An agent as the data blocks show it; with its deployment's name when deployments are named. */
export function agentData(agent: Agent, place?: Pick<CallPlace, 'deployment' | 'named'>): Record<string, unknown> {
	return { id: agent.id, name: agent.name, deployment: place?.named ? place.deployment?.name : undefined };
}

/** A deployment as the data blocks show it. */
function deploymentData(d: ToolDeployment): Record<string, unknown> {
	return { name: d.deployment.name, id: d.deployment.id, signedIn: d.session.signedIn };
}

/**
 * The deployments a call may act on: the one `deployment` (of the input) names, or every signed-in
 * one. Throws a ToolProblem (before any request) for a named deployment that is not configured or
 * is signed out, and `signedOut` when none is signed in.
 */
export function candidates(
	deployments: ToolDeployments | undefined,
	fallback: ActionSession,
	named: string | undefined,
	signedOut: (deployment?: Deployment) => string,
): CallPlace[] {
	if (deployments === undefined) {
		if (!fallback.signedIn) {
			throw new ToolProblem(signedOut());
		}
		return [{ session: fallback, named: false }];
	}
	const several = deployments.all.length > 1;
	if (named !== undefined && named.trim() !== '') {
		const found = deployments.find(named);
		if (!found) {
			throw new ToolProblem(
				vscode.l10n.t(
					'Nothing was done: no Cloud Agents deployment is named "{0}"; the configured deployments follow.',
					singleLine(named, SAFETY.labelMaxChars),
				),
				[quoteJson('the deployments', deployments.all.map(deploymentData))],
			);
		}
		if (!found.session.signedIn) {
			throw new ToolProblem(signedOut(found.deployment));
		}
		return [{ session: found.session, deployment: found.deployment, named: several }];
	}
	const signedIn = deployments.signedIn;
	if (signedIn.length === 0) {
		throw new ToolProblem(signedOut());
	}
	return signedIn.map((d) => ({ session: d.session, deployment: d.deployment, named: several }));
}

/** What one deployment answered for the query: its look-up, or why it could not be asked. */
interface Answer {
	place: CallPlace;
	lookUp?: AgentLookUp;
	error?: unknown;
}

/**
 * The agent `query` names and the place of the call, among `places` (candidates' answer): in one
 * place, as the tools have always looked it up; in several, the one place that has it, or a
 * ToolProblem that asks which (found in several, or a place could not be asked) or names the
 * known agents (found nowhere).
 */
export async function resolveAgent(
	places: readonly CallPlace[],
	query: string,
	signal: AbortSignal,
): Promise<{ agent: Agent; place: CallPlace }> {
	const given = singleLine(query, SAFETY.labelMaxChars);
	if (places.length === 1) {
		const place = places[0]!;
		return { agent: oneOrProblem(await lookUpAgent(place.session.client, query, signal), given, place), place };
	}
	const answers: Answer[] = await Promise.all(
		places.map(async (place) => {
			try {
				return { place, lookUp: await lookUpAgent(place.session.client, query, signal) };
			} catch (error) {
				if (isCancellation(error) || signal.aborted) {
					throw error;
				}
				return { place, error };
			}
		}),
	);
	const found = answers.filter((a) => a.lookUp?.kind === 'found');
	const failed = answers.filter((a) => a.error !== undefined);
	if (found.length === 1 && failed.length === 0) {
		const only = found[0]!;
		return { agent: (only.lookUp as { agent: Agent }).agent, place: only.place };
	}
	if (found.length > 0) {
		throw new ToolProblem(
			found.length > 1
				? vscode.l10n.t(
						'Nothing was done: an agent "{0}" is in several deployments. Ask the user which one is meant (the deployments follow), then call again with `deployment` set to its name or id.',
						given,
					)
				: vscode.l10n.t(
						'Nothing was done: an agent "{0}" was found, but not every deployment could be asked (it may be there too). Call again with `deployment` set to the name or id of the one meant.',
						given,
					),
			[
				quoteJson(
					'the deployments that have it',
					found.map((a) => ({
						deployment: a.place.deployment?.name,
						deploymentId: a.place.deployment?.id,
						agent: agentData((a.lookUp as { agent: Agent }).agent),
					})),
				),
				...failedBlock(failed),
			],
		);
	}
	const ambiguous = answers.filter((a) => a.lookUp?.kind === 'ambiguous');
	if (ambiguous.length > 0) {
		throw new ToolProblem(vscode.l10n.t('Nothing was done: several agents are named "{0}"; name one by its id.', given), [
			quoteJson(
				'the agents of that name',
				ambiguous.flatMap((a) => (a.lookUp as { agents: Agent[] }).agents.map((agent) => agentData(agent, a.place))),
			),
			...failedBlock(failed),
		]);
	}
	if (failed.length > 0 && failed.length === answers.length) {
		throw failed[0]!.error;
	}
	const known = answers.flatMap((a) => (a.lookUp?.kind === 'none' ? a.lookUp.known.map((agent) => agentData(agent, a.place)) : []));
	throw new ToolProblem(
		known.length === 0
			? vscode.l10n.t('Nothing was done: agent "{0}" not found; no deployment has agents.', given)
			: vscode.l10n.t(
					'Nothing was done: agent "{0}" not found in any deployment; the known agents (names, ids, deployments) follow.',
					given,
				),
		[...(known.length === 0 ? [] : [quoteJson('the known agents', known.slice(0, KNOWN_AGENTS_SHOWN))]), ...failedBlock(failed)],
	);
}

/** The deployments that could not be asked, with what their services said. */
function failedBlock(failed: readonly Answer[]): QuotedBlock[] {
	return failed.length === 0
		? []
		: [
				quoteJson(
					'the deployments that could not be asked',
					failed.map((a) => ({ deployment: a.place.deployment?.name, error: describeError(a.error) })),
				),
			];
}

/** One place's look-up as the tools have always answered it: the agent, or the problem naming the agents. */
function oneOrProblem(lookUp: AgentLookUp, given: string, place: CallPlace): Agent {
	if (lookUp.kind === 'found') {
		return lookUp.agent;
	}
	if (lookUp.kind === 'ambiguous') {
		throw new ToolProblem(vscode.l10n.t('Nothing was done: several agents are named "{0}"; name one by its id.', given), [
			quoteJson(
				'the agents of that name',
				lookUp.agents.map((a) => agentData(a, place)),
			),
		]);
	}
	const known = lookUp.known;
	throw new ToolProblem(
		known.length === 0
			? vscode.l10n.t('Nothing was done: agent "{0}" not found; this account has no agents.', given)
			: vscode.l10n.t('Nothing was done: agent "{0}" not found; the known agents (names and ids) follow.', given),
		known.length === 0
			? []
			: [
					quoteJson(
						'the known agents',
						known.slice(0, KNOWN_AGENTS_SHOWN).map((a) => agentData(a, place)),
					),
				],
	);
}

/** The agent's active run, if any (among its newest 20). */
export async function activeRunOf(client: CloudAgentsClient, agentId: string, signal: AbortSignal): Promise<Run | undefined> {
	const runs = await client.listRuns(agentId, { limit: 20, signal });
	return runs.find((r) => !isTerminalRunStatus(r.status));
}

/** List agents with several deployments signed in and none named: the first page of each, under its deployment's name. */
export async function listAgentsOfEach(
	places: readonly CallPlace[],
	options: { limit: number; status: string | undefined; cursor: string | undefined },
	signal: AbortSignal,
): Promise<string> {
	if (options.cursor !== undefined) {
		throw new ToolProblem(
			vscode.l10n.t(
				'Nothing was listed: with several deployments, `cursor` needs `deployment` (the deployment whose nextCursor it is).',
			),
		);
	}
	const each = await Promise.all(
		places.map(async (place): Promise<{ agents?: unknown[]; nextCursor?: string | null; error?: string }> => {
			const deployment = { deployment: place.deployment?.name, deploymentId: place.deployment?.id };
			try {
				const { rows, page } = await agentPage(place, options, signal);
				return { ...deployment, agents: rows, nextCursor: page.nextCursor ?? null };
			} catch (err) {
				if (isCancellation(err) || signal.aborted) {
					throw err;
				}
				return { ...deployment, error: describeError(err) };
			}
		}),
	);
	const count = each.reduce((n, d) => n + (d.agents?.length ?? 0), 0);
	const lines = [
		vscode.l10n.t('{0} Cloud Agents on the first page of each of {1} deployments.', count, places.length),
		each.some((d) => d.nextCursor)
			? vscode.l10n.t(
					"More agents exist: call this tool again with `deployment` and with `cursor` set to that deployment's nextCursor in the data below.",
				)
			: vscode.l10n.t('This is the last page of each deployment.'),
	];
	if (each.some((d) => d.error !== undefined)) {
		lines.push(vscode.l10n.t('A deployment could not be read: its error is in the data below.'));
	}
	return renderResult(lines, [quoteJson('the agents of each deployment', each)]);
}

/** One page of a place's agents, those of `status` kept, with their active runs (looked up for at most MAX_RUN_LOOKUPS busy ones). */
export async function agentPage(
	place: CallPlace,
	options: { limit: number; status: string | undefined; cursor: string | undefined },
	signal: AbortSignal,
): Promise<{ agents: Agent[]; rows: Record<string, unknown>[]; page: { items: Agent[]; nextCursor?: string } }> {
	const { limit, status, cursor } = options;
	const page = await place.session.client.listAgents({ limit, cursor, signal });
	const agents = page.items.filter((a) => !status || (a.status ?? '').toLowerCase() === status);
	// Whether a run is active: looked up for the agents whose status does not say they are idle,
	// at most MAX_RUN_LOOKUPS of them per call (one request each); the others say so.
	const rows = [];
	let lookups = 0;
	for (const agent of agents) {
		const cls = agentStatusClass(agent.status);
		const busy = cls !== 'ready' && cls !== 'failed';
		const lookedUp = busy && lookups < MAX_RUN_LOOKUPS;
		if (lookedUp) {
			lookups++;
		}
		const active = lookedUp ? await activeRunOf(place.session.client, agent.id, signal).catch(() => undefined) : undefined;
		rows.push({
			id: agent.id,
			name: agent.name,
			status: agent.status,
			activeRun:
				busy && !lookedUp
					? 'not looked up (ask run status for this agent)'
					: active
						? { id: active.id, status: active.status }
						: null,
		});
	}
	return { agents, rows, page };
}
