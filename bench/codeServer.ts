/**
 * What the code-server sections of the bench (activation, firstRows) share: the parts of
 * scripts/lib/harness.mjs they use (typed), loading it, and headless Chromium as they launch it.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** The repository's root (this file runs from out/bench/). */
export const ROOT = join(__dirname, '..', '..');

export interface CodeServer {
	node: string;
	entry: string;
	dir: string;
}
export interface ChildLike {
	exited: boolean;
}
/** The harness's process bookkeeping: stops what it started by pid (also on Ctrl-C). */
export interface Procs {
	stop(child: ChildLike): Promise<void>;
	stopAll(): Promise<void>;
}
export interface Harness {
	CALM_SETTINGS: Record<string, unknown>;
	CHROMIUM: string;
	CHROMIUM_ARGS: readonly string[];
	DEV_TOKEN: string;
	Processes: new () => Procs;
	ensureCodeServer(opts?: { browser?: boolean }): Promise<CodeServer>;
	ensureSystemPackages(opts?: { browser?: boolean; build?: boolean }): void;
	freePort(): Promise<number>;
	buildVsix(out: string): string;
	/** The web build (dist/web/extension.js) packaged without `main`, so code-server runs it in its web worker extension host. */
	buildWebVsix(out: string): string;
	checkVsix(path: string): number;
	installExtension(cs: CodeServer, extensionsDir: string, userDataDir: string, vsix: string): void;
	startCodeServer(
		procs: unknown,
		cs: CodeServer,
		opts: { port: number; extensionsDir: string; userDataDir: string; folder: string; env?: Record<string, string>; logFile?: string },
	): Promise<ChildLike>;
	startEmulator(
		procs: unknown,
		opts: { port: number; logFile?: string; seed?: string; profile?: string; corsOrigin?: string },
	): Promise<string>;
	writeUserSettings(userDataDir: string, settings: Record<string, unknown>): void;
	zipEntries(path: string): string[];
}

/** scripts/lib/harness.mjs. */
export async function loadHarness(): Promise<Harness> {
	return (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'harness.mjs')).href)) as Harness;
}

/** Headless Chromium (the system's, as the harness installs it) with as little background work as it allows. */
export function launchChromium(h: Harness): Promise<Browser> {
	return chromium.launch({
		executablePath: h.CHROMIUM,
		headless: true,
		args: [...h.CHROMIUM_ARGS],
	});
}
