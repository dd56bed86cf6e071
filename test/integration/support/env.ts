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
