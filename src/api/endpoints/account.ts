/**
 * The service and the signed-in account: health, the current user and the SSH gateway's host key,
 * the device flow that signs in, and revoking the token. One group of CloudAgentsClient's methods
 * (src/api/client.ts puts them on the one client object).
 */
import { sleep } from '../../base/async';
import { SAFETY } from '../../base/limits';
import { errorFromBody } from '../http';
import * as D from '../decode';
import type * as T from '../types';
import { ClientCore, obj, unwrap } from './core';

/** Endpoint methods of CloudAgentsClient: the service and the signed-in account. */
export class AccountEndpoints extends ClientCore {
	// ------------------------------------------------------------------ health and identity

	/** GET /healthz: resolves when the service is live. No token is sent. */
	async health(options: T.CallOptions = {}): Promise<void> {
		await this.call({ method: 'GET', path: '/healthz', route: 'GET /healthz', idempotent: true, auth: false, signal: options.signal });
	}

	/** HEAD /healthz. */
	async healthHead(options: T.CallOptions = {}): Promise<void> {
		await this.call({
			method: 'HEAD',
			path: '/healthz',
			route: 'HEAD /healthz',
			idempotent: true,
			auth: false,
			signal: options.signal,
		});
	}

	/** GET /v2/me: the current user profile. */
	async getMe(options: T.CallOptions = {}): Promise<T.Me> {
		return unwrap<T.Me>(
			await this.call({ method: 'GET', path: '/v2/me', route: 'GET /v2/me', idempotent: true, signal: options.signal }),
		);
	}

	/** GET /v2/ssh-host-key: the SSH gateway host key. */
	async getSshHostKey(options: T.CallOptions = {}): Promise<T.SshHostKey> {
		return unwrap<T.SshHostKey>(
			await this.call({
				method: 'GET',
				path: '/v2/ssh-host-key',
				route: 'GET /v2/ssh-host-key',
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	/** GET /v2/ssh-host-key, checked and normalised (key blob, its fingerprint, the gateway host and port). */
	async getGatewayHostKey(options: T.CallOptions = {}): Promise<D.GatewayHostKey> {
		return this.decoded(
			{ method: 'GET', path: '/v2/ssh-host-key', route: 'GET /v2/ssh-host-key', idempotent: true, signal: options.signal },
			this.one<D.GatewayHostKey>(D.decodeGatewayHostKey, true),
		);
	}

	// ------------------------------------------------------------------ auth and device flow

	/** POST /v2/auth/device/authorization (no token): starts the device flow. */
	async startDeviceAuthorization(request: T.DeviceAuthorizationRequest, options: T.CallOptions = {}): Promise<T.DeviceAuthorization> {
		return this.decoded(
			{
				method: 'POST',
				path: '/v2/auth/device/authorization',
				route: 'POST /v2/auth/device/authorization',
				body: request,
				idempotent: false,
				auth: false,
				signal: options.signal,
			},
			this.one<T.DeviceAuthorization>(D.decodeDeviceAuthorization),
		);
	}

	/**
	 * POST /v2/auth/device/token (no token): one poll. Pending, slow-down, expired and denied are
	 * results, not errors; other failures throw ApiError.
	 */
	async pollDeviceToken(deviceCode: string, options: T.CallOptions = {}): Promise<T.DeviceTokenResult> {
		const res = await this.send<unknown>({
			method: 'POST',
			path: '/v2/auth/device/token',
			route: 'POST /v2/auth/device/token',
			body: { device_code: deviceCode },
			idempotent: false,
			auth: false,
			signal: options.signal,
			acceptStatuses: [400],
		});
		const b = obj(res.body);
		if (res.status !== 400) {
			return {
				status: 'success',
				token: { ...b, access_token: D.checkAccessToken(b.access_token, { requestId: res.requestId }) } as T.DeviceToken,
			};
		}
		const interval =
			b.interval === undefined
				? undefined
				: D.clampSeconds(b.interval, SAFETY.devicePollMinMs, SAFETY.devicePollMaxMs, SAFETY.devicePollDefaultMs);
		// Values of `error` are not shown: RFC 8628's names, then common variants.
		switch (b.error) {
			case 'authorization_pending':
			case 'pending':
				return { status: 'pending', interval };
			case 'slow_down':
			case 'polling_too_fast':
				return { status: 'slow_down', interval };
			case 'expired_token':
			case 'expired':
			case 'invalid_device_code':
				return { status: 'expired' };
			case 'access_denied':
			case 'denied':
				return { status: 'denied' };
			default:
				throw errorFromBody(400, JSON.stringify(res.body ?? ''), res.requestId, undefined);
		}
	}

	/**
	 * Polls the device flow until it succeeds, expires or is denied, waiting `interval` seconds
	 * between polls (raised on slow_down). Cancel with the signal.
	 */
	async waitForDeviceToken(
		authorization: Pick<T.DeviceAuthorization, 'device_code' | 'interval' | 'expires_in'>,
		options: T.CallOptions & { minIntervalMs?: number } = {},
	): Promise<T.DeviceTokenResult & { status: 'success' | 'expired' | 'denied' }> {
		// The server's numbers are clamped (SAFETY.devicePoll*): an absurd interval can neither hammer the server nor stall sign-in.
		const minMs = options.minIntervalMs ?? SAFETY.devicePollMinMs;
		const bound = (ms: number): number => Math.min(SAFETY.devicePollMaxMs, Math.max(minMs, ms));
		let intervalMs = bound(D.clampSeconds(authorization.interval, minMs, SAFETY.devicePollMaxMs, SAFETY.devicePollDefaultMs) * 1000);
		const deadline =
			Date.now() + D.clampSeconds(authorization.expires_in, SAFETY.devicePollMinMs, SAFETY.deviceExpiryMaxMs, 900_000) * 1000;
		for (;;) {
			await sleep(intervalMs, options.signal);
			const result = await this.pollDeviceToken(authorization.device_code, options);
			if (result.status === 'success' || result.status === 'expired' || result.status === 'denied') {
				return result;
			}
			if (result.status === 'slow_down') {
				intervalMs = bound(Math.max(intervalMs + 5000, (result.interval ?? 0) * 1000));
			} else if (result.interval !== undefined) {
				intervalMs = bound(result.interval * 1000);
			}
			if (Date.now() + intervalMs > deadline) {
				return { status: 'expired' };
			}
		}
	}

	/** DELETE /v2/auth/token: revokes the token used for the call. */
	async revokeToken(options: T.CallOptions = {}): Promise<void> {
		await this.call({
			method: 'DELETE',
			path: '/v2/auth/token',
			route: 'DELETE /v2/auth/token',
			idempotent: false,
			signal: options.signal,
		});
	}
}
