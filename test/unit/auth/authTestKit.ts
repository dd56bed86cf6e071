/** The set-up the auth tests share: the emulator, and a Session over a test SecretStorage pointed at it. */
import type * as vscode from 'vscode';
import { Session } from '../../../src/auth/session';
import { nodeConnect } from '../../../src/platform/node/network';
import { type TestEmulator, startTestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';

export interface AuthKit {
	emu: TestEmulator;
	secrets: fake.FakeSecretStorage;
	session: Session;
}

/**
 * In the calling suite: the emulator, started once and closed after the suite; before each test the
 * `cloudAgents.apiUrl` setting pointed at it and a new Session (logging to `log`) over a new test
 * SecretStorage, handed to `ready`. The suite disposes the session in its own teardown.
 */
export function sessionPerTest(log: ConstructorParameters<typeof Session>[1], ready: (kit: AuthKit) => void): void {
	let emu: TestEmulator | undefined;
	suiteSetup(async () => {
		emu = await startTestEmulator();
	});
	suiteTeardown(async () => {
		await emu?.close();
	});
	setup(() => {
		fake.settings['cloudAgents.apiUrl'] = emu!.url;
		const secrets = new fake.FakeSecretStorage();
		ready({ emu: emu!, secrets, session: new Session(secrets as unknown as vscode.SecretStorage, log, nodeConnect) });
	});
}
