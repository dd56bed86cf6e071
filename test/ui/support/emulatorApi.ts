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
