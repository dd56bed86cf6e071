import * as assert from 'node:assert/strict';
import { ApiError, CloudAgentsClient, WorkspaceInterfaceError } from '../../../../src/api';
import { nodeConnect } from '../../../../src/platform/node/network';
import { WorkspaceFsError, WorkspaceUnavailableError, unavailableFrom } from '../../../../src/workspace/fs/workspaceModel';
import { AGENT_ID, TOKEN } from '../../../hostile/fixtures';
import { type Served, serve } from '../../support/serve';

const HOST = 'agents.example.test:8443';
const REQUEST_ID = '0192f1a0-1234-7abc-8def-0123456789ab';

suite('fs/workspaceModel', () => {
	suite('WorkspaceFsError and WorkspaceUnavailableError', () => {
		test('a WorkspaceFsError carries its code and path; without a message it names both, the root as "/"', () => {
			const err = new WorkspaceFsError('FileNotFound', 'src/a.ts');
			assert.ok(err instanceof Error);
			assert.equal(err.name, 'WorkspaceFsError');
			assert.deepEqual([err.code, err.path, err.message], ['FileNotFound', 'src/a.ts', 'FileNotFound: src/a.ts']);
			assert.equal(new WorkspaceFsError('NoPermissions', '').message, 'NoPermissions: /');
			assert.equal(new WorkspaceFsError('TooLarge', 'big.bin', 'big.bin is 20 MB').message, 'big.bin is 20 MB');
		});

		test('a WorkspaceUnavailableError is an Unavailable WorkspaceFsError with its reason; it keeps a cause only when given one', () => {
			const cause = new Error('socket hang up');
			const err = new WorkspaceUnavailableError('unreachable', 'x', 'cannot be reached', { cause });
			assert.ok(err instanceof WorkspaceFsError);
			assert.deepEqual([err.code, err.reason, err.path, err.message], ['Unavailable', 'unreachable', 'x', 'cannot be reached']);
			assert.equal(err.cause, cause);
			const bare = new WorkspaceUnavailableError('signedOut', '', 'Signed out');
			assert.equal(bare.cause, undefined);
			assert.ok(!('cause' in bare), 'no cause property at all');
		});
	});

	suite('unavailableFrom', () => {
		const api = (status: number, code = `http_${status}`, requestId: string | null = REQUEST_ID): ApiError =>
			new ApiError(status, code, `status ${status}`, requestId ?? undefined);

		test('no answer (status 0): "unreachable", naming the host and the setting to check', () => {
			const source = api(0, 'connection_refused', null);
			const err = unavailableFrom(source, 'src', HOST);
			assert.ok(err instanceof WorkspaceUnavailableError);
			assert.equal(err.reason, 'unreachable');
			assert.equal(err.path, 'src');
			assert.equal(err.cause, source);
			assert.match(err.message, /cannot be reached at agents\.example\.test:8443 \(status 0\)/);
			assert.match(err.message, /cloudAgents\.apiUrl/);
		});

		test('401: "unauthenticated", with the code and request id and what to do', () => {
			const err = unavailableFrom(api(401, 'unauthorized'), 'a.md', HOST);
			assert.equal(err?.reason, 'unauthenticated');
			assert.equal(
				err?.message,
				`Cloud Agents at ${HOST} did not accept the sign-in (status 401 [unauthorized, request ${REQUEST_ID}]): sign in again to see this agent's files.`,
			);
		});

		test('5xx and the retryable statuses (429, 503, 504) are "failing"; the request id is left out when there is none', () => {
			for (const status of [429, 500, 501, 502, 503, 504, 599]) {
				const err = unavailableFrom(api(status), '', HOST);
				assert.equal(err?.reason, 'failing', String(status));
				assert.match(err.message, new RegExp(`service at ${HOST.replace(/\./g, '\\.')} is unavailable`));
				assert.match(err.message, /comes back by itself/);
			}
			const noId = unavailableFrom(api(503, 'overloaded', null), '', HOST);
			assert.match(noId?.message ?? '', /\[overloaded\]/);
			assert.doesNotMatch(noId?.message ?? '', /request/);
		});

		test('answers about the path (400, 403, 404, 409, 413, 422) and anything not an ApiError are not "unavailable"', () => {
			for (const status of [400, 403, 404, 409, 413, 422]) {
				assert.equal(unavailableFrom(api(status), 'p', HOST), undefined, String(status));
			}
			for (const other of [new Error('boom'), new WorkspaceFsError('FileNotFound', 'p'), undefined, null, 'text', { status: 503 }]) {
				assert.equal(unavailableFrom(other, 'p', HOST), undefined);
			}
		});

		test('a workspace interface that differs is not the service being unavailable', () => {
			const differs = new WorkspaceInterfaceError('list answered without entries', REQUEST_ID);
			assert.equal(unavailableFrom(differs, '', HOST), undefined);
		});

		suite('the errors a real client raises (loopback server)', () => {
			let served: Served;
			let status = 503;
			let client: CloudAgentsClient;
			const clientFor = (baseUrl: string): CloudAgentsClient =>
				new CloudAgentsClient({ connect: nodeConnect, baseUrl, getToken: () => TOKEN, retry: { maxAttempts: 1 } });
			/** The error a workspace stat fails with. */
			const failure = async (c: CloudAgentsClient): Promise<unknown> => {
				try {
					await c.statWorkspace(AGENT_ID, 'a.txt');
				} catch (err) {
					return err;
				}
				assert.fail('the stat should have failed');
			};

			suiteSetup(async () => {
				served = await serve((req, res) => {
					req.resume();
					req.on('end', () => {
						const body = JSON.stringify({ error: { code: `answer_${status}`, message: 'no' }, request_id: REQUEST_ID });
						res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': REQUEST_ID });
						res.end(body);
					});
				});
				client = clientFor(served.baseUrl);
			});
			suiteTeardown(async () => {
				client.close();
				await served.close();
			});

			test('503, 500 and 429 answers are "failing", 401 "unauthenticated", 404 and 403 not unavailable', async () => {
				const expected: Array<[number, string | undefined]> = [
					[503, 'failing'],
					[500, 'failing'],
					[429, 'failing'],
					[401, 'unauthenticated'],
					[404, undefined],
					[403, undefined],
				];
				for (const [answer, reason] of expected) {
					status = answer;
					const err = unavailableFrom(await failure(client), 'a.txt', HOST);
					assert.equal(err?.reason, reason, String(answer));
					if (err) {
						assert.match(err.message, new RegExp(`answer_${answer}, request ${REQUEST_ID}`));
					}
				}
			});

			test('a refused connection is "unreachable"', async () => {
				const closed = await serve((_req, res) => res.end());
				const baseUrl = closed.baseUrl;
				await closed.close();
				const refused = clientFor(baseUrl);
				try {
					const err = unavailableFrom(await failure(refused), 'a.txt', HOST);
					assert.equal(err?.reason, 'unreachable');
					assert.match(err.message, /cannot be reached at agents\.example\.test:8443/);
				} finally {
					refused.close();
				}
			});
		});
	});
});
