/** A WorkspaceFeature for unit tests: the real feature over a real client of the emulator, with a session the test controls. */
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { WorkspaceFeature, type WorkspaceFeatureDeps } from '../../../src/workspace/workspaceFeature';
import { type TestEmulator, startWorkspaceEmulator } from '../support/emulator';

export interface TestSession {
	client: CloudAgentsClient;
	apiUrl: string;
	signedIn: boolean;
	initialized: boolean;
	onDidChange: vscode.Event<void>;
	/** Changes the session and fires its change event. */
	change(values: Partial<Pick<TestSession, 'signedIn' | 'apiUrl' | 'initialized'>>): void;
}

export function testSession(client: CloudAgentsClient, apiUrl: string): TestSession {
	const emitter = new vscode.EventEmitter<void>();
	const session: TestSession = {
		client,
		apiUrl,
		signedIn: true,
		initialized: true,
		onDidChange: emitter.event,
		change: (values) => {
			Object.assign(session, values);
			emitter.fire();
		},
	};
	return session;
}

/** A log that keeps its warnings. */
export function testLog(): {
	warnings: string[];
	errors: unknown[][];
	warn(m: string): void;
	error(m: string, ...a: unknown[]): void;
	info(m: string): void;
} {
	const warnings: string[] = [];
	const errors: unknown[][] = [];
	return { warnings, errors, warn: (m) => warnings.push(m), error: (m, ...a) => errors.push([m, ...a]), info: () => undefined };
}

export function testFeature(session: TestSession, extra: Partial<WorkspaceFeatureDeps> = {}): WorkspaceFeature {
	return new WorkspaceFeature({ session, log: testLog(), ...extra });
}

/** The emulator with the demo workspace, a client of it and the demo billing agent's id. */
export interface WorkspaceEmulator {
	emu: TestEmulator;
	client: CloudAgentsClient;
	agentId: string;
}

/**
 * In the calling suite: starts the workspace emulator (of `profile`) once before the suite and hands it
 * to `started`; after the suite closes its client and the emulator. With `demoEachTest`, the emulator is
 * reset to the demo seed before each test (before the suite's own `setup`s registered after this call).
 */
export function workspaceEmulatorPerSuite(
	started: (w: WorkspaceEmulator) => void,
	options: { profile?: Parameters<typeof startWorkspaceEmulator>[0]; demoEachTest?: boolean } = {},
): void {
	let w: WorkspaceEmulator | undefined;
	suiteSetup(async () => {
		w = await startWorkspaceEmulator(options.profile);
		started(w);
	});
	if (options.demoEachTest) {
		setup(async () => {
			await w!.emu.admin('POST', '/reset', { seed: 'demo' });
		});
	}
	suiteTeardown(async () => {
		w?.client.close();
		await w?.emu.close();
	});
}
