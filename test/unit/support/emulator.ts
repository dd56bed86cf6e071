/** Starts the emulator in-process for API tests and talks to its admin API. */
import { request } from 'undici';
import type { ProfileName } from '../../../emulator/src/profile';
import { startEmulator } from '../../../emulator/src/server';

export const DEV_TOKEN = 'ca_dev_0123456789abcdef';
export const READONLY_TOKEN = 'ca_readonly_0123456789abcdef';

export interface TestEmulator {
	url: string;
	close(): Promise<void>;
	admin<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
	faults(rules: Array<Record<string, unknown>>): Promise<void>;
	counters(): Promise<{ requests: { total: number; by_route: Record<string, number> }; mutations: { total: number; by_kind: Record<string, number> } }>;
}

/** Starts the emulator on a free port with the demo seed; `profile` picks its choices where the description is silent. */
export async function startTestEmulator(opts: { profile?: ProfileName } = {}): Promise<TestEmulator> {
	const emu = await startEmulator({ port: 0, seed: 'demo', quiet: true, profile: opts.profile ?? 'standard' });
	const admin = async <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> => {
		const res = await request(`${emu.url}/_emulator${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.body.text();
		if (res.statusCode >= 300) {
			throw new Error(`admin ${method} ${path}: ${res.statusCode} ${text}`);
		}
		return (text ? JSON.parse(text) : undefined) as T;
	};
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
