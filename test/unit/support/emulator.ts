/** Starts the emulator in-process for API tests and talks to its admin API. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { PROFILE_NAMES, type ProfileName } from '../../../emulator/src/profile';
import { startEmulator } from '../../../emulator/src/server';
import { CloudAgentsClient, type CloudAgentsClientOptions } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';

export const DEV_TOKEN = 'ca_dev_0123456789abcdef';

/**
 * The profiles the client's emulator-backed suites run against: `standard` (the choices the
 * extension was written against) and `variant` (another reasonable choice at every "not shown"
 * point, docs/contract-choices.md "Profiles"). `CLOUD_AGENTS_TEST_PROFILES=standard` (a comma list)
 * narrows a local run; an unknown name fails loudly rather than running nothing. The emulator's own
 * tests (test/unit/emulator/) stay on `standard`: they validate answers against spec/openapi.yaml,
 * which encodes the standard choices (variant.test.ts checks the variant itself).
 */
export const CLIENT_PROFILES: readonly ProfileName[] = profilesFromEnv(process.env.CLOUD_AGENTS_TEST_PROFILES);

function profilesFromEnv(value: string | undefined): ProfileName[] {
	const all: ProfileName[] = ['standard', 'variant'];
	if (!value) {
		return all;
	}
	const names = value
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	for (const name of names) {
		if (!PROFILE_NAMES.includes(name as ProfileName)) {
			throw new Error(`CLOUD_AGENTS_TEST_PROFILES: unknown profile ${JSON.stringify(name)} (known: ${PROFILE_NAMES.join(', ')})`);
		}
	}
	return names as ProfileName[];
}

/**
 * `CLOUD_AGENTS_TEST_VARIANT_PENDING=1` runs the VARIANT-PENDING tests (skipped by default until the
 * client copes with the variant) to see how far src/api has come.
 */
export const RUN_VARIANT_PENDING = process.env.CLOUD_AGENTS_TEST_VARIANT_PENDING === '1';

/** True for the profiles that make the variant's choices (`variant`, `variant-strict`). */
export function isVariant(profile: ProfileName): boolean {
	return profile !== 'standard';
}

export const READONLY_TOKEN = 'ca_readonly_0123456789abcdef';

export interface TestEmulator {
	url: string;
	close(): Promise<void>;
	admin<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
	faults(rules: Array<Record<string, unknown>>): Promise<void>;
	counters(): Promise<{
		requests: { total: number; by_route: Record<string, number> };
		mutations: { total: number; by_kind: Record<string, number> };
		workspace: { by_op: Record<string, number>; reads_by_path: Record<string, number> };
	}>;
}

/** A call to the admin API (`/_emulator…`) of the emulator at `base`; throws on an error status. */
export async function emulatorAdmin<T>(base: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
	const res = await request(`${base}/_emulator${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.body.text();
	if (res.statusCode >= 300) {
		throw new Error(`admin ${method} ${path}: ${res.statusCode} ${text}`);
	}
	return (text ? JSON.parse(text) : undefined) as T;
}

/** Starts the emulator on a free port with the demo seed; `profile` picks its choices where the description is silent. */
export async function startTestEmulator(opts: { profile?: ProfileName } = {}): Promise<TestEmulator> {
	const emu = await startEmulator({ port: 0, seed: 'demo', quiet: true, profile: opts.profile ?? 'standard' });
	const admin = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> =>
		emulatorAdmin<T>(emu.url, method, path, body);
	return {
		url: emu.url,
		close: () => emu.close(),
		admin,
		faults: async (rules) => {
			await admin('PUT', '/faults', { rules });
		},
		counters: () => admin('GET', '/counters'),
	};
}

/**
 * The emulator (demo seed, `profile`), a client of it with the dev token and short retries (or
 * `clientOptions` instead), and the id of the seed's billing agent, whose workspace the file-system
 * suites use.
 */
export async function startWorkspaceEmulator(
	profile: ProfileName = 'standard',
	clientOptions: Omit<CloudAgentsClientOptions, 'connect' | 'baseUrl' | 'getToken'> = { retry: { baseDelayMs: 1, maxDelayMs: 5 } },
): Promise<{ emu: TestEmulator; client: CloudAgentsClient; agentId: string }> {
	const emu = await startTestEmulator({ profile });
	const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN, ...clientOptions });
	const agents = await client.listAgents({ limit: 100 });
	const billing = agents.items.find((a) => a.name === 'Refactor billing module');
	if (!billing) {
		throw new Error('the demo seed has no billing agent');
	}
	return { emu, client, agentId: billing.id };
}

/** A client of a loopback port nothing listens on (a server bound it, then closed), and that port: every request is refused. */
export async function clientOfDeadPort(): Promise<{ client: CloudAgentsClient; port: number }> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	const client = new CloudAgentsClient({
		connect: nodeConnect,
		baseUrl: `http://127.0.0.1:${port}`,
		getToken: () => DEV_TOKEN,
		retry: { baseDelayMs: 1, maxDelayMs: 5 },
	});
	return { client, port };
}

/**
 * The demo emulator of one suite, for tests of its outage switch: started in suiteSetup, closed in
 * suiteTeardown, its outage (and its faults) ended after every test. Call it in the suite's body;
 * `url` and `adminUrl` are readable once the suite runs.
 */
export function outageEmulatorPerSuite(): { readonly url: string; readonly adminUrl: string } {
	let emu: Awaited<ReturnType<typeof startEmulator>> | undefined;
	const running = (): Awaited<ReturnType<typeof startEmulator>> => {
		if (!emu) {
			throw new Error('the suite has not started its emulator');
		}
		return emu;
	};
	suiteSetup(async () => {
		emu = await startEmulator({ port: 0, seed: 'demo', quiet: true });
	});
	suiteTeardown(async () => {
		await emu?.close();
	});
	teardown(async () => {
		await emulatorAdmin(running().adminUrl, 'DELETE', '/outage');
		await emulatorAdmin(running().adminUrl, 'DELETE', '/faults');
	});
	return {
		get url() {
			return running().url;
		},
		get adminUrl() {
			return running().adminUrl;
		},
	};
}
