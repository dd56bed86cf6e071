/**
 * `process` in the web runner's bundle (esbuild `inject`: scripts/lib/bundle-tests.mjs), where a web
 * worker has none: the lane's environment the harness wrote into the bundle's first line, and no
 * terminal (the `assert` package asks `process.stderr` whether to colour a diff).
 */
const harness = globalThis as { __cloudAgentsHarnessEnv?: Record<string, string | undefined> };

export const process = {
	env: harness.__cloudAgentsHarnessEnv ?? {},
	stderr: undefined,
	emitWarning: undefined,
	version: 'web worker',
	platform: 'browser',
};
