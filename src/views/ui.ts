import * as vscode from 'vscode';
import { ApiError, SAFETY, ValidationError, isJsonObject, isUnreachable } from '../api';
import { describeError, openApiUrlSetting } from '../messages/errors';
import { iconSafe, notificationText } from '../util/text';
import { isAutomation } from './automation';

// UI helpers every action and flow shares: quick picks and messages that make server text safe,
// the automation contract's argument readers, cancellation.

/**
 * A quick-pick item from server text: label, description and detail on one line, neutralised,
 * cut to the UI limits, with `$(icon)` syntax shown as typed. Every pick list of server records
 * builds its items through this.
 */
export function pickItem<T extends object>(
	text: { label: string | undefined; description?: string; detail?: string },
	extra: T,
): vscode.QuickPickItem & T {
	return {
		...extra,
		label: iconSafe(text.label, SAFETY.labelMaxChars),
		description: text.description === undefined ? undefined : iconSafe(text.description, SAFETY.descriptionMaxChars),
		detail: text.detail === undefined ? undefined : iconSafe(text.detail, SAFETY.descriptionMaxChars),
	};
}

/** Options of `pickWhenLoaded`. */
export interface PickOptions {
	title?: string;
	placeHolder?: string;
	matchOnDetail?: boolean;
}

/**
 * A quick pick over items that are still loading: shown at once as busy, filled when they arrive.
 * When the service gives no answer (`isUnreachable`) and `loading` is a function, the pick shows
 * the failure in place of the items, with "Retry" (loads again in the same pick) and "Configure
 * API URL" (opens the setting; the pick resolves undefined): no empty pick before a bare error.
 * Any other failure (or one of a plain promise) closes the pick and rejects here, so the command
 * shows the error once (a rejecting items promise handed to `showQuickPick` would also reach the
 * workbench as an unhandled "unknown error"). Resolves with the accepted item, or undefined when
 * dismissed.
 */
export async function pickWhenLoaded<T extends vscode.QuickPickItem>(
	loading: Promise<T[]> | (() => Promise<T[]>),
	options: PickOptions = {},
): Promise<T | undefined> {
	const load = typeof loading === 'function' ? loading : undefined;
	const pick = vscode.window.createQuickPick<vscode.QuickPickItem>();
	pick.title = options.title;
	pick.matchOnDetail = options.matchOnDetail ?? false;
	/** The items that stand for the failure, and what accepting each does. */
	const failure = new Map<vscode.QuickPickItem, 'retry' | 'configure'>();
	let attempt = 0;
	try {
		return await new Promise<T | undefined>((resolve, reject) => {
			const fill = (items: Promise<T[]>): void => {
				const current = ++attempt;
				failure.clear();
				pick.items = [];
				pick.placeholder = options.placeHolder;
				pick.busy = true;
				pick.enabled = false;
				items.then(
					(list) => {
						if (current === attempt) {
							pick.items = list;
							pick.busy = false;
							pick.enabled = true;
						}
					},
					(err: unknown) => {
						if (current !== attempt) {
							return;
						}
						if (!load || !isUnreachable(err)) {
							// The load's own failure, as it came (the command shows it once).
							// eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
							reject(err);
							return;
						}
						const cannot = pickItem(
							{ label: vscode.l10n.t('Cannot reach the Cloud Agents service'), detail: describeError(err) },
							{ iconPath: new vscode.ThemeIcon('error'), alwaysShow: true },
						);
						const retry: vscode.QuickPickItem = {
							label: vscode.l10n.t('Retry'),
							iconPath: new vscode.ThemeIcon('refresh'),
							alwaysShow: true,
						};
						const configure: vscode.QuickPickItem = {
							label: vscode.l10n.t('Configure API URL'),
							iconPath: new vscode.ThemeIcon('gear'),
							alwaysShow: true,
						};
						failure.set(cannot, 'retry').set(retry, 'retry').set(configure, 'configure');
						pick.placeholder = vscode.l10n.t('Cannot reach the Cloud Agents service: Retry, or check the API URL');
						pick.items = [cannot, retry, configure];
						pick.activeItems = [retry];
						pick.busy = false;
						pick.enabled = true;
					},
				);
			};
			pick.onDidAccept(() => {
				const item = pick.selectedItems[0];
				const fix = item && failure.get(item);
				if (fix === 'retry' && load) {
					fill(load());
				} else if (fix === 'configure') {
					resolve(undefined);
					void openApiUrlSetting();
				} else {
					resolve(item as T | undefined);
				}
			});
			pick.onDidHide(() => resolve(undefined));
			pick.show();
			fill(load ? load() : (loading as Promise<T[]>));
		});
	} finally {
		pick.dispose();
	}
}

/** A server name (agent, runtime, run) for a quick-pick title or placeholder: one line, cut, icons shown as typed. */
export function displayName(name: string | undefined, fallback = ''): string {
	return iconSafe(name || fallback, SAFETY.labelMaxChars);
}

/** Shows an information message whose text may carry server text (made safe: no links, no controls, cut). */
export function showInfo(message: string, ...items: string[]): Thenable<string | undefined> {
	return vscode.window.showInformationMessage(notificationText(message), ...items);
}

/** Shows a warning whose text may carry server text (made safe: no links, no controls, cut). */
export function showWarning(message: string, ...items: string[]): Thenable<string | undefined> {
	return vscode.window.showWarningMessage(notificationText(message), ...items);
}

/** Shows a modal warning; message and detail may carry server text (made safe, detail may keep lines). */
export function showModalWarning(message: string, detail: string | undefined, ...items: string[]): Thenable<string | undefined> {
	return vscode.window.showWarningMessage(
		notificationText(message),
		{ modal: true, detail: detail === undefined ? undefined : notificationText(detail) },
		...items,
	);
}

/**
 * A modal warning whose dismiss button says `dismiss` instead of VS Code's "Cancel" (the close
 * affordance, also what Escape answers): for a question whose action is itself called "Cancel …"
 * (Cancel Run), where "Cancel" beside it could be read either way. Resolves with the chosen action,
 * or undefined when dismissed.
 */
export async function showModalQuestion(
	message: string,
	detail: string | undefined,
	dismiss: string,
	...actions: string[]
): Promise<string | undefined> {
	const close: vscode.MessageItem = { title: dismiss, isCloseAffordance: true };
	const choice = await vscode.window.showWarningMessage(
		notificationText(message),
		{ modal: true, detail: detail === undefined ? undefined : notificationText(detail) },
		...actions.map((title): vscode.MessageItem => ({ title })),
		close,
	);
	return choice === undefined || choice === close ? undefined : choice.title;
}

/** The string field `name` of an automation argument, when it is one. */
export function argString(arg: unknown, name: string): string | undefined {
	const v: unknown = arg !== null && typeof arg === 'object' ? Reflect.get(arg, name) : undefined;
	return typeof v === 'string' ? v : undefined;
}

/** The boolean field `name` of an automation argument, when it is one. */
export function argBoolean(arg: unknown, name: string): boolean | undefined {
	const v: unknown = arg !== null && typeof arg === 'object' ? Reflect.get(arg, name) : undefined;
	return typeof v === 'boolean' ? v : undefined;
}

/** True when the argument is an automation object: one that says so (the marker: src/views/automation.ts). */
export { isAutomation } from './automation';

/** A member of an automation argument (a number, a list, an option word), to be read with typeof checks. */
export function argValue(arg: unknown, name: string): unknown {
	return isAutomation(arg) ? arg[name] : undefined;
}

/** True when the argument is an automation object whose member `name` is `true` (`quiet`, `dryRun`). */
export function argFlag(arg: unknown, name: string): boolean {
	return argValue(arg, name) === true;
}

/**
 * A modal question with one action, skipped when an automation object says `confirm: false`: true
 * to go on. (An automation caller that does not say so is asked, as a person is.)
 */
export async function confirmUnlessTold(arg: unknown, message: string, detail: string | undefined, action: string): Promise<boolean> {
	return argValue(arg, 'confirm') === false || (await showModalWarning(message, detail, action)) === action;
}

/** The object field `name` of an automation argument (a JSON object, not an array), when it is one. */
export function argObject(arg: unknown, name: string): Record<string, unknown> | undefined {
	const v = isAutomation(arg) ? arg[name] : undefined;
	return isJsonObject(v) ? v : undefined;
}

/** A user-facing sentence for a limit broken before sending (ValidationError). */
export function validationMessage(err: ValidationError): string {
	return vscode.l10n.t('Not sent: {0} must be {1}.', err.field, err.limit);
}

/** Shows a ValidationError as a warning (nothing was sent); other errors are rethrown. */
export async function showValidation(err: unknown): Promise<void> {
	if (err instanceof ValidationError) {
		await showWarning(validationMessage(err));
		return;
	}
	throw err;
}

/** True for an ApiError with this HTTP status. */
export function isStatus(err: unknown, status: number): err is ApiError {
	return err instanceof ApiError && err.status === status;
}

/** An AbortSignal that aborts when the VS Code token is cancelled. */
export function toAbortSignal(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
	const controller = new AbortController();
	const sub = token.onCancellationRequested(() => controller.abort());
	if (token.isCancellationRequested) {
		controller.abort();
	}
	return {
		signal: controller.signal,
		dispose: (): void => {
			sub.dispose();
		},
	};
}

/**
 * Opens a new untitled document `<stem>-N.<ext>` (the first N no open untitled document has) holding
 * `text`, in language `languageId`, in an editor (`preview` as `showTextDocument` takes it). The
 * workbench can still hold an untitled document of that name that the extension host no longer
 * lists (one closed a moment ago): its text is never written over, the next name is taken (bounded).
 */
export async function openUntitledDraft(
	stem: string,
	ext: string,
	languageId: string,
	text: string,
	preview?: boolean,
): Promise<vscode.TextDocument> {
	const MAX = 1000;
	const uriOf = (n: number): vscode.Uri => vscode.Uri.from({ scheme: 'untitled', path: `${stem}-${n}.${ext}` });
	const names = new Set(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'untitled').map((d) => d.uri.path));
	let n = 1;
	while (names.has(uriOf(n).path) && n < MAX) {
		n++;
	}
	let doc = await vscode.workspace.openTextDocument(uriOf(n));
	while (doc.getText() !== '' && n < MAX) {
		n++;
		doc = await vscode.workspace.openTextDocument(uriOf(n));
	}
	const editor = await vscode.window.showTextDocument(doc, preview === undefined ? undefined : { preview });
	await editor.edit((e) => e.insert(new vscode.Position(0, 0), text));
	await vscode.languages.setTextDocumentLanguage(doc, languageId);
	return doc;
}

/**
 * Closes every tab of a document that was sent (a request or prompt edited in an untitled editor),
 * reverting it first, in each editor group it is open in; bounded.
 */
export async function closeSentDocument(doc: vscode.TextDocument): Promise<void> {
	const uri = doc.uri.toString();
	for (let i = 0; i < 8; i++) {
		const tab = vscode.window.tabGroups.all
			.flatMap((g) => g.tabs)
			.find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri);
		if (!tab) {
			return;
		}
		const editor = await vscode.window.showTextDocument(doc, { viewColumn: tab.group.viewColumn, preview: false });
		if (editor.document !== doc || vscode.window.activeTextEditor !== editor) {
			return;
		}
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
	}
}
