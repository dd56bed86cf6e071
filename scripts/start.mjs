// npm start: build the extension, start the emulator with demo data and code-server with the
// extension installed and pointed at the emulator, then print the URL to open. Ctrl-C stops all.
//   PORT=8080 npm start          code-server port (default 8080, or a free port if taken)
//   EMULATOR_PORT=8787 npm start  emulator port (default 8787, or a free port if taken)
//   CLOUD_AGENTS_EMULATOR_URL=http://127.0.0.1:8787 npm start   use an emulator that is already running
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
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

const procs = new Processes();
let code;
try {
	const cs = await ensureCodeServer({ browser: false });
	rmSync(WORK, { recursive: true, force: true });
	const ext = join(WORK, 'extensions');
	const ud = join(WORK, 'user-data');
	const workspace = join(WORK, 'workspace');
	for (const d of [ext, ud, workspace]) {
		mkdirSync(d, { recursive: true });
	}
	writeFileSync(join(workspace, 'README.md'), '# Cloud Agents playground\n\nOpen the Cloud Agents view in the activity bar.\n');
	// A saved multi-root workspace, so "Open Agent Workspace → Add to Workspace" adds a folder
	// without turning the window into an untitled workspace (which reloads the page).
	const workspaceFile = join(WORK, 'playground.code-workspace');
	writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: 'workspace' }] }, null, '\t'));

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
