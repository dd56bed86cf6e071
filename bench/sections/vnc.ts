/**
 * Computer-session frame rate: frames per second that noVNC (`@novnc/novnc`, package entry
 * core/rfb.js, bundled with esbuild as ESM for the browser, as the extension's panel is) delivers
 * to its canvas in headless Chromium for a 1280×800 desktop that changes everywhere every frame,
 * over loopback; goal ≥ 20 fps.
 *
 * Setup: computer sessions minted through the API on the bench's emulator and switched to its
 * animated desktop (`PUT /_emulator/computer-sessions/{id}/desktop {animated: true, tight_png}`:
 * every pixel changes each frame, at most 60 frames a second, a new one whenever the viewer asks).
 * noVNC runs twice: once with TightPNG allowed (it lists TightPNG among its preferred encodings;
 * the browser decodes the PNG natively) — the target row — and once in Raw (4 bytes a pixel, the
 * emulator's default). The page gets only the session's `websocket_url` and `protocols`, never the
 * API token.
 *
 * Measure, over BENCH_VNC_SECONDS (default 5) after a 1 s warm-up: noVNC's full-screen flips (its
 * `Display.flip()` draws the back buffer onto the visible canvas with `drawImage` once per
 * FramebufferUpdate; counted when ≥ 90 % of the screen), the desktop frame numbers read back from
 * the canvas at the start and the end (a marker block painted in the frame number's colour), and the
 * CPU time per frame of Chromium's processes and of the bench process (which holds the emulator).
 * Baseline in the same run: a plain Node RFB client (test/unit/support/rfbClient.ts) pulling the
 * same animated desktop in Raw without decoding: what the server and the loopback socket deliver
 * without a browser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
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
	/** The desktop frame numbers on the canvas at the start and the end (-1: no marker seen). */
	firstFrame: number;
	lastFrame: number;
	seconds: number;
	errors: string[];
}

/** Process ids below `pid` (Linux /proc; empty elsewhere). */
function descendants(pid: number): number[] {
	const children = new Map<number, number[]>();
	try {
		for (const d of readdirSync('/proc')) {
			if (!/^\d+$/.test(d)) continue;
			try {
				const st = readFileSync(`/proc/${d}/stat`, 'utf8');
				const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
				children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
			} catch {
				// gone meanwhile
			}
		}
	} catch {
		return [];
	}
	const out: number[] = [];
	const walk = (p: number): void => {
		for (const c of children.get(p) ?? []) {
			out.push(c);
			walk(c);
		}
	};
	walk(pid);
	return out;
}

/** CPU time (user + system, ms) of processes, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMs(pids: number[]): number {
	let ticks = 0;
	for (const p of pids) {
		try {
			const st = readFileSync(`/proc/${p}/stat`, 'utf8');
			const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
			ticks += Number(f[11]) + Number(f[12]);
		} catch {
			// gone meanwhile
		}
	}
	return ticks * 10;
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

async function animatedSession(ctx: BenchContext, tightPng = false): Promise<Session> {
	const agents = (await api<{ agents: Array<{ id: string; name: string }> }>(ctx, 'GET', '/v2/agents?limit=100')).agents;
	const agent = agents.find((a) => a.name === 'Refactor billing module') ?? agents[0];
	if (!agent) throw new Error('the emulator has no agent to open a computer session on');
	const s = await api<{ channels: { vnc: { websocket_url: string; protocols: string[] } } }>(
		ctx,
		'POST',
		`/v2/agents/${encodeURIComponent(agent.id)}/computer-sessions`,
	);
	const url = s.channels.vnc.websocket_url;
	const id = /\/_emulator\/vnc\/([A-Za-z0-9_]+)$/.exec(url)?.[1];
	if (!id) throw new Error(`unexpected websocket_url ${url}`);
	await api(ctx, 'PUT', `/_emulator/computer-sessions/${id}/desktop`, { animated: true, tight_png: tightPng }, true);
	return { id, url, protocols: s.channels.vnc.protocols };
}

/** Full-screen updates per second a plain Node RFB client receives (no decoding). */
async function rawBaseline(s: Session, seconds: number): Promise<{ fps: number; mbps: number }> {
	const v = await RfbClient.connect(s.url, s.protocols);
	try {
		v.setPixelFormat({
			bitsPerPixel: 32,
			depth: 24,
			bigEndian: false,
			trueColour: true,
			redMax: 255,
			greenMax: 255,
			blueMax: 255,
			redShift: 0,
			greenShift: 8,
			blueShift: 16,
		});
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
		stdin: {
			contents: "import RFB from '@novnc/novnc';\nglobalThis.RFB = RFB;\n",
			resolveDir: ROOT,
			sourcefile: 'vnc-bench-entry.js',
			loader: 'js',
		},
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

/** Runs in the page: connects noVNC and counts canvas flips for `seconds` after a 1 s warm-up. */
async function measureInPage(args: {
	url: string;
	protocols: string[];
	seconds: number;
	width: number;
	height: number;
}): Promise<PageResult> {
	interface El {
		querySelector(s: string): unknown;
	}
	type RfbCtor = new (
		target: El,
		url: string,
		opts: { wsProtocols: string[]; shared: boolean },
	) => EventTarget & { disconnect(): void; scaleViewport: boolean; viewOnly: boolean };
	const g = globalThis as unknown as {
		RFB: RfbCtor;
		document: { getElementById(id: string): El };
		CanvasRenderingContext2D: { prototype: Record<string, unknown> };
	};
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
	rfb.addEventListener('securityfailure', (e) =>
		errors.push(`security failure: ${JSON.stringify((e as unknown as { detail: unknown }).detail)}`),
	);
	await new Promise<void>((resolve, reject) => {
		rfb.addEventListener('connect', () => resolve());
		setTimeout(() => reject(new Error(`noVNC did not connect: ${errors.join('; ')}`)), 10_000);
	});
	seenCanvas.target = screen.querySelector('canvas');
	type Ctx = { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
	const ctx2d = (seenCanvas.target as { getContext(t: string): Ctx }).getContext('2d');
	const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
	/** The desktop's frame number painted into the marker block, read back from the visible canvas. */
	const marker = (): number => {
		const d = ctx2d.getImageData(16, 44, 1, 1).data;
		return d[2] === 0x80 ? d[0]! | (d[1]! << 8) : -1;
	};
	await sleep(1000);
	flips = 0;
	fullFlips = 0;
	const first = marker();
	const t0 = performance.now();
	await sleep(args.seconds * 1000);
	const seconds = (performance.now() - t0) / 1000;
	const result = { flips, fullFlips, firstFrame: first, lastFrame: marker(), seconds, errors: [...errors] };
	rfb.disconnect();
	return result;
}

export async function run(ctx: BenchContext): Promise<void> {
	const seconds = Number(process.env.BENCH_VNC_SECONDS ?? 5) || 5;
	const rows: Row[] = [];
	const notes: string[] = [];
	const cpus = availableParallelism();
	const h = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'harness.mjs')).href)) as Harness;
	h.ensureSystemPackages({ browser: true, build: false });
	ctx.log('vnc: bundling noVNC (esbuild, esm, browser)…');
	const bundle = await bundleNoVnc();

	const raw = await animatedSession(ctx);
	ctx.log(`vnc: raw RFB client baseline for ${seconds} s…`);
	const base = await rawBaseline(raw, seconds);

	const sessions: Session[] = [raw];
	let browser: Browser | undefined;
	let pageServer: Server | undefined;
	try {
		browser = await chromium.launch({
			executablePath: h.CHROMIUM,
			headless: true,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				'--disable-background-timer-throttling',
				'--disable-renderer-backgrounding',
				...(process.env.BENCH_VNC_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean),
			],
		});
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
		const pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

		const measure = async (
			tightPng: boolean,
		): Promise<{
			fps: number;
			r: PageResult;
			cpu: { browser: number; node: number };
			updates: number;
			bytes: number;
			problems: string[];
		}> => {
			const s = await animatedSession(ctx, tightPng);
			sessions.push(s);
			const page = await browser!.newPage({ viewport: { width: WIDTH + 40, height: HEIGHT + 40 } });
			const consoleErrors: string[] = [];
			page.on('console', (m) => {
				if (m.type() === 'error' || process.env.BENCH_VNC_DEBUG) consoleErrors.push(m.text());
			});
			page.on('pageerror', (e) => consoleErrors.push(e.message));
			try {
				await page.goto(pageUrl);
				await page.waitForFunction(() => typeof (globalThis as { RFB?: unknown }).RFB === 'function', undefined, {
					timeout: 15_000,
				});
				ctx.log(`vnc: noVNC (${tightPng ? 'TightPNG' : 'Raw'}) in headless Chromium for ${seconds} s…`);
				const browserPids = descendants(process.pid);
				// The page warms up for 1 s before it counts; CPU is sampled over the same window.
				let cpu0 = { browser: 0, node: process.cpuUsage() };
				const started = setTimeout(() => (cpu0 = { browser: cpuMs(browserPids), node: process.cpuUsage() }), 1000);
				const r = await page
					.evaluate(measureInPage, { url: s.url, protocols: s.protocols, seconds, width: WIDTH, height: HEIGHT })
					.catch((e: unknown) => {
						throw new Error(
							`${e instanceof Error ? e.message : String(e)}\npage console:\n${consoleErrors.slice(-20).join('\n')}`,
						);
					});
				clearTimeout(started);
				const nodeCpu = process.cpuUsage(cpu0.node);
				const cpu = { browser: cpuMs(browserPids) - cpu0.browser, node: (nodeCpu.user + nodeCpu.system) / 1000 };
				const input = await api<{ updates_sent: number; tight_png_updates: number; bytes_sent: number }>(
					ctx,
					'GET',
					`/_emulator/computer-sessions/${s.id}/input`,
					undefined,
					true,
				);
				if (tightPng && input.tight_png_updates === 0) throw new Error('the TightPNG run received no TightPNG update');
				return {
					fps: r.fullFlips / r.seconds,
					r,
					cpu,
					updates: input.updates_sent,
					bytes: input.bytes_sent,
					problems: [...r.errors, ...consoleErrors],
				};
			} finally {
				await page.close();
			}
		};
		const rawRun = await measure(false);
		const pngRun = await measure(true);
		const ok = (m: { r: PageResult; problems: string[] }): boolean => m.problems.length === 0 && m.r.lastFrame > m.r.firstFrame;
		rows.push(
			{
				metric: `noVNC canvas frames/s, ${WIDTH}×${HEIGHT} changing everywhere, TightPNG (noVNC's preferred encodings include it)`,
				value: pngRun.fps.toFixed(1),
				target: `≥ ${GOAL_FPS}`,
				pass: pngRun.fps >= GOAL_FPS && ok(pngRun),
			},
			{ metric: `noVNC canvas frames/s, the same desktop in Raw (the emulator's default encoding)`, value: rawRun.fps.toFixed(1) },
			{
				metric: `baseline: Node RFB client full-screen Raw updates/s (no browser, no decoding)`,
				value: `${base.fps.toFixed(1)} (${base.mbps.toFixed(0)} MB/s)`,
			},
			{ metric: 'noVNC Raw ÷ baseline', value: (rawRun.fps / base.fps).toFixed(2) },
			...(
				[
					['TightPNG', pngRun],
					['Raw', rawRun],
				] as const
			).map(([name, m]) => ({
				metric: `CPU per frame shown, ${name}: Chromium (all processes) + emulator process`,
				value: `${(m.cpu.browser / Math.max(1, m.r.fullFlips)).toFixed(0)} + ${(m.cpu.node / Math.max(1, m.r.fullFlips)).toFixed(0)} ms`,
			})),
			{ metric: 'noVNC bundle (esbuild, esm, minified)', value: `${(Buffer.byteLength(bundle) / 1024).toFixed(1)} KiB` },
		);
		for (const [name, m] of [
			['TightPNG', pngRun],
			['Raw', rawRun],
		] as const) {
			notes.push(
				`vnc ${name}: over ${m.r.seconds.toFixed(1)} s noVNC drew ${m.r.flips} updates onto its visible canvas (${m.r.fullFlips} full-screen); the desktop frame shown on the canvas went from ${m.r.firstFrame} to ${m.r.lastFrame}; the emulator sent this viewer ${m.updates} updates, ${(m.bytes / 1e6).toFixed(1)} MB in all (${(m.bytes / Math.max(1, m.updates) / 1024).toFixed(0)} KiB each).`,
			);
			if (m.problems.length > 0) notes.push(`vnc ${name}: errors in the page: ${m.problems.slice(0, 5).join(' | ')}`);
		}
		notes.push(
			`vnc: load average during the section ${loadavg()
				.map((x) => x.toFixed(1))
				.join(
					', ',
				)} on ${String(cpus)} cores; the fps figures are wall-clock rates and fall as other processes take the cores; the CPU-per-frame rows move less (they grow somewhat under contention too).`,
		);
		notes.push(
			"vnc: the animated desktop makes at most 60 frames a second, a new one whenever the viewer asks; frames are counted as noVNC's full-screen drawImage of its back buffer onto the visible canvas.",
		);
		ctx.log(
			`vnc: noVNC ${pngRun.fps.toFixed(1)} fps TightPNG, ${rawRun.fps.toFixed(1)} fps Raw; Node client ${base.fps.toFixed(1)} updates/s Raw`,
		);
	} finally {
		await browser?.close();
		pageServer?.close();
		for (const x of sessions) {
			await api(ctx, 'POST', `/_emulator/computer-sessions/${x.id}/expire`, undefined, true).catch(() => undefined);
		}
	}
	ctx.addSection({ title: 'Computer session (noVNC frame rate)', rows, notes });
}
