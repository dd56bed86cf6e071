// npm run demo:key: mints a fresh API key in the running demo's emulator and prints it, so you can
// sign in again after Sign Out revoked the printed dev key (Cloud Agents: Sign In → API key).
//   CLOUD_AGENTS_EMULATOR_URL=http://127.0.0.1:8787 npm run demo:key   another emulator
// The emulator's admin API answers loopback clients only; run this on the machine of `npm start`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib/harness.mjs';

/** Written by `npm start` (scripts/start.mjs): the URL of the emulator it started. */
const URL_FILE = join(ROOT, '.vscode-test', 'start', 'emulator-url');

const base = (
	process.env.CLOUD_AGENTS_EMULATOR_URL ?? (existsSync(URL_FILE) ? readFileSync(URL_FILE, 'utf8').trim() : 'http://127.0.0.1:8787')
).replace(/\/+$/, '');
try {
	const res = await fetch(`${base}/_emulator/keys`, { method: 'POST' });
	const body = await res.json().catch(() => ({}));
	if (res.status !== 201 || typeof body.api_key !== 'string') {
		throw new Error(`the emulator answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
	}
	console.log(`
  A fresh API key for the demo (${base}):

    ${body.api_key}

  In VS Code: Cloud Agents: Sign In → API key, and paste it. (Valid until ${body.expires_at}.)
`);
} catch (err) {
	console.error(`npm run demo:key: could not mint a key at ${base}: ${err.message ?? err}\n  Is \`npm start\` running?`);
	process.exit(1);
}
