/**
 * The platform commands in a real VS Code against the emulator: Check Connection (round trips and
 * who is signed in; an unreachable server), the SSH gateway host key (show, copy, add to a
 * known_hosts file the test points `cloudAgents.ssh.knownHostsFile` at — never the real ~/.ssh),
 * and secrets (open the masked metadata, delete), each asserted on the emulator's state or the file.
 */
import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { addGatewayHostKeyToKnownHosts } from '../../../src/flows/platform';
import { RECORD_SCHEME } from '../../../src/ids';
import { counters, emu, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { devToken, emulatorProfile, emulatorUrl } from '../support/env';

interface ConnectionReport {
	apiUrl: string;
	reachable: boolean;
	healthMs?: number;
	meMs?: number;
	signedIn: boolean;
	account?: string;
	error?: string;
}
interface HostKeyAnswer {
	data: Record<string, unknown>;
}
interface StateSecrets {
	secrets: Array<{ id: string; display_name: string; cache_ttl_secs: number }>;
}

const run = async <T>(command: string, ...args: unknown[]): Promise<T> => vscode.commands.executeCommand<T>(command, ...args);
const route = async (key: string): Promise<number> => (await counters()).requests.by_route[key] ?? 0;

/** The emulator's gateway key as `<type> <base64>`, read in the running profile's shape. */
async function emulatorPublicKey(): Promise<{ publicKey: string; fingerprint: string }> {
	const k = (await emu<HostKeyAnswer>('GET', '/v2/ssh-host-key', undefined, devToken())).body.data;
	if (emulatorProfile() === 'standard') {
		return { publicKey: String(k.public_key), fingerprint: String(k.fingerprint_sha256) };
	}
	return {
		publicKey: `${String(k.algorithm)} ${String(k.key)}`,
		fingerprint: String((k.fingerprints as Record<string, unknown>).sha256),
	};
}

async function setKnownHostsFile(file: string | undefined): Promise<void> {
	await vscode.workspace.getConfiguration('cloudAgents').update('ssh.knownHostsFile', file, vscode.ConfigurationTarget.Global);
	await waitFor('the known_hosts setting', async () =>
		vscode.workspace.getConfiguration('cloudAgents').get<string>('ssh.knownHostsFile', '') === (file ?? '') ? true : undefined,
	);
}

suite('Platform commands', () => {
	suiteSetup(async () => {
		await testApi();
	});
	teardown(async () => {
		await closeAllEditors();
	});

	test('Check Connection: HEAD /healthz then /v2/me, round trips and who is signed in [variant]', async () => {
		const heads = await route('HEAD /healthz');
		const mes = await route('GET /v2/me');
		const report = await run<ConnectionReport>('cloudAgents.checkConnection', { automation: true, quiet: true });
		assert.equal(report.reachable, true);
		assert.equal(report.signedIn, true);
		assert.equal(report.account, 'Ada Lovelace');
		assert.ok(typeof report.healthMs === 'number' && report.healthMs >= 0 && report.healthMs < 10_000);
		assert.ok(typeof report.meMs === 'number' && report.meMs >= 0 && report.meMs < 10_000);
		assert.equal(await route('HEAD /healthz'), heads + 1, 'one health check reached the emulator');
		assert.equal(await route('GET /v2/me'), mes + 1, 'one /v2/me reached the emulator');
	});

	test('Check Connection: a server that refuses HEAD is asked with GET /healthz', async () => {
		const gets = await route('GET /healthz');
		await emu('PUT', '/_emulator/faults', { rules: [{ method: 'HEAD', route: '/healthz', status: 405 }] });
		try {
			const report = await run<ConnectionReport>('cloudAgents.checkConnection', { automation: true, quiet: true });
			assert.equal(report.reachable, true, report.error);
			assert.equal(await route('GET /healthz'), gets + 1, 'one GET /healthz after the refused HEAD');
		} finally {
			await emu('DELETE', '/_emulator/faults');
		}
	});

	test('Check Connection: a server that does not answer is reported, not thrown', async () => {
		const config = vscode.workspace.getConfiguration('cloudAgents');
		await config.update('apiUrl', 'http://127.0.0.1:9', vscode.ConfigurationTarget.Global);
		try {
			await waitFor('the new API URL', async () => ((await testApi()).session.apiUrl === 'http://127.0.0.1:9' ? true : undefined));
			const report = await run<ConnectionReport>('cloudAgents.checkConnection', { automation: true, quiet: true });
			assert.equal(report.reachable, false);
			assert.equal(report.healthMs, undefined);
			assert.ok(report.error && report.error.length > 0, 'says why');
		} finally {
			await config.update('apiUrl', emulatorUrl(), vscode.ConfigurationTarget.Global);
			await waitFor('the emulator API URL again', async () =>
				(await testApi()).session.signedIn && (await testApi()).session.apiUrl === emulatorUrl().replace(/\/+$/, '')
					? true
					: undefined,
			);
		}
	});

	suite('SSH gateway host key', () => {
		let dir: string;
		setup(async () => {
			dir = await mkdtemp(join(tmpdir(), 'ca-known-hosts-it-'));
		});
		teardown(async () => {
			await setKnownHostsFile(undefined);
			await rm(dir, { recursive: true, force: true });
		});

		test('Add Gateway Host Key to known_hosts writes one correct line, 0600, and never twice', async () => {
			const file = join(dir, 'nested', 'known_hosts');
			await setKnownHostsFile(file);
			const { publicKey } = await emulatorPublicKey();
			const first = await run<{ file: string; line: string; result: string }>('cloudAgents.ssh.addGatewayHostKeyToKnownHosts', {
				automation: true,
				confirm: false,
				quiet: true,
			});
			assert.equal(first.file, file, 'the overridden path, not ~/.ssh');
			assert.equal(first.result, 'added');
			const expected = `[gateway.cloud-agents.example]:2222 ${publicKey}\n`;
			assert.equal(await readFile(file, 'utf8'), expected);
			if (process.platform !== 'win32') {
				assert.equal((await stat(file)).mode & 0o777, 0o600);
			}
			const second = await run<{ result: string }>('cloudAgents.ssh.addGatewayHostKeyToKnownHosts', {
				automation: true,
				confirm: false,
				quiet: true,
			});
			assert.equal(second.result, 'present');
			assert.equal(await readFile(file, 'utf8'), expected, 'no duplicate line');
		});

		test('where the platform has no known_hosts file (VS Code for the Web): one message says so and offers the line to copy; nothing is written', async () => {
			await setKnownHostsFile(join(dir, 'known_hosts'));
			const { publicKey } = await emulatorPublicKey();
			const api = await testApi();
			// This window's own vscode.window (the test's, not the extension's): the flow runs from the test bundle here.
			const window = vscode.window as unknown as Record<string, unknown>;
			const original = window.showWarningMessage;
			const shown: Array<{ message: string; items: unknown[] }> = [];
			window.showWarningMessage = (message: string, ...items: unknown[]) => {
				shown.push({ message, items });
				return Promise.resolve(undefined);
			};
			let report: Awaited<ReturnType<typeof addGatewayHostKeyToKnownHosts>>;
			try {
				report = await addGatewayHostKeyToKnownHosts(
					{ session: api.session, userFiles: { homeFolder: () => undefined, knownHosts: undefined } },
					{ automation: true, confirm: false },
				);
			} finally {
				window.showWarningMessage = original;
			}
			const line = `[gateway.cloud-agents.example]:2222 ${publicKey}`;
			assert.deepEqual(report, { file: undefined, line, result: 'unavailable' }, 'dismissed: nothing copied, no file');
			assert.equal(shown.length, 1, 'one message');
			assert.match(shown[0]!.message, /VS Code for the Web cannot write ~\/\.ssh\/known_hosts/);
			assert.match(shown[0]!.message, /\[gateway\.cloud-agents\.example\]:2222/, 'names the host the line is for');
			assert.deepEqual(shown[0]!.items, ['Copy Line']);
			assert.deepEqual(await readdir(dir), [], 'nothing written where the setting points');
		});

		// Copy Gateway Host Key is not run here: in code-server the clipboard goes through the browser,
		// which headless Chromium never answers (the command would wait forever).
		test('Show Gateway Host Key: the key, its fingerprint and the known_hosts line in a read-only JSON record [variant]', async () => {
			const { publicKey, fingerprint } = await emulatorPublicKey();
			const doc = await run<vscode.TextDocument>('cloudAgents.ssh.showGatewayHostKey');
			assert.equal(doc.uri.scheme, RECORD_SCHEME);
			assert.equal(doc.isDirty, false);
			const shown = JSON.parse(doc.getText()) as Record<string, unknown>;
			assert.equal(shown.fingerprint_sha256, fingerprint);
			assert.equal(shown.known_hosts_line, `[gateway.cloud-agents.example]:2222 ${publicKey}`);
			assert.equal(shown.public_key, publicKey);
			assert.equal(shown.port, 2222);
		});
	});

	suite('Secrets', () => {
		const value = `sk-it-${Math.random().toString(36).slice(2)}-NEVER-SHOWN-0123456789`;
		const name = `it-secret-${Math.random().toString(36).slice(2, 8)}`;
		suiteSetup(async () => {
			const created = await emu('POST', '/_emulator/secrets', { display_name: name, value, cache_ttl_secs: 7200 });
			assert.equal(created.status, 201);
		});

		test('Open Secret by Name or ID… shows the masked metadata and the TTL, never the value [variant]', async () => {
			const secret = await run<Record<string, unknown>>('cloudAgents.secrets.open', { automation: true, secret: name });
			assert.equal(secret.display_name, name);
			const doc = vscode.window.activeTextEditor?.document;
			assert.ok(doc && doc.uri.scheme === RECORD_SCHEME, 'a read-only record is shown');
			const text = doc.getText();
			assert.ok(!text.includes(value) && !text.includes('NEVER-SHOWN'), 'no full value in the document');
			const shown = JSON.parse(text) as Record<string, unknown>;
			assert.equal(shown.cache_ttl_secs, 7200);
			assert.equal(shown.cache_ttl, '2 hours');
			if (emulatorProfile() === 'standard') {
				assert.match(String(shown.value_preview), /^sk-•{8}789$/);
			} else {
				assert.equal(shown.value_preview, null, 'the variant sends no preview');
			}
			const byId = await run<Record<string, unknown>>('cloudAgents.secrets.open', {
				automation: true,
				secretId: secret.id,
				quiet: true,
			});
			assert.equal(byId.display_name, name);
		});

		test('Open Secret by Name or ID… explains a name that matches nothing', async () => {
			await assert.rejects(
				run('cloudAgents.secrets.open', { automation: true, secret: 'no-such-secret-anywhere', rethrow: true }),
				/No secret is called "no-such-secret-anywhere"/,
			);
		});

		test('Delete Secret… removes it from the service', async () => {
			const before = (await emu<StateSecrets>('GET', '/_emulator/state')).body.secrets;
			assert.ok(before.some((s) => s.display_name === name));
			const deleted = await run<Record<string, unknown>>('cloudAgents.secrets.delete', {
				automation: true,
				secret: name,
				confirm: false,
				quiet: true,
			});
			assert.equal(deleted.display_name, name);
			const after = (await emu<StateSecrets>('GET', '/_emulator/state')).body.secrets;
			assert.ok(!after.some((s) => s.display_name === name), 'gone from the emulator');
			assert.equal(after.length, before.length - 1, 'only that one');
			assert.equal((await emu('GET', `/v2/secrets/${encodeURIComponent(name)}`, undefined, devToken())).status, 404);
		});
	});
});
