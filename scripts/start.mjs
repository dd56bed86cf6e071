// npm start: build the extension, start the emulator with demo data and code-server with the
// extension installed and pointed at the emulator, then print the URL to open. Ctrl-C stops all.
//   PORT=8080 npm start          code-server port (default 8080, or a free port if taken)
//   EMULATOR_PORT=8787 npm start  emulator port (default 8787, or a free port if taken)
//   CLOUD_AGENTS_EMULATOR_URL=http://127.0.0.1:8787 npm start   use an emulator that is already running
// The window opens a local copy of the demo billing agent's workspace as it was before its runs
// (`billing`, written fresh at each start into a temporary folder outside the clone), so that
// "Compare with Local Folder…" on that agent shows its changes in Source Control at once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import {
	CALM_SETTINGS,
	DEV_TOKEN,
	ROOT,
	Processes,
	buildVsix,
	ensureCodeServer,
	freePort,
	installExtension,
	log,
	startCodeServer,
	startEmulator,
	writeUserSettings,
} from './lib/harness.mjs';
import { loadEmulatorModule } from './lib/emulatorModule.mjs';

const WORK = join(ROOT, '.vscode-test', 'start');

/** `preferred` when it is free on 127.0.0.1, otherwise any free port. */
async function portOr(preferred) {
	const free = await new Promise((res) => {
		const srv = createServer();
		srv.once('error', () => res(false));
		srv.listen(preferred, '127.0.0.1', () => srv.close(() => res(true)));
	});
	return free ? preferred : freePort();
}

/**
 * Writes the billing agent's workspace as it was when its first run started (`DEMO_BILLING_BASELINE`
 * of emulator/src/seed.ts) into a new folder `billing` under the temporary folder `demoRoot`.
 */
async function writeBillingCheckout(demoRoot) {
	const { DEMO_BILLING_BASELINE } = await loadEmulatorModule('seed');
	const folder = join(demoRoot, 'billing');
	for (const [path, content] of Object.entries(DEMO_BILLING_BASELINE)) {
		mkdirSync(dirname(join(folder, path)), { recursive: true });
		writeFileSync(join(folder, path), content);
	}
	return folder;
}

const procs = new Processes();
let code;
try {
	const cs = await ensureCodeServer({ browser: false });
	rmSync(WORK, { recursive: true, force: true });
	const ext = join(WORK, 'extensions');
	const ud = join(WORK, 'user-data');
	for (const d of [ext, ud]) {
		mkdirSync(d, { recursive: true });
	}
	// The local folder: outside the clone (never in git, never under its .gitignore), fresh each start.
	const demoRoot = mkdtempSync(join(tmpdir(), 'cloud-agents-demo-'));
	procs.onStop(() => rmSync(demoRoot, { recursive: true, force: true }));
	const billing = await writeBillingCheckout(demoRoot);
	// A saved multi-root workspace, so "Open Agent Workspace → Add to Workspace" adds a folder
	// without turning the window into an untitled workspace (which reloads the page).
	const workspaceFile = join(WORK, 'playground.code-workspace');
	writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: billing }] }, null, '\t'));

	log('building the extension');
	const vsix = buildVsix(join(WORK, 'cloud-agents.vsix'));

	// CLOUD_AGENTS_EMULATOR_URL uses an emulator (or service) that is already running.
	const emulatorUrl =
		process.env.CLOUD_AGENTS_EMULATOR_URL?.replace(/\/+$/, '') ??
		(await startEmulator(procs, {
			port: await portOr(Number(process.env.EMULATOR_PORT ?? 8787)),
			logFile: join(WORK, 'emulator.log'),
		}));
	// For `npm run demo:key` (scripts/demo-key.mjs): which emulator to mint a fresh key in.
	writeFileSync(join(WORK, 'emulator-url'), `${emulatorUrl}\n`);
	log(
		`emulator on ${emulatorUrl}${process.env.CLOUD_AGENTS_EMULATOR_URL ? '' : ` with demo data (log: ${relative(ROOT, join(WORK, 'emulator.log'))})`}`,
	);

	installExtension(cs, ext, ud, vsix);
	writeUserSettings(ud, {
		...CALM_SETTINGS,
		'workbench.startupEditor': 'readme',
		'cloudAgents.apiUrl': emulatorUrl,
	});
	const port = await portOr(Number(process.env.PORT ?? 8080));
	await startCodeServer(procs, cs, {
		port,
		extensionsDir: ext,
		userDataDir: ud,
		folder: workspaceFile,
		logFile: join(WORK, 'code-server.log'),
		// The extension signs in with this token when it finds it (development only).
		env: { CLOUD_AGENTS_DEV_TOKEN: DEV_TOKEN },
	});
	const url = `http://127.0.0.1:${port}/?workspace=${encodeURIComponent(workspaceFile)}`;
	console.log(`
  Cloud Agents is running in VS Code (code-server):

    ${url}

  API (emulator): ${emulatorUrl}   dev token: ${DEV_TOKEN}
  Local folder: ${billing} (the billing agent's workspace before its runs:
  "Compare with Local Folder…" on "Refactor billing module" shows what they changed)
  Signed out? Sign Out revokes the key; \`npm run demo:key\` prints a fresh one for Sign In → API key.
  Logs: ${relative(ROOT, WORK)}/   Press Ctrl-C to stop.
`);
	const [name, child] = await Promise.race(
		procs.children.map(({ name, child }) => new Promise((res) => child.once('exit', () => res([name, child])))),
	);
	if (!procs.stopping) {
		log(`${name} exited (${JSON.stringify(child.exitInfo)}); stopping`);
	}
	code = 1;
} catch (err) {
	console.error(`npm start failed: ${err.stack ?? err}`);
	code = 1;
} finally {
	await procs.stopAll();
}
process.exit(code);
