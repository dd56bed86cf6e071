// Writes the user settings of the F5 "Run Extension" window (.vscode-test/f5-user-data), pointing
// cloudAgents.apiUrl at the emulator on EMULATOR_PORT (default 8787). Other settings are kept.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CALM_SETTINGS, ROOT, writeUserSettings } from './lib/harness.mjs';

const ud = join(ROOT, '.vscode-test', 'f5-user-data');
const file = join(ud, 'User', 'settings.json');
let current = {};
if (existsSync(file)) {
	try {
		current = JSON.parse(readFileSync(file, 'utf8'));
	} catch {
		/* comments or a broken file: start over */
	}
}
const apiUrl = `http://127.0.0.1:${process.env.EMULATOR_PORT ?? 8787}`;
writeUserSettings(ud, { ...CALM_SETTINGS, ...current, 'cloudAgents.apiUrl': apiUrl });
console.log(`${file}: cloudAgents.apiUrl = ${apiUrl}`);
