import * as vscode from 'vscode';
import { ApiError, SAFETY } from '../api';
import type { GitHubAuthorizationRequest, GitHubRuntimeBinding, RepositoryRef, Runtime } from '../api';
import { plainText } from '../util/text';
import { RecordNode } from '../views';
import { runtimesList } from '../resources';
import { authorizationUrl, githubRequestsList, isOpenRequest, requestExpiry } from '../resources';
import { timeLeft } from '../resources/github';
import { titledRecordUri } from '../views/recordDocuments';
import { commandRegistrar } from './registry';
import { findRuntime } from '../resources/runtimes';
import { resolveTarget } from '../views/targets';
import type { FeatureDeps } from './support';
import {
	argString,
	displayName,
	isAutomation,
	isStatus,
	pickItem,
	pickWhenLoaded,
	showInfo,
	showModalWarning,
	showWarning,
} from './support';

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

/** Checks a whole list before the PUT: each item, and no repository and branch twice. Throws the first problem. */
export function checkBindings(repositories: readonly RepositoryRef[]): RepositoryRef[] {
	if (repositories.length > MAX_BINDINGS) {
		throw new Error(vscode.l10n.t('Not sent: at most {0} bindings.', MAX_BINDINGS));
	}
	const seen = new Set<string>();
	return repositories.map((r, i) => {
		const id = r.repository_id;
		if (!Number.isSafeInteger(id) || id < 1) {
			throw new Error(vscode.l10n.t('Not sent: binding {0}: the repository id is a positive integer.', i + 1));
		}
		const branchProblem = typeof r.branch === 'string' ? checkBranch(r.branch) : vscode.l10n.t('missing branch');
		if (branchProblem) {
			throw new Error(vscode.l10n.t('Not sent: binding {0}: {1}', i + 1, branchProblem));
		}
		const key = `${id}@${r.branch}`;
		if (seen.has(key)) {
			throw new Error(vscode.l10n.t('Not sent: repository {0} branch {1} is listed twice.', id, r.branch));
		}
		seen.add(key);
		return { repository_id: id, branch: r.branch };
	});
}

/** The bindings a runtime record carries (`github_bindings`, assumed; in `sort_order`); undefined when absent. */
export function runtimeBindings(runtime: Runtime): RepositoryRef[] | undefined {
	const list = (runtime as Record<string, unknown>).github_bindings;
	if (!Array.isArray(list)) {
		return undefined;
	}
	return list
		.filter(
			(b): b is Record<string, unknown> =>
				b !== null &&
				typeof b === 'object' &&
				typeof (b as Record<string, unknown>).repository_id === 'number' &&
				typeof (b as Record<string, unknown>).branch === 'string',
		)
		.sort((a, b) => (typeof a.sort_order === 'number' ? a.sort_order : 0) - (typeof b.sort_order === 'number' ? b.sort_order : 0))
		.slice(0, MAX_BINDINGS)
		.map((b) => ({ repository_id: b.repository_id as number, branch: b.branch as string }));
}

interface EditorItem extends vscode.QuickPickItem {
	action: 'binding' | 'add' | 'save';
	index?: number;
}

const UP: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('arrow-up'), tooltip: vscode.l10n.t('Move Up') };
const DOWN: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('arrow-down'), tooltip: vscode.l10n.t('Move Down') };
const REMOVE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Remove') };

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

/** The request a command acts on: a row, `{requestId}` from automation, or a pick of the open ones. */
async function resolveRequest(deps: FeatureDeps, arg: unknown): Promise<GitHubAuthorizationRequest | undefined> {
	if (arg instanceof RecordNode && arg.descriptor === githubRequestsList) {
		return arg.record as GitHubAuthorizationRequest;
	}
	const loading = deps.session.client.listGitHubAuthorizationRequests().then((all) => all.filter((r) => isOpenRequest(r)));
	const id = typeof arg === 'string' ? arg : argString(arg, 'requestId');
	if (id !== undefined) {
		const found = (await loading).find((r) => r.request_id === id);
		if (!found) {
			throw new Error(vscode.l10n.t('The GitHub authorization request {0} is not pending any more (authorized or expired).', id));
		}
		return found;
	}
	const pick = await pickWhenLoaded(
		loading.then((all) =>
			all.map((r) => {
				const s = r as Record<string, unknown>;
				return pickItem(
					{
						label: typeof s.reason === 'string' ? s.reason : r.request_id,
						description: typeof s.requested_by === 'string' ? s.requested_by : undefined,
						detail: timeLeft(requestExpiry(r)),
					},
					{ request: r },
				);
			}),
		),
		{ title: vscode.l10n.t('Authorize GitHub Request'), placeHolder: vscode.l10n.t('Pick a pending request') },
	);
	return pick?.request;
}

/**
 * Registers the GitHub commands: "Authorize…" (a modal question naming who asked and why, then
 * the https authorization URL in the browser; anything but https is refused) and "Edit GitHub
 * Bindings…" (on a runtime: a quick pick editor, then one PUT that replaces the bindings; the
 * result is shown; 409 and 422 explained).
 *
 * Automation: authorize `{requestId, confirm?: false}` returns the URL opened (string);
 * edit `{runtimeId, repositories: [{repository_id, branch}], quiet?}` returns the bindings.
 */
export function registerGitHubCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, {
		onUnauthorized: deps.onUnauthorized,
		rethrow: (arg) => isAutomation(arg) && arg.rethrow === true,
	});
	return [
		registerCommand('cloudAgents.github.authorize', async (arg?: unknown) => {
			const request = await resolveRequest(deps, arg);
			if (!request) {
				return undefined;
			}
			const expiry = requestExpiry(request);
			if (expiry !== undefined && expiry <= Date.now()) {
				void showWarning(vscode.l10n.t('This request has expired; ask the agent again.'));
				await vscode.commands.executeCommand('cloudAgents.github.refreshRequests');
				return undefined;
			}
			const uri = authorizationUrl(request);
			if (!uri) {
				throw new Error(vscode.l10n.t('The request has no https authorization address; it is not opened.'));
			}
			const s = request as Record<string, unknown>;
			if (!(isAutomation(arg) && arg.confirm === false)) {
				const open = vscode.l10n.t('Open in Browser');
				const detail = [
					vscode.l10n.t('Requested by: {0}', typeof s.requested_by === 'string' ? s.requested_by : '?'),
					vscode.l10n.t('Reason: {0}', typeof s.reason === 'string' ? s.reason : vscode.l10n.t('(none given)')),
					vscode.l10n.t('Time left: {0}', timeLeft(expiry) ?? '?'),
					'',
					vscode.l10n.t('GitHub opens at {0}. Grant access only if you expected this request.', uri.authority),
				].join('\n');
				if ((await showModalWarning(vscode.l10n.t('Authorize GitHub access for this agent?'), detail, open)) !== open) {
					return undefined;
				}
			}
			if (!(isAutomation(arg) && arg.dryRun === true)) {
				await vscode.env.openExternal(uri);
			}
			return uri.toString(true);
		}),
		registerCommand('cloudAgents.github.editBindings', async (arg?: unknown) => {
			let runtime = (
				await resolveTarget(deps, runtimesList, arg, {
					title: vscode.l10n.t('Edit GitHub Bindings'),
					filter: (r) => r.can_manage !== false,
				})
			)?.runtime;
			if (!runtime) {
				return undefined;
			}
			runtime = (await findRuntime(deps.session.client, runtime.id)) ?? runtime;
			const current = runtimeBindings(runtime);
			const automation = isAutomation(arg) && Array.isArray(arg.repositories) ? arg : undefined;
			const wanted = automation
				? (automation.repositories as RepositoryRef[])
				: await editBindings(runtime, current ?? [], current !== undefined);
			if (!wanted) {
				return undefined;
			}
			const repositories = checkBindings(wanted);
			const target = runtime;
			let bindings: GitHubRuntimeBinding[];
			try {
				bindings = await vscode.window.withProgress(
					{
						location: vscode.ProgressLocation.Notification,
						title: vscode.l10n.t('Saving the GitHub bindings of {0}…', displayName(target.display_name, target.id)),
					},
					() => deps.session.client.setGitHubRuntimeBindings(target.id, repositories),
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
					await deps.views.providerOf(runtimesList).refresh();
					throw new ApiError(
						err.status,
						err.code,
						vscode.l10n.t(
							'The runtime {0} cannot take new bindings now (it changed or is not ready); nothing was changed. Refresh and try again. {1}',
							target.display_name,
							err.message,
						),
						err.requestId,
					);
				}
				throw err;
			}
			await deps.views.providerOf(runtimesList).refresh();
			if (!(automation?.quiet === true)) {
				const title = vscode.l10n.t('GitHub Bindings of {0}', displayName(target.display_name, target.id));
				await deps.records.show(
					titledRecordUri(title, 'github-bindings', target.id),
					`${plainText(JSON.stringify({ runtime: target.display_name, bindings }, null, 2), SAFETY.documentMaxChars)}\n`,
					'json',
					{ forceLanguage: true },
				);
				void showInfo(vscode.l10n.t('The runtime {0} now has {1} GitHub binding(s).', target.display_name, bindings.length));
			}
			return bindings;
		}),
	];
}
