/**
 * The language-model tools (package.json `languageModelTools`): any chat agent — Copilot's agent
 * mode or another extension's — can list the user's Cloud Agents, hand one a task (a new run, or a
 * follow-up to its active run; the user confirms first), read a run's status and result, read and
 * search the agent's workspace, and list and read its artifacts. Loaded with the features (see
 * src/chat/lazyTools.ts for the stand-ins activation registers).
 *
 * Every result is text for a model. Our own sentences come first; everything from the service
 * (names, statuses, results, file text, error messages) is quoted between markers as data and
 * neutralised (src/util/quotedData.ts). Failures are results the model can act on (signed out, agent
 * not found with the known agents, a path or prompt refused before anything is sent), never stack
 * traces; the token never appears. Cancellation stops waits and requests.
 *
 * With several deployments (issue 47) an agent is looked up in every signed-in one and the call acts
 * through the one that has it, or asks which (src/chat/toolDeployments.ts); with one, nothing differs.
 */
import * as vscode from 'vscode';
import {
	ApiError,
	LIMITS,
	SAFETY,
	ValidationError,
	WorkspaceInterfaceError,
	isAuthFailure,
	isTerminalRunStatus,
	isUnreachable,
	membersOf,
	sleep,
	utf8Length,
} from '../api';
import type { Agent, Artifact, Run } from '../api';
import { CONFIG, TOOLS } from '../ids';
import { WorkspacePathError, normalizeWorkspacePath } from '../util/paths';
import { promptProblem } from '../resources/agents';
import { artifactKind, exceedsReadCap } from '../resources/artifacts';
import { describeError, isCancellation } from '../messages/errors';
import { singleLine } from '../util/text';
import type { ActionSession } from '../views/actions';
import { toAbortSignal, validationMessage } from '../views/ui';
import { usableMatches } from '../workspace/fs/searchMatches';
import type { ToolHandlers } from './lazyTools';
import type { Activity } from '../activity/activity';
import { HISTORY_MAX_ENTRIES, type HistoryEntry } from '../activity/history';
import { type QuotedBlock, codeFence, decodeText, inlineCode, quoteJson, quoteText, renderResult } from '../util/quotedData';
import type { Deployment } from '../auth/deployments';
import {
	type CallPlace,
	type ToolDeployments,
	ToolProblem,
	activeRunOf,
	agentData,
	agentPage,
	candidates,
	listAgentsOfEach,
	resolveAgent,
} from './toolDeployments';
import type { HandoverAnswer } from '../util/handover';

/** Most bytes of a file one read returns. */
export const READ_FILE_MAX_BYTES = 64 * 1024;
/** Most characters of an artifact's text one read returns. */
export const READ_ARTIFACT_MAX_CHARS = 64 * 1024;
/** Longest wait for a run to end that a status call honours. */
export const WAIT_MAX_SECONDS = 120;
/** How often a wait reads the run again. */
const WAIT_POLL_MS = 1_000;
/** Most artifacts one listing returns. */
const ARTIFACTS_MAX = 100;
/** Default and largest number of search matches returned. */
const SEARCH_DEFAULT = 50;
const SEARCH_MAX = 200;
/** Characters of the prompt the confirmation shows. */
const CONFIRM_PROMPT_CHARS = 4_000;

/** What the tools need: objects, never our command ids. */
export interface ChatToolsDeps {
	/** The default deployment's session (the only one when `deployments` is not given). */
	session: ActionSession;
	/** Every configured deployment (issue 47): an agent is looked up in each signed-in one. */
	deployments?: ToolDeployments;
	log: { info(message: string): void; warn(message: string): void };
	/**
	 * Sends a prompt as Send Prompt does (src/resources/prompt.ts through the runs resource's action):
	 * a new run, or a follow-up to the agent's active run (never cancelling it); the run is followed
	 * in its output channel. Resolves with the run that received the prompt, or undefined when
	 * nothing was sent. `deployment`: the agent's (undefined: the default deployment's).
	 */
	sendPrompt(agentId: string, prompt: string, deployment?: Deployment): Promise<Run | undefined>;
	/**
	 * Continue in Cloud as automation (src/changes/continueInCloud.ts through its action): writes the
	 * folder's changed files (or `paths`) to the agent's workspace and starts the run with the prompt.
	 * Resolves with what it did, or undefined when nothing was done.
	 */
	continueInCloud(request: HandoverRequest): Promise<HandoverAnswer | undefined>;
	/** What the watcher over the account noticed (the Activity view's entries), for the activity tool. */
	activity: Pick<Activity, 'since' | 'entries'>;
	/** The time now (ms since the epoch): the activity tool's durations count back from it. */
	now?: () => number;
}

/** What the continue-in-cloud tool asks Continue in Cloud to do (its automation arguments). */
export interface HandoverRequest {
	agentId: string;
	/** The id of the agent's deployment when it is not the default one. */
	deployment?: string;
	prompt: string;
	/** The local folder (a URI string of a workspace folder); undefined: the folder linked to the agent. */
	localFolder?: string;
	/** Files relative to the folder; undefined: the folder's changed files. */
	paths?: string[];
	/** A file whose copy on the agent's side differs: replaced, or kept as the agent has it. */
	onOverwrite: 'replace' | 'keep';
}

/** Files the continue-in-cloud tool hands over at most (Continue in Cloud's own bound). */
const HANDOVER_PATHS_MAX = 200;
/** Paths of the tool's input that its confirmation names (the rest are counted). */
const CONFIRM_PATHS_SHOWN = 20;

/** Events the activity tool returns unless asked for another number. */
export const ACTIVITY_DEFAULT_LIMIT = 50;

/** A duration back from now as the activity tool takes it: 30m, 12h, 3d (at most a year). */
const DURATION = /^(\d{1,6})\s*(m|min|mins|minutes?|h|hrs?|hours?|d|days?)$/i;
/** A time as the activity tool takes it: an ISO 8601 date, or date and time with a zone or Z. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** `since` of the activity tool as ms since the epoch, or undefined when not given; a bad value is said before anything is read. */
export function sinceArg(input: Record<string, unknown>, now: number): number | undefined {
	const v = input['since'];
	if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
		return undefined;
	}
	const text = typeof v === 'string' ? v.trim() : '';
	const duration = DURATION.exec(text);
	if (duration) {
		const unit = (duration[2] ?? '').toLowerCase();
		const ms = unit.startsWith('m') ? 60_000 : unit.startsWith('h') ? 3_600_000 : 86_400_000;
		const back = Number(duration[1]) * ms;
		if (back <= 366 * 86_400_000) {
			return now - back;
		}
	}
	if (ISO_TIME.test(text)) {
		const at = Date.parse(text);
		if (Number.isFinite(at)) {
			return at;
		}
	}
	throw new ToolProblem(
		vscode.l10n.t(
			'Nothing was read: `since` must be an ISO 8601 time (2026-12-05T18:00:00Z) or a duration back from now (30m, 12h, 3d), not "{0}".',
			singleLine(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''), SAFETY.labelMaxChars),
		),
	);
}

/** An Activity entry as the activity tool's data block shows it (every text from the service, bounded). */
function activityData(entry: HistoryEntry): Record<string, unknown> {
	const e = entry.event;
	return {
		at: new Date(e.at).toISOString(),
		kind: e.kind,
		outcome: e.outcome,
		status: e.status,
		agent: e.agentId ? { id: e.agentId, name: e.agentName } : undefined,
		runId: e.runId,
		runtime: e.runtimeId ? { id: e.runtimeId, name: e.runtimeName } : undefined,
		build: e.buildId ? { id: e.buildId, name: e.buildName } : undefined,
		requestedBy: e.requestedBy,
		reason: e.reason,
		authorizationUrl: e.authorizationUrl,
		detail: e.detail,
		// Named only when two or more deployments are configured (Activity sets it then).
		deployment: e.deployment,
		read: entry.read,
	};
}

/** The tool's input as an object (the schema says so; a model may still send anything). */
function inputOf(options: { input: unknown }): Record<string, unknown> {
	return { ...membersOf(options.input) };
}

function textArg(input: Record<string, unknown>, key: string): string | undefined {
	const v = input[key];
	return typeof v === 'string' ? v : undefined;
}

function requiredText(input: Record<string, unknown>, key: string, what: string): string {
	const v = textArg(input, key);
	if (v === undefined || v.trim() === '') {
		throw new ToolProblem(vscode.l10n.t('Nothing was done: `{0}` ({1}) is required.', key, what));
	}
	return v;
}

function intArg(input: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
	const v = input[key];
	if (v === undefined || v === null) {
		return fallback;
	}
	if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
		throw new ToolProblem(vscode.l10n.t('Nothing was done: `{0}` must be an integer from {1} to {2}.', key, min, max));
	}
	return v;
}

/** The continue-in-cloud tool's `paths`: undefined when not given; each a non-empty string, at most HANDOVER_PATHS_MAX. */
function pathsArg(input: Record<string, unknown>): string[] | undefined {
	const v = input.paths;
	if (v === undefined || v === null) {
		return undefined;
	}
	if (!Array.isArray(v) || v.length > HANDOVER_PATHS_MAX || !v.every((p): p is string => typeof p === 'string' && p.trim() !== '')) {
		throw new ToolProblem(
			vscode.l10n.t(
				'Nothing was handed over: `paths` must be a list of at most {0} file paths relative to the folder.',
				HANDOVER_PATHS_MAX,
			),
		);
	}
	return v.length === 0 ? undefined : v;
}

/** The workspace folder the continue-in-cloud tool names (`folder`), or undefined when it names none; only a folder open in this window. */
function handoverFolder(input: Record<string, unknown>): vscode.WorkspaceFolder | undefined {
	const name = textArg(input, 'folder')?.trim();
	if (!name) {
		return undefined;
	}
	const folders = vscode.workspace.workspaceFolders ?? [];
	const found = folders.find((f) => f.name === name) ?? folders.find((f) => f.name.toLowerCase() === name.toLowerCase());
	if (!found) {
		throw new ToolProblem(
			vscode.l10n.t(
				'Nothing was handed over: no workspace folder of this window is named "{0}".',
				singleLine(name, SAFETY.labelMaxChars),
			),
			[
				quoteJson(
					'the workspace folders',
					folders.map((f) => f.name),
				),
			],
		);
	}
	return found;
}

/** The tool's result as one text part. */
function result(text: string): vscode.LanguageModelToolResult {
	return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** The language-model tools' code: `invoke` and `prepare` by tool name (ToolHandlers of lazyTools.ts). */
export class ChatTools implements ToolHandlers {
	constructor(private readonly deps: ChatToolsDeps) {}

	async invoke(
		name: string,
		options: vscode.LanguageModelToolInvocationOptions<unknown>,
		token: vscode.CancellationToken,
	): Promise<vscode.LanguageModelToolResult> {
		const abort = toAbortSignal(token);
		// Where the call acts: the default deployment's session until its agent is found elsewhere.
		const call: CallPlace = { session: this.deps.session, named: false };
		try {
			this.deps.log.info(`chat tool ${name} called`);
			return result(await this.run(name, inputOf(options), call, abort.signal, token));
		} catch (err) {
			if (isCancellation(err) || token.isCancellationRequested) {
				throw new vscode.CancellationError();
			}
			return result(this.failure(err, call));
		} finally {
			abort.dispose();
		}
	}

	private run(
		name: string,
		input: Record<string, unknown>,
		call: CallPlace,
		signal: AbortSignal,
		token: vscode.CancellationToken,
	): Promise<string> {
		switch (name) {
			case TOOLS.listAgents:
				return this.listAgents(input, call, signal);
			case TOOLS.runPrompt:
				return this.runPrompt(input, call, signal, token);
			case TOOLS.runStatus:
				return this.runStatus(input, call, signal);
			case TOOLS.readFile:
				return this.readFile(input, call, signal);
			case TOOLS.searchWorkspace:
				return this.searchWorkspace(input, call, signal);
			case TOOLS.listArtifacts:
				return this.listArtifacts(input, call, signal);
			case TOOLS.readArtifact:
				return this.readArtifact(input, call, signal);
			case TOOLS.recentActivity:
				return Promise.resolve(this.recentActivity(input));
			case TOOLS.continueInCloud:
				return this.continueInCloud(input, call, signal, token);
			default:
				throw new ToolProblem(vscode.l10n.t('Unknown Cloud Agents tool {0}.', name));
		}
	}

	/**
	 * Before a call: the run-prompt tool asks for confirmation, naming the agent and quoting the
	 * prompt (and saying when it goes to an active run as a follow-up). Input that would be refused
	 * (no prompt, an unknown agent, signed out) asks nothing: the call then says why and sends nothing.
	 */
	async prepare(
		name: string,
		options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>,
		token: vscode.CancellationToken,
	): Promise<vscode.PreparedToolInvocation | undefined> {
		if (name === TOOLS.continueInCloud) {
			return this.prepareHandover(inputOf(options), token);
		}
		if (name !== TOOLS.runPrompt) {
			return undefined;
		}
		const input = inputOf(options);
		const agentQuery = textArg(input, 'agent') ?? '';
		const prompt = textArg(input, 'prompt') ?? '';
		const given = singleLine(agentQuery, SAFETY.labelMaxChars);
		if (promptProblem(prompt, false) !== undefined || agentQuery.trim() === '') {
			return { invocationMessage: vscode.l10n.t('Checking a prompt for the Cloud Agent "{0}"', given) };
		}
		const abort = toAbortSignal(token);
		let agent: Agent;
		let place: CallPlace;
		let active: Run | undefined;
		try {
			({ agent, place } = await this.target(input, agentQuery, abort.signal));
			active = await this.activeRun(place, agent.id, abort.signal);
		} catch {
			return { invocationMessage: vscode.l10n.t('Checking a prompt for the Cloud Agent "{0}"', given) };
		} finally {
			abort.dispose();
		}
		const agentName = singleLine(agent.name || agent.id, SAFETY.labelMaxChars);
		const shown = quoteText('prompt', prompt, CONFIRM_PROMPT_CHARS);
		const fence = codeFence(shown.text);
		const message = new vscode.MarkdownString();
		message.appendText(
			active
				? vscode.l10n.t(
						'The Cloud Agent "{0}" is busy: this prompt goes to its active run as a follow-up (nothing is cancelled).',
						agentName,
					)
				: vscode.l10n.t('The Cloud Agent "{0}" starts a new run with this prompt.', agentName),
		);
		message.appendMarkdown(`\n\n${vscode.l10n.t('Agent id')}: ${inlineCode(singleLine(agent.id, SAFETY.idMaxChars))}`);
		appendDeployment(message, place);
		if (active) {
			message.appendMarkdown(`  \n${vscode.l10n.t('Active run')}: ${inlineCode(singleLine(active.id, SAFETY.idMaxChars))}`);
		}
		message.appendMarkdown(`\n\n${fence}text\n${shown.text}\n${fence}\n`);
		if (shown.cutFrom !== undefined) {
			message.appendText(vscode.l10n.t('(the first {0} of {1} characters shown)', shown.text.length, shown.cutFrom));
		}
		return {
			invocationMessage: vscode.l10n.t('Sending a prompt to the Cloud Agent "{0}"', agentName),
			confirmationMessages: {
				title: active
					? vscode.l10n.t('Send a follow-up to the Cloud Agent "{0}"?', agentName)
					: vscode.l10n.t('Send a prompt to the Cloud Agent "{0}"?', agentName),
				message,
			},
		};
	}

	/**
	 * Before a hand-over: the confirmation names the agent, the local folder and the files (those
	 * given, or "the folder's changed files"), says whether a differing copy on the agent's side is
	 * replaced, and quotes the prompt. Input that would be refused asks nothing (the call says why).
	 */
	private async prepareHandover(input: Record<string, unknown>, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation> {
		const agentQuery = textArg(input, 'agent') ?? '';
		const prompt = textArg(input, 'prompt') ?? '';
		const given = singleLine(agentQuery, SAFETY.labelMaxChars);
		const checking = { invocationMessage: vscode.l10n.t('Checking a hand-over to the Cloud Agent "{0}"', given) };
		let folder: vscode.WorkspaceFolder | undefined;
		let paths: string[] | undefined;
		try {
			folder = handoverFolder(input);
			paths = pathsArg(input);
		} catch {
			return checking;
		}
		if (promptProblem(prompt, false) !== undefined || agentQuery.trim() === '') {
			return checking;
		}
		const abort = toAbortSignal(token);
		let agent: Agent;
		let place: CallPlace;
		try {
			({ agent, place } = await this.target(input, agentQuery, abort.signal));
		} catch {
			return checking;
		} finally {
			abort.dispose();
		}
		const agentName = singleLine(agent.name || agent.id, SAFETY.labelMaxChars);
		const message = new vscode.MarkdownString();
		message.appendText(
			folder
				? vscode.l10n.t(
						'Local files of the folder "{0}" go to the workspace of the Cloud Agent "{1}", which then runs this prompt.',
						singleLine(folder.name, SAFETY.labelMaxChars),
						agentName,
					)
				: vscode.l10n.t(
						'Local files of the folder linked to the Cloud Agent "{0}" go to its workspace, and it then runs this prompt.',
						agentName,
					),
		);
		message.appendMarkdown(`\n\n${vscode.l10n.t('Agent id')}: ${inlineCode(singleLine(agent.id, SAFETY.idMaxChars))}`);
		appendDeployment(message, place);
		const listed = paths
			? [
					...paths.slice(0, CONFIRM_PATHS_SHOWN).map((p) => singleLine(p, 200)),
					...(paths.length > CONFIRM_PATHS_SHOWN ? [vscode.l10n.t('and {0} more', paths.length - CONFIRM_PATHS_SHOWN)] : []),
				].join('\n')
			: vscode.l10n.t(
					"The folder's changed files: its uncommitted files as git reports them, else the files that differ from the agent's workspace.",
				);
		const files = codeFence(listed);
		message.appendMarkdown(`\n\n${files}text\n${listed}\n${files}\n`);
		message.appendText(
			input.replace === true
				? vscode.l10n.t("A file whose copy on the agent's side differs is replaced by yours.")
				: vscode.l10n.t("A file whose copy on the agent's side differs is kept as the agent has it."),
		);
		const shown = quoteText('prompt', prompt, CONFIRM_PROMPT_CHARS);
		const fence = codeFence(shown.text);
		message.appendMarkdown(`\n\n${fence}text\n${shown.text}\n${fence}\n`);
		if (shown.cutFrom !== undefined) {
			message.appendText(vscode.l10n.t('(the first {0} of {1} characters shown)', shown.text.length, shown.cutFrom));
		}
		return {
			invocationMessage: vscode.l10n.t('Handing local changes to the Cloud Agent "{0}"', agentName),
			confirmationMessages: { title: vscode.l10n.t('Hand your local changes to the Cloud Agent "{0}"?', agentName), message },
		};
	}

	/** A failure as a result: what happened and what the model (or the user) can do. */
	private failure(err: unknown, call: CallPlace): string {
		if (err instanceof ToolProblem) {
			return renderResult([err.message], err.blocks);
		}
		if (err instanceof WorkspacePathError) {
			return renderResult([vscode.l10n.t('Nothing was read: {0}', err.message)], []);
		}
		if (err instanceof ValidationError) {
			return renderResult([validationMessage(err)], []);
		}
		if (isAuthFailure(err)) {
			return this.signedOutText(
				vscode.l10n.t('The Cloud Agents service refused the stored token (signed out or expired).'),
				call.named ? call.deployment : undefined,
			);
		}
		const said = [quoteText("the service's error message", describeError(err), SAFETY.errorMessageMaxChars + 200)];
		if (isUnreachable(err)) {
			return renderResult(
				[
					vscode.l10n.t(
						'The Cloud Agents service at {0} did not answer. Ask the user to check the connection or the {1} setting; try again later.',
						call.session.apiUrl,
						`${CONFIG.section}.${call.deployment?.isDefault === false ? CONFIG.deployments : CONFIG.apiUrl}`,
					),
				],
				said,
			);
		}
		if (err instanceof WorkspaceInterfaceError) {
			return renderResult(
				[
					vscode.l10n.t(
						"This server's agent workspace interface differs from the one this extension speaks: its files cannot be read or searched here.",
					),
				],
				said,
			);
		}
		if (err instanceof ApiError && err.status === 404) {
			return renderResult([vscode.l10n.t('Not found: the service has no such record (it may have been deleted).')], said);
		}
		this.deps.log.warn(`chat tool failed: ${err instanceof Error ? err.message : String(err)}`);
		return renderResult([vscode.l10n.t('The Cloud Agents request failed.')], said);
	}

	/** The signed-out result: of Cloud Agents, or of the deployment named (only when several are configured). */
	private signedOutText(why?: string, deployment?: Deployment): string {
		const configured = vscode.workspace.getConfiguration(CONFIG.section).get<string>(CONFIG.apiUrl, '').trim();
		const lines = [
			...(why ? [why] : []),
			deployment
				? vscode.l10n.t(
						'Signed out of the Cloud Agents deployment "{0}": ask the user to run "Cloud Agents: Sign In" (Command Palette) and choose it, then try again.',
						singleLine(deployment.name, SAFETY.labelMaxChars),
					)
				: vscode.l10n.t(
						'Signed out of Cloud Agents: ask the user to run "Cloud Agents: Sign In" (Command Palette), then try again.',
					),
		];
		if (configured === '' && (deployment === undefined || deployment.isDefault)) {
			lines.push(
				vscode.l10n.t(
					'No API URL is set: the user may first need to set {0} to their Cloud Agents service (the default is {1}).',
					`${CONFIG.section}.${CONFIG.apiUrl}`,
					this.deps.session.apiUrl,
				),
			);
		}
		return renderResult(lines, []);
	}

	/**
	 * The places a call may act on (toolDeployments.ts `candidates`): the deployment the input's
	 * `deployment` names, else every signed-in one; the signed-out result when there is none.
	 */
	private places(input: Record<string, unknown>): CallPlace[] {
		return candidates(this.deps.deployments, this.deps.session, textArg(input, 'deployment'), (deployment) =>
			this.signedOutText(undefined, deployment && this.deps.deployments!.all.length > 1 ? deployment : undefined),
		);
	}

	/** The agent `query` names, looked up where the input says (every signed-in deployment unless it names one); `call` learns where. */
	private async target(
		input: Record<string, unknown>,
		query: string,
		signal: AbortSignal,
		call?: CallPlace,
	): Promise<{ agent: Agent; place: CallPlace; client: ActionSession['client'] }> {
		const { agent, place } = await resolveAgent(this.places(input), query, signal);
		if (call) {
			Object.assign(call, place);
		}
		return { agent, place, client: place.session.client };
	}

	/** The agent's active run, if any. */
	private activeRun(place: CallPlace, agentId: string, signal: AbortSignal): Promise<Run | undefined> {
		return activeRunOf(place.session.client, agentId, signal);
	}

	// ------------------------------------------------------------------ the tools

	private async listAgents(input: Record<string, unknown>, call: CallPlace, signal: AbortSignal): Promise<string> {
		const places = this.places(input);
		const limit = intArg(input, 'limit', LIMITS.agentListLimit.min, LIMITS.agentListLimit.max, 50);
		const status = textArg(input, 'status')?.trim().toLowerCase();
		const cursor = textArg(input, 'cursor') || undefined;
		if (places.length > 1) {
			return listAgentsOfEach(places, { limit, status, cursor }, signal);
		}
		const place = places[0]!;
		Object.assign(call, place);
		const { agents, rows, page } = await agentPage(place, { limit, status, cursor }, signal);
		const lines = [
			status
				? vscode.l10n.t(
						'{0} of the {1} Cloud Agents on this page have the status "{2}".',
						agents.length,
						page.items.length,
						singleLine(status, 40),
					)
				: vscode.l10n.t('{0} Cloud Agents on this page.', agents.length),
			page.nextCursor
				? vscode.l10n.t('More agents exist: call this tool again with `cursor` set to the nextCursor in the data below.')
				: vscode.l10n.t('This is the last page.'),
		];
		const deployment = place.named ? place.deployment?.name : undefined;
		return renderResult(lines, [quoteJson('the agents', { deployment, agents: rows, nextCursor: page.nextCursor ?? null })]);
	}

	private async runPrompt(
		input: Record<string, unknown>,
		call: CallPlace,
		signal: AbortSignal,
		token: vscode.CancellationToken,
	): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const prompt = textArg(input, 'prompt') ?? '';
		const problem = promptProblem(prompt, false);
		if (problem) {
			throw new ToolProblem(vscode.l10n.t('Not sent: {0}', problem));
		}
		const { agent, place } = await this.target(input, agentQuery, signal, call);
		const active = await this.activeRun(place, agent.id, signal);
		if (token.isCancellationRequested) {
			throw new vscode.CancellationError();
		}
		const run = await this.deps.sendPrompt(agent.id, prompt, place.deployment);
		if (!run) {
			throw new ToolProblem(vscode.l10n.t('Not sent: the prompt was refused before sending (see the Cloud Agents messages).'));
		}
		// Busy when asked, or busy by the time it was sent (Send Prompt then sends a follow-up: the run has a parent).
		const followUp = active !== undefined || Boolean(run.parent_run_id);
		const lines = [
			followUp
				? vscode.l10n.t('Sent: the agent was busy, so the prompt went to its active run as a follow-up (nothing was cancelled).')
				: vscode.l10n.t('Sent: the agent started a new run with the prompt.'),
			vscode.l10n.t(
				'The run is followed in the Output panel. It keeps running in the cloud: call {0} (with `waitSeconds` to wait for it) to read its result.',
				TOOLS.runStatus,
			),
		];
		return renderResult(lines, [
			quoteJson('the run', {
				agent: agentData(agent, place),
				run: { id: run.id, status: run.status, parentRunId: run.parent_run_id || null },
				followUpTo: active ? active.id : null,
			}),
		]);
	}

	private async continueInCloud(
		input: Record<string, unknown>,
		call: CallPlace,
		signal: AbortSignal,
		token: vscode.CancellationToken,
	): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const prompt = textArg(input, 'prompt') ?? '';
		const problem = promptProblem(prompt, false);
		if (problem) {
			throw new ToolProblem(vscode.l10n.t('Nothing was handed over: {0}', problem));
		}
		const paths = pathsArg(input);
		const folder = handoverFolder(input);
		const { agent, place } = await this.target(input, agentQuery, signal, call);
		if (token.isCancellationRequested) {
			throw new vscode.CancellationError();
		}
		const answer = await this.deps.continueInCloud({
			agentId: agent.id,
			...(place.deployment && !place.deployment.isDefault ? { deployment: place.deployment.id } : {}),
			prompt,
			localFolder: folder?.uri.toString(),
			paths,
			onOverwrite: input.replace === true ? 'replace' : 'keep',
		});
		if (!answer) {
			throw new ToolProblem(vscode.l10n.t('Nothing was handed over (see the Cloud Agents messages).'));
		}
		const lines = [
			answer.runId
				? vscode.l10n.t(
						"Handed over: {0} file(s) written to the agent's workspace ({1} already the same there), and the agent runs the prompt. It keeps running in the cloud: call {2} (with `waitSeconds` to wait for it) to read its result.",
						answer.written.length,
						answer.same.length,
						TOOLS.runStatus,
					)
				: vscode.l10n.t('No run was started: see `stopped` below.'),
		];
		if (answer.kept.length > 0) {
			lines.push(
				vscode.l10n.t(
					"{0} file(s) differ on the agent's side and were kept as the agent has them (call again with `replace` to replace them).",
					answer.kept.length,
				),
			);
		}
		return renderResult(lines, [
			quoteJson('the hand-over', {
				agent: agentData(agent, place),
				runId: answer.runId ?? null,
				written: answer.written,
				alreadySame: answer.same,
				keptOnAgentSide: answer.kept,
				conflicts: answer.conflicts,
				deletedLocallyNotHandedOver: answer.deleted,
				refused: answer.refused,
				stopped: answer.stopped ?? null,
			}),
		]);
	}

	private async runStatus(input: Record<string, unknown>, call: CallPlace, signal: AbortSignal): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const runId = textArg(input, 'runId')?.trim() || undefined;
		const waitSeconds = intArg(input, 'waitSeconds', 0, WAIT_MAX_SECONDS, 0);
		const { agent, place, client } = await this.target(input, agentQuery, signal, call);
		let run: Run | undefined;
		if (runId) {
			run = await client.getRun(agent.id, runId, { signal });
		} else {
			run = (await client.listRuns(agent.id, { limit: 1, signal }))[0];
		}
		if (!run) {
			return renderResult([vscode.l10n.t('The agent has no runs yet.')], [quoteJson('the agent', agentData(agent, place))]);
		}
		const lines: string[] = [];
		if (waitSeconds > 0 && !isTerminalRunStatus(run.status)) {
			const deadline = Date.now() + waitSeconds * 1000;
			try {
				while (!isTerminalRunStatus(run.status) && Date.now() < deadline) {
					await sleep(Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now())), signal);
					run = await client.getRun(agent.id, run.id, { signal });
				}
			} catch (err) {
				if (!isCancellation(err)) {
					throw err;
				}
				lines.push(vscode.l10n.t('Stopped waiting: the wait was cancelled.'));
			}
		}
		const ended = isTerminalRunStatus(run.status);
		lines.unshift(
			ended
				? vscode.l10n.t('The run has ended.')
				: waitSeconds > 0
					? vscode.l10n.t('The run is still active (waited up to {0} s). Call again later for its result.', waitSeconds)
					: vscode.l10n.t('The run is still active. Call again with `waitSeconds` to wait for its result.'),
		);
		const artifacts = ended
			? (await client.listArtifacts(agent.id, { signal }).catch(() => [] as Artifact[])).filter((a) => a.run_id === run.id)
			: [];
		const blocks: QuotedBlock[] = [
			quoteJson('the run', {
				agent: agentData(agent, place),
				run: {
					id: run.id,
					status: run.status,
					createdAt: run.created_at,
					updatedAt: run.updated_at,
					parentRunId: run.parent_run_id || null,
				},
				artifacts: artifacts.slice(0, ARTIFACTS_MAX).map(artifactData),
			}),
			quoteText("the run's prompt (as the user or a chat sent it)", run.prompt ?? ''),
		];
		if (run.result) {
			blocks.push(quoteText("the agent's result", run.result));
		}
		if (run.error) {
			blocks.push(quoteText("the run's error", run.error));
		}
		return renderResult(lines, blocks);
	}

	private async readFile(input: Record<string, unknown>, call: CallPlace, signal: AbortSignal): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const path = normalizeWorkspacePath(requiredText(input, 'path', vscode.l10n.t("the file's path in the workspace")));
		const offset = intArg(input, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
		const { agent, place, client } = await this.target(input, agentQuery, signal, call);
		const chunk = await client.readWorkspaceFile(agent.id, path, { offset, length: READ_FILE_MAX_BYTES, signal });
		const decoded = decodeText(chunk.content, !chunk.eof);
		const where = quoteJson('the file', { agent: agentData(agent, place), path, size: chunk.size, offset });
		if (!decoded) {
			return renderResult([vscode.l10n.t('Not shown: the file is not text (binary, or not UTF-8).')], [where]);
		}
		const next = offset + decoded.bytes;
		const lines = [
			next < chunk.size
				? vscode.l10n.t(
						'Bytes {0} to {1} of {2}: more follows; call again with `offset` {1} for the rest.',
						offset,
						next,
						chunk.size,
					)
				: vscode.l10n.t('Bytes {0} to {1} of {2}: the end of the file.', offset, next, chunk.size),
		];
		return renderResult(lines, [where, quoteText("the file's text", decoded.text, READ_FILE_MAX_BYTES)]);
	}

	private async searchWorkspace(input: Record<string, unknown>, call: CallPlace, signal: AbortSignal): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const query = requiredText(input, 'query', vscode.l10n.t('the text to find'));
		const bytes = utf8Length(query);
		if (bytes > LIMITS.searchQueryBytes.max) {
			throw new ToolProblem(
				vscode.l10n.t(
					'Nothing was searched: the query is {0} bytes long; the limit is {1} bytes (UTF-8).',
					bytes,
					LIMITS.searchQueryBytes.max,
				),
			);
		}
		const under = textArg(input, 'path');
		const path = under === undefined ? undefined : normalizeWorkspacePath(under) || undefined;
		const maxResults = intArg(input, 'maxResults', 1, SEARCH_MAX, SEARCH_DEFAULT);
		const { agent, place, client } = await this.target(input, agentQuery, signal, call);
		const answer = await client.searchWorkspace(agent.id, query, { path, maxResults, signal });
		const { matches, truncated } = usableMatches(answer);
		const shown = matches.slice(0, maxResults);
		const more = truncated || matches.length > shown.length;
		return renderResult(
			[
				more
					? shown.length === 1
						? vscode.l10n.t('1 match shown; more exist (narrow the query or the path).')
						: vscode.l10n.t('{0} matches shown; more exist (narrow the query or the path).', shown.length)
					: shown.length === 1
						? vscode.l10n.t('1 match.')
						: vscode.l10n.t('{0} matches.', shown.length),
			],
			[
				quoteJson('the matches (path, line, column, a preview of the line)', {
					agent: agentData(agent, place),
					query,
					matches: shown,
				}),
			],
		);
	}

	/** What happened since a time (the Activity view's entries), newest first. */
	private recentActivity(input: Record<string, unknown>): string {
		const since = sinceArg(input, (this.deps.now ?? Date.now)());
		const limit = intArg(input, 'limit', 1, HISTORY_MAX_ENTRIES, ACTIVITY_DEFAULT_LIMIT);
		this.places({});
		const all = since === undefined ? this.deps.activity.entries() : this.deps.activity.since(since);
		const shown = all.slice(0, limit);
		return renderResult(
			[
				all.length === 0
					? since === undefined
						? vscode.l10n.t('Nothing happened that Cloud Agents noticed (it keeps the newest {0} events).', HISTORY_MAX_ENTRIES)
						: vscode.l10n.t('Nothing happened since {0}.', new Date(since).toISOString())
					: all.length > shown.length
						? vscode.l10n.t('The newest {0} of {1} events, newest first.', shown.length, all.length)
						: shown.length === 1
							? vscode.l10n.t('1 event.')
							: vscode.l10n.t('{0} events, newest first.', shown.length),
				vscode.l10n.t(
					'Times are UTC. Outcomes: succeeded, failed, cancelled, or ended (the status as the service wrote it says more).',
				),
			],
			shown.length > 0 ? [quoteJson('the activity', shown.map(activityData))] : [],
		);
	}

	private async listArtifacts(input: Record<string, unknown>, call: CallPlace, signal: AbortSignal): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const runId = textArg(input, 'runId')?.trim() || undefined;
		const { agent, place, client } = await this.target(input, agentQuery, signal, call);
		const all = newestFirst((await client.listArtifacts(agent.id, { signal })).filter((a) => !runId || a.run_id === runId));
		const shown = all.slice(0, ARTIFACTS_MAX);
		return renderResult(
			[
				all.length > shown.length
					? vscode.l10n.t('The newest {0} of {1} artifacts.', shown.length, all.length)
					: shown.length === 1
						? vscode.l10n.t('1 artifact.')
						: vscode.l10n.t('{0} artifacts.', shown.length),
				vscode.l10n.t('Read one whose `text` is true with {0}.', TOOLS.readArtifact),
			],
			[quoteJson('the artifacts', { agent: agentData(agent, place), artifacts: shown.map(artifactData) })],
		);
	}

	private async readArtifact(input: Record<string, unknown>, call: CallPlace, signal: AbortSignal): Promise<string> {
		const agentQuery = requiredText(input, 'agent', vscode.l10n.t("the agent's name or id"));
		const wanted = requiredText(input, 'artifact', vscode.l10n.t("the artifact's id or name")).trim();
		const runId = textArg(input, 'runId')?.trim() || undefined;
		const { agent, client } = await this.target(input, agentQuery, signal, call);
		const all = newestFirst(await client.listArtifacts(agent.id, { signal }));
		const artifact = all.find((a) => a.id === wanted) ?? all.find((a) => a.name === wanted && (!runId || a.run_id === runId));
		if (!artifact) {
			throw new ToolProblem(
				vscode.l10n.t(
					'Nothing was read: the agent has no artifact "{0}"; its artifacts follow.',
					singleLine(wanted, SAFETY.labelMaxChars),
				),
				[quoteJson('the artifacts', all.slice(0, ARTIFACTS_MAX).map(artifactData))],
			);
		}
		const about = quoteJson('the artifact', artifactData(artifact));
		if (artifactKind(artifact) !== 'text') {
			return renderResult([vscode.l10n.t('Not shown: the artifact is not text (an image or another binary file).')], [about]);
		}
		if (exceedsReadCap(artifact.size)) {
			return renderResult([vscode.l10n.t("Not shown: the artifact is larger than the service's 2 MiB answer cap.")], [about]);
		}
		const { content } = await client.readArtifactContent(agent.id, artifact.id, { signal });
		const decoded = decodeText(content);
		if (!decoded) {
			return renderResult([vscode.l10n.t('Not shown: the artifact is not text (binary, or not UTF-8).')], [about]);
		}
		return renderResult(
			[vscode.l10n.t("The artifact's text ({0} bytes).", content.byteLength)],
			[about, quoteText("the artifact's text", decoded.text, READ_ARTIFACT_MAX_CHARS)],
		);
	}
}

/** A confirmation's line naming the deployment the call goes to (only when several are configured). */
function appendDeployment(message: vscode.MarkdownString, place: CallPlace): void {
	if (place.named && place.deployment) {
		message.appendMarkdown(
			`  \n${vscode.l10n.t('Deployment')}: ${inlineCode(singleLine(place.deployment.name, SAFETY.labelMaxChars))}`,
		);
	}
}

/** An artifact as the data blocks show it. */
function artifactData(a: Artifact): Record<string, unknown> {
	return {
		id: a.id,
		name: a.name,
		mediaType: a.media_type,
		size: a.size,
		runId: a.run_id,
		createdAt: a.created_at,
		text: artifactKind(a) === 'text',
	};
}

/** Artifacts newest first (by `created_at`; those without one last). */
function newestFirst(artifacts: Artifact[]): Artifact[] {
	const at = (a: Artifact): number => Date.parse(a.created_at ?? '') || 0;
	return [...artifacts].sort((x, y) => at(y) - at(x));
}
