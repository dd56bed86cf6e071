import type { FastifyInstance } from 'fastify';
import { randomInt } from 'node:crypto';
import type { Emulator } from '../emulator';
import { randomToken, sha256 } from '../ids';
import type { DeviceRow } from '../state';
import { body, str } from './common';

const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const DEVICE_CODE_TTL_SECONDS = 600;
export const ACCESS_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

function userCode(): string {
	let s = '';
	for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]!;
	return `${s.slice(0, 4)}-${s.slice(4)}`;
}

export function normalizeUserCode(v: string): string {
	const s = v.toUpperCase().replace(/[^A-Z]/g, '');
	return s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4)}` : v.toUpperCase();
}

export function registerAuth(app: FastifyInstance, emu: Emulator): void {
	app.post(
		'/v2/auth/device/authorization',
		{
			config: { auth: 'none' },
			schema: {
				body: {
					type: 'object',
					required: ['client_id'],
					properties: { client_id: { type: 'string', minLength: 1, maxLength: 255 }, scope: { type: 'string', maxLength: 1024 } },
				},
			},
		},
		async (req) => {
			const b = body<{ client_id: string; scope?: string }>(req);
			const deviceCode = randomToken('dc_');
			const now = Date.now();
			const row: DeviceRow = {
				device_code_hash: sha256(deviceCode),
				user_code: userCode(),
				client_id: b.client_id,
				scope: b.scope,
				created_ms: now,
				expires_ms: now + DEVICE_CODE_TTL_SECONDS * 1000,
				interval: emu.config.deviceInterval,
				last_poll_ms: null,
				state: 'pending',
			};
			emu.data.devices.push(row);
			emu.mutation('auth.device.start');
			const uri = `${emu.baseUrl}/device`;
			return {
				device_code: deviceCode,
				user_code: row.user_code,
				verification_uri: uri,
				verification_uri_complete: `${uri}?user_code=${encodeURIComponent(row.user_code)}`,
				expires_in: DEVICE_CODE_TTL_SECONDS,
				interval: row.interval,
			};
		},
	);

	app.post(
		'/v2/auth/device/token',
		{
			config: { auth: 'none' },
			schema: { body: { type: 'object', required: ['device_code'], properties: { device_code: str } } },
		},
		async (req, reply) => {
			const code = body<{ device_code: string }>(req).device_code;
			const row = emu.data.devices.find((d) => d.device_code_hash === sha256(code));
			const now = Date.now();
			const fail = (error: string, interval?: number) => {
				reply.code(400);
				return interval === undefined ? { error } : { error, interval };
			};
			if (!row || row.state === 'consumed') return fail('invalid_grant');
			if (row.expires_ms <= now) return fail('expired_token');
			if (row.state === 'denied') return fail('access_denied');
			if (row.state === 'pending') {
				const tooFast = row.last_poll_ms !== null && now - row.last_poll_ms < row.interval * 1000 - 100;
				row.last_poll_ms = now;
				if (tooFast) {
					row.interval += 5;
					return fail('slow_down', row.interval);
				}
				return fail('authorization_pending', row.interval);
			}
			// approved: issue an access token once
			row.state = 'consumed';
			const token = randomToken('ca_at_');
			emu.data.tokens.push({
				hash: sha256(token),
				user_id: emu.data.users[0]?.id ?? 'usr_unknown',
				can_write: true,
				revoked: false,
				expires_ms: now + ACCESS_TOKEN_TTL_SECONDS * 1000,
			});
			emu.mutation('auth.device.token');
			return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS };
		},
	);

	// Revoking one's own credential is allowed for read-only tokens too.
	app.delete('/v2/auth/token', { config: { auth: 'read' } }, async (req, reply) => {
		const row = emu.data.tokens.find((t) => t.hash === req.caller.tokenHash);
		if (row) row.revoked = true;
		emu.mutation('auth.token.revoke');
		reply.code(204);
		return reply.send();
	});
}
