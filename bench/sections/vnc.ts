/**
 * Computer-session frame rate: frames per second that noVNC (`@novnc/novnc`, whose package entry is core/rfb.js, bundled for the browser
 * with esbuild as the extension's panel will be) delivers to its canvas in headless Chromium for a
 * desktop that changes completely every frame (1280×800, Raw encoding, loopback), goal ≥ 20 fps.
 *
 * Setup: a computer session minted through the API on the bench's emulator, switched to the
 * emulator's animated desktop (`PUT /_emulator/computer-sessions/{id}/desktop {animated: true}`:
 * every pixel changes each frame, at most 60 frames a second, a new frame whenever a viewer asks).
 * The page gets only the session's `websocket_url` and `protocols`, never the API token.
 *
 * Measure (after a 1 s warm-up, over BENCH_VNC_SECONDS, default 5): the visible canvas's flips
 * (noVNC's `Display.flip()` draws the back buffer onto the visible canvas with `drawImage` once
 * per FramebufferUpdate; counted when it covers ≥ 90 % of the screen), and, as a cross-check, the
 * distinct frame numbers read back from the canvas at each animation frame (the desktop paints its
 * frame number as a colour into a marker block). Baseline in the same run: a plain Node RFB client
 * (test/unit/support/rfbClient.ts) pulling the same animated desktop over the same kind of socket
 * without decoding, i.e. what the server and the loopback socket deliver without a browser.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { RfbClient } from '../../test/unit/support/rfbClient';
import type { BenchContext, Row } from '../report';

const ROOT = join(__dirname, '..', '..', '..');
const GOAL_FPS = 20;
const WIDTH = 1280;
const HEIGHT = 800;

interface Harness {
	CHROMIUM: string;
	ensureSystemPackages(opts?: { browser?: boolean; build?: boolean }): void;
}

interface PageResult {
	flips: number;
	fullFlips: number;
	sampled: number;
	distinctFrames: number;
	seconds: number;
	errors: string[];
}

async function api<T>(ctx: BenchContext, method: string, path: string, body?: unknown, admin = false): Promise<T> {
	const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
	if (!admin) headers.authorization = `Bearer ${ctx.token}`;
	const res = await fetch(`${ctx.emulatorUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await res.text();
	if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
	return JSON.parse(text) as T;
}

interface Session {
	id: string;
	url: string;
	protocols: string[];
}

async function animatedSession(ctx: BenchContext): Promise<Session> {
	const agents = (await api<{ agents: Array<{ id: string; name: string }> }>(ctx, 'GET', '/v2/agents?limit=100')).agents;
	const agent = agents.find((a) => a.name === 'Refactor billing module') ?? agents[0];
	if (!agent) throw new Error('the emulator has no agent to open a computer session on');
	const s = await api<{ channels: { vnc: { websocket_url: string; protocols: string[] } } }>(ctx, 'POST', `/v2/agents/${encodeURIComponent(agent.id)}/computer-sessions`);
	const url = s.channels.vnc.websocket_url;
	const id = /\/_emulator\/vnc\/([A-Za-z0-9_]+)$/.exec(url)?.[1];
	if (!id) throw new Error(`unexpected websocket_url ${url}`);
	await api(ctx, 'PUT', `/_emulator/computer-sessions/${id}/desktop`, { animated: true }, true);
	return { id, url, protocols: s.channels.vnc.protocols };
}

/** Full-screen updates per second a plain Node RFB client receives (no decoding). */
async function rawBaseline(s: Session, seconds: number): Promise<{ fps: number; mbps: number }> {
	const v = await RfbClient.connect(s.url, s.protocols);
	try {
		v.setPixelFormat({ bitsPerPixel: 32, depth: 24, bigEndian: false, trueColour: true, redMax: 255, greenMax: 255, blueMax: 255, redShift: 0, greenShift: 8, blueShift: 16 });
		v.requestUpdate(false);
		await v.readUpdate(5000, false);
		const warmEnd = Date.now() + 1000;
		while (Date.now() < warmEnd) {
			v.requestUpdate(true);
			await v.readUpdate(5000, false);
		}
		let frames = 0;
		let pixels = 0;
		const t0 = performance.now();
		const end = t0 + seconds * 1000;
		while (performance.now() < end) {
			v.requestUpdate(true);
			const rects = await v.readUpdate(5000, false);
			const area = rects.reduce((n, r) => n + r.w * r.h, 0);
			pixels += area;
			if (area >= 0.9 * WIDTH * HEIGHT) frames++;
		}
		const elapsed = (performance.now() - t0) / 1000;
		return { fps: frames / elapsed, mbps: (pixels * 4) / elapsed / 1e6 };
	} finally {
		v.ws.destroy();
	}
}

async function bundleNoVnc(): Promise<string> {
	const esbuild = await import('esbuild');
	const out = await esbuild.build({
		stdin: { contents: "import RFB from '@novnc/novnc';\nglobalThis.RFB = RFB;\n", resolveDir: ROOT, sourcefile: 'vnc-bench-entry.js', loader: 'js' },
		bundle: true,
		format: 'esm',
		platform: 'browser',
		target: 'es2022',
		minify: true,
		write: false,
		logLevel: 'silent',
	});
	const file = out.outputFiles[0];
	if (!file) throw new Error('esbuild produced no output for noVNC');
	return file.text;
}

/** Runs in the page: connects noVNC and counts canvas flips and distinct frames for `seconds`. */
async function measureInPage(args: { url: string; protocols: string[]; seconds: number; width: number; height: number }): Promise<PageResult> {
	interface El {
		querySelector(s: string): unknown;
	}
	type RfbCtor = new (target: El, url: string, opts: { wsProtocols: string[]; shared: boolean }) => EventTarget & { disconnect(): void; scaleViewport: boolean; viewOnly: boolean };
	const g = globalThis as unknown as { RFB: RfbCtor; document: { getElementById(id: string): El }; requestAnimationFrame(cb: () => void): number; CanvasRenderingContext2D: { prototype: Record<string, unknown> } };
	const errors: string[] = [];
	const proto = g.CanvasRenderingContext2D.prototype;
	const orig = proto.drawImage as (...a: unknown[]) => unknown;
	const seenCanvas: { target: unknown } = { target: undefined };
	let flips = 0;
	let fullFlips = 0;
	proto.drawImage = function (this: { canvas: unknown }, ...a: unknown[]): unknown {
		if (this.canvas === seenCanvas.target) {
			flips++;
			const w = a.length >= 9 ? Number(a[3]) : args.width;
			const h = a.length >= 9 ? Number(a[4]) : args.height;
			if (w * h >= 0.9 * args.width * args.height) fullFlips++;
		}
		return orig.apply(this, a);
	};
	const screen = g.document.getElementById('screen');
	const rfb = new g.RFB(screen, args.url, { wsProtocols: args.protocols, shared: true });
	rfb.viewOnly = true;
	rfb.scaleViewport = false;
	rfb.addEventListener('disconnect', (e) => errors.push(`disconnected: ${JSON.stringify((e as unknown as { detail: unknown }).detail)}`));
	rfb.addEventListener('securityfailure', (e) => errors.push(`security failure: ${JSON.stringify((e as unknown as { detail: unknown }).detail)}`));
	await new Promise<void>((resolve, reject) => {
		rfb.addEventListener('connect', () => resolve());
		setTimeout(() => reject(new Error(`noVNC did not connect: ${errors.join('; ')}`)), 10_000);
	});
	seenCanvas.target = screen.querySelector('canvas');
	type Ctx = { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
	const ctx2d = (seenCanvas.target as { getContext(t: string): Ctx }).getContext('2d');
	const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
	await sleep(1000);
	flips = 0;
	fullFlips = 0;
	const seen = new Set<number>();
	let sampled = 0;
	let sampling = true;
	const sample = (): void => {
		if (!sampling) return;
		const d = ctx2d.getImageData(16, 44, 1, 1).data;
		if (d[2] === 0x80) seen.add(d[0]! | (d[1]! << 8));
		sampled++;
		g.requestAnimationFrame(sample);
	};
	g.requestAnimationFrame(sample);
	const t0 = performance.now();
	await sleep(args.seconds * 1000);
	const seconds = (performance.now() - t0) / 1000;
	sampling = false;
	const result = { flips, fullFlips, sampled, distinctFrames: seen.size, seconds, errors: [...errors] };
	rfb.disconnect();
	return result;
}

export async function run(ctx: BenchContext): Promise<void> {
	const seconds = Number(process.env.BENCH_VNC_SECONDS ?? 5) || 5;
	const rows: Row[] = [];
	const notes: string[] = [];
	const h = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'harness.mjs')).href)) as Harness;
	h.ensureSystemPackages({ browser: true, build: false });
	ctx.log('vnc: bundling noVNC (esbuild, esm, browser)…');
	const bundle = await bundleNoVnc();

	const raw = await animatedSession(ctx);
	ctx.log(`vnc: raw RFB client baseline for ${seconds} s…`);
	const base = await rawBaseline(raw, seconds);

	const s = await animatedSession(ctx);
	let browser: Browser | undefined;
	let pageServer: Server | undefined;
	try {
		browser = await chromium.launch({
			executablePath: h.CHROMIUM,
			headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-background-timer-throttling', '--disable-renderer-backgrounding', ...(process.env.BENCH_VNC_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean)],
		});
		const page = await browser.newPage({ viewport: { width: WIDTH + 40, height: HEIGHT + 40 } });
		const consoleErrors: string[] = [];
		page.on('console', (m) => {
			if (m.type() === 'error' || process.env.BENCH_VNC_DEBUG) consoleErrors.push(m.text());
		});
		page.on('pageerror', (e) => consoleErrors.push(e.message));
		// The page comes from a loopback server of its own: Chromium's local-network-access checks
		// refuse a socket to loopback from a page that did not itself come from a local address.
		const html = `<!doctype html><html><head><meta charset="utf-8"><title>vnc bench</title></head><body style="margin:0"><div id="screen" style="width:${WIDTH}px;height:${HEIGHT}px"></div><script type="module" src="rfb.js"></script></body></html>`;
		pageServer = createServer((req, res) => {
			const js = (req.url ?? '').endsWith('/rfb.js');
			res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html; charset=utf-8', 'cache-control': 'no-store' });
			res.end(js ? bundle : html);
		});
		const server = pageServer;
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
		await page.waitForFunction(() => typeof (globalThis as { RFB?: unknown }).RFB === 'function', undefined, { timeout: 15_000 });
		ctx.log(`vnc: noVNC in headless Chromium for ${seconds} s…`);
		const r = await page.evaluate(measureInPage, { url: s.url, protocols: s.protocols, seconds, width: WIDTH, height: HEIGHT }).catch((e: unknown) => {
			throw new Error(`${e instanceof Error ? e.message : String(e)}\npage console:\n${consoleErrors.slice(-20).join('\n')}`);
		});
		const fps = r.fullFlips / r.seconds;
		const input = await api<{ updates_sent: number; bytes_sent: number }>(ctx, 'GET', `/_emulator/computer-sessions/${s.id}/input`, undefined, true);
		rows.push(
			{ metric: `noVNC canvas frames/s (${WIDTH}×${HEIGHT}, whole screen changing, Raw, loopback)`, value: fps.toFixed(1), target: `≥ ${GOAL_FPS}`, pass: fps >= GOAL_FPS && r.errors.length === 0 },
			{ metric: 'distinct desktop frames read back from the canvas per second (at animation frames)', value: (r.distinctFrames / r.seconds).toFixed(1) },
			{ metric: `baseline: Node RFB client full-screen updates/s (no browser, no decoding)`, value: `${base.fps.toFixed(1)} (${base.mbps.toFixed(0)} MB/s)` },
			{ metric: 'noVNC ÷ baseline', value: (fps / base.fps).toFixed(2) },
			{ metric: 'noVNC bundle (esbuild, esm, minified)', value: `${(Buffer.byteLength(bundle) / 1024).toFixed(1)} KiB` },
		);
		notes.push(
			`vnc: over ${r.seconds.toFixed(1)} s noVNC flipped ${r.flips} times to its visible canvas (${r.fullFlips} full-screen); ${r.sampled} animation frames sampled; the emulator sent ${input.updates_sent} updates (${(input.bytes_sent / 1e6).toFixed(0)} MB) to this session in all. The emulator's animated desktop makes at most 60 frames a second.`,
		);
		const problems = [...r.errors, ...consoleErrors];
		if (problems.length > 0) notes.push(`vnc: errors in the page: ${problems.slice(0, 5).join(' | ')}`);
		ctx.log(`vnc: ${fps.toFixed(1)} fps in noVNC, ${base.fps.toFixed(1)} updates/s raw`);
	} finally {
		await browser?.close();
		pageServer?.close();
		for (const id of [raw.id, s.id]) await api(ctx, 'POST', `/_emulator/computer-sessions/${id}/expire`, undefined, true).catch(() => undefined);
	}
	ctx.addSection({ title: 'Computer session (noVNC frame rate)', rows, notes });
}
