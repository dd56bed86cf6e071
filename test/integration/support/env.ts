/**
 * What the driving script (scripts/test-integration.mjs or scripts/test-desktop.mjs) tells the
 * suites through the extension host's environment.
 */

import { type ProfileWords, profileWords } from './profile';

function required(name: string): string {
	const value = process.env[name];
	if (!value) {
		throw new Error(`${name} is not set: run the integration tests through npm run test:integration`);
	}
	return value;
}

/** Base URL of the emulator the harness started, e.g. `http://127.0.0.1:40123` (no trailing slash). */
export function emulatorUrl(): string {
	return required('CLOUD_AGENTS_EMULATOR_URL').replace(/\/+$/, '');
}

/** The emulator's full-access dev token. */
export function devToken(): string {
	return process.env.CLOUD_AGENTS_DEV_TOKEN ?? 'ca_dev_0123456789abcdef';
}

/**
 * The emulator profile of this pass (`standard`, `variant` or `variant-strict`; emulator/README.md
 * "Profiles"). The harness runs every test against `standard`, then the tests tagged `[variant]`
 * against `variant`: a tagged test that expects a profile's own choice asks here.
 */
export function emulatorProfile(): 'standard' | 'variant' | 'variant-strict' {
	const value = process.env.CLOUD_AGENTS_EMULATOR_PROFILE ?? 'standard';
	if (value !== 'standard' && value !== 'variant' && value !== 'variant-strict') {
		throw new Error(`CLOUD_AGENTS_EMULATOR_PROFILE: unknown profile ${JSON.stringify(value)}`);
	}
	return value;
}

/** The words of this pass's emulator profile at the "not shown" points the tests look at (support/profile.ts). */
export function words(): ProfileWords {
	return profileWords(emulatorProfile());
}

/** One certificate authority of the network suite and the server certificate it signed (PEM files). */
export interface CertificateFiles {
	ca: string;
	cert: string;
	key: string;
}

/** What scripts/lib/networkFixtures.mjs wrote for the network suite. */
export interface NetworkFixtures {
	/** This machine's non-loopback IPv4 address (the certificates name it), or null when it has none. */
	host: string | null;
	/** Trusted through NODE_EXTRA_CA_CERTS. */
	extra: CertificateFiles;
	/** Trusted through the system store (SSL_CERT_FILE). */
	system: CertificateFiles;
	/** Trusted nowhere. */
	untrusted: CertificateFiles;
}

/** The network suite's certificates (CLOUD_AGENTS_TEST_NETWORK), or undefined when the driver made none. */
export async function networkFixtures(): Promise<NetworkFixtures | undefined> {
	const file = process.env.CLOUD_AGENTS_TEST_NETWORK;
	if (!file) {
		return undefined;
	}
	const { readFile } = await import('node:fs/promises');
	return JSON.parse(await readFile(file, 'utf8')) as NetworkFixtures;
}
