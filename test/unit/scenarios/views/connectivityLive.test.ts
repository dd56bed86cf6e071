import * as assert from 'node:assert/strict';
import { CloudAgentsClient } from '../../../../src/api';
import { Connectivity } from '../../../../src/views/connectivity';
import { DEV_TOKEN, emulatorAdmin, outageEmulatorPerSuite } from '../../support/emulator';
import { nodeConnect } from '../../../../src/platform/node/network';

/**
 * The client's `onOutcome` feeding the shared connectivity (as src/extension.ts wires them), against
 * the emulator over real HTTP and its outage switch: every request's outcome is told, a refused one
 * takes the state offline, any answer (a 401, a 500 too) brings it back and re-reads what waited.
 */
suite('views/connectivity with the client (emulator, outage switch)', () => {
	const emu = outageEmulatorPerSuite();

	function wired(token = DEV_TOKEN) {
		const outcomes: Array<{ err: unknown; startedAt: number }> = [];
		const connectivity = new Connectivity();
		const client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => token,
			retry: { maxAttempts: 1 },
			onOutcome: (err, startedAt) => {
				outcomes.push({ err, startedAt });
				connectivity.report(err, { startedAt });
			},
		});
		return { outcomes, connectivity, client };
	}

	test('each request tells its outcome and when it was sent: an answer, or the failure', async () => {
		const { outcomes, client } = wired();
		const before = Date.now();
		await client.listAgents({ limit: 2 });
		assert.equal(outcomes.length, 1);
		assert.equal(outcomes[0]!.err, undefined);
		assert.ok(outcomes[0]!.startedAt >= before && outcomes[0]!.startedAt <= Date.now());
		const missing = '00000000-0000-4000-8000-000000000000.missing';
		await assert.rejects(client.getAgent(missing), (err: { status?: number }) => err.status === 404);
		assert.equal((outcomes[1]!.err as { status?: number }).status, 404);
		// Refused before sending (not a valid id): nothing was asked, nothing is told.
		await assert.rejects(client.getAgent('no such agent'));
		assert.equal(outcomes.length, 2);
		client.close();
	});

	test('a refused request takes the shared state offline; once the service is back, Retry Now re-reads the waiting list and it is online', async () => {
		const { connectivity, client } = wired();
		await client.listAgents({ limit: 1 });
		assert.equal(connectivity.online, true);
		await emulatorAdmin(emu.url, 'POST', '/outage', { mode: 'refuse', seconds: 60 });
		// A list as the views have it: one read at a time (a second ask shares the read in flight).
		let reads = 0;
		let inFlight: Promise<void> | undefined;
		const read = async (): Promise<void> => {
			reads++;
			const startedAt = Date.now();
			try {
				await client.listAgents({ limit: 1 });
				connectivity.reportAnswered(agentsList);
			} catch (err) {
				connectivity.report(err, { participant: agentsList, startedAt });
			}
		};
		const agentsList = {
			retry: (): Promise<void> =>
				(inFlight ??= read().finally(() => {
					inFlight = undefined;
				})),
		};
		await agentsList.retry();
		assert.equal(connectivity.online, false);
		assert.equal((connectivity.state?.reason as { code?: string }).code, 'connection_refused');
		assert.ok((connectivity.secondsToNextAttempt() ?? 0) > 0);

		await connectivity.retryNow();
		assert.equal(reads, 2, 'Retry Now read it at once');
		assert.equal(connectivity.online, false, 'still refused');

		await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
		await connectivity.retryNow();
		assert.equal(reads, 3);
		assert.equal(connectivity.online, true);
		connectivity.dispose();
		client.close();
	});

	test('answers that are failures (a 401, a 500) mean the service is there: they bring the state back online', async () => {
		const { connectivity, client } = wired('ca_not_a_valid_token_000000');
		await emulatorAdmin(emu.url, 'POST', '/outage', { mode: 'reset', seconds: 60 });
		await assert.rejects(client.listAgents({ limit: 1 }));
		assert.equal(connectivity.online, false, 'a reset connection is no answer');
		await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
		await assert.rejects(client.listAgents({ limit: 1 }), (err: { status?: number }) => err.status === 401);
		assert.equal(connectivity.online, true, 'a 401 is an answer');
		client.close();

		const other = wired();
		await emulatorAdmin(emu.url, 'POST', '/outage', { mode: 'refuse', seconds: 60 });
		await assert.rejects(other.client.listAgents({ limit: 1 }));
		assert.equal(other.connectivity.online, false);
		await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
		await emulatorAdmin(emu.url, 'PUT', '/faults', { rules: [{ method: 'GET', route: '/v2/agents', status: 500 }] });
		await assert.rejects(other.client.listAgents({ limit: 1 }), (err: { status?: number }) => err.status === 500);
		assert.equal(other.connectivity.online, true, 'a 500 is an answer');
		other.client.close();
	});

	test("a run's event stream that connects again brings the state back online at once, with nothing else asking (issue 33)", async () => {
		const connectivity = new Connectivity();
		const client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => DEV_TOKEN,
			retry: { maxAttempts: 1 },
			stream: { reconnectMinMs: 5, reconnectBaseMs: 5, reconnectMaxMs: 50 },
			onOutcome: (err, startedAt) => connectivity.report(err, { startedAt }),
		});
		let run: { agentId: string; runId: string } | undefined;
		for (const agent of (await client.listAgents({ limit: 50 })).items) {
			const runs = await client.listRuns(agent.id, { limit: 1 });
			if (runs[0]) {
				run = { agentId: agent.id, runId: runs[0].id };
				break;
			}
		}
		assert.ok(run, 'the emulator has a run');
		await emulatorAdmin(emu.url, 'POST', '/outage', { mode: 'refuse', seconds: 60 });
		const controller = new AbortController();
		try {
			await assert.rejects(client.listAgents({ limit: 1 }));
			assert.equal(connectivity.online, false);
			// The stream waits for the service (as the run follower's does); no list waits and no probe is set,
			// so only the stream can tell the state that the service is back.
			const stream = client.streamRunEvents(run.agentId, run.runId, { waitForService: true, signal: controller.signal });
			const first = stream.next();
			await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
			await first;
			assert.equal(connectivity.online, true, 'the stream connected: the service is back for everyone');
		} finally {
			controller.abort();
			await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
			client.close();
		}
	});
});
