/**
 * Points the extension at a hostile test server (test/hostile/server.ts) for one suite and puts the
 * emulator back afterwards: `cloudAgents.apiUrl` and any other settings given, the sign-in (the
 * hostile server accepts any token), and the dev token for the suites that follow.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { TOKEN } from '../../hostile/fixtures';
import { type HostileServer, type Scenario, startHostile } from '../../hostile/server';
import { restoreDevToken, waitFor } from './cloudAgents';

export interface HostileSession {
	server: HostileServer;
	/** Restores the settings, the emulator URL and the dev token, and stops the server. */
	restore(): Promise<void>;
}

/**
 * Starts a hostile server with `scenario`, sets `settings` (full keys, e.g. `cloudAgents.pageSize`)
 * and `cloudAgents.apiUrl`, waits until the session uses it and signs in there: through the Sign In
 * command (`signIn: 'command'`, the default) or by storing the token directly (`'store'`).
 */
export async function useHostileServer(
	api: CloudAgentsTestApi,
	scenario: Scenario,
	options: { settings?: Record<string, unknown>; signIn?: 'command' | 'store' } = {},
): Promise<HostileSession> {
	const server = await startHostile(scenario);
	// The Activity watcher stays off the hostile server: the suites count its requests (one poll would add a page of agents).
	const activity = api.activity.suspend();
	const previous = new Map<string, unknown>();
	const update = async (key: string, value: unknown): Promise<void> => {
		const dot = key.lastIndexOf('.');
		await vscode.workspace.getConfiguration(key.slice(0, dot)).update(key.slice(dot + 1), value, vscode.ConfigurationTarget.Global);
	};
	const settings = { ...options.settings, 'cloudAgents.apiUrl': server.baseUrl };
	for (const [key, value] of Object.entries(settings)) {
		const dot = key.lastIndexOf('.');
		previous.set(key, vscode.workspace.getConfiguration(key.slice(0, dot)).inspect(key.slice(dot + 1))?.globalValue);
		await update(key, value);
	}
	await waitFor('the session to use the hostile server', async () => (api.session.apiUrl === server.baseUrl ? true : undefined));
	if (options.signIn === 'store') {
		await api.session.storeToken(TOKEN);
	} else {
		assert.equal(
			await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: TOKEN }),
			true,
			'signed in to the hostile server',
		);
	}
	return {
		server,
		restore: async () => {
			if (api.session.apiUrl === server.baseUrl) {
				await api.session.deleteToken().catch(() => undefined);
			}
			for (const [key, value] of [...previous].reverse()) {
				await update(key, value);
			}
			await waitFor('the session to use the emulator again', async () => (api.session.apiUrl !== server.baseUrl ? true : undefined));
			await restoreDevToken();
			await server.close();
			activity.dispose();
		},
	};
}
