/**
 * The test harness's seams: commands that are not contributed, registered only when the extension
 * runs under the harness (scripts/test-integration.mjs and scripts/test-desktop.mjs set
 * CLOUD_AGENTS_TEST_REPORT). Everything the integration and UI tests reach that a user cannot is
 * here, in one place:
 * - `_cloudAgents.views.rows(key, parentRowId?)`: a view's rows as plain data;
 * - `_cloudAgents.views.click(key, rowId, parentRowId?)`: a row's default action, as a click runs it;
 * - `_cloudAgents.views.selectAgent(agentId?)`: the agent the Runs and Artifacts views follow;
 * - `_cloudAgents.connection.status()`: the "reconnecting" status bar item as plain data;
 * - `_cloudAgents.workspace.clearCache()`: the `cloud-agent:` file system starts from an empty cache;
 * - `_cloudAgents.workspace.interfaceNotices()`: the "interface differs" messages shown so far;
 * - `_cloudAgents.workspace.retry(agentId?)`: asks an agent's workspace interface again;
 * - `_cloudAgents.workspace.resetSearchHint()`: the once-per-machine search hint may show again;
 * - `_cloudAgents.workspace.searchHints()`: the texts of the search hints shown so far;
 * - `_cloudAgents.savings.exportTo(range, runtimeId, target)`: the CSV export without its dialog;
 * - `_cloudAgents.chat.prepare(toolName, input)`: a language-model tool's `prepareInvocation` as plain
 *   data (`vscode.lm.invokeTool` shows its confirmation only as a dialog, outside any chat).
 * The workspace feature loads with the commands, on first use: until it has, there is no cache to
 * clear, no notice and no hint; of the workspace seams only resetSearchHint loads it.
 * And what the tests read from `activate`'s result (`TestRecorder`: notifications and prompts shown).
 */
import * as vscode from 'vscode';
import type { Session } from './auth/session';
import type { LazyFeatures } from './shell/lazy';
import type { RunFollower } from './logs';
import type { CloudAgentViews } from './views';
import type { ConnectionStatusSnapshot } from './views/connectivityStatus';
import type { AnyListDescriptor } from './views/descriptor';
import type { RangeId } from './webviews/savings/data';

/** The environment variable the harness sets; without it no seam is registered. */
export const TEST_HARNESS_ENV = 'CLOUD_AGENTS_TEST_REPORT';

/** Whether the extension runs under the test harness. */
export function underTestHarness(): boolean {
	return process.env[TEST_HARNESS_ENV] !== undefined;
}

/** The environment variable that points GitHub lookups (Create Agent's owner/name) at a stub; read only under the harness. */
export const GITHUB_API_URL_ENV = 'CLOUD_AGENTS_GITHUB_API_URL';

/** The GitHub REST API base the tests set (GITHUB_API_URL_ENV, read at each lookup), else undefined (GitHub's own). */
export function githubApiUrlForTests(): string | undefined {
	return underTestHarness() ? process.env[GITHUB_API_URL_ENV] || undefined : undefined;
}

/** What the tests count that the user saw: read through the test API (`activate`'s result). */
export class TestRecorder {
	/** How many end-of-run notifications this window showed. */
	notificationsShown = 0;
	/** The text and action titles of the last end-of-run notification. */
	lastNotification: { text: string; actions: string[] } | undefined;
	/** How many "sign in again" prompts this window showed. */
	unauthorizedPrompts = 0;
}

/** What the seams reach. */
export interface TestSeamDeps {
	views: CloudAgentViews;
	/** The list whose selection `_cloudAgents.views.selectAgent` sets (the Agents list). */
	agents: AnyListDescriptor;
	/** The commands loaded on first use, with the agent workspace (`workspace` of what they load). */
	features: Pick<LazyFeatures, 'load' | 'current'>;
	follower: Pick<RunFollower, 'onDidAnnounceEnd'>;
	session: Pick<Session, 'onDidPromptSignIn'>;
	/** Filled from the follower's and the session's events. */
	recorder: TestRecorder;
	/** The "reconnecting" status bar item. */
	connection: { snapshot(): ConnectionStatusSnapshot };
}

/** Registers the seams (only under the harness); the caller owns the disposables. */
export function registerTestSeams(deps: TestSeamDeps): vscode.Disposable[] {
	if (!underTestHarness()) {
		return [];
	}
	const { views, features, recorder } = deps;
	return [
		deps.follower.onDidAnnounceEnd((notice) => {
			recorder.notificationsShown++;
			recorder.lastNotification = { text: notice.text, actions: notice.actions };
		}),
		deps.session.onDidPromptSignIn(() => recorder.unauthorizedPrompts++),
		vscode.commands.registerCommand('_cloudAgents.views.rows', (key: string, parentRowId?: string, options?: { asShown?: boolean }) =>
			views.rows(key, parentRowId, options),
		),
		vscode.commands.registerCommand('_cloudAgents.views.click', (key: string, rowId: string, parentRowId?: string) =>
			views.click(key, rowId, parentRowId),
		),
		vscode.commands.registerCommand(
			'_cloudAgents.views.runOnRow',
			(key: string, rowId: string, command: string, options?: Record<string, unknown>) =>
				views.runOnRow(key, rowId, command, options),
		),
		vscode.commands.registerCommand('_cloudAgents.views.selectAgent', (agentId: string | undefined) =>
			views.selectById(deps.agents, agentId),
		),
		vscode.commands.registerCommand('_cloudAgents.connection.status', () => deps.connection.snapshot()),
		vscode.commands.registerCommand('_cloudAgents.workspace.clearCache', () => features.current?.workspace.cache.clear()),
		vscode.commands.registerCommand(
			'_cloudAgents.workspace.interfaceNotices',
			() => features.current?.workspace.interfaceNotices ?? [],
		),
		vscode.commands.registerCommand('_cloudAgents.workspace.retry', (agentId?: string) =>
			features.current?.workspace.retryInterface(agentId),
		),
		vscode.commands.registerCommand('_cloudAgents.workspace.resetSearchHint', () => features.load().workspace.resetSearchHint()),
		vscode.commands.registerCommand('_cloudAgents.workspace.searchHints', () => features.current?.workspace.searchHints ?? []),
		vscode.commands.registerCommand(
			'_cloudAgents.savings.exportTo',
			(range: RangeId, runtimeId: string | undefined, target: vscode.Uri) =>
				features.load().exportSavings({ range, runtimeId }, target),
		),
		vscode.commands.registerCommand('_cloudAgents.chat.prepare', async (name: string, input: unknown) => {
			const prepared = await features.load().chatTools.prepare(name, { input }, new vscode.CancellationTokenSource().token);
			const text = (m: string | vscode.MarkdownString | undefined): string | undefined => (typeof m === 'string' ? m : m?.value);
			return {
				invocationMessage: text(prepared?.invocationMessage),
				title: text(prepared?.confirmationMessages?.title),
				message: text(prepared?.confirmationMessages?.message),
			};
		}),
		// What a link's source control shows now, without comparing (src/changes/).
		vscode.commands.registerCommand('_cloudAgents.changes.shown', (linkId: string) => features.load().changesShown(linkId)),
	];
}
