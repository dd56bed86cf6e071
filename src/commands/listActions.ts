import * as vscode from 'vscode';
import { SAFETY } from '../api';
import type { CommandId } from '../ids';
import { notificationText, plainText } from '../util/text';
import type { ActionKit, AnyListDescriptor } from '../views';
import { LIST_DESCRIPTORS } from '../views';
import { titledRecordUri } from '../views/recordDocuments';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { isAutomation, showInfo, showModalWarning, showWarning, toAbortSignal } from './support';
import { resolveTarget } from './targets';

/**
 * Registers the commands every list declares in its descriptor (src/views/lists): `refresh`
 * re-reads the list (with a subtree's id, from its Retry row, only that subtree), `loadMore`
 * reads one page more (with a subtree's id, of that subtree), and each of its `actions` resolves
 * its record through the command-target resolver and runs on it.
 */
export function registerListCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, { onUnauthorized: deps.onUnauthorized });
	const out: vscode.Disposable[] = [];
	for (const descriptor of LIST_DESCRIPTORS) {
		const { refresh, loadMore } = descriptor.commands ?? {};
		if (refresh) {
			out.push(registerCommand(refresh, (listId?: unknown) => deps.views.providerOf(descriptor).refresh(listId)));
		}
		if (loadMore) {
			out.push(registerCommand(loadMore, (listId?: unknown) => deps.views.providerOf(descriptor).loadMore(listId)));
		}
		for (const [id, action] of Object.entries(descriptor.actions ?? {})) {
			if (!action) {
				continue;
			}
			out.push(
				registerCommand(id as CommandId, async (arg?: unknown) => {
					const target = await resolveTarget(deps, descriptor, arg, {
						title: action.title(),
						filter: action.filter,
						useSelection: action.useSelection,
					});
					return target === undefined ? undefined : action.run(target, kit(deps, descriptor, arg));
				}),
			);
		}
	}
	return out;
}

/** The ActionKit of one invocation. */
function kit(deps: FeatureDeps, descriptor: AnyListDescriptor, arg: unknown): ActionKit {
	const automation = isAutomation(arg);
	return {
		client: () => deps.session.client,
		arg,
		automation,
		confirm: async (message, detail, action) => automation || (await showModalWarning(message, detail, action)) === action,
		progress: async (title, work) =>
			vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: notificationText(title), cancellable: true },
				async (_progress, token) => {
					const abort = toAbortSignal(token);
					try {
						return await work(abort.signal);
					} finally {
						abort.dispose();
					}
				},
			),
		info: (message) => void showInfo(message),
		warn: (message) => void showWarning(message),
		// JSON.stringify escapes control characters; plainText also drops bidi and invisible ones.
		showJson: (title, key, value) =>
			deps.records.show(
				titledRecordUri(title, ...key),
				`${plainText(JSON.stringify(value, null, 2), SAFETY.documentMaxChars)}\n`,
				'json',
				{ forceLanguage: true },
			),
		refresh: () => deps.views.providerOf(descriptor).refresh(),
	};
}
