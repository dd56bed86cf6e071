/**
 * Root hooks of the unit run (.mocharc.json `require`). mocha runs a root `afterAll` once per test
 * file in parallel mode (once at the end in serial mode): the log lines and error messages that
 * file's API tests collected (support/leaks.ts) must hold no token.
 */
import { assertNoTokenIn, collected } from './leaks';

export const mochaHooks = {
	afterAll(): void {
		const lines = collected.splice(0);
		assertNoTokenIn(lines);
	},
};
