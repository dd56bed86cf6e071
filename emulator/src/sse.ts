import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Emulator } from './emulator';
import type { RunRow } from './state';

/**
 * Streams a run's events as text/event-stream, each encoded by the profile (standard: `id: <seq>`,
 * `event: <type>`, `data: <event record>`; a first `retry: 3000`; a `: keep-alive` comment every
 * keepAliveMs). `after` is exclusive (-1 = from the start); the stream ends cleanly after the run's
 * last event (`run.completed`, which a profile may leave unsent). Faults: drop_sse_after_events cuts the connection after N events,
 * drop_sse_after_ms that long after it opened.
 */
export function streamRunEvents(emu: Emulator, req: FastifyRequest, reply: FastifyReply, run: RunRow, after: number): void {
	reply.hijack();
	const res = reply.raw;
	const headers: Record<string, string | number | string[]> = {};
	for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v;
	Object.assign(headers, {
		'content-type': 'text/event-stream; charset=utf-8',
		'cache-control': 'no-cache, no-transform',
		connection: 'keep-alive',
		'x-accel-buffering': 'no',
	});
	res.writeHead(200, headers);
	if (req.method === 'HEAD') {
		res.end();
		return;
	}
	const enc = emu.profile.sse;
	if (enc.preamble !== '') res.write(enc.preamble);

	let next = Math.max(after + 1, 0);
	let sent = 0;
	let waitingDrain = false;
	let done = false;
	let dropAfter = req.fault?.dropSseAfterEvents;
	if (req.fault?.closeConnection) dropAfter = Math.min(dropAfter ?? 1, 1);

	const keepAlive = setInterval(() => {
		if (!done) res.write(enc.keepAlive);
	}, emu.config.keepAliveMs);
	keepAlive.unref();
	const dropAfterMs = req.fault?.dropSseAfterMs;
	const dropTimer = dropAfterMs === undefined ? undefined : setTimeout(() => finish(true), dropAfterMs);
	dropTimer?.unref();

	let unsubscribe: () => void = () => undefined;
	const finish = (cut: boolean): void => {
		if (done) return;
		done = true;
		clearInterval(keepAlive);
		clearTimeout(dropTimer);
		unsubscribe();
		if (cut) {
			// A dropped connection: flush what was written, then close the socket without ending the chunked body.
			const sock = res.socket;
			if (sock) {
				sock.end();
				setTimeout(() => sock.destroy(), 200).unref();
			} else res.destroy();
		} else res.end();
	};

	const pump = (): void => {
		if (done || waitingDrain) return;
		if (dropAfter !== undefined && sent >= dropAfter) {
			finish(true);
			return;
		}
		while (next < run.events.length) {
			const ev = run.events[next]!;
			next++;
			const frame = enc.frame(ev);
			if (frame === undefined) continue;
			sent++;
			const ok = res.write(frame);
			if (dropAfter !== undefined && sent >= dropAfter) {
				finish(true);
				return;
			}
			if (!ok) {
				waitingDrain = true;
				res.once('drain', () => {
					waitingDrain = false;
					pump();
				});
				return;
			}
		}
		const gone = emu.runs.goneReason(run.id);
		if (gone) {
			const message = gone === 'not_found' ? `run ${run.id} was deleted with its agent` : 'the emulator is shutting down';
			res.write(`event: error\ndata: ${JSON.stringify({ error: { code: gone, message } })}\n\n`);
			finish(false);
			return;
		}
		if (run.events[run.events.length - 1]?.type === 'run.completed' && next >= run.events.length) finish(false);
	};

	unsubscribe = emu.runs.subscribe(run.id, pump);
	res.on('close', () => {
		done = true;
		clearInterval(keepAlive);
		clearTimeout(dropTimer);
		unsubscribe();
	});
	pump();
}
