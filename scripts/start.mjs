// npm start: build the extension, start the emulator with demo data and code-server with the
// extension installed and pointed at the emulator, then print the URL to open. Ctrl-C (or q) stops
// all. VS Code stays up when the emulator exits or restarts; keys in the terminal cut and restore the
// service or restart the emulator (scripts/lib/startSession.mjs).
//   PORT=8080 npm start          code-server port (default 8080, or a free port if taken)
//   EMULATOR_PORT=8787 npm start  emulator port (default 8787, or a free port if taken)
//   CLOUD_AGENTS_EMULATOR_URL=http://127.0.0.1:8787 npm start   use an emulator that is already running
//   npm start -- --web            the web build in code-server's browser (web worker) extension host, as
//                                 in VS Code for the Web: the emulator allows the workbench's origin
//                                 (CORS); sign in with Sign In → API key and the dev token
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
	buildVsixAsync,
	buildWebVsix,
	ensureCodeServer,
	freePort,
	installExtension,
	log,
	startCodeServer,
	startEmulator,
	writeUserSettings,
} from './lib/harness.mjs';
import { loadEmulatorModule } from './lib/emulatorModule.mjs';
import { withHeartbeat } from './lib/progress.mjs';
import { StartSession, emulatorAdminUrl, keysHelp, outageHelp } from './lib/startSession.mjs';

const WORK = join(ROOT, '.vscode-test', 'start');

/** Whether nothing listens on `port` of 127.0.0.1. */
function portFree(port) {
	return new Promise((res) => {
		const srv = createServer();
		srv.once('error', () => res(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
	});
}

/** `preferred` when it is free on 127.0.0.1, otherwise any free port. */
async function portOr(preferred) {
	return (await portFree(preferred)) ? preferred : freePort();
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

/**
 * Starts the demo emulator on `port` (again, after a restart) and resolves with its process once it
 * answers; `corsOrigin`: a browser page it allows (the web build's workbench); `adminPort`: its admin
 * API's port, the last one's after a restart so that the outage lines printed at start still work
 * (any free one when that is taken).
 */
async function startDemoEmulator(procs, port, corsOrigin, adminPort) {
	if (!(await portFree(port))) {
		throw new Error(`port ${port} is taken (another emulator?): stop that one first`);
	}
	const admin = adminPort && (await portFree(adminPort)) ? adminPort : undefined;
	let child;
	await startEmulator(procs, { port, adminPort: admin, logFile: join(WORK, 'emulator.log'), corsOrigin, onChild: (c) => (child = c) });
	return child;
}

/** `npm start -- --web`: the web build in the browser's extension host. */
const web = process.argv.slice(2).includes('--web');

const procs = new Processes();
let code;
let restoreTerminal = () => {};
process.once('exit', () => restoreTerminal());
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

	log(web ? 'building the web build (a browser entry, no main)' : 'building the extension');
	const vsix = web
		? buildWebVsix(join(WORK, 'cloud-agents-web.vsix'))
		: await withHeartbeat('building the extension', buildVsixAsync(join(WORK, 'cloud-agents.vsix')), { log });
	const port = await portOr(Number(process.env.PORT ?? 8080));
	// The web build calls the emulator from the workbench's page: it must allow that origin.
	const corsOrigin = web ? `http://127.0.0.1:${port}` : undefined;

	// CLOUD_AGENTS_EMULATOR_URL uses an emulator (or service) that is already running.
	const external = process.env.CLOUD_AGENTS_EMULATOR_URL?.replace(/\/+$/, '');
	const emulatorPort = external ? undefined : await portOr(Number(process.env.EMULATOR_PORT ?? 8787));
	const emulator = emulatorPort === undefined ? undefined : await startDemoEmulator(procs, emulatorPort, corsOrigin);
	const emulatorUrl = external ?? `http://127.0.0.1:${emulatorPort}`;
	// For `npm run demo:key` (scripts/demo-key.mjs): which emulator to mint a fresh key in.
	writeFileSync(join(WORK, 'emulator-url'), `${emulatorUrl}\n`);
	log(`emulator on ${emulatorUrl}${external ? '' : ` with demo data (log: ${relative(ROOT, join(WORK, 'emulator.log'))})`}`);
	const adminUrl = await emulatorAdminUrl(emulatorUrl);

	installExtension(cs, ext, ud, vsix);
	writeUserSettings(ud, {
		...CALM_SETTINGS,
		'workbench.startupEditor': 'readme',
		'cloudAgents.apiUrl': emulatorUrl,
	});
	const workbench = await startCodeServer(procs, cs, {
		port,
		extensionsDir: ext,
		userDataDir: ud,
		folder: workspaceFile,
		logFile: join(WORK, 'code-server.log'),
		// The extension signs in with this token when it finds it (development only).
		env: { CLOUD_AGENTS_DEV_TOKEN: DEV_TOKEN },
	});
	const interactive = Boolean(process.stdin.isTTY);
	const url = `http://127.0.0.1:${port}/?workspace=${encodeURIComponent(workspaceFile)}`;
	console.log(`
  Cloud Agents is running in VS Code (code-server)${web ? ", in the browser's extension host (the web build)" : ''}:

    ${url}

  API (emulator): ${emulatorUrl}   dev token: ${DEV_TOKEN}${web ? `\n  The web build cannot read the dev token from the environment: Sign In → API key, and paste it.${external ? '\n  The service must allow requests from ' + corsOrigin + ' (CORS).' : ''}` : ''}
  Local folder: ${billing} (the billing agent's workspace before its runs:
  "Compare with Local Folder…" on "Refactor billing module" shows what they changed)
  Signed out? Sign Out revokes the key; \`npm run demo:key\` prints a fresh one for Sign In → API key.
  VS Code stays up when the emulator stops: the views show the service as offline until it answers.
${adminUrl ? `${indent(outageHelp(adminUrl))}\n` : ''}${interactive ? `${indent(keysHelp())}\n` : ''}  Logs: ${relative(ROOT, WORK)}/   Press ${interactive ? 'q or ' : ''}Ctrl-C to stop.
`);
	const session = new StartSession({
		workbench,
		emulator,
		serviceUrl: emulatorUrl,
		adminUrl,
		startEmulator: external ? undefined : ({ adminPort } = {}) => startDemoEmulator(procs, emulatorPort, corsOrigin, adminPort),
		stopEmulator: (child) => procs.stop(child),
		startByHand: external ? undefined : `npm run emulator -- --port ${emulatorPort} --seed demo`,
		interactive,
		// Once stopping (Ctrl-C without a terminal: Processes' signal handler), what exits is expected.
		print: (text) => procs.stopping || log(text),
	});
	if (interactive) {
		restoreTerminal = session.listen(process.stdin);
	}
	const { reason } = await session.done;
	session.close();
	restoreTerminal();
	if (reason === 'quit') {
		log('stopping everything npm start started');
	}
	code = reason === 'quit' ? 0 : 1;
} catch (err) {
	console.error(`npm start failed: ${err.stack ?? err}`);
	code = 1;
} finally {
	await procs.stopAll();
}
process.exit(code);

/** `text` with each line indented by two spaces, as the rest of the banner. */
function indent(text) {
	return text.replace(/^/gm, '  ');
}
