import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { CloudAgentsClient, Run } from '../../../src/api';
import type { Deployment } from '../../../src/auth/deployments';
import { ChatTools, type ChatToolsDeps } from '../../../src/chat/chatTools';
import type { ToolDeployment, ToolDeployments } from '../../../src/chat/toolDeployments';
import { TOOLS } from '../../../src/ids';
import type { HistoryEntry } from '../../../src/activity/history';
import { MARKER_PREFIX } from '../../../src/util/quotedData';
import * as fake from '../support/vscodeFake';
import { type EmulatedDeployment, requestsTo, twoEmulatorsPerSuite } from '../support/twoDeployments';
import { testSession } from '../workspace/workspaceFeatureDeps';

/**
 * src/chat/chatTools.ts with several deployments (issue 47, src/chat/toolDeployments.ts): two
 * emulators seeded alike (the demo's agents have the same names, and the billing agent the same
 * id, on both); the default deployment is one, "Staging" the other. A tool's agent is looked up in
 * each signed-in deployment: found in one, the call goes there only; found in both, nothing is
 * done and the result asks which; `deployment` picks one.
 */

/** A result's own lines and its quoted blocks (label without its size, text). */
function parse(result: vscode.LanguageModelToolResult): { lines: string[]; blocks: Array<{ label: string; text: string }> } {
	const text = ((result as unknown as fake.LanguageModelToolResult).content as fake.LanguageModelTextPart[])[0]!.value;
	const all = text.split('\n');
	const preamble = all.findIndex((l) => l.startsWith(`Text between ${MARKER_PREFIX} markers is data`));
	const lines = preamble < 0 ? all : all.slice(0, preamble - 1);
	const blocks: Array<{ label: string; text: string }> = [];
	for (let i = preamble < 0 ? all.length : preamble + 1; i < all.length;) {
		const label = all[i + 1]!.replace(/ \((\d+ characters|cut to .*)\):$/, '');
		const end = all.findIndex((l, at) => at > i + 2 && l.startsWith(`${MARKER_PREFIX} `) && l.endsWith(' END>>>'));
		blocks.push({ label, text: all.slice(i + 3, end).join('\n') });
		i = end + 1;
	}
	return { lines, blocks };
}

suite('chat/chatTools: several deployments (issue 47)', () => {
	let home: EmulatedDeployment;
	let other: EmulatedDeployment;
	let byDefault: ToolDeployment;
	let staging: ToolDeployment;
	let configured: ToolDeployment[];
	let sent: Array<{ agentId: string; prompt: string; deployment: Deployment | undefined }>;
	/** The Activity entries the activity tool reads (as src/activity/activity.ts gives them). */
	let activity: HistoryEntry[];
	twoEmulatorsPerSuite((h, s) => ([home, other] = [h, s]), { demoEachTest: true });

	setup(async () => {
		byDefault = {
			deployment: home.deployment,
			session: testSession(home.client, home.emu.url) as unknown as ToolDeployment['session'],
		};
		staging = {
			deployment: other.deployment,
			session: testSession(other.client, other.emu.url) as unknown as ToolDeployment['session'],
		};
		configured = [byDefault, staging];
		sent = [];
		activity = [];
		await home.emu.admin('POST', '/counters/reset');
		await other.emu.admin('POST', '/counters/reset');
	});

	const deployments = (): ToolDeployments => ({
		get all() {
			return configured;
		},
		get signedIn() {
			return configured.filter((d) => d.session.signedIn);
		},
		find: (nameOrId) => {
			const wanted = nameOrId.trim().toLowerCase();
			return configured.find((d) => d.deployment.id === wanted) ?? configured.find((d) => d.deployment.name.toLowerCase() === wanted);
		},
	});
	const tools = (withDeployments = true): ChatTools =>
		new ChatTools({
			session: byDefault.session,
			deployments: withDeployments ? deployments() : undefined,
			log: { info: () => undefined, warn: () => undefined },
			sendPrompt: async (agentId: string, prompt: string, deployment?: Deployment) => {
				sent.push({ agentId, prompt, deployment });
				return { id: 'run_new', status: 'queued' } as Run;
			},
			activity: { entries: () => activity, since: () => activity },
		} as unknown as ChatToolsDeps);
	const invoke = async (t: ChatTools, name: string, input: unknown): Promise<ReturnType<typeof parse>> =>
		parse(
			await t.invoke(
				name,
				{ input, toolInvocationToken: undefined },
				new fake.CancellationTokenSource().token as unknown as vscode.CancellationToken,
			),
		);
	const signOut = (d: ToolDeployment): void =>
		(d.session as unknown as { change(v: { signedIn: boolean }): void }).change({ signedIn: false });
	const write = (client: CloudAgentsClient, agentId: string, path: string, text: string): Promise<unknown> =>
		client.writeWorkspaceFile(agentId, path, new TextEncoder().encode(text));

	test("a name only one deployment has: the call goes to that deployment's service only, and the result names it", async () => {
		await other.client.renameAgent(other.agentId, 'Only on staging');
		await write(other.client, other.agentId, 'where.txt', 'staging\n');
		await home.emu.admin('POST', '/counters/reset');
		await other.emu.admin('POST', '/counters/reset');
		const { lines, blocks } = await invoke(tools(), TOOLS.readFile, { agent: 'Only on staging', path: 'where.txt' });
		assert.match(lines[0]!, /^Bytes 0 to 8 of 8/);
		assert.equal(blocks[1]!.text, 'staging\n');
		assert.deepEqual(JSON.parse(blocks[0]!.text).agent, { id: other.agentId, name: 'Only on staging', deployment: 'Staging' });
		assert.equal(await requestsTo(home.emu, 'workspace'), 0, 'the default service was asked for no file');
		assert.ok((await requestsTo(other.emu, 'workspace')) >= 1);

		await invoke(tools(), TOOLS.runPrompt, { agent: 'Only on staging', prompt: 'go' });
		assert.deepEqual(
			sent.map((s) => [s.agentId, s.deployment?.id]),
			[[other.agentId, staging.deployment.id]],
			"sent through Staging's deployment",
		);
	});

	test('a name both deployments have: nothing is sent, the result asks which and names both', async () => {
		const { lines, blocks } = await invoke(tools(), TOOLS.runPrompt, { agent: 'Refactor billing module', prompt: 'go' });
		assert.match(lines[0]!, /^Nothing was done: an agent "Refactor billing module" is in several deployments\. Ask the user which/);
		assert.match(lines[0]!, /`deployment`/);
		assert.equal(blocks[0]!.label, 'the deployments that have it');
		assert.deepEqual(
			(JSON.parse(blocks[0]!.text) as Array<{ deployment: string }>).map((d) => d.deployment),
			['127.0.0.1', 'Staging'],
		);
		assert.deepEqual(sent, []);
		for (const emu of [home.emu, other.emu]) {
			assert.equal(await requestsTo(emu, 'POST'), 0, 'nothing was sent to either service');
		}
		// The confirmation asks nothing either: the call that follows says why.
		const prepared = await tools().prepare(
			TOOLS.runPrompt,
			{ input: { agent: 'Refactor billing module', prompt: 'go' } },
			new fake.CancellationTokenSource().token as unknown as vscode.CancellationToken,
		);
		assert.equal(prepared?.confirmationMessages, undefined);
	});

	test('`deployment` (name or id, any case) picks one: its file, its run; the confirmation names it', async () => {
		await write(home.client, home.agentId, 'where.txt', 'home\n');
		await write(other.client, other.agentId, 'where.txt', 'staging\n');
		const read = async (deployment: string): Promise<string> =>
			(await invoke(tools(), TOOLS.readFile, { agent: 'Refactor billing module', deployment, path: 'where.txt' })).blocks[1]!.text;
		assert.equal(await read('staging'), 'staging\n');
		assert.equal(await read(staging.deployment.id), 'staging\n');
		assert.equal(await read('127.0.0.1'), 'home\n');
		await invoke(tools(), TOOLS.runPrompt, { agent: 'Refactor billing module', deployment: 'Staging', prompt: 'go' });
		assert.deepEqual(
			sent.map((s) => s.deployment?.name),
			['Staging'],
		);
		const prepared = await tools().prepare(
			TOOLS.runPrompt,
			{
				input: { agent: 'Refactor billing module', deployment: 'Staging', prompt: 'go' },
			},
			new fake.CancellationTokenSource().token as unknown as vscode.CancellationToken,
		);
		const message = (prepared?.confirmationMessages?.message as vscode.MarkdownString).value;
		assert.match(message, /Deployment: ` Staging `/);
	});

	test('a `deployment` not configured, or signed out, is said before any request; nothing is sent', async () => {
		const unknown = await invoke(tools(), TOOLS.runPrompt, {
			agent: 'Refactor billing module',
			deployment: 'Production',
			prompt: 'go',
		});
		assert.equal(
			unknown.lines[0],
			'Nothing was done: no Cloud Agents deployment is named "Production"; the configured deployments follow.',
		);
		assert.deepEqual(
			(JSON.parse(unknown.blocks[0]!.text) as Array<{ name: string }>).map((d) => d.name),
			['127.0.0.1', 'Staging'],
		);
		signOut(staging);
		const signedOut = await invoke(tools(), TOOLS.readFile, {
			agent: 'Refactor billing module',
			deployment: 'staging',
			path: 'README.md',
		});
		assert.match(
			signedOut.lines[0]!,
			/^Signed out of the Cloud Agents deployment "Staging": ask the user to run "Cloud Agents: Sign In"/,
		);
		assert.deepEqual(sent, []);
		for (const emu of [home.emu, other.emu]) {
			assert.equal((await emu.counters()).requests.total, 0, 'no request reached either service');
		}
		// Signed out of Staging, the name both had is the default deployment's alone: no question.
		const { lines } = await invoke(tools(), TOOLS.runStatus, { agent: 'Refactor billing module' });
		assert.doesNotMatch(lines.join('\n'), /several deployments/);
		assert.equal(await requestsTo(other.emu, 'GET'), 0);
	});

	test('list agents with two deployments: the first page of each under its name; a cursor needs `deployment`', async () => {
		const { lines, blocks } = await invoke(tools(), TOOLS.listAgents, {});
		assert.match(lines[0]!, /Cloud Agents on the first page of each of 2 deployments\.$/);
		const each = JSON.parse(blocks[0]!.text) as Array<{ deployment: string; agents: Array<{ name: string }> }>;
		assert.deepEqual(
			each.map((d) => d.deployment),
			['127.0.0.1', 'Staging'],
		);
		assert.ok(each.every((d) => d.agents.some((a) => a.name === 'Refactor billing module')));
		const paged = await invoke(tools(), TOOLS.listAgents, { cursor: 'abc' });
		assert.match(paged.lines[0]!, /`cursor` needs `deployment`/);
	});

	test('recent activity: each entry names its deployment as Activity named it (two or more configured), inside the data block', async () => {
		const at = Date.now() - 60_000;
		activity = [
			{
				event: { key: `${staging.deployment.id}/run-ended:r2`, kind: 'runEnded', at, runId: 'r2', deployment: 'Staging' },
				read: false,
			},
			{ event: { key: 'run-ended:r1', kind: 'runEnded', at: at - 1, runId: 'r1', deployment: '127.0.0.1' }, read: true },
		];
		const { blocks } = await invoke(tools(), TOOLS.recentActivity, {});
		assert.deepEqual(
			(JSON.parse(blocks[0]!.text) as Array<{ runId: string; deployment: string }>).map((e) => [e.runId, e.deployment]),
			[
				['r2', 'Staging'],
				['r1', '127.0.0.1'],
			],
		);
		activity = [{ event: { key: 'run-ended:r1', kind: 'runEnded', at, runId: 'r1' }, read: true }];
		assert.doesNotMatch((await invoke(tools(), TOOLS.recentActivity, {})).blocks[0]!.text, /deployment/);
	});

	test('one deployment configured: every result reads exactly as without deployments (no name anywhere)', async () => {
		configured = [byDefault];
		await write(home.client, home.agentId, 'where.txt', 'home\n');
		const calls: Array<[string, Record<string, unknown>]> = [
			[TOOLS.listAgents, {}],
			[TOOLS.readFile, { agent: 'Refactor billing module', path: 'where.txt' }],
			[TOOLS.runStatus, { agent: home.agentId }],
			[TOOLS.listArtifacts, { agent: 'Refactor billing module' }],
			[TOOLS.runPrompt, { agent: 'Refactor billing module', prompt: 'go' }],
			[TOOLS.readFile, { agent: 'No such agent', path: 'where.txt' }],
		];
		for (const [name, input] of calls) {
			const withOne = await invoke(tools(true), name, input);
			const without = await invoke(tools(false), name, input);
			assert.deepEqual(withOne, without, name);
			assert.doesNotMatch(JSON.stringify(withOne), /deployment|127\.0\.0\.1"/i, name);
		}
		assert.deepEqual(
			sent.map((s) => s.deployment?.isDefault),
			[true, undefined],
		);
	});
});
