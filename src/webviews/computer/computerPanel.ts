/**
 * The "Computer — <agent>" panel: noVNC in a webview against a short-lived session. The extension
 * mints sessions (the bearer token stays here), checks each one (`pageSession`) and renders the
 * page with a CSP whose connect-src is that session's socket origin only; the page receives the
 * session itself. Reconnect mints a new session and renders the page again (fresh nonce, new policy).
 */
import * as vscode from 'vscode';
import type { ComputerSession } from '../../api/types';
import { WEBVIEW_TYPES } from '../../ids';
import { describeError } from '../../messages/errors';
import { notificationText, outputLine, singleLine } from '../../util/text';
import { escapeHtml } from '../html';
import type { PanelHost } from '../panel';
import { WebviewPanelBase, webviewPanelOptions } from '../panel';
import type { ComputerHostMessage, ComputerPageMessage, ComputerStrings } from './protocol';
import { PASTE_MAX_CHARS, validateComputerPageMessage } from './protocol';
import type { PageSession } from './session';
import { pageSession } from './session';

/** An agent as the panel names it. */
export interface ComputerAgent {
	id: string;
	/** Display name (server text: made single-line here). */
	name: string;
	/** The agent's runtime, when known (a restored panel reads it from the service when needed). */
	runtimeId?: string;
	/** The id of its deployment when that is not the default one (issue 47); kept with the page's state for a restore. */
	deployment?: string;
	/** The name of its deployment shown in the title when two or more are configured (the default one's too). */
	deploymentName?: string;
}

/** What the panel needs from the extension. */
export interface ComputerPanelHost extends PanelHost {
	/** Mints a session for the agent, with progress; rejects with the service's error. */
	mint(agent: ComputerAgent): Promise<ComputerSession>;
	/** Reads the local clipboard (`vscode.env.clipboard.readText`). */
	readClipboard(): Thenable<string>;
}

/** What the page shows first: a checked session, or why there is none. */
type Start = { kind: 'session'; session: PageSession } | { kind: 'ended'; reason: 'failed' | 'restored' | 'refused'; message: string };

/** The panel title: "Computer — <agent name>", and "(<deployment>)" after it when it names a deployment. */
export function computerTitle(agentName: string, deploymentName?: string): string {
	const title = vscode.l10n.t('Computer — {0}', singleLine(agentName, 80));
	return deploymentName === undefined ? title : vscode.l10n.t('{0} ({1})', title, singleLine(deploymentName, 80));
}

function pageStrings(): ComputerStrings {
	return {
		connecting: vscode.l10n.t('Connecting to the computer…'),
		connected: vscode.l10n.t('Connected.'),
		timeLeft: vscode.l10n.t('Session ends in {0}'),
		expired: vscode.l10n.t('The session expired. Reconnect opens a new one.'),
		disconnected: vscode.l10n.t('Disconnected. Reconnect opens a new session.'),
		lost: vscode.l10n.t('The connection to the computer was lost. Reconnect opens a new session.'),
		securityFailure: vscode.l10n.t('The computer refused the connection: {0}'),
		credentials: vscode.l10n.t(
			'The computer asked for a password, which sessions opened here do not carry. Reconnect opens a new session.',
		),
		minting: vscode.l10n.t('Opening a new session; the service is readying the desktop…'),
		pasted: vscode.l10n.t("Sent {0} characters to the computer's clipboard."),
		pasteEmpty: vscode.l10n.t('The clipboard holds no text.'),
		notConnected: vscode.l10n.t('Not connected: Reconnect first.'),
		ctrlAltDelSent: vscode.l10n.t('Sent Ctrl+Alt+Del to the computer.'),
	};
}

function pageBody(): string {
	const t = (s: string) => escapeHtml(s);
	return `<div class="toolbar" role="toolbar" aria-label="${t(vscode.l10n.t('Computer'))}">
		<button id="scale" class="secondary" aria-pressed="true" title="${t(vscode.l10n.t('Scale the desktop to fit the panel, or show it 1:1'))}">${t(vscode.l10n.t('Scale to Fit'))}</button>
		<button id="view-only" class="secondary" aria-pressed="false" title="${t(vscode.l10n.t('Watch without sending keys or clicks'))}">${t(vscode.l10n.t('View Only'))}</button>
		<button id="ctrl-alt-del" class="secondary">${t(vscode.l10n.t('Send Ctrl+Alt+Del'))}</button>
		<button id="paste" class="secondary" title="${t(vscode.l10n.t("Put the text of your clipboard on the computer's clipboard"))}">${t(vscode.l10n.t('Paste Clipboard'))}</button>
		<span class="spacer"></span>
		<span id="time-left" class="muted" hidden></span>
		<button id="reconnect">${t(vscode.l10n.t('Reconnect'))}</button>
	</div>
	<div class="status-line">
		<div id="status" class="message" role="status" aria-live="polite"></div>
		<button id="new-session" hidden>${t(vscode.l10n.t('Start a New Session'))}</button>
	</div>
	<div id="screen" aria-label="${t(vscode.l10n.t('Remote desktop'))}"></div>`;
}

/** One agent's computer panel. */
export class ComputerPanel extends WebviewPanelBase<ComputerPageMessage, ComputerHostMessage> {
	private start: Start;
	private minting = false;

	/** Opens a new panel on a freshly minted session (checked here: a refused one throws before any page exists). */
	static create(host: ComputerPanelHost, agent: ComputerAgent, session: ComputerSession): ComputerPanel {
		const checked = pageSession(session);
		const panel = vscode.window.createWebviewPanel(
			WEBVIEW_TYPES.computer,
			computerTitle(agent.name, agent.deploymentName),
			vscode.ViewColumn.Active,
			webviewPanelOptions(host.extensionUri, true),
		);
		return new ComputerPanel(panel, host, agent, { kind: 'session', session: checked });
	}

	/** Adopts a panel VS Code restores after a reload: it shows the agent with Reconnect (the old session is gone). */
	static restore(panel: vscode.WebviewPanel, host: ComputerPanelHost, agent: ComputerAgent): ComputerPanel {
		panel.title = computerTitle(agent.name, agent.deploymentName);
		return new ComputerPanel(panel, host, agent, {
			kind: 'ended',
			reason: 'restored',
			message: vscode.l10n.t('The session ended when the window was reloaded. Reconnect opens a new one.'),
		});
	}

	private constructor(
		panel: vscode.WebviewPanel,
		private readonly computer: ComputerPanelHost,
		readonly agent: ComputerAgent,
		start: Start,
	) {
		super(panel, computer, validateComputerPageMessage);
		this.start = start;
		this.draw();
	}

	private draw(): void {
		this.render({
			title: computerTitle(this.agent.name, this.agent.deploymentName),
			script: 'computer',
			styles: ['computer.css'],
			connectSrc: this.start.kind === 'session' ? [this.start.session.origin] : [],
			body: pageBody(),
		});
	}

	protected async onMessage(message: ComputerPageMessage): Promise<void> {
		const log = this.host.log;
		switch (message.type) {
			case 'ready':
				await this.post({
					type: 'agent',
					agentId: this.agent.id,
					agentName: singleLine(this.agent.name, 255),
					...(this.agent.deployment !== undefined ? { deployment: this.agent.deployment } : {}),
					strings: pageStrings(),
				});
				await this.post(
					this.start.kind === 'session'
						? { type: 'session', session: this.start.session.info }
						: { type: 'ended', reason: this.start.reason, message: this.start.message },
				);
				return;
			case 'reconnect':
				return this.reconnect();
			case 'requestPaste': {
				const text = await this.computer.readClipboard();
				await this.post({ type: 'paste', text: text.slice(0, PASTE_MAX_CHARS) });
				return;
			}
			case 'connected':
				log.info(`computer ${this.agent.id}: connected, desktop ${message.width}×${message.height}`);
				return;
			case 'disconnected':
				log.info(
					`computer ${this.agent.id}: disconnected (${message.expired ? 'session expired' : message.clean ? 'clean' : 'error'})`,
				);
				return;
			case 'securityFailure':
				log.warn(`computer ${this.agent.id}: security failure ${message.status}: ${outputLine(message.reason, 500)}`);
				return;
		}
	}

	/** Mints a new session and renders the page on it; failures are shown in the panel. */
	async reconnect(): Promise<void> {
		if (this.minting || this.isDisposed) {
			return;
		}
		this.minting = true;
		try {
			await this.post({ type: 'minting' });
			let session: ComputerSession;
			try {
				session = await this.computer.mint(this.agent);
			} catch (err) {
				this.host.log.error(`computer ${this.agent.id}: opening a session failed:`, err instanceof Error ? err : String(err));
				await this.post({
					type: 'ended',
					reason: 'failed',
					message: notificationText(vscode.l10n.t('Could not open a session: {0}', describeError(err))),
				});
				return;
			}
			if (this.isDisposed) {
				return;
			}
			try {
				this.start = { kind: 'session', session: pageSession(session) };
			} catch (err) {
				const message = err instanceof Error ? err.message : String(err);
				this.host.log.error(`computer ${this.agent.id}: refused the session: ${message}`);
				await this.post({ type: 'ended', reason: 'refused', message: vscode.l10n.t('The session was refused: {0}', message) });
				return;
			}
			this.draw();
		} finally {
			this.minting = false;
		}
	}
}
