import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import { AGENT_ID, agent } from '../../hostile/fixtures';
import { type HostileServer, type Scenario, json } from '../../hostile/server';
import { testApi, waitFor } from '../support/cloudAgents';
import { type HostileSession, useHostileServer } from '../support/hostile';

/**
 * "Load more…" in the Agents view against servers whose paging goes wrong: one that ignores every
 * cursor parameter (the first page comes back), and one that sends new cursors forever with the
 * same page. The view keeps what it loaded, drops "Load more…" and says why in a row: never an
 * endless "Load more", never a silent stop.
 */

const rows = async (): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', 'agents')) ?? [];
const agentRows = (list: RowSnapshot[]): RowSnapshot[] => list.filter((r) => r.id?.startsWith('agent/'));
const loadMore = (list: RowSnapshot[]): RowSnapshot | undefined => list.find((r) => r.contextValue === 'loadMore');
const notice = (list: RowSnapshot[]): RowSnapshot | undefined => list.find((r) => r.contextValue === 'notice');
/** The rows once "Load more…" has been answered: its row gone and a notice saying why (the view redraws later on a busy machine). */
const settled = (): Promise<RowSnapshot[]> =>
	waitFor('the view after "Load more…"', async () => {
		const list = await rows();
		return notice(list) && !list.some((r) => r.contextValue === 'loadMore') ? list : undefined;
	}).catch(() => rows());

/** Two agents per page; the server answers every request with the first page and a cursor (`fresh` makes it new each time). */
function firstPageForever(fresh: boolean): Scenario {
	return {
		description: fresh ? 'same page under new cursors' : 'ignores every cursor parameter',
		routes: {
			'GET /v2/me': (_q, res) => json(res, 200, { id: 'u1', display_name: 'Pager' }),
			'GET /v2/agents': (_q, res, ctx) =>
				json(res, 200, {
					agents: [agent({ id: `${AGENT_ID}0`, name: 'first' }), agent({ id: `${AGENT_ID}1`, name: 'second' })],
					next_cursor: fresh ? `c${ctx.hits}` : 'c1',
				}),
			'GET /v2/runtimes': (_q, res) => json(res, 200, { data: [] }),
		},
	};
}

suite('Hostile server paging in the Agents view', () => {
	let hostile: HostileSession;
	let server: HostileServer;

	suiteSetup(async function () {
		this.timeout(30_000);
		hostile = await useHostileServer(await testApi(), firstPageForever(false), { settings: { 'cloudAgents.pageSize': 2 } });
		server = hostile.server;
	});

	suiteTeardown(async function () {
		this.timeout(30_000);
		await hostile.restore();
	});

	test('a server that ignores the cursor: "Load more…" ends at once, the first page stays, a row says why', async function () {
		this.timeout(30_000);
		server.use(firstPageForever(false));
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		const before = await rows();
		assert.equal(agentRows(before).length, 2);
		assert.ok(loadMore(before), 'the first page offers "Load more…"');
		const sent = server.requestsTo('GET /v2/agents').length;
		await vscode.commands.executeCommand('cloudAgents.agents.loadMore');
		const after = await settled();
		assert.deepEqual(
			agentRows(after).map((r) => r.label),
			['first', 'second'],
			'what was loaded stays, without duplicates',
		);
		assert.equal(loadMore(after), undefined, 'no endless "Load more…"');
		assert.match(notice(after)?.label ?? '', /ignored the page cursor/);
		const probes = server.requestsTo('GET /v2/agents').length - sent;
		assert.ok(probes >= 2 && probes <= 7, `${probes} requests to find a cursor parameter that works`);
	});

	test('new cursors with the same page: the walk stops after the repeat, with a row saying so', async function () {
		this.timeout(30_000);
		server.use(firstPageForever(true));
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		await vscode.commands.executeCommand('cloudAgents.agents.loadMore');
		const after = await settled();
		assert.deepEqual(
			agentRows(after).map((r) => r.label),
			['first', 'second'],
		);
		assert.equal(loadMore(after), undefined);
		assert.ok(notice(after), 'a row says why the list ends');
	});
});
