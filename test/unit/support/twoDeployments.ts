/**
 * Two services as two deployments (issue 47), the setup the unit tests of several deployments share:
 * the default deployment at one service and "Staging" at the other. Either two emulators of the demo
 * seed, on which the billing agent has one id (`twoEmulatorsPerSuite`), or two loopback services
 * that each know one key and record every request (`twoKeyServicesPerSuite`, for signing in and out).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as vscode from 'vscode';
import type { CloudAgentsClient, CloudAgentsClientOptions } from '../../../src/api';
import { type Deployment, deploymentId, normaliseApiUrl } from '../../../src/auth/deployments';
import type { HeldDeployment } from '../../../src/auth/perDeployment';
import type { ProfileName } from '../../../emulator/src/profile';
import { type TestEmulator, startWorkspaceEmulator } from './emulator';
import { collected } from './leaks';
import { type Served, serve } from './serve';

/** The deployment at `url` as the settings name it: its URL normalised, its id from that URL. */
export function deploymentAt(url: string, name: string, isDefault: boolean): Deployment {
	const apiUrl = normaliseApiUrl(url);
	return { id: deploymentId(apiUrl), name, apiUrl, isDefault };
}

/**
 * Deployments as DeploymentSessions lists them: `all` read from `list` each time (a test changes
 * what it returns), `onDidChange` the test's `changed`.
 */
export function listedDeployments<S>(
	list: () => readonly HeldDeployment<S>[],
	changed: vscode.EventEmitter<void>,
): { readonly all: readonly HeldDeployment<S>[]; readonly onDidChange: vscode.Event<void> } {
	return {
		get all() {
			return list();
		},
		onDidChange: changed.event,
	};
}

/** An emulator as a deployment: a client of it (the dev token), the demo billing agent's id, and its deployment. */
export interface EmulatedDeployment {
	readonly emu: TestEmulator;
	readonly client: CloudAgentsClient;
	readonly agentId: string;
	readonly deployment: Deployment;
}

/** How twoEmulatorsPerSuite starts its emulators. */
export interface TwoEmulatorsOptions {
	profile?: ProfileName;
	/** The default deployment's name, or how it is named from its normalised URL; '127.0.0.1' unless given. */
	homeName?: string | ((apiUrl: string) => string);
	/** Reset both to the demo seed before each test (before the suite's own `setup`s registered after this call). */
	demoEachTest?: boolean;
	/** The clients' options beside the URL and the token; short retries unless given (startWorkspaceEmulator). */
	client?: Omit<CloudAgentsClientOptions, 'connect' | 'baseUrl' | 'getToken'>;
}

/**
 * In the calling suite: two emulators of the demo seed, started before it as the default deployment
 * and "Staging" and handed to `started`; their clients and the emulators closed after it.
 */
export function twoEmulatorsPerSuite(
	started: (home: EmulatedDeployment, staging: EmulatedDeployment) => void,
	options: TwoEmulatorsOptions = {},
): void {
	const both: Array<Pick<EmulatedDeployment, 'emu' | 'client'>> = [];
	const emulated = async (name: string | ((apiUrl: string) => string), isDefault: boolean): Promise<EmulatedDeployment> => {
		const w = await startWorkspaceEmulator(options.profile, options.client);
		both.push(w);
		const named = typeof name === 'string' ? name : name(normaliseApiUrl(w.emu.url));
		return { ...w, deployment: deploymentAt(w.emu.url, named, isDefault) };
	};
	suiteSetup(async () => {
		const home = await emulated(options.homeName ?? '127.0.0.1', true);
		started(home, await emulated('Staging', false));
	});
	if (options.demoEachTest) {
		setup(async () => {
			await Promise.all(both.map((d) => d.emu.admin('POST', '/reset', { seed: 'demo' })));
		});
	}
	suiteTeardown(async () => {
		for (const d of both.splice(0)) {
			d.client.close();
			await d.emu.close();
		}
	});
}

/** Requests an emulator counted since its counters were reset whose route has `kind` (a method or a word of the route). */
export async function requestsTo(emu: TestEmulator, kind: string): Promise<number> {
	return Object.entries((await emu.counters()).requests.by_route)
		.filter(([route]) => route.includes(kind))
		.reduce((sum, [, n]) => sum + n, 0);
}

/** The key the default deployment's service knows. */
export const PROD_KEY = 'ca_prod_key_1111111111111111';
/** The key Staging's service knows. */
export const STAGING_KEY = 'ca_staging_key_2222222222222222';

/** The sessions' log: what it is told is kept where the leak check looks (support/leaks.ts). */
export const collectingLog = {
	debug: (m: string) => void collected.push(m),
	info: (m: string) => void collected.push(m),
	warn: (m: string) => void collected.push(m),
	error: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map(String)),
};

/**
 * A service that knows one key: GET /v2/me answers for it (401 otherwise), DELETE /v2/auth/token
 * revokes it. Every request recorded: its Authorization header (`auth`), and as
 * `<method> <url> <own key | the header | none>` (`seen`).
 */
export interface KeyService extends Served {
	readonly auth: string[];
	readonly seen: string[];
}

/** A KeyService of `key`, whose account is `email`. */
export async function keyService(key: string, email: string): Promise<KeyService> {
	const auth: string[] = [];
	const seen: string[] = [];
	const served = await serve((req: IncomingMessage, res: ServerResponse) => {
		auth.push(req.headers.authorization ?? '');
		const ok = req.headers.authorization === `Bearer ${key}`;
		seen.push(`${req.method} ${req.url} ${ok ? 'own key' : (req.headers.authorization ?? 'none')}`);
		if (req.url === '/v2/me' && ok) {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ email }));
		} else if (req.url === '/v2/auth/token' && req.method === 'DELETE' && ok) {
			res.writeHead(204).end();
		} else {
			res.writeHead(401, { 'content-type': 'application/json' }).end(
				JSON.stringify({ error: { code: 'unauthenticated', message: 'no' } }),
			);
		}
	});
	return Object.assign(served, { auth, seen });
}

/**
 * In the calling suite: the default deployment's KeyService (PROD_KEY, prod@example.test) and
 * Staging's (STAGING_KEY, staging@example.test), started before it and handed to `started`, their
 * records emptied before each test, closed after it.
 */
export function twoKeyServicesPerSuite(started: (prod: KeyService, staging: KeyService) => void): void {
	const both: KeyService[] = [];
	suiteSetup(async () => {
		both.push(await keyService(PROD_KEY, 'prod@example.test'), await keyService(STAGING_KEY, 'staging@example.test'));
		started(both[0]!, both[1]!);
	});
	setup(() => {
		for (const s of both) {
			s.auth.length = 0;
			s.seen.length = 0;
		}
	});
	suiteTeardown(async () => {
		for (const s of both.splice(0)) {
			await s.close();
		}
	});
}
