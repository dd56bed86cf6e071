/**
 * The synthetic desktop behind a computer session: a wallpaper, a top bar with a clock that ticks
 * every second, a terminal window showing the agent's latest run (prompt, messages, tool calls,
 * logs, status) followed by what the viewer typed, a clipboard panel with the last ClientCutText,
 * an input panel, a dock, and a mark at every click. In `animated` mode (the bench) the whole
 * screen is a moving pattern that changes every frame, with the frame number in a marker block.
 *
 * Input is recorded in {@link InputLog} (bounded) for the emulator's admin route. One Desktop
 * serves every connection of a session; it redraws only while someone is connected.
 */
import { type Framebuffer, rgb, TiledScreen } from './framebuffer';

/** What the desktop shows about the agent, read from emulator state at each redraw. */
export interface DesktopInfo {
	agentName: string;
	runtimeName: string;
	run?: {
		id: string;
		status: string;
		prompt: string;
		/** The last events (newest last); the desktop shows what fits. */
		events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>;
	};
	/** Changes whenever anything above changes (cheap to compare). */
	signature: string;
}

/** Bounds of the input log (the admin route returns it whole). */
export const INPUT_BOUNDS = {
	keys: 2000,
	clicks: 200,
	cutTexts: 20,
	/** Characters kept of each cut text (its full length is recorded). */
	cutTextChars: 8192,
	/** Characters kept of the typed text (the tail). */
	typedChars: 8192,
	typedLines: 200,
} as const;

/** Everything a session's viewers sent, for tests (GET /_emulator/computer-sessions/{id}/input). */
export interface InputLog {
	keys: Array<{ keysym: number; down: boolean; at: string }>;
	/** Printable characters typed, `\n` for Return, Backspace removing the last one. */
	text: string;
	pointer: { x: number; y: number; buttons: number } | null;
	clicks: Array<{ x: number; y: number; button: number; at: string }>;
	cut_texts: Array<{ text: string; length: number; at: string }>;
	ctrl_alt_del: number;
	/** Connections open now, and every one accepted so far. */
	connections: number;
	connects: number;
	pixel_format: unknown;
	encodings: number[];
	updates_sent: number;
	/** Updates sent in TightPNG (the rest are Raw). */
	tight_png_updates: number;
	rects_sent: number;
	bytes_sent: number;
}

const KEY = {
	backspace: 0xff08,
	tab: 0xff09,
	enter: 0xff0d,
	kpEnter: 0xff8d,
	escape: 0xff1b,
	delete: 0xffff,
	kpDelete: 0xff9f,
	controlL: 0xffe3,
	controlR: 0xffe4,
	altL: 0xffe9,
	altR: 0xffea,
} as const;

/** The character a keysym types (Latin-1 and Unicode keysyms), or undefined. */
export function keysymChar(keysym: number): string | undefined {
	if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) return String.fromCharCode(keysym);
	if (keysym >= 0x0100_0000 && keysym <= 0x0110_ffff) {
		const cp = keysym - 0x0100_0000;
		if (cp >= 0x20 && !(cp >= 0x7f && cp < 0xa0) && !(cp >= 0xd800 && cp < 0xe000)) return String.fromCodePoint(cp);
	}
	return undefined;
}

/** Printable ASCII only (the font has nothing else): everything else becomes `?`, tabs a space. */
const ascii = (s: string): string => s.replace(/\t/g, ' ').replace(/[^\x20-\x7e]/g, '?');

function wrap(s: string, cols: number): string[] {
	const out: string[] = [];
	for (const line of s.split('\n')) {
		const a = ascii(line);
		if (a.length === 0) out.push('');
		for (let i = 0; i < a.length; i += cols) out.push(a.slice(i, i + cols));
	}
	return out;
}

const C = {
	wallTop: [18, 32, 58],
	wallBottom: [20, 90, 110],
	bar: rgb(24, 27, 34),
	barText: rgb(230, 232, 236),
	clock: rgb(120, 220, 255),
	window: rgb(12, 15, 20),
	titleBar: rgb(45, 50, 60),
	titleText: rgb(210, 214, 222),
	border: rgb(70, 76, 90),
	close: rgb(237, 95, 87),
	min: rgb(245, 190, 80),
	max: rgb(98, 197, 84),
	prompt: rgb(110, 220, 120),
	text: rgb(220, 220, 220),
	tool: rgb(100, 200, 255),
	log: rgb(240, 200, 90),
	file: rgb(200, 150, 255),
	error: rgb(255, 110, 100),
	muted: rgb(140, 146, 160),
	typed: rgb(255, 255, 255),
	cursor: rgb(110, 220, 120),
	panel: rgb(30, 34, 44),
	clip: rgb(255, 170, 80),
	click: rgb(255, 80, 160),
	pointer: rgb(255, 255, 0),
	dock: rgb(36, 40, 50),
} as const;

const DOCK_COLORS = [rgb(66, 133, 244), rgb(52, 168, 83), rgb(251, 188, 5), rgb(234, 67, 53), rgb(171, 71, 188), rgb(0, 172, 193)];
/** The bench pattern's palette: neighbours differ in every channel, so every pixel changes each frame. */
const PATTERN = [
	rgb(230, 60, 60),
	rgb(60, 200, 90),
	rgb(70, 110, 240),
	rgb(240, 200, 40),
	rgb(40, 210, 220),
	rgb(200, 70, 220),
	rgb(250, 140, 30),
	rgb(90, 90, 90),
];

/** Text scale and cell size of the terminal and panels. */
const SCALE = 2;
const CELL_W = 6 * SCALE;
const CELL_H = 10 * SCALE;

/** Fastest redraw after input (ms): pointer motion is coalesced. */
const INPUT_REDRAW_MS = 20;
/** Animation frame period (ms): at most 60 frames a second. */
const FRAME_MS = 1000 / 60;
/** How often the clock, the run output and the session's validity are checked (ms). */
const POLL_MS = 250;

const wallpapers = new Map<string, Uint32Array>();

/** The wallpaper (a vertical gradient), drawn once per size and shared by every desktop. */
function wallpaper(width: number, height: number): Uint32Array {
	const key = `${width}x${height}`;
	let w = wallpapers.get(key);
	if (!w) {
		w = new Uint32Array(width * height);
		for (let y = 0; y < height; y++) {
			const t = y / (height - 1);
			const [r0, g0, b0] = C.wallTop;
			const [r1, g1, b1] = C.wallBottom;
			w.fill(
				rgb(Math.round(r0 + (r1 - r0) * t), Math.round(g0 + (g1 - g0) * t), Math.round(b0 + (b1 - b0) * t)),
				y * width,
				(y + 1) * width,
			);
		}
		wallpapers.set(key, w);
	}
	return w;
}

/** A connection's side of the desktop: told when tiles changed. */
export interface DesktopViewer {
	onDesktopChanged(): void;
}

/**
 * One session's desktop: its tiled screen (two 32-bit buffers, about 8 MB at 1280×800), its input
 * log and the timers that redraw it while viewers are attached.
 */
export class Desktop {
	readonly screen: TiledScreen;
	readonly input: InputLog = {
		keys: [],
		text: '',
		pointer: null,
		clicks: [],
		cut_texts: [],
		ctrl_alt_del: 0,
		connections: 0,
		connects: 0,
		pixel_format: null,
		encodings: [],
		updates_sent: 0,
		tight_png_updates: 0,
		rects_sent: 0,
		bytes_sent: 0,
	};
	/** The bench mode: the whole screen changes every frame. */
	animated = false;
	/** Send TightPNG to viewers that list it (off: Raw only, the default). */
	tightPng = false;
	frame = 0;
	private readonly viewers = new Set<DesktopViewer>();
	private readonly wallpaper: Uint32Array;
	private typedLines: string[] = [];
	private line = '';
	private held = new Set<number>();
	private drawnSecond = -1;
	private drawnSignature = '';
	private redrawTimer: NodeJS.Timeout | undefined;
	private poller: NodeJS.Timeout | undefined;
	private lastFrameAt = 0;
	private lastDrawAt = 0;

	constructor(
		width: number,
		height: number,
		private readonly info: () => DesktopInfo,
		/** Checked on every poll; when it returns a reason, every viewer is told to close with it. */
		private readonly ended: () => string | undefined,
		private readonly onEnded: (reason: string) => void,
	) {
		this.screen = new TiledScreen(width, height);
		this.wallpaper = wallpaper(width, height);
		this.redraw();
	}

	get width(): number {
		return this.screen.width;
	}

	get height(): number {
		return this.screen.height;
	}

	attach(v: DesktopViewer): void {
		this.viewers.add(v);
		this.input.connections = this.viewers.size;
		this.input.connects++;
		if (!this.poller) {
			this.poller = setInterval(() => this.poll(), POLL_MS);
			this.poller.unref();
		}
		// The Input panel counts the viewers: the frame the new viewer asks for first already counts
		// it (drawn on the next clock tick instead, a still desktop changed under a test a second later).
		this.redraw();
	}

	detach(v: DesktopViewer): void {
		this.viewers.delete(v);
		this.input.connections = this.viewers.size;
		if (this.viewers.size === 0) this.stop();
		else this.redraw();
	}

	/** Stops the timers (the desktop stays readable). */
	stop(): void {
		if (this.poller) clearInterval(this.poller);
		if (this.redrawTimer) clearTimeout(this.redrawTimer);
		this.poller = undefined;
		this.redrawTimer = undefined;
	}

	setAnimated(on: boolean): void {
		this.animated = on;
		this.redraw();
	}

	/** A viewer has a pending incremental request and nothing new: in animated mode, the next frame comes soon. */
	wantUpdate(): void {
		if (!this.animated || this.redrawTimer) return;
		const wait = Math.max(0, this.lastFrameAt + FRAME_MS - Date.now());
		this.redrawTimer = setTimeout(() => {
			this.redrawTimer = undefined;
			this.redraw();
		}, wait);
	}

	key(keysym: number, down: boolean): void {
		const log = this.input;
		log.keys.push({ keysym, down, at: new Date().toISOString() });
		if (log.keys.length > INPUT_BOUNDS.keys) log.keys.splice(0, log.keys.length - INPUT_BOUNDS.keys);
		if (!down) {
			this.held.delete(keysym);
			return;
		}
		this.held.add(keysym);
		const ctrl = this.held.has(KEY.controlL) || this.held.has(KEY.controlR);
		const alt = this.held.has(KEY.altL) || this.held.has(KEY.altR);
		if ((keysym === KEY.delete || keysym === KEY.kpDelete) && ctrl && alt) {
			log.ctrl_alt_del++;
			this.commitLine(`${this.line}^[Ctrl+Alt+Del]`, false);
		} else if (keysym === KEY.enter || keysym === KEY.kpEnter) {
			this.commitLine(this.line, true);
		} else if (keysym === KEY.backspace) {
			if (this.line.length > 0) {
				this.line = this.line.slice(0, -1);
				log.text = log.text.slice(0, -1);
			}
		} else if (ctrl && (keysym === 0x63 || keysym === 0x43)) {
			this.commitLine(`${this.line}^C`, false);
		} else if (!ctrl) {
			const ch = keysym === KEY.tab ? ' ' : keysymChar(keysym);
			if (ch === undefined) return;
			this.line = (this.line + ch).slice(-INPUT_BOUNDS.typedChars);
			log.text = (log.text + ch).slice(-INPUT_BOUNDS.typedChars);
		} else {
			return;
		}
		this.soon();
	}

	pointer(x: number, y: number, buttons: number): void {
		const before = this.input.pointer?.buttons ?? 0;
		this.input.pointer = { x, y, buttons };
		for (let bit = 0; bit < 8; bit++) {
			if ((buttons & (1 << bit)) !== 0 && (before & (1 << bit)) === 0) {
				this.input.clicks.push({ x, y, button: bit + 1, at: new Date().toISOString() });
			}
		}
		if (this.input.clicks.length > INPUT_BOUNDS.clicks) this.input.clicks.splice(0, this.input.clicks.length - INPUT_BOUNDS.clicks);
		this.soon();
	}

	cutText(text: string): void {
		this.input.cut_texts.push({ text: text.slice(0, INPUT_BOUNDS.cutTextChars), length: text.length, at: new Date().toISOString() });
		if (this.input.cut_texts.length > INPUT_BOUNDS.cutTexts) this.input.cut_texts.splice(0, 1);
		this.soon();
	}

	private commitLine(text: string, newline: boolean): void {
		this.typedLines.push(text);
		if (this.typedLines.length > INPUT_BOUNDS.typedLines) this.typedLines.splice(0, 1);
		this.line = '';
		if (newline) this.input.text = (this.input.text + '\n').slice(-INPUT_BOUNDS.typedChars);
	}

	/** Redraws shortly (coalescing bursts of input). */
	private soon(): void {
		if (this.redrawTimer) return;
		const wait = Math.max(0, this.lastDrawAt + INPUT_REDRAW_MS - Date.now());
		this.redrawTimer = setTimeout(() => {
			this.redrawTimer = undefined;
			this.redraw();
		}, wait);
	}

	private poll(): void {
		const reason = this.ended();
		if (reason !== undefined) {
			this.onEnded(reason);
			return;
		}
		if (this.animated) return;
		if (Math.floor(Date.now() / 1000) !== this.drawnSecond || this.info().signature !== this.drawnSignature) this.redraw();
	}

	/** Draws the whole frame, commits it and tells the viewers when something changed. */
	redraw(): void {
		const now = Date.now();
		this.lastDrawAt = now;
		let changed: number;
		if (this.animated) {
			this.frame++;
			this.lastFrameAt = now;
			this.drawPattern(this.screen.next);
			changed = this.screen.commit(true);
		} else {
			this.drawScene(this.screen.next, now);
			changed = this.screen.commit(false);
		}
		if (changed > 0) for (const v of [...this.viewers]) v.onDesktopChanged();
	}

	private drawPattern(fb: Framebuffer): void {
		const { width, height } = fb;
		const f = this.frame;
		for (let y = 0; y < height; y++) {
			// Diagonal bands 32 px wide; each frame moves every band to the next colour.
			for (let x = 0; x < width;) {
				const band = (x + y) >> 5;
				const end = Math.min(width, ((band + 1) << 5) - y);
				fb.pixels.fill(PATTERN[(band + f) % PATTERN.length]!, y * width + x, y * width + end);
				x = end;
			}
		}
		fb.fill(0, 0, width, 28, C.bar);
		fb.text(12, 6, `Frame ${f}`, C.barText, SCALE);
		fb.text(width - 12 - 8 * CELL_W, 6, clockText(Date.now()).slice(11), C.clock, SCALE);
		// The frame number as a colour: the bench reads this block back from the canvas.
		fb.fill(8, 36, 16, 16, rgb(f & 0xff, (f >> 8) & 0xff, 0x80));
	}

	private drawScene(fb: Framebuffer, now: number): void {
		const { width, height } = fb;
		const info = this.info();
		this.drawnSignature = info.signature;
		this.drawnSecond = Math.floor(now / 1000);
		fb.pixels.set(this.wallpaper);

		// Top bar: the agent's name and the clock.
		fb.fill(0, 0, width, 28, C.bar);
		fb.text(12, 6, ascii(`Cloud Agent desktop  -  ${info.agentName}`).slice(0, 60), C.barText, SCALE);
		const clock = clockText(now);
		fb.text(width - 12 - clock.length * CELL_W, 6, clock, C.clock, SCALE);

		// The terminal window.
		const tx = 40;
		const ty = 60;
		const tw = Math.min(920, width - 360);
		const th = height - 170;
		fb.fill(tx + 6, ty + 6, tw, th, rgb(8, 12, 20));
		fb.fill(tx, ty, tw, th, C.window);
		fb.fill(tx, ty, tw, 30, C.titleBar);
		fb.outline(tx, ty, tw, th, C.border);
		fb.fill(tx + 12, ty + 10, 12, 12, C.close);
		fb.fill(tx + 32, ty + 10, 12, 12, C.min);
		fb.fill(tx + 52, ty + 10, 12, 12, C.max);
		fb.text(tx + 80, ty + 7, ascii(`agent@${info.runtimeName}: ~`).slice(0, Math.floor((tw - 100) / CELL_W)), C.titleText, SCALE);
		const cols = Math.floor((tw - 24) / CELL_W);
		const rows = Math.floor((th - 30 - 16) / CELL_H);
		const lines: Array<{ text: string; color: number }> = [];
		const add = (s: string, color: number): void => {
			for (const l of wrap(s, cols)) lines.push({ text: l, color });
		};
		const run = info.run;
		if (run) {
			add(`$ agent run "${oneLine(run.prompt, 200)}"`, C.prompt);
			for (const ev of run.events) {
				const d = ev.data;
				switch (ev.type) {
					case 'message':
						add(`${str(d.role) || 'assistant'}: ${str(d.text)}`, C.text);
						break;
					case 'tool.call':
						add(`> ${str(d.tool)} ${oneLine(JSON.stringify(d.input ?? {}), 120)}`, C.tool);
						break;
					case 'tool.result':
						add(`< ${str(d.tool)}: ${oneLine(str(d.output), 160)}`, C.tool);
						break;
					case 'log':
						add(
							`[${str(d.level) || 'info'}] ${oneLine(str(d.text), 200)}`,
							str(d.level) === 'warn' || str(d.level) === 'error' ? C.error : C.log,
						);
						break;
					case 'file.changed':
						add(`~ ${str(d.path)} (${str(d.change)})`, C.file);
						break;
					case 'artifact.created':
						add(`+ artifact ${str(d.name)}`, C.file);
						break;
					case 'run.status':
						add(`. ${str(d.status)}`, C.muted);
						break;
					case 'run.completed':
						add(`. completed${d.status ? `: ${str(d.status)}` : ''}`, C.muted);
						break;
					default:
						add(`. ${ev.type}`, C.muted);
				}
			}
			add(`run ${run.id}: ${run.status}`, run.status === 'failed' ? C.error : C.muted);
		} else {
			add('No runs yet. Send the agent a prompt to see its output here.', C.muted);
		}
		for (const l of this.typedLines) add(`$ ${l}`, C.typed);
		const current = wrap(`$ ${this.line}`, cols);
		for (const l of current) lines.push({ text: l, color: C.typed });
		const shown = lines.slice(-rows);
		shown.forEach((l, i) => fb.text(tx + 12, ty + 38 + i * CELL_H, l.text, l.color, SCALE));
		// The cursor after the last typed character.
		const last = current[current.length - 1] ?? '';
		const cursorRow = shown.length - 1;
		fb.fill(tx + 12 + last.length * CELL_W, ty + 38 + cursorRow * CELL_H, CELL_W - 2, 16, C.cursor);

		// Right column: clipboard and input panels.
		const px = tx + tw + 30;
		const pw = width - px - 30;
		const pcols = Math.max(1, Math.floor((pw - 20) / CELL_W));
		fb.fill(px, ty, pw, 230, C.panel);
		fb.outline(px, ty, pw, 230, C.clip, 2);
		fb.text(px + 10, ty + 10, 'Clipboard', C.clip, SCALE);
		const clip = this.input.cut_texts[this.input.cut_texts.length - 1];
		const clipLines = clip ? wrap(clip.text, pcols).slice(0, 9) : ['(nothing pasted)'];
		clipLines.forEach((l, i) => fb.text(px + 10, ty + 40 + i * CELL_H, l, clip ? C.text : C.muted, SCALE));

		const iy = ty + 250;
		fb.fill(px, iy, pw, 170, C.panel);
		fb.outline(px, iy, pw, 170, C.click, 2);
		fb.text(px + 10, iy + 10, 'Input', C.click, SCALE);
		const p = this.input.pointer;
		const info2 = [
			`pointer ${p ? `${p.x},${p.y}` : '-'}`,
			`buttons ${p ? p.buttons : 0}`,
			`clicks  ${this.input.clicks.length}`,
			`keys    ${this.input.keys.filter((k) => k.down).length}`,
			`pastes  ${this.input.cut_texts.length}`,
			`viewers ${this.viewers.size}`,
		];
		info2.forEach((l, i) => fb.text(px + 10, iy + 40 + i * CELL_H, l.slice(0, pcols), C.text, SCALE));

		// The dock.
		const dy = height - 80;
		const dw = DOCK_COLORS.length * 56 + 16;
		const dx = Math.floor((width - dw) / 2);
		fb.fill(dx, dy, dw, 64, C.dock);
		DOCK_COLORS.forEach((c, i) => fb.fill(dx + 16 + i * 56, dy + 12, 40, 40, c));

		// Click marks (the last few) and the pointer.
		for (const c of this.input.clicks.slice(-8)) {
			fb.outline(c.x - 9, c.y - 9, 19, 19, C.click, 2);
			fb.fill(c.x - 1, c.y - 1, 3, 3, C.click);
		}
		if (p) {
			fb.fill(p.x - 8, p.y, 17, 1, C.pointer);
			fb.fill(p.x, p.y - 8, 1, 17, C.pointer);
		}
	}
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const oneLine = (s: string, max: number): string => {
	const t = s.replace(/\s+/g, ' ').trim();
	return t.length > max ? `${t.slice(0, max - 3)}...` : t;
};

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function clockText(ms: number): string {
	return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
