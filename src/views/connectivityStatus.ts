import * as vscode from 'vscode';
import { CONTEXT_KEYS } from '../ids';
import { describeError } from '../messages/errors';
import { Disposable } from '../util/lifecycle';
import { plainText } from '../util/text';
import type { Connectivity } from './connectivity';
import { clockTime } from './format';
import { RETRY_NOW_COMMAND } from './listTree';

/**
 * The status bar item "$(sync~spin) Cloud Agents: reconnecting", shown while the shared connectivity
 * (connectivity.ts) is offline and gone as soon as the service answers again: the tooltip says since
 * when and why (with the request id when the failure had one), a click runs Retry Connection Now. Also
 * keeps the `cloudAgents.offline` context key (the palette offers Retry Connection Now only then).
 * A separate item from the followed run's (src/runFollowing/runFollower.ts), to its right.
 */
export class ConnectionStatusBar extends Disposable {
	private readonly item = this.register(vscode.window.createStatusBarItem('cloudAgents.connection', vscode.StatusBarAlignment.Left, 49));
	private offlineKey: boolean | undefined;

	constructor(private readonly connectivity: Connectivity) {
		super();
		this.item.name = vscode.l10n.t('Cloud Agents Connection');
		this.item.text = `$(sync~spin) ${vscode.l10n.t('Cloud Agents: reconnecting')}`;
		this.item.command = { command: RETRY_NOW_COMMAND, title: vscode.l10n.t('Retry Connection Now') };
		this.register(connectivity.onDidChange(() => this.update()));
		this.update();
	}

	private update(): void {
		const state = this.connectivity.state;
		this.setOfflineKey(state !== undefined);
		if (state === undefined) {
			this.item.hide();
			return;
		}
		const lines = [
			vscode.l10n.t('Cannot reach the Cloud Agents service since {0}.', clockTime(state.since)),
			vscode.l10n.t('Reason: {0}', describeError(state.reason)),
			state.attempting
				? vscode.l10n.t('Retrying now…')
				: vscode.l10n.t('The views keep their rows and refresh by themselves when it answers. Click to retry now.'),
		];
		this.item.tooltip = plainText(lines.join('\n'));
		this.item.show();
	}

	private setOfflineKey(offline: boolean): void {
		if (this.offlineKey === offline) {
			return;
		}
		this.offlineKey = offline;
		void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.offline, offline);
	}
}
