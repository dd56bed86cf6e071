/**
 * The outage switch (`/_emulator/outage`): for N seconds of the emulator clock every non-admin
 * connection fails one way, as a network or a service that went away does.
 *
 * - `refuse`: the service's listener is closed (a new connection is refused by the operating system:
 *   ECONNREFUSED) and every open API connection is reset; the admin API stays reachable on the
 *   admin listener (`admin_url`), and on admin connections that were already open.
 * - `reset`: connections are accepted; every API request is answered by a TCP reset once its head is
 *   read, and every open API connection (open run streams included) is reset when the outage starts.
 * - `stall`: connections are accepted and API requests are never answered; run streams and other
 *   answers under way go silent (their sockets are corked), idle keep-alive connections are closed.
 *   When the stall ends, the held sockets are reset (as a network that dropped them meanwhile).
 *
 * Admin requests (`/_emulator/…`, the device page) always pass. The end is checked on every tick of
 * the emulator (every 100 ms, and when `POST /_emulator/clock/advance` moves the clock past it).
 */
import type { Socket } from 'node:net';

export const OUTAGE_MODES = ['refuse', 'reset', 'stall'] as const;
export type OutageMode = (typeof OUTAGE_MODES)[number];
export const MAX_OUTAGE_SECONDS = 24 * 60 * 60;

export interface OutageHooks {
	/** The emulator clock (epoch ms). */
	now(): number;
	/** Stops accepting connections on the service's listener (synchronously). */
	stopListening(): void;
	/** Listens again on the same address and port. */
	listen(): Promise<void>;
}

export interface OutageState {
	active: boolean;
	mode?: OutageMode;
	started_at?: string;
	ends_at?: string;
	remaining_ms?: number;
	/** Since the emulator started: API requests reset, API requests held by a stall, open API connections cut at a start. */
	counts: { reset_requests: number; stalled_requests: number; cut_connections: number };
	/** Set when listening again after `refuse` failed (the port was taken meanwhile). */
	error?: string;
}

/** Sends a TCP reset where Node can (plain TCP sockets); a TLS socket is destroyed (FIN) instead. */
export function resetSocket(socket: Socket): void {
	if (socket.destroyed) return;
	try {
		socket.resetAndDestroy();
	} catch {
		socket.destroy();
	}
}

export class Outage {
	private current: { mode: OutageMode; startedMs: number; untilMs: number } | undefined;
	private ending: Promise<void> | undefined;
	private readonly apiSockets = new Set<Socket>();
	private readonly inflight = new Map<Socket, number>();
	/** Sockets held by a stall (corked answers and requests never answered), reset at its end. */
	private readonly held = new Set<Socket>();
	private error: string | undefined;
	readonly counts = { reset_requests: 0, stalled_requests: 0, cut_connections: 0 };

	constructor(private readonly hooks: OutageHooks) {}

	get mode(): OutageMode | undefined {
		return this.current?.mode;
	}

	/**
	 * Called first for every non-admin request. `true`: the request goes on (tracked, so that an
	 * outage starting later cuts it). `false`: the outage took it (reset or held); the caller stops.
	 */
	admit(socket: Socket, response: { once(event: 'close', fn: () => void): unknown }): boolean {
		const mode = this.current?.mode;
		if (mode === 'stall') {
			this.counts.stalled_requests++;
			this.held.add(socket);
			socket.once('close', () => this.held.delete(socket));
			return false;
		}
		if (mode === 'reset' || mode === 'refuse') {
			// refuse: a request on a connection opened before the outage (an admin keep-alive one).
			this.counts.reset_requests++;
			resetSocket(socket);
			return false;
		}
		if (!this.apiSockets.has(socket)) {
			this.apiSockets.add(socket);
			socket.once('close', () => {
				this.apiSockets.delete(socket);
				this.inflight.delete(socket);
			});
		}
		this.inflight.set(socket, (this.inflight.get(socket) ?? 0) + 1);
		response.once('close', () => {
			const n = (this.inflight.get(socket) ?? 1) - 1;
			if (n > 0) this.inflight.set(socket, n);
			else this.inflight.delete(socket);
		});
		return true;
	}

	/** Starts an outage of `seconds` (replacing one under way); `except` is the admin request's own socket. */
	async start(mode: OutageMode, seconds: number, except?: Socket): Promise<OutageState> {
		if (this.current) await this.end();
		const now = this.hooks.now();
		this.error = undefined;
		this.current = { mode, startedMs: now, untilMs: now + Math.round(seconds * 1000) };
		for (const s of [...this.apiSockets]) {
			if (s === except) continue;
			this.apiSockets.delete(s);
			if (mode === 'stall' && (this.inflight.get(s) ?? 0) > 0) {
				// A blackhole: nothing more reaches the client, nothing it sends is read.
				s.cork();
				s.pause();
				this.held.add(s);
				continue;
			}
			this.counts.cut_connections++;
			resetSocket(s);
		}
		if (mode === 'refuse') this.hooks.stopListening();
		return this.state();
	}

	/** Ends the outage now (the service answers again); resolves once a refused listener listens again. */
	end(): Promise<void> {
		if (this.ending) return this.ending;
		const cur = this.current;
		if (!cur) return Promise.resolve();
		for (const s of this.held) resetSocket(s);
		this.held.clear();
		if (cur.mode !== 'refuse') {
			this.current = undefined;
			return Promise.resolve();
		}
		this.ending = this.hooks.listen().then(
			() => {
				this.current = undefined;
				this.ending = undefined;
			},
			(e: unknown) => {
				this.current = undefined;
				this.ending = undefined;
				this.error = `listening again after the outage failed: ${(e as Error).message}`;
			},
		);
		return this.ending;
	}

	/** Ends the outage when the emulator clock has reached its end (called on every emulator tick). */
	check(): void {
		if (this.current && !this.ending && this.hooks.now() >= this.current.untilMs) void this.end();
	}

	/** On close: releases held sockets, listens no more. */
	dispose(): void {
		for (const s of this.held) resetSocket(s);
		this.held.clear();
		this.current = undefined;
	}

	state(): OutageState {
		const cur = this.current;
		const out: OutageState = { active: cur !== undefined, counts: { ...this.counts } };
		if (cur) {
			out.mode = cur.mode;
			out.started_at = new Date(cur.startedMs).toISOString();
			out.ends_at = new Date(cur.untilMs).toISOString();
			out.remaining_ms = Math.max(0, cur.untilMs - this.hooks.now());
		}
		if (this.error) out.error = this.error;
		return out;
	}
}
