import * as assert from 'node:assert/strict';

/** A JSON call to the emulator (the service's routes or its `/_emulator/*` admin routes) that must succeed. */
export async function emulatorCall<T>(emulatorUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
	const res = await fetch(`${emulatorUrl}${path}`, {
		method,
		headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	assert.ok(res.ok, `${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
	return (text ? JSON.parse(text) : undefined) as T;
}

/** Writes a file into the workspace of the demo seed's agent named `agentName` (it must exist); returns the agent. */
export async function seedWorkspaceFile(
	emulatorUrl: string,
	token: string,
	agentName: string,
	path: string,
	content: string,
): Promise<{ id: string; name: string }> {
	const agents = await emulatorCall<{ agents?: Array<{ id: string; name: string }> }>(emulatorUrl, token, 'GET', '/v2/agents?limit=100');
	const agent = (agents.agents ?? []).find((a) => a.name === agentName);
	assert.ok(agent, `the demo seed has the agent ${agentName}`);
	await emulatorCall(emulatorUrl, token, 'POST', `/_emulator/workspace/${agent.id}/write`, {
		path,
		content_base64: Buffer.from(content).toString('base64'),
	});
	return agent;
}

/** An agent made for one test through the API, returned once the emulator reports it idle (about 20 s at the most). */
export async function createIdleAgent(emulatorUrl: string, token: string, name: string): Promise<{ id: string; name: string }> {
	const agent = await emulatorCall<{ id: string; name: string; status: string }>(emulatorUrl, token, 'POST', '/v2/agents', { name });
	const path = `/v2/agents/${encodeURIComponent(agent.id)}`;
	for (let i = 0; i < 100 && (await emulatorCall<{ status: string }>(emulatorUrl, token, 'GET', path)).status !== 'idle'; i++) {
		await new Promise((r) => setTimeout(r, 200));
	}
	return agent;
}

/**
 * Holds the emulator clock (issue 41): builds, checkpoints, runtime transitions, agent provisioning
 * and GitHub request expiry stand still until `advanceClock` moves them. Resolves with the release
 * (the clock runs on from where it stood; calling it again does nothing); release it in a
 * `finally` (the driver releases a hold before each UI test too). Runs are not held by it.
 */
export async function holdClock(emulatorUrl: string, token: string): Promise<() => Promise<void>> {
	await emulatorCall(emulatorUrl, token, 'PUT', '/_emulator/clock', { held: true });
	let released = false;
	return async () => {
		if (!released) {
			released = true;
			await emulatorCall(emulatorUrl, token, 'PUT', '/_emulator/clock', { held: false });
		}
	};
}

/** Moves the emulator clock `seconds` on (held or not), applying every transition due on the way. */
export async function advanceClock(emulatorUrl: string, token: string, seconds: number): Promise<void> {
	await emulatorCall(emulatorUrl, token, 'POST', '/_emulator/clock/advance', { ms: Math.round(seconds * 1000) });
}

/** An outage of the emulator's service routes, started by `startOutage`. */
export interface Outage {
	/** Ends the outage (through the admin port, which the outage leaves answering). */
	end(): Promise<void>;
}

/**
 * Starts an outage of the emulator's service routes for at most `seconds`: `refuse` closes every
 * connection, `stall` accepts and never answers. The admin routes move to their own port meanwhile.
 */
export async function startOutage(emulatorUrl: string, mode: 'refuse' | 'stall', seconds: number): Promise<Outage> {
	const res = await fetch(`${emulatorUrl}/_emulator/outage`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ mode, seconds }),
	});
	assert.equal(res.status, 200, `the outage (${mode}) started`);
	const adminUrl = ((await res.json()) as { admin_url: string }).admin_url.replace(/\/+$/, '');
	return {
		end: async () => {
			await fetch(`${adminUrl}/_emulator/outage`, { method: 'DELETE' });
		},
	};
}
