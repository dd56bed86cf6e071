// The integration suites (test/integration/suite/**) in desktop VS Code through @vscode/test-electron.
// For machines with a display (or xvfb-run) and internet access: test-electron downloads VS Code
// from Microsoft's update service. Where that is impossible use `npm run test:integration`
// (code-server), which runs the same suites.
//   VSCODE_VERSION=1.96.0 npm run test:desktop     (default: stable)
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runTests } from '@vscode/test-electron';
import { CALM_SETTINGS, DEV_TOKEN, ROOT, Processes, freePort, log, startEmulator, writeUserSettings } from './lib/harness.mjs';
import { buildRunnerExtension } from './lib/bundle-tests.mjs';

const WORK = join(ROOT, '.vscode-test', 'desktop');
const procs = new Processes();
let code = 1;
try {
	rmSync(WORK, { recursive: true, force: true });
	const ud = join(WORK, 'user-data');
	const workspace = join(WORK, 'workspace');
	mkdirSync(workspace, { recursive: true });
	const build = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
	if (build.status !== 0) {
		throw new Error('esbuild failed');
	}
	// The runner bundle lives inside the extension under development so `require('vscode')` resolves.
	await buildRunnerExtension(join(WORK, 'runner'));
	const emulatorUrl =
		process.env.CLOUD_AGENTS_EMULATOR_URL ??
		(await startEmulator(procs, { port: await freePort(), logFile: join(WORK, 'emulator.log') }));
	log(`emulator on ${emulatorUrl}`);
	writeUserSettings(ud, { ...CALM_SETTINGS, 'cloudAgents.apiUrl': emulatorUrl });
	await runTests({
		version: process.env.VSCODE_VERSION ?? 'stable',
		extensionDevelopmentPath: ROOT,
		extensionTestsPath: join(WORK, 'runner', 'dist', 'runner.js'),
		launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${ud}`],
		extensionTestsEnv: {
			CLOUD_AGENTS_EMULATOR_URL: emulatorUrl,
			CLOUD_AGENTS_DEV_TOKEN: DEV_TOKEN,
			CLOUD_AGENTS_TEST_REPORT: join(WORK, 'report.json'),
		},
	});
	code = 0;
} catch (err) {
	console.error(`test:desktop failed: ${err.message ?? err}`);
} finally {
	await procs.stopAll();
}
process.exit(code);
