import * as vscode from 'vscode';
import { ApiError, isJsonObject } from '../api';
import type { CloudAgentsClient, GitHubAuthorizationRequest, GitHubRuntimeBinding, RepositoryRef, Runtime } from '../api';
import type { ActionKit, RecordAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip } from '../views/format';
import { argFlag, argString, argValue, confirmUnlessTold, displayName, isStatus } from '../views/ui';
import { findRuntime, runtimesList } from './runtimes';
import type { RuntimeTarget } from './runtimes';

/** When a pending request expires (ms since the epoch); undefined when it does not say. */
export function requestExpiry(request: GitHubAuthorizationRequest): number | undefined {
	const at = request.lifecycle?.expires_at_unix_seconds;
	return at === undefined ? undefined : at * 1000;
}

/** The request's https authorization URL (https already checked by the decoder); undefined for anything else (never opened). */
export function authorizationUrl(request: GitHubAuthorizationRequest): vscode.Uri | undefined {
	const url = request.lifecycle?.authorization_url;
	if (url === undefined) {
		return undefined;
	}
	try {
		const parsed = new URL(url);
		return parsed.protocol === 'https:' && parsed.username === '' && parsed.password === ''
			? vscode.Uri.parse(parsed.toString(), true)
			: undefined;
	} catch {
		return undefined;
	}
}

/** True for a request still pending and not expired at `now`. */
export function isOpenRequest(request: GitHubAuthorizationRequest, now = Date.now()): boolean {
	const status = request.lifecycle?.status;
	const expiry = requestExpiry(request);
	return (status === undefined || status === 'pending') && (expiry === undefined || expiry > now);
}

/** Time left in words: "12 min left", "2 h left", "less than a minute left". */
export function timeLeft(expiryMs: number | undefined, now = Date.now()): string | undefined {
	if (expiryMs === undefined) {
		return undefined;
	}
	const min = Math.floor((expiryMs - now) / 60_000);
	if (min < 1) {
		return vscode.l10n.t('less than a minute left');
	}
	return min < 120 ? vscode.l10n.t('{0} min left', min) : vscode.l10n.t('{0} h left', Math.floor(min / 60));
}

/** The pending requests (the service lists answered and expired ones too), soonest expiry first. */
async function openRequests(client: CloudAgentsClient, signal?: AbortSignal): Promise<GitHubAuthorizationRequest[]> {
	const all = await client.listGitHubAuthorizationRequests({ signal });
	return all.filter((r) => isOpenRequest(r)).sort((a, b) => (requestExpiry(a) ?? Infinity) - (requestExpiry(b) ?? Infinity));
}

/** What a GitHub request command receives. */
export interface GitHubRequestTarget {
	request: GitHubAuthorizationRequest;
}

/**
 * Pending GitHub authorization requests (the Account view's "GitHub Requests" group): who asked,
 * why, how long is left; expired ones are left out and the group refreshes when the next one
 * expires (`GitHubRequestExpiry`). Rows `githubRequest:pending`; a click asks, then opens the https
 * authorization URL. The palette and automation (`{requestId}`, or the id as a string) find a
 * pending request in the same listing.
 */
export const githubRequestsList: ListDescriptor<GitHubAuthorizationRequest, GitHubRequestTarget, unknown> = {
	key: 'githubRequests',
	kind: 'githubRequest',
	title: () => vscode.l10n.t('GitHub Requests'),
	commands: { refresh: 'cloudAgents.github.refreshRequests' },
	source: { list: async (ctx, request) => ({ items: await openRequests(ctx.client(), request.signal), more: false }) },
	keyOf: (r) => r.request_id,
	fields: (request) => ({ request }),
	row: (r) => {
		const expiry = requestExpiry(r);
		const created = r.created_at_unix_seconds;
		return {
			label: r.reason || vscode.l10n.t('Access requested by {0}', r.requested_by ?? '?'),
			description: joinParts(r.requested_by, timeLeft(expiry)),
			icon: new vscode.ThemeIcon('github'),
			contextValue: authorizationUrl(r) ? 'githubRequest:pending:https' : 'githubRequest:pending',
			tooltip: plainTooltip(vscode.l10n.t('GitHub authorization request'), [
				[vscode.l10n.t('Requested by'), r.requested_by],
				[vscode.l10n.t('Reason'), r.reason],
				[vscode.l10n.t('Requested'), created !== undefined ? new Date(created * 1000).toLocaleString() : undefined],
				[
					vscode.l10n.t('Expires'),
					expiry !== undefined ? `${new Date(expiry).toLocaleString()} (${timeLeft(expiry) ?? ''})` : undefined,
				],
				[vscode.l10n.t('Opens'), authorizationUrl(r)?.authority],
				[vscode.l10n.t('ID'), r.request_id],
			]),
			command: { command: 'cloudAgents.github.authorize', title: vscode.l10n.t('Authorize…') },
		};
	},
	empty: () => ({
		label: vscode.l10n.t('No pending GitHub requests'),
		tooltip: vscode.l10n.t('When an agent asks for access to GitHub, its request shows here until it is authorized or expires.'),
	}),
	target: {
		idField: 'requestId',
		get: async (ctx, id) => (await openRequests(ctx.client())).find((r) => r.request_id === id),
		choices: (ctx) => openRequests(ctx.client()),
		pickText: (r) => ({ label: r.reason ?? r.request_id, description: r.requested_by, detail: timeLeft(requestExpiry(r)) }),
		placeholder: () => vscode.l10n.t('Pick a pending request'),
		matchOnDetail: false,
		notFound: (id) => vscode.l10n.t('The GitHub authorization request {0} is not pending any more (authorized or expired).', id),
	},
};

/** The longest a timer waits (setTimeout's bound). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What `GitHubRequestExpiry` needs of the requests' list: its records, its loads, its refresh. */
export interface ExpiringList {
	readonly records: readonly GitHubAuthorizationRequest[];
	readonly onDidLoad: vscode.Event<void>;
	refresh(): Promise<void>;
}

/**
 * Reads the pending requests again when the next one shown expires (one timer, set again after
 * each load), so an expired request drops off without a manual refresh. Owned by whoever connects
 * the lists (src/resources/index.ts `connectLists`); a list read while its view is hidden is only
 * marked stale (the provider's rule).
 */
export class GitHubRequestExpiry implements vscode.Disposable {
	private timer: ReturnType<typeof setTimeout> | undefined;
	private readonly subscription: vscode.Disposable;

	constructor(private readonly requests: ExpiringList) {
		this.subscription = requests.onDidLoad(() => this.schedule());
	}

	private schedule(): void {
		this.clear();
		const next = Math.min(...this.requests.records.map((r) => requestExpiry(r) ?? Infinity));
		if (!Number.isFinite(next)) {
			return;
		}
		const delay = Math.min(MAX_TIMER_MS, Math.max(1_000, next - Date.now() + 500));
		this.timer = setTimeout(() => {
			this.timer = undefined;
			// Nothing shown (signed out, the list reset): nothing to drop.
			if (this.requests.records.length > 0) {
				void this.requests.refresh();
			}
		}, delay);
	}

	private clear(): void {
		if (this.timer) {
			clearTimeout(this.timer);
			this.timer = undefined;
		}
	}

	dispose(): void {
		this.clear();
		this.subscription.dispose();
	}
}

/** The most bindings the editor keeps (the emulator's bound; the contract names none). */
const MAX_BINDINGS = 100;

/** Checks a branch name as git does for a ref (no spaces, `..`, `~^:?*[\`, leading or trailing `/`); a message or undefined. */
export function checkBranch(this: void, value: string): string | undefined {
	if (value.length === 0 || value.length > 255) {
		return vscode.l10n.t('Enter a branch name (1 to 255 characters).');
	}
	// eslint-disable-next-line no-control-regex
	if (/[\s~^:?*[\\\u0000-\u001f\u007f]|\.\.|^\/|\/$|\.lock$|^-|@\{/.test(value)) {
		return vscode.l10n.t('Not a branch name git accepts (no spaces, "..", ~ ^ : ? * [ \\, and no leading or trailing /).');
	}
	return undefined;
}

/** Checks a repository id: a positive integer. */
export function checkRepositoryId(this: void, value: string): string | undefined {
	return /^[1-9][0-9]{0,15}$/.test(value.trim()) && Number.isSafeInteger(Number(value.trim()))
		? undefined
		: vscode.l10n.t('Enter the numeric GitHub repository id (a positive integer).');
}

/**
 * Checks a whole list before the PUT (the editor's, or an automation caller's items of any shape):
 * each item, and no repository and branch twice. Throws the first problem.
 */
export function checkBindings(repositories: readonly unknown[]): RepositoryRef[] {
	if (repositories.length > MAX_BINDINGS) {
		throw new Error(vscode.l10n.t('Not sent: at most {0} bindings.', MAX_BINDINGS));
	}
	const seen = new Set<string>();
	return repositories.map((r, i) => {
		// An item of the list, not the command's argument: read as it is (the marker is on the argument).
		const id: unknown = isJsonObject(r) ? r.repository_id : undefined;
		if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
			throw new Error(vscode.l10n.t('Not sent: binding {0}: the repository id is a positive integer.', i + 1));
		}
		const branch = argString(r, 'branch');
		const branchProblem = branch !== undefined ? checkBranch(branch) : vscode.l10n.t('missing branch');
		if (branch === undefined || branchProblem) {
			throw new Error(vscode.l10n.t('Not sent: binding {0}: {1}', i + 1, branchProblem ?? ''));
		}
		const key = `${id}@${branch}`;
		if (seen.has(key)) {
			throw new Error(vscode.l10n.t('Not sent: repository {0} branch {1} is listed twice.', id, branch));
		}
		seen.add(key);
		return { repository_id: id, branch };
	});
}

/** The bindings a runtime record carries (`github_bindings`, assumed; decoded with the runtime), in `sort_order`; undefined when absent. */
export function runtimeBindings(runtime: Runtime): RepositoryRef[] | undefined {
	const list = runtime.github_bindings;
	if (list === undefined) {
		return undefined;
	}
	return [...list]
		.sort((a, b) => (a.sort_order ?? 0) - (b.sort_order ?? 0))
		.slice(0, MAX_BINDINGS)
		.map((b) => ({ repository_id: b.repository_id, branch: b.branch }));
}

interface EditorItem extends vscode.QuickPickItem {
	action: 'binding' | 'add' | 'save';
	index?: number;
}

/** Asks for a new binding (repository id, then branch); undefined when dismissed. */
async function askBinding(title: string): Promise<RepositoryRef | undefined> {
	const id = await vscode.window.showInputBox({
		title,
		prompt: vscode.l10n.t('The GitHub repository id (numeric).'),
		placeHolder: '781234501',
		validateInput: checkRepositoryId,
		ignoreFocusOut: true,
	});
	if (id === undefined) {
		return undefined;
	}
	const branch = await vscode.window.showInputBox({
		title,
		prompt: vscode.l10n.t('The branch.'),
		value: 'main',
		validateInput: checkBranch,
		ignoreFocusOut: true,
	});
	return branch === undefined ? undefined : { repository_id: Number(id.trim()), branch };
}

/**
 * The bindings editor: a quick pick of the list in order (buttons move an item up or down or
 * remove it), "Add Repository…" and "Save". Resolves with the list to send, or undefined.
 */
async function editBindings(runtime: Runtime, initial: RepositoryRef[], known: boolean): Promise<RepositoryRef[] | undefined> {
	const list = [...initial];
	const title = vscode.l10n.t('GitHub Bindings of {0}', displayName(runtime.display_name, runtime.id));
	const UP: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('arrow-up'), tooltip: vscode.l10n.t('Move Up') };
	const DOWN: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('arrow-down'), tooltip: vscode.l10n.t('Move Down') };
	const REMOVE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Remove') };
	for (;;) {
		const qp = vscode.window.createQuickPick<EditorItem>();
		qp.title = title;
		qp.placeholder = known
			? vscode.l10n.t('Reorder or remove with the buttons, add a repository, then Save (it replaces all bindings at once)')
			: vscode.l10n.t('The service did not list the current bindings: Save replaces them with this list');
		qp.ignoreFocusOut = true;
		qp.items = [
			...list.map((b, i): EditorItem => ({
				label: `${i + 1}. ${b.repository_id}`,
				description: b.branch,
				action: 'binding',
				index: i,
				buttons: [...(i > 0 ? [UP] : []), ...(i < list.length - 1 ? [DOWN] : []), REMOVE],
			})),
			{ label: '', kind: vscode.QuickPickItemKind.Separator, action: 'add' },
			{ label: `$(add) ${vscode.l10n.t('Add Repository…')}`, action: 'add', alwaysShow: true },
			{
				label: `$(check) ${vscode.l10n.t('Save ({0} bindings)', list.length)}`,
				description: vscode.l10n.t('replaces the bindings of the runtime'),
				action: 'save',
				alwaysShow: true,
			},
		];
		const outcome = await new Promise<'add' | 'save' | 'changed' | undefined>((resolve) => {
			qp.onDidTriggerItemButton((e) => {
				const i = e.item.index ?? -1;
				if (e.button === REMOVE) {
					list.splice(i, 1);
				} else if (e.button === UP && i > 0) {
					[list[i - 1], list[i]] = [list[i]!, list[i - 1]!];
				} else if (e.button === DOWN && i < list.length - 1) {
					[list[i + 1], list[i]] = [list[i]!, list[i + 1]!];
				}
				resolve('changed');
			});
			qp.onDidAccept(() => {
				const item = qp.selectedItems[0];
				resolve(item?.action === 'add' ? 'add' : item?.action === 'save' ? 'save' : undefined);
			});
			qp.onDidHide(() => resolve(undefined));
			qp.show();
		});
		qp.dispose();
		if (outcome === undefined) {
			return undefined;
		}
		if (outcome === 'save') {
			return list;
		}
		if (outcome === 'add') {
			const added = await askBinding(title);
			if (added) {
				list.push(added);
			}
		}
	}
}

/**
 * "Authorize…": a modal question naming who asked and why, then the https authorization URL in the
 * browser (anything but https is refused; an expired request refreshes the list instead).
 * Automation: `{requestId, confirm?: false, dryRun?: true}` (dryRun opens nothing); returns the URL.
 */
async function authorizeRequest(request: GitHubAuthorizationRequest, kit: ActionKit): Promise<string | undefined> {
	const expiry = requestExpiry(request);
	if (expiry !== undefined && expiry <= Date.now()) {
		kit.warn(vscode.l10n.t('This request has expired; ask the agent again.'));
		await kit.list(githubRequestsList).refresh();
		return undefined;
	}
	const uri = authorizationUrl(request);
	if (!uri) {
		throw new Error(vscode.l10n.t('The request has no https authorization address; it is not opened.'));
	}
	const open = vscode.l10n.t('Open in Browser');
	const detail = [
		vscode.l10n.t('Requested by: {0}', request.requested_by ?? '?'),
		vscode.l10n.t('Reason: {0}', request.reason ?? vscode.l10n.t('(none given)')),
		vscode.l10n.t('Time left: {0}', timeLeft(expiry) ?? '?'),
		'',
		vscode.l10n.t('GitHub opens at {0}. Grant access only if you expected this request.', uri.authority),
	].join('\n');
	if (!(await confirmUnlessTold(kit.arg, vscode.l10n.t('Authorize GitHub access for this agent?'), detail, open))) {
		return undefined;
	}
	if (!argFlag(kit.arg, 'dryRun')) {
		await vscode.env.openExternal(uri);
	}
	return uri.toString(true);
}

/**
 * "Edit GitHub Bindings…" on a runtime: the quick pick editor over the runtime's current bindings
 * (read again), or automation's `{runtimeId, repositories: [{repository_id, branch}], quiet?}`;
 * checked, then one PUT that replaces them; the result is shown (not with `quiet`); 409 and 422
 * explained. Returns the bindings.
 */
async function editRuntimeBindings(shown: Runtime, kit: ActionKit): Promise<GitHubRuntimeBinding[] | undefined> {
	const runtime = (await findRuntime(kit.client(), shown.id)) ?? shown;
	const current = runtimeBindings(runtime);
	const given = argValue(kit.arg, 'repositories');
	const wanted: readonly unknown[] | undefined = Array.isArray(given)
		? given
		: await editBindings(runtime, current ?? [], current !== undefined);
	if (!wanted) {
		return undefined;
	}
	const quiet = Array.isArray(given) && argFlag(kit.arg, 'quiet');
	const repositories = checkBindings(wanted);
	const runtimes = kit.list(runtimesList);
	let bindings: GitHubRuntimeBinding[];
	try {
		bindings = await vscode.window.withProgress(
			{
				location: vscode.ProgressLocation.Notification,
				title: vscode.l10n.t('Saving the GitHub bindings of {0}…', displayName(runtime.display_name, runtime.id)),
			},
			() => kit.client().setGitHubRuntimeBindings(runtime.id, repositories),
		);
	} catch (err) {
		// Explained, as a new error of this command (its request id kept).
		if (isStatus(err, 422)) {
			throw new ApiError(
				err.status,
				err.code,
				vscode.l10n.t('The service refused the bindings; nothing was changed. {0}', err.message),
				err.requestId,
			);
		}
		if (isStatus(err, 409)) {
			await runtimes.refresh();
			throw new ApiError(
				err.status,
				err.code,
				vscode.l10n.t(
					'The runtime {0} cannot take new bindings now (it changed or is not ready); nothing was changed. Refresh and try again. {1}',
					runtime.display_name,
					err.message,
				),
				err.requestId,
			);
		}
		throw err;
	}
	await runtimes.refresh();
	if (!quiet) {
		await kit.showJson(
			vscode.l10n.t('GitHub Bindings of {0}', displayName(runtime.display_name, runtime.id)),
			['github-bindings', runtime.id],
			{ runtime: runtime.display_name, bindings },
		);
		kit.info(
			bindings.length === 1
				? vscode.l10n.t('The runtime {0} now has 1 GitHub binding.', runtime.display_name)
				: vscode.l10n.t('The runtime {0} now has {1} GitHub bindings.', runtime.display_name, bindings.length),
		);
	}
	return bindings;
}

/** What a user can do with GitHub: authorize a pending request; edit a runtime's repository bindings. */
export const githubActions = {
	authorize: {
		on: githubRequestsList,
		command: 'cloudAgents.github.authorize',
		run: ({ request }, kit) => authorizeRequest(request, kit),
	} satisfies RecordAction<GitHubAuthorizationRequest, GitHubRequestTarget>,
	editBindings: {
		on: runtimesList,
		command: 'cloudAgents.github.editBindings',
		filter: (r) => r.can_manage !== false,
		run: ({ runtime }, kit) => editRuntimeBindings(runtime, kit),
	} satisfies RecordAction<Runtime, RuntimeTarget>,
};
