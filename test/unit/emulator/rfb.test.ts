/* eslint-disable @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/**
 * The computer session's desktop, spoken to as a VNC viewer would: a session minted through the
 * API, a real WebSocket with the session's protocols, the RFB 3.8 handshake, Raw updates (full and
 * incremental), input that reaches the desktop and the admin interface, the refusals before the
 * upgrade, and the end of the session closing the socket. The session shape is the same in both
 * profiles (only agent ids differ), so the viewer path runs against each.
 */
import * as assert from 'node:assert/strict';
import type { ProfileName } from '../../../emulator/src/profile';
import type { RunningEmulator } from '../../../emulator/src/server';
import { sessionEndReason } from '../../../emulator/src/vnc';
import { NOVNC_FORMAT, RfbClient, type RawRect, UpgradeRefused, WsClient } from '../support/rfbClient';
import { boot, type Client, until } from './helpers';

interface Session {
	id: string;
	url: string;
	protocols: string[];
	agentName: string;
}

async function openSession(emu: RunningEmulator, c: Client, profile: ProfileName = 'standard'): Promise<Session> {
	const validate = profile === 'standard';
	const agents = (await c.get('/v2/agents?limit=100', { validate })).body.agents as { id: string; name: string }[];
	const agent = agents.find((a) => a.name === 'Refactor billing module')!;
	const s = await c.call('POST', `/v2/agents/${encodeURIComponent(agent.id)}/computer-sessions`, { validate });
	assert.equal(s.status, 201, s.text);
	const url: string = s.body.channels.vnc.websocket_url;
	const protocols: string[] = s.body.channels.vnc.protocols;
	const id = /\/_emulator\/vnc\/([A-Za-z0-9_]+)$/.exec(url)![1]!;
	assert.ok(emu.emulator.data.computerSessions.some((x) => x.id === id));
	return { id, url, protocols, agentName: agent.name };
}

const area = (rects: RawRect[]): number => rects.reduce((n, r) => n + r.w * r.h, 0);
const intersects = (r: RawRect, x: number, y: number, w: number, h: number): boolean =>
	r.x < x + w && x < r.x + r.w && r.y < y + h && y < r.y + r.h;

/** Reads incremental updates (asking again after each) until `ok` accepts one; returns the rectangles seen. */
async function updatesUntil(v: RfbClient, ok: (rects: RawRect[]) => boolean, timeoutMs = 5000): Promise<RawRect[]> {
	const seen: RawRect[] = [];
	const end = Date.now() + timeoutMs;
	for (;;) {
		v.requestUpdate(true);
		const rects = await v.readUpdate(Math.max(1, end - Date.now()));
		seen.push(...rects);
		if (ok(rects)) return seen;
		if (Date.now() > end) throw new Error('no matching update');
	}
}

/** A snapshot of the screen's RGB bytes in a region. */
function region(v: RfbClient, x: number, y: number, w: number, h: number): Buffer {
	const out = Buffer.alloc(w * h * 3);
	for (let yy = 0; yy < h; yy++) Buffer.from(v.rgb.buffer, ((y + yy) * v.init.width + x) * 3, w * 3).copy(out, yy * w * 3);
	return out;
}

/** The terminal window's text area (emulator/src/rfb/desktop.ts layout). */
const TERMINAL = { x: 52, y: 98, w: 880, h: 500 };

for (const profile of ['standard', 'variant'] as const) {
	suite(`emulator: computer-session desktop over RFB (${profile})`, () => {
		let emu: RunningEmulator;
		let c: Client;
		setup(async () => {
			({ emu, c } = await boot({ profile }));
		});
		teardown(async () => {
			await emu.close();
		});

		test('handshake, ServerInit and a full Raw update of the whole screen with several colours', async () => {
			const s = await openSession(emu, c, profile);
			const v = await RfbClient.connect(s.url, s.protocols);
			try {
				assert.equal(v.ws.protocol, 'binary');
				assert.equal(v.banner, 'RFB 003.008\n');
				assert.deepEqual(v.securityTypes, [1]);
				assert.equal(v.init.width, 1280);
				assert.equal(v.init.height, 800);
				assert.equal(v.init.format.trueColour, true);
				assert.equal(v.init.format.bitsPerPixel, 32);
				assert.match(v.init.name, /Refactor billing module/);
				// What noVNC sends after ServerInit.
				v.setPixelFormat(NOVNC_FORMAT);
				v.setEncodings([7, -260, 16, 1, 0, -223, -224, -258, -308, -312, -313]);
				v.requestUpdate(false);
				const rects = await v.readUpdate();
				assert.ok(rects.every((r) => r.encoding === 0));
				assert.equal(area(rects), 1280 * 800, 'the rectangles cover the screen exactly once');
				const colours = v.colours();
				assert.ok(colours.size >= 12, `${colours.size} distinct colours`);
				// The terminal window is dark, the top bar is not the wallpaper.
				const [r, g, b] = v.pixel(950, 578);
				assert.ok(r < 40 && g < 40 && b < 40, `terminal background ${r},${g},${b}`);
				const input = (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body;
				assert.equal(input.connections, 1);
				assert.deepEqual(input.encodings, [7, -260, 16, 1, 0, -223, -224, -258, -308, -312, -313]);
				assert.equal(input.pixel_format.redShift, 0);
				assert.equal(input.updates_sent, 1);
				assert.equal(input.desktop.width, 1280);
			} finally {
				v.ws.destroy();
			}
		});

		test('keys, a click and cut text reach the desktop and the admin interface; only what changed is sent', async function () {
			this.timeout(15_000);
			const s = await openSession(emu, c, profile);
			const v = await RfbClient.connect(s.url, s.protocols);
			try {
				v.setPixelFormat(NOVNC_FORMAT);
				v.requestUpdate(false);
				await v.readUpdate();
				const before = region(v, TERMINAL.x, TERMINAL.y, TERMINAL.w, TERMINAL.h);

				v.type('hello desktop');
				v.pointer(1100, 700, 1);
				v.pointer(1100, 700, 0);
				v.cutText('pasted from the panel');
				const input = await until(async () => {
					const b = (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body;
					return b.text === 'hello desktop' && b.clicks.length === 1 && b.cut_texts.length === 1 ? b : undefined;
				});
				assert.deepEqual(
					input.clicks.map((k: any) => [k.x, k.y, k.button]),
					[[1100, 700, 1]],
				);
				assert.equal(input.cut_texts[0].text, 'pasted from the panel');
				assert.equal(input.keys.filter((k: any) => k.down).length, 'hello desktop'.length);
				assert.equal(input.keys[0].keysym, 'h'.charCodeAt(0));

				// Incremental updates bring the typed line (terminal), the click mark and the clipboard panel, not the whole screen.
				const seen = await updatesUntil(
					v,
					() =>
						!region(v, TERMINAL.x, TERMINAL.y, TERMINAL.w, TERMINAL.h).equals(before) &&
						v.pixel(1100, 691).join() === '255,80,160',
				);
				assert.ok(
					seen.some((r) => intersects(r, TERMINAL.x, TERMINAL.y, TERMINAL.w, TERMINAL.h)),
					'the terminal area was updated',
				);
				assert.ok(
					seen.some((r) => intersects(r, 1091, 691, 19, 19)),
					'the click mark was updated',
				);
				assert.ok(area(seen) < (1280 * 800) / 2, `incremental updates covered ${area(seen)} pixels`);
				// The click mark is drawn in its colour (255, 80, 160) around the click.
				assert.deepEqual(v.pixel(1100, 691), [255, 80, 160]);

				// Return ends the line; Backspace edits it.
				v.type('x');
				v.key(0xff08, true);
				v.key(0xff08, false);
				v.type('\n');
				await until(async () => (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body.text === 'hello desktop\n');
			} finally {
				v.ws.destroy();
			}
		});
	});
}

suite('emulator: computer-session RFB details (standard)', () => {
	let emu: RunningEmulator;
	let c: Client;
	setup(async () => {
		({ emu, c } = await boot());
	});
	teardown(async () => {
		await emu.close();
	});

	test('a session opened after the emulator clock moved a day on lives (sessions expire on the wall clock, as they are made)', async () => {
		await c.admin('POST', '/clock/advance', { seconds: 86_400 });
		const s = await openSession(emu, c);
		await new Promise((r) => setTimeout(r, 300)); // a few ticks (every 100 ms)
		assert.ok(
			emu.emulator.data.computerSessions.some((x) => x.id === s.id),
			'the session survives the ticks',
		);
		const v = await RfbClient.connect(s.url, s.protocols);
		assert.ok(v.init.width >= 1024);
		v.ws.destroy();
	});

	test('the desktop size is an emulator option (at least 1024×768)', async () => {
		const small = await boot({ desktop: { width: 1024, height: 768 } });
		try {
			const s = await openSession(small.emu, small.c);
			const v = await RfbClient.connect(s.url, s.protocols);
			assert.deepEqual([v.init.width, v.init.height], [1024, 768]);
			v.requestUpdate(false);
			const rects = await v.readUpdate();
			assert.equal(area(rects), 1024 * 768);
			assert.ok(v.colours().size >= 12);
			v.ws.destroy();
		} finally {
			await small.emu.close();
		}
	});

	test('an incremental request is held until its region changes, then answered with that region only', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		try {
			v.requestUpdate(false);
			await v.readUpdate();
			// The dock area: nothing changes there by itself (the clock is in the top bar).
			v.requestUpdate(true, 300, 700, 600, 90);
			const early = await v.readUpdate(1300).then(
				() => 'answered',
				() => 'held',
			);
			assert.equal(early, 'held', 'no update while nothing in the region changed (the clock ticked meanwhile)');
			v.pointer(500, 740, 1);
			const rects = await v.readUpdate();
			assert.ok(rects.length > 0);
			for (const r of rects) assert.ok(intersects(r, 300, 700, 600, 90), `rect ${JSON.stringify(r)} outside the requested region`);
		} finally {
			v.ws.destroy();
		}
	});

	test('the clock changes every second', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		try {
			v.requestUpdate(false);
			await v.readUpdate();
			const bar = region(v, 800, 0, 480, 28);
			v.requestUpdate(true, 800, 0, 480, 28);
			const rects = await v.readUpdate(2500);
			assert.ok(rects.length > 0);
			assert.ok(!region(v, 800, 0, 480, 28).equals(bar), 'the clock area changed');
		} finally {
			v.ws.destroy();
		}
	});

	test('SetPixelFormat: 16 bpp big-endian RGB565 and 32 bpp BGRX decode to the same picture', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		try {
			const area0 = { x: 0, y: 0, w: 1280, h: 400 };
			// The top bar holds the clock: read everything below it.
			v.setPixelFormat(NOVNC_FORMAT);
			v.requestUpdate(false, 0, 40, 1280, 360);
			await v.readUpdate();
			const native = region(v, area0.x, 40, area0.w, 360);
			v.rgb.fill(0);
			v.setPixelFormat({
				bitsPerPixel: 16,
				depth: 16,
				bigEndian: true,
				trueColour: true,
				redMax: 31,
				greenMax: 63,
				blueMax: 31,
				redShift: 11,
				greenShift: 5,
				blueShift: 0,
			});
			v.requestUpdate(false, 0, 40, 1280, 360);
			await v.readUpdate();
			const rgb565 = region(v, area0.x, 40, area0.w, 360);
			let worst = 0;
			for (let i = 0; i < native.length; i++) worst = Math.max(worst, Math.abs(native[i]! - rgb565[i]!));
			assert.ok(worst <= 5, `RGB565 differs by up to ${worst}`);
			v.rgb.fill(0);
			v.setPixelFormat({
				bitsPerPixel: 32,
				depth: 24,
				bigEndian: false,
				trueColour: true,
				redMax: 255,
				greenMax: 255,
				blueMax: 255,
				redShift: 16,
				greenShift: 8,
				blueShift: 0,
			});
			v.requestUpdate(false, 0, 40, 1280, 360);
			await v.readUpdate();
			assert.ok(region(v, area0.x, 40, area0.w, 360).equals(native), 'BGRX decodes to the same pixels');
			const input = (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body;
			assert.equal(input.pixel_format.redShift, 16);
		} finally {
			v.ws.destroy();
		}
	});

	test('a colour-map pixel format closes the connection with a reason', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		v.setPixelFormat({ ...NOVNC_FORMAT, bitsPerPixel: 8, depth: 8, trueColour: false });
		const closed = await v.ws.closed;
		assert.equal(closed.frame, true);
		assert.equal(closed.code, 1003);
		assert.match(closed.reason, /true colour only/);
	});

	test('unknown, wrong-token and expired sessions are refused before the upgrade', async () => {
		const s = await openSession(emu, c);
		const refused = (url: string, protocols: string[]) =>
			WsClient.connect(url, protocols).then(
				(w) => {
					w.destroy();
					return 101;
				},
				(e: unknown) => (e instanceof UpgradeRefused ? e.status : -1),
			);
		assert.equal(await refused(s.url.replace(s.id, 'cs_UNKNOWN0000'), s.protocols), 404);
		assert.equal(await refused(s.url, ['binary', 'session.wrong']), 403);
		assert.equal(
			await refused(
				s.url,
				s.protocols.filter((p) => p !== 'binary'),
			),
			403,
		);
		assert.equal(await refused(s.url, ['binary']), 403);
		await c.admin('POST', `/computer-sessions/${s.id}/expire`);
		assert.equal(await refused(s.url, s.protocols), 404);
		// The token never shows in the admin interface.
		const state = (await c.admin('GET', '/state')).text;
		const input = (await c.admin('GET', `/computer-sessions/${s.id}/input`)).text;
		const token = s.protocols.find((p) => p.startsWith('session.'))!.slice('session.'.length);
		assert.ok(!state.includes(token) && !input.includes(token));
	});

	test('the session expiring closes the socket with a close frame (at expires_at and through the admin route)', async function () {
		this.timeout(30_000);
		const s = await openSession(emu, c);
		const row = emu.emulator.data.computerSessions.find((x) => x.id === s.id)!;
		const v = await RfbClient.connect(s.url, s.protocols);
		v.requestUpdate(false);
		await v.readUpdate();
		// Expiring once the viewer is connected and drawn (an expiry set before connecting passed
		// before the first update on a loaded machine): the desktop sees it on its next tick.
		const expiresAt = Date.now() + 300;
		row.expires_ms = expiresAt;
		const closed = await v.ws.closed;
		assert.deepEqual([closed.frame, closed.code, closed.reason], [true, 4001, 'session expired']);
		assert.ok(Date.now() >= expiresAt, 'closed at expires_at, not before');
		// The server forgets the connection once the socket is gone (just after its close frame).
		const input = await until(async () => {
			const b = (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body;
			return b.connections === 0 ? b : undefined;
		});
		assert.equal(input.active, false);

		const s2 = await openSession(emu, c);
		const v2 = await RfbClient.connect(s2.url, s2.protocols);
		await c.admin('POST', `/computer-sessions/${s2.id}/expire`);
		const closed2 = await v2.ws.closed;
		assert.deepEqual([closed2.frame, closed2.code], [true, 4001]);
	});

	test('a session removed by an emulator reset closes its socket with 4002', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		v.requestUpdate(false);
		await v.readUpdate();
		await c.admin('POST', '/reset', { seed: 'demo' });
		const closed = await v.ws.closed;
		assert.deepEqual([closed.frame, closed.code, closed.reason], [true, 4002, 'session ended']);
	});

	test('WebSocket framing: fragmented messages, ping/pong, client close, unmasked frames refused', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		// A SetEncodings split over three frames.
		const enc = Buffer.alloc(4 + 4 * 3);
		enc[0] = 2;
		enc.writeUInt16BE(3, 2);
		enc.writeInt32BE(0, 4);
		enc.writeInt32BE(1, 8);
		enc.writeInt32BE(-223, 12);
		v.ws.send(enc, 3);
		v.ws.ping(Buffer.from('are you there'));
		await until(async () => v.ws.pongs.length === 1);
		assert.equal(v.ws.pongs[0]!.toString(), 'are you there');
		await until(async () => (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body.encodings.length === 3);
		v.ws.close(1000, 'bye');
		const closed = await v.ws.closed;
		assert.deepEqual([closed.frame, closed.code], [true, 1000]);

		const w = await RfbClient.connect(s.url, s.protocols);
		w.ws.frame(0x2, Buffer.from([3, 0, 0, 0, 0, 0, 0, 10, 0, 10]), true, false);
		const refused = await w.ws.closed;
		assert.deepEqual([refused.frame, refused.code], [true, 1002]);
	});

	test('a still desktop keeps its frame below the top bar from the first update on (the Input panel counts its viewer at once)', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		try {
			v.setPixelFormat(NOVNC_FORMAT);
			v.setEncodings([0]);
			v.requestUpdate(false, 0, 0, 1280, 800);
			await v.readUpdate();
			const first = region(v, 0, 40, 1280, 700);
			const clock = region(v, 0, 0, 1280, 28);
			// The next frame: the clock moved on (the desktop redraws each second), nothing else did.
			await until(async () => {
				v.requestUpdate(false, 0, 0, 1280, 800);
				await v.readUpdate();
				return region(v, 0, 0, 1280, 28).equals(clock) ? undefined : true;
			}, 10_000);
			assert.ok(region(v, 0, 40, 1280, 700).equals(first), 'the frame below the top bar changed on a desktop nobody touched');
		} finally {
			v.ws.destroy();
		}
	});

	test('TightPNG, when the desktop allows it and the viewer lists it, shows the same pixels as Raw', async () => {
		const s = await openSession(emu, c);
		const v = await RfbClient.connect(s.url, s.protocols);
		try {
			v.setPixelFormat(NOVNC_FORMAT);
			v.setEncodings([-260, 0]);
			v.requestUpdate(false, 0, 40, 1280, 700);
			const rawRects = await v.readUpdate();
			assert.ok(
				rawRects.every((r) => r.encoding === 0),
				'Raw until the desktop allows TightPNG',
			);
			const raw = region(v, 0, 40, 1280, 700);
			assert.equal((await c.admin('PUT', `/computer-sessions/${s.id}/desktop`, { tight_png: true })).body.desktop.tight_png, true);
			v.rgb.fill(0);
			v.requestUpdate(false, 0, 40, 1280, 700);
			const pngRects = await v.readUpdate();
			assert.ok(pngRects.length > 0 && pngRects.every((r) => r.encoding === -260));
			assert.ok(region(v, 0, 40, 1280, 700).equals(raw), 'the PNG decodes to the Raw pixels');
			const input = (await c.admin('GET', `/computer-sessions/${s.id}/input`)).body;
			assert.equal(input.tight_png_updates, 1);
			// A viewer in another pixel format gets Raw even so.
			v.setPixelFormat({
				...NOVNC_FORMAT,
				bitsPerPixel: 16,
				depth: 16,
				redMax: 31,
				greenMax: 63,
				blueMax: 31,
				redShift: 11,
				greenShift: 5,
				blueShift: 0,
			});
			v.requestUpdate(false, 0, 40, 64, 64);
			assert.ok((await v.readUpdate()).every((r) => r.encoding === 0));
		} finally {
			v.ws.destroy();
		}
	});

	test('the bench mode changes every tile each frame', async () => {
		const s = await openSession(emu, c);
		const set = (await c.admin('PUT', `/computer-sessions/${s.id}/desktop`, { animated: true })).body;
		assert.equal(set.desktop.animated, true);
		const v = await RfbClient.connect(s.url, s.protocols);
		try {
			v.requestUpdate(false);
			await v.readUpdate();
			const a = region(v, 0, 40, 1280, 760);
			v.requestUpdate(true);
			const rects = await v.readUpdate();
			assert.equal(area(rects), 1280 * 800, 'a full-screen update');
			const b = region(v, 0, 40, 1280, 760);
			let same = 0;
			for (let i = 0; i < a.length; i += 3) if (a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2]) same++;
			assert.ok(same < (0.05 * a.length) / 3, `${same} pixels unchanged between frames`);
		} finally {
			v.ws.destroy();
		}
	});
});

suite('emulator: why a computer session ends (vnc.ts sessionEndReason)', () => {
	test('a session the tick dropped after its expiry ended because it expired (4001), not "ended"', () => {
		// Beside two CPU-bound processes the emulator's tick dropped the expired session before the
		// socket's own expiry timer fired, and the desktop closed it as "session ended" (4002).
		assert.equal(sessionEndReason(false, 1_000, 1_001), 'session expired');
		assert.equal(sessionEndReason(true, 1_000, 1_000), 'session expired');
	});

	test('a session removed before its expiry (a reset) ended; one present and valid lasts', () => {
		assert.equal(sessionEndReason(false, 5_000, 1_000), 'session ended');
		assert.equal(sessionEndReason(true, 5_000, 1_000), undefined);
	});
});
