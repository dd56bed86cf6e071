/**
 * The words each emulator profile uses at the service description's "not shown" points that the
 * in-host and UI tests look at (docs/contract-choices.md "Profiles"). A test tagged `[variant]`
 * asserts what the extension shows, which is the server's word: it asks here for the word of the
 * profile it runs against (`emulatorProfile()` in the extension host, `emulatorProfile` in a UI
 * test's context). The emulator's admin state (`/_emulator/state`) keeps the standard words in
 * every profile; only what /v2 answers differs.
 */

/** An emulator profile (emulator/README.md "Profiles"). */
export type EmulatorProfile = 'standard' | 'variant' | 'variant-strict';

/** What /v2 answers at the points the tests look at, per profile. */
export interface ProfileWords {
	/** Run statuses as GET …/runs/{id} and the run's events carry them. */
	run: { succeeded: string; failed: string; cancelled: string; held: string };
	/** The status of an agent ready for work, as GET /v2/agents/{id} carries it. */
	agentIdle: string;
	/** The query that asks GET …/artifacts/{id} for the content. */
	artifactContentQuery: string;
	/** The query parameter of GET /v2/agents/{id}/events naming the session. */
	sessionQuery: string;
}

const STANDARD: ProfileWords = {
	run: { succeeded: 'succeeded', failed: 'failed', cancelled: 'cancelled', held: 'running' },
	agentIdle: 'idle',
	artifactContentQuery: 'include_content=true',
	sessionQuery: 'session_id',
};

const VARIANT: ProfileWords = {
	run: { succeeded: 'completed', failed: 'errored', cancelled: 'canceled', held: 'blocked' },
	agentIdle: 'READY',
	artifactContentQuery: 'include=content',
	sessionQuery: 'session',
};

/** The words of `profile`. */
export function profileWords(profile: EmulatorProfile): ProfileWords {
	return profile === 'standard' ? STANDARD : VARIANT;
}

/** A model provider as the emulator's standard profile lists it (`GET /v2/model-providers`), the members the tests read. */
export interface ProviderBody {
	id: string;
	display_name: string;
	endpoint: string;
	model: string;
	enabled: boolean;
}
