/**
 * Root hooks of the unit run (.mocharc.json `require`). mocha runs a root `afterAll` once per test
 * file in parallel mode (once at the end in serial mode): the log lines and error messages that
 * file's API tests collected (support/leaks.ts) must hold no token.
 *
 * Loading this file also makes `require('vscode')` resolve to support/vscodeFake.ts (there is no
 * `vscode` module outside the extension host), and a root `afterEach` puts that fake back after
 * every test.
 */
import Module from 'node:module';
import { assertNoTokenIn, collected } from './leaks';
import { resetFake } from './vscodeFake';

const FAKE = require.resolve('./vscodeFake');
const modules = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = modules._resolveFilename;
modules._resolveFilename = (request, ...rest) => (request === 'vscode' ? FAKE : resolve(request, ...rest));

export const mochaHooks = {
	afterEach(): void {
		resetFake();
	},
	afterAll(): void {
		const lines = collected.splice(0);
		assertNoTokenIn(lines);
	},
};
