import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ApiError } from '../../../src/api';
import type { AuthFlows } from '../../../src/auth/authProvider';
import type { Session } from '../../../src/auth/session';
import { authCommands, authProvider } from '../../../src/flows/auth';
import { registerFlows } from '../../../src/views/registry';
import * as fake from '../support/vscodeFake';

/** src/flows/auth.ts: the sign-in and sign-out commands and the Accounts provider, on the `vscode` fake. */
suite('flows/auth', () => {
	let disposables: vscode.Disposable[];
	let flowCalls: Array<[string, unknown]>;
	let reported: unknown[];
	let failWith: Error | undefined;
	setup(() => {
		flowCalls = [];
		reported = [];
		failWith = undefined;
		const flows: AuthFlows = {
			signIn: async (_deps, args) => {
				flowCalls.push(['signIn', args]);
				if (failWith) {
					throw failWith;
				}
				return true;
			},
			signOut: async (_deps, args) => {
				flowCalls.push(['signOut', args]);
				return false;
			},
			addDeployment: async (_deps, args) => {
				flowCalls.push(['addDeployment', args]);
				return false;
			},
		};
		const session = {
			onDidChange: new fake.EventEmitter<void>().event,
			reportError: (err: unknown) => {
				reported.push(err);
				return true;
			},
		} as unknown as Session;
		const deps = { session, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, flows };
		// As the shell registers them (src/extension.ts registerShellCommands).
		disposables = [
			authProvider(deps),
			...registerFlows(authCommands(deps), deps.log, { onUnauthorized: (err) => session.reportError(err) }),
		];
	});
	teardown(() => disposables.forEach((d) => void d.dispose()));

	test('registers the Accounts provider and the three commands, which hand their argument to the flows and answer theirs', async () => {
		assert.equal(fake.calls('authentication.registerAuthenticationProvider').length, 1);
		assert.equal(await fake.registeredCommand('cloudAgents.signIn')!({ apiKey: 'k' }), true);
		assert.equal(await fake.registeredCommand('cloudAgents.signOut')!({ confirm: false }), false);
		assert.equal(await fake.registeredCommand('cloudAgents.addDeployment')!({ name: 'Staging' }), false);
		assert.deepEqual(flowCalls, [
			['signIn', { apiKey: 'k' }],
			['signOut', { confirm: false }],
			['addDeployment', { name: 'Staging' }],
		]);
	});

	test("a 401 of a command goes to the session's single sign-in-again prompt, not an error message", async () => {
		failWith = new ApiError(401, 'unauthorized', 'expired', undefined);
		assert.equal(await fake.registeredCommand('cloudAgents.signIn')!(), undefined);
		assert.deepEqual(reported, [failWith]);
		assert.deepEqual(fake.calls('window.showErrorMessage'), []);
	});

	test('disposing takes the commands away', () => {
		disposables.forEach((d) => void d.dispose());
		assert.equal(fake.registeredCommand('cloudAgents.signIn'), undefined);
		assert.equal(fake.registeredCommand('cloudAgents.signOut'), undefined);
		assert.equal(fake.registeredCommand('cloudAgents.addDeployment'), undefined);
		disposables = [];
	});
});
