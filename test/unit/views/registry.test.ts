import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, NetworkError } from '../../../src/api';
import type { CommandId } from '../../../src/ids';
import { isRegistered, registerCommand, registerFlows } from '../../../src/views/registry';
import { disposedAfterEach, until } from '../support/until';
import * as fake from '../support/vscodeFake';

const ID = 'cloudAgents.refresh' as CommandId;
const OTHER = 'cloudAgents.signIn' as CommandId;

/** A logger that keeps what it is told. */
function logger(): { error(message: string | Error, ...args: unknown[]): void; lines: unknown[][] } {
	const lines: unknown[][] = [];
	return { lines, error: (...args: unknown[]) => void lines.push(args) };
}

function run(id: CommandId, ...args: unknown[]): Promise<unknown> {
	return Promise.resolve(fake.registeredCommand(id)!(...args));
}

/** src/views/registry.ts on the `vscode` fake. */
suite('views/registry', () => {
	const disposables = disposedAfterEach();

	test('registers the command with VS Code; what the handler returns is the result; dispose unregisters it', async () => {
		const log = logger();
		const d = registerCommand(ID, (...args: never[]) => ({ args }), log);
		assert.equal(isRegistered(ID), true);
		assert.equal(isRegistered(OTHER), false);
		assert.deepEqual(await run(ID, 1, 'two'), { args: [1, 'two'] });
		d.dispose();
		assert.equal(isRegistered(ID), false);
		assert.equal(fake.registeredCommand(ID), undefined);
		assert.deepEqual(log.lines, []);
	});

	test('a cancellation or an abort is silent: nothing logged, nothing shown', async () => {
		const log = logger();
		const errors: unknown[] = [new vscode.CancellationError(), Object.assign(new Error('aborted'), { name: 'AbortError' })];
		disposables.push(
			registerCommand(
				ID,
				() => {
					throw errors.shift();
				},
				log,
			),
		);
		assert.equal(await run(ID), undefined);
		assert.equal(await run(ID), undefined);
		assert.deepEqual(log.lines, []);
		assert.equal(fake.calls('window.showErrorMessage').length, 0);
	});

	test('any other failure is logged with the command id and shown once; the command resolves', async () => {
		const log = logger();
		const failure = new ApiError(409, 'conflict', 'agent is busy', 'req_0123456789abcdef');
		disposables.push(
			registerCommand(
				ID,
				async () => {
					throw failure;
				},
				log,
			),
		);
		assert.equal(await run(ID), undefined);
		assert.deepEqual(log.lines, [[`${ID} failed:`, failure]]);
		await until(() => fake.calls('window.showErrorMessage').length === 1, 'the message');
		const [text, ...actions] = fake.calls('window.showErrorMessage')[0]!;
		assert.match(text as string, /agent is busy/);
		assert.deepEqual(actions, ['Copy Request ID']);
	});

	test('a thrown value that is no Error is logged as text', async () => {
		const log = logger();
		disposables.push(
			registerCommand(
				ID,
				() => {
					// eslint-disable-next-line @typescript-eslint/only-throw-error
					throw 'plain';
				},
				log,
			),
		);
		await run(ID);
		assert.deepEqual(log.lines, [[`${ID} failed:`, 'plain']]);
	});

	test('rethrow: when it says so for the arguments, the failure goes back to the caller (logged, not shown)', async () => {
		const log = logger();
		const failure = new Error('boom');
		disposables.push(
			registerCommand(
				ID,
				() => {
					throw failure;
				},
				log,
				{ rethrow: (arg) => arg === 'automation' },
			),
		);
		await assert.rejects(run(ID, 'automation'), (err) => err === failure);
		assert.equal(log.lines.length, 1);
		assert.equal(await run(ID, 'person'), undefined);
		assert.equal(log.lines.length, 2);
		await until(() => fake.calls('window.showErrorMessage').length === 1, 'the message for the person');
	});

	test('a 401 goes to the session’s handler when it takes it; nothing else is shown', async () => {
		const log = logger();
		const handled: unknown[] = [];
		const unauthorized = new ApiError(401, 'unauthorized', 'bad token', undefined);
		disposables.push(
			registerCommand(
				ID,
				() => {
					throw unauthorized;
				},
				log,
				{ onUnauthorized: (err) => handled.push(err) > 0 },
			),
		);
		await run(ID);
		await until(() => handled.length === 1, 'the handler');
		assert.equal(handled[0], unauthorized);
		assert.equal(fake.calls('window.showErrorMessage').length, 0);
	});

	test('no answer from the service: the message offers Retry, which runs the command again with the same arguments', async () => {
		const log = logger();
		const calls: unknown[][] = [];
		disposables.push(
			registerCommand(
				ID,
				(...args: never[]) => {
					calls.push(args);
					if (calls.length === 1) {
						throw new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:9', false);
					}
					return 'second time';
				},
				log,
			),
		);
		fake.answer('window.showErrorMessage', async (...args: unknown[]) => (args.includes('Retry') ? 'Retry' : undefined));
		await run(ID, 'a', 2);
		await until(() => calls.length === 2, 'the retry');
		assert.deepEqual(calls, [
			['a', 2],
			['a', 2],
		]);
		const [text, ...actions] = fake.calls('window.showErrorMessage')[0]!;
		assert.match(text as string, /Cannot reach the Cloud Agents service/);
		assert.deepEqual(actions, ['Retry', 'Configure API URL']);
	});

	test('registerFlows: every flow with the shared logger and options, a flow’s own rethrow over them', async () => {
		const log = logger();
		disposables.push(
			...registerFlows(
				[
					{
						id: ID,
						run: () => {
							throw new Error('shared rethrow');
						},
					},
					{
						id: OTHER,
						run: () => {
							throw new Error('own options');
						},
						rethrow: () => false,
					},
				],
				log,
				{ rethrow: () => true },
			),
		);
		assert.equal(isRegistered(ID) && isRegistered(OTHER), true);
		await assert.rejects(run(ID), /shared rethrow/);
		assert.equal(await run(OTHER), undefined);
		assert.equal(log.lines.length, 2);
		assert.equal(log.lines[1]![0], `${OTHER} failed:`);
	});

	test('registering an id twice fails as VS Code does, and the first stays registered', () => {
		const log = logger();
		disposables.push(registerCommand(ID, () => 1, log));
		assert.throws(() => registerCommand(ID, () => 2, log), /already exists/);
		assert.equal(isRegistered(ID), true);
	});
});
