import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { CloudAgentsClient } from '../../../src/api';
import { accountLabel } from '../../../src/auth/accountLabel';
import { addGatewayHostKeyToKnownHosts, platformCommands, probeConnection } from '../../../src/flows/platform';
import { registerFlows } from '../../../src/views/registry';
import { nodeConnect } from '../../../src/platform/node/network';
import type { KnownHostsFile } from '../../../src/util/knownHosts';
import type { Services } from '../../../src/views/actions';
import { GATEWAY_HOST, GATEWAY_PORT, gatewayHostKey } from '../../../emulator/src/seed';
import { DEV_TOKEN, type TestEmulator, clientOfDeadPort, startTestEmulator } from '../support/emulator';
import { collected } from '../support/leaks';
import * as fake from '../support/vscodeFake';

/**
 * src/flows/platform.ts: Check Connection and the gateway host key against the emulator (real
 * clients); known_hosts is an in-memory KnownHostsFile made here (its file rules are util/knownHosts'
 * and platform/node/knownHostsFile's own tests).
 */
const WRONG = 'ca_wrong_9f8e7d6c5b4a3210';
const demoKey = gatewayHostKey();
const LINE = `[${GATEWAY_HOST}]:${GATEWAY_PORT} ${demoKey.public_key}`;

function memoryKnownHosts(): KnownHostsFile & { files: Map<string, string[]> } {
	const files = new Map<string, string[]>();
	return {
		files,
		path: (configured) => configured || '/home/u/.ssh/known_hosts',
		has: async (file, line) => (files.get(file) ?? []).includes(line),
		add: async (file, line) => {
			const lines = files.get(file) ?? [];
			if (lines.includes(line)) {
				return 'present';
			}
			files.set(file, [...lines, line]);
			return 'added';
		},
	};
}

suite('flows/platform', () => {
	let emu: TestEmulator;
	const clients: CloudAgentsClient[] = [];
	const clientWith = (token: string | undefined, url = emu.url): CloudAgentsClient => {
		const c = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: url,
			getToken: () => token,
			retry: { baseDelayMs: 1, maxDelayMs: 5 },
		});
		clients.push(c);
		return c;
	};
	suiteSetup(async () => {
		emu = await startTestEmulator();
	});
	suiteTeardown(async () => {
		await emu?.close();
	});
	teardown(async () => {
		clients.splice(0).forEach((c) => c.close());
		await emu.faults([]);
	});

	const sessionOf = (client: CloudAgentsClient, signedIn: boolean, apiUrl = emu.url) => ({ session: { client, signedIn, apiUrl } });

	test('probeConnection signed in: reachable, timed, and who is signed in', async () => {
		const report = await probeConnection(sessionOf(clientWith(DEV_TOKEN), true) as unknown as Pick<Services, 'session'>);
		assert.equal(report.reachable, true);
		assert.equal(report.signedIn, true);
		assert.ok(report.healthMs! >= 0 && report.meMs! >= 0);
		assert.equal(report.account, accountLabel(await clientWith(DEV_TOKEN).getMe(), emu.url));
		assert.equal(report.error, undefined);
	});

	test('probeConnection signed out asks nothing of /v2/me; a rejected token is said as such', async () => {
		const out = await probeConnection(sessionOf(clientWith(undefined), false) as unknown as Pick<Services, 'session'>);
		assert.deepEqual(Object.keys(out).sort(), ['apiUrl', 'healthMs', 'reachable', 'signedIn']);
		const rejected = await probeConnection(sessionOf(clientWith(WRONG), true) as unknown as Pick<Services, 'session'>);
		assert.equal(rejected.reachable, true);
		assert.equal(rejected.tokenRejected, true);
		assert.equal(rejected.account, undefined);
		assert.ok(rejected.error && !rejected.error.includes(WRONG));
	});

	test('probeConnection falls back to GET /healthz when HEAD is not allowed', async () => {
		await emu.faults([{ method: 'HEAD', route: '/healthz', status: 405 }]);
		const gets = async (): Promise<number> =>
			Object.entries((await emu.counters()).requests.by_route)
				.filter(([route]) => /^GET \/healthz/.test(route))
				.reduce((n, [, c]) => n + c, 0);
		const before = await gets();
		const report = await probeConnection(sessionOf(clientWith(undefined), false) as unknown as Pick<Services, 'session'>);
		assert.equal(report.reachable, true, report.error);
		assert.equal((await gets()) - before, 1, JSON.stringify((await emu.counters()).requests.by_route));
	});

	test('probeConnection never throws for a server out of reach: the report says why', async () => {
		const dead = await clientOfDeadPort();
		clients.push(dead.client);
		const report = await probeConnection(
			sessionOf(dead.client, true, `http://127.0.0.1:${dead.port}`) as unknown as Pick<Services, 'session'>,
		);
		assert.equal(report.reachable, false);
		assert.ok(report.error);
		assert.equal(report.meMs, undefined);
	});

	suite('the commands', () => {
		let disposables: vscode.Disposable[];
		let knownHosts: ReturnType<typeof memoryKnownHosts>;
		let records: Array<[vscode.Uri, string]>;
		let signIns: number;
		const register = (client: CloudAgentsClient, signedIn: boolean, web = false): void => {
			knownHosts = memoryKnownHosts();
			records = [];
			signIns = 0;
			const deps = {
				...sessionOf(client, signedIn),
				log: { error: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map(String)) },
				records: { show: async (uri: vscode.Uri, text: string) => void records.push([uri, text]) },
				userFiles: { homeFolder: () => undefined, knownHosts: web ? undefined : knownHosts },
				signIn: async () => void signIns++,
			} as unknown as Services;
			// As the shell registers them (src/shell/features.ts).
			disposables = registerFlows(platformCommands(deps), deps.log, { onUnauthorized: deps.onUnauthorized });
		};
		teardown(() => {
			for (const d of disposables) {
				d.dispose();
			}
		});
		const run = (id: string, arg?: unknown): Promise<unknown> => Promise.resolve(fake.registeredCommand(id)!(arg));
		const reachability = (): unknown[] =>
			fake
				.calls('commands.executeCommand')
				.filter((c) => c[0] === 'setContext')
				.map((c) => c[2]);

		test('Check Connection, quiet: the report only, and the welcome told the server is reachable', async () => {
			register(clientWith(DEV_TOKEN), true);
			const report = (await run('cloudAgents.checkConnection', { automation: true, quiet: true })) as { reachable: boolean };
			assert.equal(report.reachable, true);
			assert.deepEqual(reachability(), ['reachable']);
			assert.deepEqual(fake.calls('window.showInformationMessage'), []);
		});

		test('Check Connection for a person: who is signed in; signed out, its Sign In runs the sign-in', async () => {
			register(clientWith(DEV_TOKEN), true);
			await run('cloudAgents.checkConnection');
			const host = new URL(emu.url).host;
			assert.match(
				fake.calls('window.showInformationMessage')[0]![0] as string,
				new RegExp(`^${host} answers \\(health check \\d+ ms\\)\\. Signed in as `),
			);
			disposables.forEach((d) => void d.dispose());
			register(clientWith(undefined), false);
			fake.answer('window.showInformationMessage', async (_m: string, ...items: string[]) => items[0]);
			await run('cloudAgents.checkConnection');
			assert.equal(signIns, 1);
		});

		test('Check Connection with a rejected token warns and offers Sign In', async () => {
			register(clientWith(WRONG), true);
			await run('cloudAgents.checkConnection');
			const [warning] = fake.calls('window.showWarningMessage');
			assert.match(warning![0] as string, /The service rejected the stored token: /);
			assert.equal(warning![1], 'Sign In');
		});

		test('Show Gateway Host Key: a JSON record with the fingerprint and the known_hosts line ([host]:port off port 22)', async () => {
			register(clientWith(DEV_TOKEN), true);
			await run('cloudAgents.ssh.showGatewayHostKey');
			const doc = JSON.parse(records[0]![1]) as Record<string, unknown>;
			assert.equal(doc.fingerprint_sha256, demoKey.fingerprint_sha256);
			assert.equal(doc.known_hosts_line, LINE);
			assert.equal(doc.port, GATEWAY_PORT);
		});

		test('Copy Gateway Host Key: the public key, or what automation asks for', async () => {
			register(clientWith(DEV_TOKEN), true);
			assert.equal(await run('cloudAgents.ssh.copyGatewayHostKey'), demoKey.public_key);
			assert.equal(
				await run('cloudAgents.ssh.copyGatewayHostKey', { automation: true, what: 'fingerprint' }),
				demoKey.fingerprint_sha256,
			);
			assert.equal(await run('cloudAgents.ssh.copyGatewayHostKey', { automation: true, what: 'knownHostsLine' }), LINE);
			assert.deepEqual(
				fake.calls('env.clipboard.writeText').map((c) => c[0]),
				[demoKey.public_key, demoKey.fingerprint_sha256, LINE],
			);
		});

		test('Add to known_hosts: asks first (host, fingerprint, the line), adds once, then says it is already there', async () => {
			register(clientWith(DEV_TOKEN), true);
			assert.equal(await run('cloudAgents.ssh.addGatewayHostKeyToKnownHosts'), undefined, 'declined');
			assert.equal(knownHosts.files.size, 0);
			const [title, options] = fake.calls('window.showWarningMessage')[0] as [string, { modal: boolean; detail: string }];
			assert.equal(title, 'Trust the SSH gateway host key in /home/u/.ssh/known_hosts?');
			assert.equal(options.modal, true);
			assert.ok(options.detail.includes(demoKey.fingerprint_sha256) && options.detail.endsWith(LINE));

			fake.answer('window.showWarningMessage', async (_t: string, _o: unknown, ...items: string[]) => items[0]);
			assert.deepEqual(await run('cloudAgents.ssh.addGatewayHostKeyToKnownHosts'), {
				file: '/home/u/.ssh/known_hosts',
				line: LINE,
				result: 'added',
			});
			assert.deepEqual(knownHosts.files.get('/home/u/.ssh/known_hosts'), [LINE]);
			const again = (await run('cloudAgents.ssh.addGatewayHostKeyToKnownHosts')) as { result: string };
			assert.equal(again.result, 'present');
			assert.equal(knownHosts.files.get('/home/u/.ssh/known_hosts')!.length, 1);
		});

		test('Add to known_hosts: the setting names the file; automation {confirm: false} asks nothing', async () => {
			register(clientWith(DEV_TOKEN), true);
			fake.settings['cloudAgents.ssh.knownHostsFile'] = '/etc/ssh/other_hosts';
			const report = (await run('cloudAgents.ssh.addGatewayHostKeyToKnownHosts', {
				automation: true,
				confirm: false,
				quiet: true,
			})) as {
				file: string;
			};
			assert.equal(report.file, '/etc/ssh/other_hosts');
			assert.deepEqual(fake.calls('window.showWarningMessage'), []);
			assert.deepEqual(knownHosts.files.get('/etc/ssh/other_hosts'), [LINE]);
		});

		test('where known_hosts cannot be written (the web) the line is offered for the clipboard instead', async () => {
			register(clientWith(DEV_TOKEN), true, true);
			fake.answer('window.showWarningMessage', async (_m: string, ...items: string[]) => items[0]);
			const report = await addGatewayHostKeyToKnownHosts(
				{
					...sessionOf(clientWith(DEV_TOKEN), true),
					userFiles: { homeFolder: () => undefined, knownHosts: undefined },
				} as unknown as Pick<Services, 'session' | 'userFiles'>,
				undefined,
			);
			assert.deepEqual(report, { file: undefined, line: LINE, result: 'copied' });
			assert.deepEqual(fake.calls('env.clipboard.writeText')[0], [LINE]);
		});
	});
});
