/**
 * Activation in code-server: the time the extension host spends loading our code and calling
 * `activate()` (what "Developer: Show Running Extensions" shows as "Activation: N ms"), as the median
 * of several fresh code-server starts with the built .vsix installed, next to the bundle and vsix
 * sizes. The baseline is the same sources bundled into one file (`esbuild.mjs --single`, as before
 * the split), measured in the same run, alternating start by start; so is the web build
 * (dist/web/extension.js, packaged without `main` as the harness's buildWebVsix does, so code-server
 * runs it in its web worker extension host: VS Code for the Web, issue 34).
 *
 * Per start: a new user-data folder and a new code-server process (so a new extension host), a new
 * browser context on its workbench, 5 s for the window to settle, a click on the Cloud Agents activity-bar entry (onView
 * activation), then the extension's activation report (CLOUD_AGENTS_ACTIVATION_REPORT, see
 * src/platform/node/nodePlatform.ts): load = the extension host's marks `code/extHost/didLoadExtensionCode/<id>` −
 * `willLoadExtensionCode/<id>` around `require(main)` (ms resolution, Date.now, the same clock VS
 * Code's own figure uses), activate = `activate()` measured with performance.now(). The web worker
 * has no environment and no file system to write a report to: there the bench reads the worker's
 * performance timeline through Playwright (µs resolution): load = the extension host's marks
 * `didLoadExtensionCode − willLoadExtensionCode` around the evaluation of the fetched bundle,
 * activate = the measure src/platform/web/webPlatform.ts adds around `activate()` (performance.now(), as
 * in Node), and, reported beside them, the bundle's fetch and compilation (`new Function`), which
 * VS Code's figure leaves out, and the extension host's own span around the activate() call
 * (`willActivateExtension → didActivateExtension`: it also holds the microtasks activate() queued).
 *
 * BENCH_ACTIVATION_STARTS sets the measured starts per variant (default 20, rounded up to whole laps
 * of bench/order.ts, 5 starts of each a lap; one more warm-up start of each is not counted). 20 and
 * not 11: on a slow day one build's starts spread over 3×, and medians of 11 put the same code at
 * 0.74–1.37 of its floor (bench/README.md). The order is bench/order.ts's: every variant follows
 * each variant, itself included, equally often (rotating one fixed order started each after the
 * same one every time).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { type ChildLike, type CodeServer, type Harness, type Procs, ROOT, launchChromium, loadHarness } from '../codeServer';
import { writeFloorPackage } from '../floorPackage';
import { balancedStarts } from '../order';
import { type BenchContext, type Row, median } from '../report';
import { makeVscodeStub, vscodeApiNames } from '../../test/unit/support/vscodeStub';
import { ACTIVATION_MEASURE, COLLAPSE_ALL_VIEWS, DOCUMENT_SCHEMES, FILE_SYSTEM_SCHEMES, WEBVIEW_TYPES } from '../../src/ids';

/**
 * The goal (issue 44): activation (load + activate) ÷ the registration floor's in the same run, in
 * each extension host. Absolute times move with the machine's load (30–189 ms for one build between
 * starts on a shared 2-core machine); they stay in the table without a goal.
 */
const FLOOR_GOAL = 1.2;
const EXTENSION_ID = 'cloud-agents.cloud-agents-vscode';
const REPORT_TIMEOUT_MS = 90_000;
/** How long a new window is left to settle before the click that activates the extension. */
const SETTLE_MS = 5_000;

/** What src/platform/node/nodePlatform.ts writes to CLOUD_AGENTS_ACTIVATION_REPORT. */
interface ActivationReport {
	willLoad?: number;
	didLoad?: number;
	activateMs: number;
	activateEndEpochMs: number;
	/** The files under dist/ in Node's module cache when activate() returned. */
	dist: string[];
}

/** One start's figures (ms). */
interface Sample {
	loadMs: number;
	activateMs: number;
	totalMs: number;
	/** Our bundles loaded when activate() returned (the web build has one). */
	dist: string[];
	/** Web build only: fetching the bundle (willFetch → didFetch), and compiling it until its evaluation starts (→ willLoad). */
	fetchMs?: number;
	compileMs?: number;
	/** Web build only: the extension host's span around the activate() call (willActivate → didActivateExtension). */
	hostActivateMs?: number;
}

interface Variant {
	key: 'baseline' | 'split' | 'web' | 'floor' | 'floor-web';
	/** The extension's id (publisher.name): whose marks the extension host's timeline holds. */
	extensionId: string;
	/** Which extension host runs it: Node's, or the browser's web worker (VS Code for the Web). */
	host: 'node' | 'web';
	name: string;
	vsix: string;
	extensionsDir: string;
	/** dist/*.js sizes in bytes, by file name. */
	bundles: Record<string, number>;
	vsceWarnings: string[];
	/** The variant's entry bundle, in a copy of its dist/ folder (for the plain-Node load measurement). */
	entry: string;
	samples: Sample[];
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function node(args: string[], cwd = ROOT): string {
	const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
	if (r.status !== 0) {
		throw new Error(`node ${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
	}
	return `${r.stdout}\n${r.stderr}`;
}

function distSizes(): Record<string, number> {
	const out: Record<string, number> = {};
	for (const f of ['extension.js', 'main.js', 'core.js', 'features.js', 'client.js']) {
		const p = join(ROOT, 'dist', f);
		if (existsSync(p)) {
			out[f] = statSync(p).size;
		}
	}
	return out;
}

/** vsce's WARNING lines (e.g. about the bundle's size or file count). */
function warnings(output: string): string[] {
	return output
		.split('\n')
		.filter((l) => /WARNING/i.test(l))
		.map((l) => l.trim());
}

/** Builds the baseline (one bundle), the shipped split build and the web build, each as a .vsix in `work`. */
function buildVariants(h: Harness, work: string): Variant[] {
	const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
	const variants: Variant[] = [];
	// Baseline first, so dist/ ends up holding the shipped (split) production build.
	node([join(ROOT, 'esbuild.mjs'), '--production', '--single', `--outdir=${join(work, 'dist-baseline')}`]);
	node([join(ROOT, 'esbuild.mjs'), '--production', '--single']);
	const baseBundles = distSizes();
	const baseVsix = join(work, 'baseline.vsix');
	const baseOut = node([vsce, 'package', '--no-dependencies', '-o', baseVsix]);
	variants.push({
		key: 'baseline',
		extensionId: EXTENSION_ID,
		host: 'node',
		name: 'baseline: one bundle',
		vsix: baseVsix,
		extensionsDir: join(work, 'ext-baseline'),
		bundles: baseBundles,
		vsceWarnings: warnings(baseOut),
		entry: join(work, 'dist-baseline', 'extension.js'),
		samples: [],
	});
	// The shipped build, as buildVsix of the harness makes it (and checked as it checks it).
	node([join(ROOT, 'esbuild.mjs'), '--production', `--outdir=${join(work, 'dist-split')}`]);
	node([join(ROOT, 'esbuild.mjs'), '--production']);
	const splitBundles = distSizes();
	const splitVsix = join(work, 'split.vsix');
	const splitOut = node([vsce, 'package', '--no-dependencies', '-o', splitVsix]);
	h.checkVsix(splitVsix);
	variants.push({
		key: 'split',
		extensionId: EXTENSION_ID,
		host: 'node',
		name: 'split: extension.js at activation, main.js + core.js after it, features.js and client.js on first use',
		vsix: splitVsix,
		extensionsDir: join(work, 'ext-split'),
		bundles: splitBundles,
		vsceWarnings: warnings(splitOut),
		entry: join(work, 'dist-split', 'extension.js'),
		samples: [],
	});
	// The web build, as test:web installs it (buildWebVsix: no `main`, so the web worker extension host runs it).
	const webVsix = h.buildWebVsix(join(work, 'web', 'web.vsix'));
	variants.push({
		key: 'web',
		extensionId: EXTENSION_ID,
		host: 'web',
		name: 'web: dist/web/extension.js in the web worker extension host',
		vsix: webVsix,
		extensionsDir: join(work, 'ext-web'),
		bundles: { 'web/extension.js': statSync(join(work, 'dist-split', 'web', 'extension.js')).size },
		vsceWarnings: [],
		entry: join(work, 'dist-split', 'web', 'extension.js'),
		samples: [],
	});
	// The registration floors (issue 44): what activation costs any extension that contributes and
	// registers what ours does, doing nothing else; one per extension host.
	for (const host of ['node', 'web'] as const) {
		const name = host === 'node' ? 'registration-floor' : 'registration-floor-web';
		const dir = join(work, name);
		const entry = writeRegistrationFloor(dir, name, host);
		const vsix = join(work, `${name}.vsix`);
		node([vsce, 'package', '--allow-missing-repository', '--no-dependencies', '-o', vsix], dir);
		variants.push({
			key: host === 'node' ? 'floor' : 'floor-web',
			extensionId: `bench.${name}`,
			host,
			name: `registration floor (${host === 'node' ? "Node's extension host" : 'the web worker extension host'}): our contributions and registrations, nothing else`,
			vsix,
			extensionsDir: join(work, `ext-${name}`),
			bundles: { 'extension.js': statSync(entry).size },
			vsceWarnings: [],
			entry,
			samples: [],
		});
	}
	return variants;
}

/**
 * A static extension that contributes what ours does (package.json's `contributes` and
 * `activationEvents`, with its texts and icons) and, in `activate()`, registers what ours registers
 * at activation — every command, a tree view per view, the file systems and document providers of
 * our schemes, the webview serializers, the language-model tools, the authentication provider, a
 * status bar item and a log output channel — doing nothing else, each provider with the members
 * ours has at activation (a tree's change event, getParent and resolveTreeItem; a document
 * provider's change event; `copy` and read-only where ours has them), since what VS Code does at a
 * registration depends on them; then reports its activation as ours does (src/platform/node/nodePlatform.ts, src/platform/web/webPlatform.ts). Returns its entry.
 */
function writeRegistrationFloor(dir: string, name: string, host: 'node' | 'web'): string {
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		engines: unknown;
		activationEvents: string[];
		contributes: {
			commands?: Array<{ command: string }>;
			views?: Record<string, Array<{ id: string }>>;
			languageModelTools?: Array<{ name: string }>;
			authentication?: Array<{ id: string; label: string }>;
		};
	};
	writeFloorPackage(
		dir,
		{
			name,
			displayName: 'Registration floor',
			description: 'Bench floor: registers what Cloud Agents registers at activation, nothing else.',
			entry: host === 'node' ? { main: './extension.js' } : { browser: './extension.js' },
			activationEvents: ours.activationEvents,
			writtenBy: 'bench/sections/activation.ts',
		},
		ours,
	);
	const c = ours.contributes;
	const lists = {
		commands: (c.commands ?? []).map((x) => x.command),
		views: Object.values(c.views ?? {}).flatMap((vs) => vs.map((v) => v.id)),
		tools: (c.languageModelTools ?? []).map((t) => t.name),
		auth: c.authentication ?? [],
		fileSystems: FILE_SYSTEM_SCHEMES,
		contentProviders: DOCUMENT_SCHEMES,
		collapseAll: [...COLLAPSE_ALL_VIEWS],
		webviews: Object.values(WEBVIEW_TYPES),
	};
	const report =
		host === 'node'
			? `const path = process.env.CLOUD_AGENTS_ACTIVATION_REPORT;
	if (path) {
		const marks = globalThis.MonacoPerformanceMarks ? globalThis.MonacoPerformanceMarks.getMarks() : [];
		const mark = (what) => (marks.find((m) => m.name === 'code/extHost/' + what + '/' + context.extension.id) || {}).startTime;
		require('node:fs').writeFileSync(path, JSON.stringify({ willLoad: mark('willLoadExtensionCode'), didLoad: mark('didLoadExtensionCode'), activateMs: end - start, activateEndEpochMs: performance.timeOrigin + end, dist: [] }));
	}`
			: `performance.measure(${JSON.stringify(ACTIVATION_MEASURE)}, { start, end });`;
	const entry = join(dir, 'extension.js');
	writeFileSync(
		entry,
		`const vscode = require('vscode');
const LISTS = ${JSON.stringify(lists)};
exports.activate = (context) => {
	const start = performance.now();
	const keep = (d) => context.subscriptions.push(d);
	const log = vscode.window.createOutputChannel('Registration floor', { log: true });
	keep(log);
	for (const id of LISTS.commands) keep(vscode.commands.registerCommand(id, () => undefined));
	// Providers of the same shape as ours (src/shell/standIns.ts): VS Code's work at registration
	// depends on which members a provider has (it subscribes to a change event, asks for resolveTreeItem).
	for (const id of LISTS.views) {
		const treeChanges = new vscode.EventEmitter();
		keep(treeChanges);
		const rows = { onDidChangeTreeData: treeChanges.event, getTreeItem: (x) => x, getChildren: () => [], getParent: () => undefined, resolveTreeItem: (item) => item };
		keep(vscode.window.createTreeView(id, { treeDataProvider: rows, showCollapseAll: LISTS.collapseAll.includes(id) }));
	}
	const changes = new vscode.EventEmitter();
	const fs = {
		onDidChangeFile: changes.event,
		watch: () => new vscode.Disposable(() => undefined),
		stat: (uri) => { throw vscode.FileSystemError.FileNotFound(uri); },
		readDirectory: () => [],
		createDirectory: () => undefined,
		readFile: (uri) => { throw vscode.FileSystemError.FileNotFound(uri); },
		writeFile: () => undefined,
		delete: () => undefined,
		rename: () => undefined,
	};
	for (const [scheme, options] of Object.entries(LISTS.fileSystems)) {
		const provider = options.copies ? { ...fs, copy: () => undefined } : fs;
		keep(vscode.workspace.registerFileSystemProvider(scheme, provider, { isCaseSensitive: options.isCaseSensitive, isReadonly: options.isReadonly }));
	}
	const documentChanges = new vscode.EventEmitter();
	for (const scheme of LISTS.contentProviders) keep(vscode.workspace.registerTextDocumentContentProvider(scheme, { onDidChange: documentChanges.event, provideTextDocumentContent: () => '' }));
	for (const type of LISTS.webviews) keep(vscode.window.registerWebviewPanelSerializer(type, { deserializeWebviewPanel: async (panel) => panel.dispose() }));
	if (vscode.lm && vscode.lm.registerTool) {
		for (const tool of LISTS.tools) keep(vscode.lm.registerTool(tool, { invoke: async () => new vscode.LanguageModelToolResult([]), prepareInvocation: async () => undefined }));
	}
	const sessions = new vscode.EventEmitter();
	for (const a of LISTS.auth) {
		keep(vscode.authentication.registerAuthenticationProvider(a.id, a.label, { onDidChangeSessions: sessions.event, getSessions: async () => [], createSession: async () => { throw new Error('no'); }, removeSession: async () => undefined }, { supportsMultipleAccounts: false }));
	}
	const item = vscode.window.createStatusBarItem('registrationFloor.status', vscode.StatusBarAlignment.Left, 49);
	keep(item);
	const end = performance.now();
	${report}
};
exports.deactivate = () => undefined;
`,
	);
	return entry;
}

/**
 * Loads a bundle (`entry`) in a fresh Node process (code-server's own Node, `vscode` stubbed by
 * test/unit/support/vscodeStub.ts, as in test/unit/build/bundles.test.ts) and returns the CPU time and wall time of the `require`, which
 * includes compiling the file. CPU time hardly moves with other processes' load.
 */
function loadInPlainNode(nodeBin: string, entry: string): { cpuMs: number; wallMs: number } {
	const script = `
const Module = require('node:module');
const stub = (${makeVscodeStub.toString()})(${JSON.stringify(vscodeApiNames(ROOT))});
const original = Module._load;
Module._load = (request, ...rest) => (request === 'vscode' ? stub : original(request, ...rest));
const c0 = process.cpuUsage();
const t0 = performance.now();
require(${JSON.stringify(entry)});
const t1 = performance.now();
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ cpuMs: (c.user + c.system) / 1000, wallMs: t1 - t0 }));
`;
	const r = spawnSync(nodeBin, ['-e', script], { encoding: 'utf8' });
	if (r.status !== 0) {
		throw new Error(`loading ${entry} in Node failed: ${r.stderr}`);
	}
	return JSON.parse(r.stdout) as { cpuMs: number; wallMs: number };
}

/** Waits until `ready()` gives a value, within `end` (epoch ms), while code-server runs. */
async function poll<T>(ready: () => Promise<T | undefined> | T | undefined, child: ChildLike, end: number, what: string): Promise<T> {
	for (;;) {
		const value = await ready();
		if (value !== undefined) {
			return value;
		}
		if (child.exited) {
			throw new Error(`code-server exited before ${what}`);
		}
		if (Date.now() > end) {
			throw new Error(`no ${what} after ${REPORT_TIMEOUT_MS / 1000} s`);
		}
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** The Node extension host: the report src/platform/node/nodePlatform.ts writes, as a sample. */
async function nodeSample(reportPath: string, child: ChildLike, end: number): Promise<Sample> {
	// Written in one call, but the file can exist before its text is in it (seen on a loaded
	// machine: "Unexpected end of JSON input"): read until it parses, within the same deadline.
	const r = await poll(
		() => {
			try {
				return existsSync(reportPath) ? (JSON.parse(readFileSync(reportPath, 'utf8')) as ActivationReport) : undefined;
			} catch {
				return undefined;
			}
		},
		child,
		end,
		`activation report (${reportPath})`,
	);
	if (r.willLoad === undefined || r.didLoad === undefined) {
		throw new Error(`the extension host gave no load marks for ${EXTENSION_ID} (got ${JSON.stringify(r)})`);
	}
	const loadMs = r.didLoad - r.willLoad;
	return { loadMs, activateMs: r.activateMs, totalMs: loadMs + r.activateMs, dist: r.dist };
}

/**
 * In a web worker: the extension host's marks for our extension (`code/extHost/<what>/<id>` →
 * startTime), and as `activate` the duration of the measure src/platform/web/webPlatform.ts adds around
 * activate() (a string: the bench has no DOM types).
 */
function workerMarksScript(extensionId: string): string {
	return `(() => {
	const prefix = 'code/extHost/';
	const suffix = '/' + ${JSON.stringify(extensionId)};
	const out = {};
	for (const m of performance.getEntriesByType('mark')) {
		if (m.name.startsWith(prefix) && m.name.endsWith(suffix)) {
			out[m.name.slice(prefix.length, -suffix.length)] = m.startTime;
		}
	}
	for (const m of performance.getEntriesByName(${JSON.stringify(ACTIVATION_MEASURE)}, 'measure')) {
		out.activate = m.duration;
	}
	return out;
})()`;
}

/** The web worker extension host: its own marks, read in the worker through Playwright, as a sample. */
async function webSample(page: Page, child: ChildLike, end: number, extensionId: string): Promise<Sample> {
	const script = workerMarksScript(extensionId);
	const m = await poll(
		async () => {
			for (const worker of page.workers()) {
				// A worker may end while it is asked (the workbench's own short-lived workers).
				const marks = await worker.evaluate<Record<string, number>>(script).catch(() => undefined);
				if (marks?.didActivateExtension !== undefined) {
					return marks;
				}
			}
			return undefined;
		},
		child,
		end,
		`activation marks for ${extensionId} in the page's web workers`,
	);
	const span = (from: string, to: string): number => {
		const a = m[from];
		const b = m[to];
		if (a === undefined || b === undefined) {
			throw new Error(`the web worker extension host gave no ${from} / ${to} marks (got ${JSON.stringify(m)})`);
		}
		return b - a;
	};
	const loadMs = span('willLoadExtensionCode', 'didLoadExtensionCode');
	const activateMs = m.activate;
	if (activateMs === undefined) {
		throw new Error(`no ${ACTIVATION_MEASURE} measure in the web worker (src/platform/web/webPlatform.ts reportActivation)`);
	}
	return {
		loadMs,
		activateMs,
		totalMs: loadMs + activateMs,
		dist: ['web/extension.js'],
		fetchMs: span('willFetchExtensionCode', 'didFetchExtensionCode'),
		compileMs: span('didFetchExtensionCode', 'willLoadExtensionCode'),
		hostActivateMs: span('willActivateExtension', 'didActivateExtension'),
	};
}

/** One fresh code-server start with `variant` installed; resolves with its figures. */
async function measureOnce(
	h: Harness,
	procs: Procs,
	cs: CodeServer,
	browser: Browser,
	variant: Variant,
	dir: string,
	apiUrl: string,
): Promise<Sample> {
	const ud = join(dir, 'user-data');
	const folder = join(dir, 'workspace');
	mkdirSync(folder, { recursive: true });
	writeFileSync(join(folder, 'README.md'), '# activation bench\n');
	h.writeUserSettings(ud, { ...h.CALM_SETTINGS, 'cloudAgents.apiUrl': apiUrl });
	const reportPath = join(dir, 'activation.json');
	const port = await h.freePort();
	let child: ChildLike | undefined;
	try {
		child = await h.startCodeServer(procs, cs, {
			port,
			extensionsDir: variant.extensionsDir,
			userDataDir: ud,
			folder,
			logFile: join(dir, 'code-server.log'),
			env: { CLOUD_AGENTS_ACTIVATION_REPORT: reportPath },
		});
		const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
		try {
			const page = await context.newPage();
			await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`);
			await page.locator('.monaco-workbench .activitybar').waitFor({ state: 'visible', timeout: 60_000 });
			// The window settles first (the workbench and the extension host finish starting up, as before a
			// person opens a view): on 2 cores, clicking at once measured their start-up as much as ours.
			await page.waitForTimeout(SETTLE_MS);
			// Opening the view container activates the extension (onView:cloudAgents.agents).
			await page
				.locator('.activitybar .action-item:has(> .action-label[aria-label^="Cloud Agents"])')
				.first()
				.click({ timeout: 60_000 });
			const end = Date.now() + REPORT_TIMEOUT_MS;
			return variant.host === 'web'
				? await webSample(page, child, end, variant.extensionId)
				: await nodeSample(reportPath, child, end);
		} finally {
			await context.close().catch(() => undefined);
		}
	} finally {
		if (child) {
			await procs.stop(child);
		}
	}
}

export async function run(ctx: BenchContext): Promise<void> {
	const title = 'Activation in code-server (load + activate(), fresh extension-host starts)';
	const starts = Math.max(1, Number(process.env.BENCH_ACTIVATION_STARTS ?? 20) || 20);
	const h = await loadHarness();
	const work = join(ROOT, 'bench', '.tmp', `activation-${process.pid}`);
	rmSync(work, { recursive: true, force: true });
	mkdirSync(work, { recursive: true });
	let browser: Browser | undefined;
	const procs = new h.Processes();
	try {
		ctx.log('activation: installing/locating code-server and Chromium (cached after the first run)…');
		const cs = await h.ensureCodeServer({ browser: true });
		h.ensureSystemPackages({ browser: true, build: false });
		ctx.log('activation: building the baseline (one bundle), the split and the web .vsix…');
		const variants = buildVariants(h, work);
		for (const v of variants) {
			mkdirSync(v.extensionsDir, { recursive: true });
			h.installExtension(cs, v.extensionsDir, join(work, 'install-user-data'), v.vsix);
		}
		browser = await launchChromium(h);
		// One warm-up start of each (the file cache, code-server itself), then laps in which each variant
		// follows each, itself included, once (bench/order.ts: a start can leave work behind for the next).
		const order = balancedStarts(variants.length, starts);
		for (const [i, index] of [...order.warmUp, ...order.counted].entries()) {
			const v = variants[index] as Variant;
			const warmUp = i < order.warmUp.length;
			const dir = join(work, 'starts', `${i}-${v.key}`);
			const sample = await measureOnce(h, procs, cs, browser, v, dir, ctx.emulatorUrl);
			const web =
				sample.fetchMs === undefined
					? ''
					: `; fetch ${sample.fetchMs.toFixed(1)} ms, compile ${(sample.compileMs ?? 0).toFixed(1)} ms, host's activate span ${(sample.hostActivateMs ?? 0).toFixed(1)} ms`;
			ctx.log(
				`activation: ${warmUp ? 'warm-up' : `start ${v.samples.length + 1}/${order.perVariant}`} ${v.name}: load ${sample.loadMs.toFixed(1)} ms + activate ${sample.activateMs.toFixed(1)} ms (${sample.dist.join(', ')}${web})`,
			);
			if (!warmUp) {
				v.samples.push(sample);
			}
		}
		const [base, split, webBuild, floorNode, floorWeb] = variants as [Variant, Variant, Variant, Variant, Variant];
		// Plain Node: require() of each build's entry bundle in fresh processes, alternating, after one warm-up each.
		const plainRuns = 15;
		const plain = new Map<Variant, Array<{ cpuMs: number; wallMs: number }>>(variants.map((v) => [v, []]));
		for (let i = 0; i <= plainRuns; i++) {
			for (const v of variants.map((_, k) => variants[(k + i) % variants.length] as Variant)) {
				const r = loadInPlainNode(cs.node, v.entry);
				if (i > 0) {
					plain.get(v)?.push(r);
				}
			}
		}
		const plainMedian = (v: Variant, k: 'cpuMs' | 'wallMs'): number => median((plain.get(v) ?? []).map((x) => x[k]));
		const stats = (v: Variant) => {
			const totals = v.samples.map((s) => s.totalMs);
			return {
				mean: mean(totals),
				median: median(totals),
				min: Math.min(...totals),
				max: Math.max(...totals),
				load: mean(v.samples.map((s) => s.loadMs)),
				activate: mean(v.samples.map((s) => s.activateMs)),
			};
		};
		const b = stats(base);
		const s = stats(split);
		const w = stats(webBuild);
		const fn = stats(floorNode);
		const fw = stats(floorWeb);
		const webFetch = mean(webBuild.samples.map((x) => x.fetchMs ?? 0));
		const webCompile = mean(webBuild.samples.map((x) => x.compileMs ?? 0));
		const webHostActivate = mean(webBuild.samples.map((x) => x.hostActivateMs ?? 0));
		const fmt = (x: { mean: number; min: number; max: number; load: number; activate: number }): string =>
			`${x.mean.toFixed(1)} ms (min ${x.min.toFixed(1)}, max ${x.max.toFixed(1)}; load ${x.load.toFixed(1)} + activate ${x.activate.toFixed(1)})`;
		const clientAtActivation = split.samples.filter((x) => x.dist.some((f) => f.endsWith('client.js'))).length;
		const featuresAtActivation = split.samples.filter((x) => x.dist.some((f) => f.endsWith('features.js'))).length;
		const bodyAtActivation = split.samples.filter((x) => x.dist.some((f) => f.endsWith('main.js') || f.endsWith('core.js'))).length;
		const body = (split.bundles['main.js'] ?? 0) + (split.bundles['core.js'] ?? 0);
		const rows: Row[] = [
			{
				metric: `activation ÷ registration floor, Node's extension host (medians of ${order.perVariant} starts, load + activate)`,
				value: `${(s.median / fn.median).toFixed(2)}: ${s.median.toFixed(1)} ms ÷ ${fn.median.toFixed(1)} ms`,
				target: `≤ ${FLOOR_GOAL}`,
				pass: s.median / fn.median <= FLOOR_GOAL,
			},
			{
				metric: `activation ÷ registration floor, the web worker extension host (VS Code for the Web; medians of ${order.perVariant} starts)`,
				value: `${(w.median / fw.median).toFixed(2)}: ${w.median.toFixed(1)} ms ÷ ${fw.median.toFixed(1)} ms`,
				target: `≤ ${FLOOR_GOAL}`,
				pass: w.median / fw.median <= FLOOR_GOAL,
			},
			{
				metric: 'activation ÷ registration floor, means (no goal: one start slowed by the machine moves a mean of a few)',
				value: `Node ${(s.mean / fn.mean).toFixed(2)}, web worker ${(w.mean / fw.mean).toFixed(2)}`,
			},
			{ metric: `activation, shipped split build: mean of ${order.perVariant} starts (load + activate)`, value: fmt(s) },
			{ metric: `registration floor, Node's extension host: mean of ${order.perVariant} starts`, value: fmt(fn) },
			{ metric: `registration floor, the web worker extension host: mean of ${order.perVariant} starts`, value: fmt(fw) },
			{ metric: `activation, baseline one bundle, same run: mean of ${order.perVariant} starts`, value: fmt(b) },
			{ metric: 'split ÷ baseline (means)', value: (s.mean / b.mean).toFixed(2) },
			{
				metric: `activation, web build in the web worker extension host (VS Code for the Web), same run: mean of ${order.perVariant} starts (load + activate)`,
				value: fmt(w),
			},
			{ metric: 'web ÷ shipped split build (means)', value: (w.mean / s.mean).toFixed(2) },
			{
				metric: "web build, before its load (not in the figure above, nor in VS Code's): fetching dist/web/extension.js, then compiling it (new Function) and the extension host's localisation set-up, means",
				value: `fetch ${webFetch.toFixed(1)} ms, then ${webCompile.toFixed(1)} ms`,
			},
			{
				metric: "web build: the extension host's span around the activate() call (willActivate → didActivateExtension, with the microtasks activate() queued), mean",
				value: `${webHostActivate.toFixed(1)} ms (activate() itself: ${w.activate.toFixed(1)} ms)`,
			},
			{
				metric: `median of all ${order.perVariant} starts, split / baseline / web`,
				value: `${median(split.samples.map((x) => x.totalMs)).toFixed(1)} ms / ${median(base.samples.map((x) => x.totalMs)).toFixed(1)} ms / ${median(webBuild.samples.map((x) => x.totalMs)).toFixed(1)} ms`,
			},
			{
				metric: `cross-check in plain Node 24 (code-server's): CPU time of require() of the entry bundle, median of ${plainRuns} fresh processes, split / baseline / web`,
				value: `${plainMedian(split, 'cpuMs').toFixed(1)} ms / ${plainMedian(base, 'cpuMs').toFixed(1)} ms / ${plainMedian(webBuild, 'cpuMs').toFixed(1)} ms (split ÷ baseline ${(plainMedian(split, 'cpuMs') / plainMedian(base, 'cpuMs')).toFixed(2)}, web ÷ split ${(plainMedian(webBuild, 'cpuMs') / plainMedian(split, 'cpuMs')).toFixed(2)}; wall ${plainMedian(split, 'wallMs').toFixed(1)} / ${plainMedian(base, 'wallMs').toFixed(1)} / ${plainMedian(webBuild, 'wallMs').toFixed(1)} ms)`,
			},
			{
				metric: 'starts whose activation loaded dist/client.js (HTTP client: undici, eventsource-parser)',
				value: `${clientAtActivation} of ${order.perVariant}`,
				target: '0',
				pass: clientAtActivation === 0,
			},
			{
				metric: "starts whose activation loaded dist/features.js (the commands' code)",
				value: `${featuresAtActivation} of ${order.perVariant}`,
				target: '0',
				pass: featuresAtActivation === 0,
			},
			{
				metric: 'starts whose activation loaded the body, dist/main.js or dist/core.js (it starts after activation: src/shell/standIns.ts)',
				value: `${bodyAtActivation} of ${order.perVariant}`,
				target: '0',
				pass: bodyAtActivation === 0,
			},
			{ metric: 'code loaded at activation: dist/extension.js (the stand-ins)', value: kib(split.bundles['extension.js'] ?? 0) },
			{
				metric: 'the body, loaded in the idle time after activation: dist/main.js + dist/core.js',
				value: `${kib(body)} (${kib(split.bundles['main.js'] ?? 0)} + ${kib(split.bundles['core.js'] ?? 0)})`,
			},
			{ metric: 'dist/features.js (the commands, loaded on first use)', value: kib(split.bundles['features.js'] ?? 0) },
			{ metric: 'dist/client.js (loaded on first use)', value: kib(split.bundles['client.js'] ?? 0) },
			{ metric: 'baseline: the one bundle (dist/extension.js)', value: kib(base.bundles['extension.js'] ?? 0) },
			{
				metric: 'web build: the one bundle (dist/web/extension.js; loading it evaluates the stand-ins, the body is evaluated when it starts)',
				value: kib(webBuild.bundles['web/extension.js'] ?? 0),
			},
			{
				metric: 'vsix, shipped split build',
				value: kib(statSync(split.vsix).size),
				target: '< 1024 KiB',
				pass: statSync(split.vsix).size < 1024 * 1024,
			},
			{ metric: 'vsix, baseline one bundle', value: kib(statSync(base.vsix).size) },
			{ metric: 'vsix, web build (as test:web installs it: no `main`)', value: kib(statSync(webBuild.vsix).size) },
			{
				metric: 'vsix entries, shipped split build',
				value: h
					.zipEntries(split.vsix)
					.filter((e) => e.startsWith('extension/dist/'))
					.map((e) => e.slice('extension/'.length))
					.join(', '),
			},
		];
		const load = loadavg()
			.map((x) => x.toFixed(2))
			.join(', ');
		ctx.addSection({
			title,
			rows,
			notes: [
				`Load average (1, 5, 15 min) after the starts: ${load} on ${cpus().length} cores. The code-server figures are wall-clock times inside an extension host that shares the machine; when the load exceeds the cores they grow with it, the ratio and the plain-Node CPU times much less.`,
				`How it works: each start is a new code-server (so a new extension host) with a new user-data folder and a new Chromium context; after 5 s for the window to settle (on 2 cores, a click at once measured the workbench's own start-up as much as ours), a click on the Cloud Agents activity-bar entry activates the extension (onView), which, with CLOUD_AGENTS_ACTIVATION_REPORT set, writes the extension host's own marks around require(main) (load, ms resolution) and the duration of activate() (performance.now()). load + activate is the figure "Developer: Show Running Extensions" shows. The web build runs in code-server's web worker extension host (installed without \`main\`, as test:web does); there the bench reads the worker's performance timeline (Playwright, µs resolution): load = the extension host's marks around evaluating the fetched bundle, activate = the measure the web platform adds around activate() (performance.now(), as in Node); the bundle's fetch and compilation before that are shown apart (VS Code's figure leaves them out too), and so is the extension host's own span around the activate() call. Baseline, split and web build come from the same sources (esbuild.mjs --single, the default, its web build), are installed side by side, and are started in turn with the two registration floors, after one uncounted warm-up start each, in laps in which each variant follows each variant, itself included, once (bench/order.ts: a start can leave work behind for the next one, and rotating one fixed order started each variant after the same other every time: the split build after the single bundle, its floor after the web build). The registration floors are static extensions the bench writes (writeRegistrationFloor): our package.json's contributions and activation events, and an activate() that registers what ours registers at activation (every command, a tree view per view, the file systems and document providers of our schemes — each provider with the members ours has, as VS Code's work at a registration depends on them —, the webview serializers, the language-model tools, the authentication provider, a status bar item, a log channel) and nothing else, reporting as ours does; one for Node's extension host, one for the web worker's. The goals are the ratios of the split build's and the web build's medians to their floor's: what our own code adds to what registering the same things costs VS Code. Medians, not means: a start costs 5–20 ms, and on this machine one start in a few is slowed by something else (a garbage collection, the browser, another process) by as much again, which decides a mean of a few starts (the same code gave the web build 1.13 and 1.31 of its floor's mean in two full runs).`,
				...(base.vsceWarnings.length > 0 ? [`vsce on the baseline: ${base.vsceWarnings.join(' / ')}`] : []),
			],
		});
	} catch (err) {
		ctx.log(`activation: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
		ctx.addSection({
			title,
			rows: [
				{
					metric: `activation ÷ registration floor (medians of ${starts} starts)`,
					value: `not measured: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
					target: `≤ ${FLOOR_GOAL}`,
					pass: false,
				},
			],
		});
	} finally {
		await browser?.close().catch(() => undefined);
		await procs.stopAll();
		rmSync(work, { recursive: true, force: true });
	}
}
