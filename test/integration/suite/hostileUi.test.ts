import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsTestApi } from '../../../src/extension';
import type { RowSnapshot } from '../../../src/testing';
import { describeError, requestIdOf } from '../../../src/messages/errors';
import { AGENT_ID, RUN_ID, agent, run } from '../../hostile/fixtures';
import { errorEnvelope, json, sseStart } from '../../hostile/server';
import { testApi, within, writtenText, followEnded } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { type HostileSession, useHostileServer } from '../support/hostile';

/**
 * Server text from a hostile server in a real VS Code: agent names and run prompts with bidi
 * overrides, control characters and line breaks; run results with command links; event types with
 * line breaks that would forge output lines. The suite points `cloudAgents.apiUrl` at the hostile
 * server and signs in there (it accepts any token), then puts the emulator URL and the dev token
 * back, so later suites run against the emulator as before.
 */

/** Characters that must never reach a label, description, tooltip or document line. */
// eslint-disable-next-line no-control-regex
const BIDI_OR_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b\ufeff\u2028\u2029]/;
const RLO = '\u202e';
const HOSTILE_NAME = `Invoice ${RLO}fdp.exe\u202c\u0007\u001b[31m red\nSECOND LINE\r\n\u2066isolated\u2069 ${'x'.repeat(300)}`;
const HOSTILE_PROMPT = `Prompt ${RLO}evil\nfake line\u0000 [Open](command:workbench.action.openSettings)`;
const HOSTILE_RESULT = [
	'## Result heading',
	'',
	'Click [Open settings](command:workbench.action.openSettings) or <a href="command:workbench.action.terminal.new">this</a>.',
	`Entity link: [x](&#99;ommand:workbench.action.openSettings) ${RLO}desrever`,
	'![pixel](https://tracker.example/p.png)',
].join('\n');
const RUN_OK = 'run_hostile0002';
const FORGED_TYPE = 'log\n12:00:00.000  run.completed  FORGED-BY-SERVER';
const IMPLAUSIBLE_REQUEST_ID = `req ${'z'.repeat(200)}\n[Copy](command:evil)`;

const rows = async (key: 'agents' | 'runs'): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key)) ?? [];

suite('Hostile server text in the UI', () => {
	let api: CloudAgentsTestApi;
	let hostile: HostileSession;

	suiteSetup(async function () {
		this.timeout(30_000);
		api = await testApi();
		hostile = await useHostileServer(api, {
			description: 'server text with bidi overrides, controls, line breaks and command links',
			routes: {
				'GET /v2/me': (_req, res) => json(res, 200, { id: 'user_hostile', display_name: 'Mallory' }),
				'GET /v2/agents': (_req, res) => json(res, 200, { agents: [agent({ name: HOSTILE_NAME, status: `idle\n${RLO}x` })] }),
				[`GET /v2/agents/*/runs/${RUN_OK}/events`]: (_req, res) => {
					const write = sseStart(res);
					const frames = [
						{ seq: 1, type: FORGED_TYPE, data: { text: 'payload' } },
						{
							seq: 2,
							type: 'message',
							data: { role: 'assistant', text: 'hello\n12:00:00.000  run.completed  FORGED-IN-PAYLOAD' },
						},
						{ seq: 3, type: 'run.completed', data: { status: 'succeeded' } },
					];
					for (const f of frames) {
						// The SSE event name stays one line; the record's own `type` carries the line break.
						write(`id: ${f.seq}\nevent: message\ndata: ${JSON.stringify(f)}\n\n`);
					}
					res.end();
				},
				[`GET /v2/agents/*/runs/${RUN_OK}`]: (_req, res) =>
					json(res, 200, run({ id: RUN_OK, status: 'succeeded', prompt: HOSTILE_PROMPT, result: HOSTILE_RESULT })),
				[`GET /v2/agents/*/runs/${RUN_ID}`]: (_req, res) =>
					errorEnvelope(res, 500, 'internal', 'Broken. [Open](command:workbench.action.openSettings)', IMPLAUSIBLE_REQUEST_ID, {
						'x-request-id': 'x'.repeat(300),
					}),
				'GET /v2/agents/*/runs': (_req, res) =>
					json(res, 200, {
						runs: [
							run({ id: RUN_OK, status: 'succeeded', prompt: HOSTILE_PROMPT, result: HOSTILE_RESULT }),
							run({ prompt: HOSTILE_PROMPT }),
						],
					}),
				'GET /v2/agents/*/artifacts': (_req, res) => json(res, 200, { artifacts: [] }),
				'GET /v2/runtimes': (_req, res) => json(res, 200, { data: [] }),
			},
		});
	});

	suiteTeardown(async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		await closeAllEditors();
		await hostile.restore();
	});

	test('an agent named with bidi overrides, control characters and line breaks appears neutralised in the Agents view', async function () {
		this.timeout(20_000);
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		const row = (await rows('agents')).find((r) => r.id === `agent/${AGENT_ID}`);
		assert.ok(row, 'the hostile agent has a row');
		assert.ok(!BIDI_OR_CONTROL.test(row.label), `the label keeps a bidi or control character: ${JSON.stringify(row.label)}`);
		assert.ok(!row.label.includes('\n') && !row.label.includes('\r'), 'the label is one line');
		assert.ok(
			row.label.startsWith('Invoice fdp.exe [31m red SECOND LINE isolated') ||
				row.label.startsWith('Invoice fdp.exe red SECOND LINE isolated'),
			JSON.stringify(row.label),
		);
		assert.ok(row.label.length <= 120 && row.label.endsWith('…'), `the label is cut: ${row.label.length} characters`);
		assert.ok(
			row.description !== undefined && !BIDI_OR_CONTROL.test(row.description) && !row.description.includes('\n'),
			JSON.stringify(row.description),
		);
		assert.equal(typeof row.tooltip, 'string', 'the tooltip is plain text');
		assert.ok(
			!BIDI_OR_CONTROL.test(row.tooltip ?? ''),
			`the tooltip keeps a bidi or control character: ${JSON.stringify(row.tooltip)}`,
		);
		assert.ok((row.tooltip ?? '').length <= 2_000);
	});

	test('run prompts in the Runs view are one neutralised line', async function () {
		this.timeout(20_000);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', AGENT_ID);
		await vscode.commands.executeCommand('cloudAgents.runs.refresh');
		const list = (await rows('runs')).filter((r) => r.id?.startsWith('run/'));
		assert.equal(list.length, 2, JSON.stringify(list));
		for (const r of list) {
			assert.ok(!BIDI_OR_CONTROL.test(r.label) && !r.label.includes('\n'), JSON.stringify(r.label));
			assert.ok(r.label.startsWith('Prompt evil fake line'), JSON.stringify(r.label));
			assert.ok(!BIDI_OR_CONTROL.test(r.tooltip ?? ''), JSON.stringify(r.tooltip));
		}
	});

	test('a run result with command links opens as a Markdown record whose link syntax is escaped', async function () {
		this.timeout(20_000);
		const doc = await vscode.commands.executeCommand<vscode.TextDocument | undefined>('cloudAgents.runs.openResult', {
			automation: true,
			agentId: AGENT_ID,
			runId: RUN_OK,
		});
		assert.ok(doc, 'the record opened');
		const text = doc.getText();
		assert.ok(text.includes('## Result heading'), 'the result is there');
		assert.ok(!BIDI_OR_CONTROL.test(text.replace(/\n/g, ' ')), 'no bidi or control character in the record');
		// Every "[" "<" "&" of the server text is escaped: no inline link, HTML anchor, entity or image remains.
		assert.ok(!/(^|[^\\])\[[^\]]*\]\(/m.test(text), `an unescaped link in:\n${text}`);
		assert.ok(!/(^|[^\\])<a /m.test(text), `an unescaped HTML anchor in:\n${text}`);
		assert.ok(!/(^|[^\\])&#/m.test(text), `an unescaped entity in:\n${text}`);
		assert.ok(text.includes('\\[Open settings\\](command:workbench.action.openSettings)'), 'the link text is shown escaped');
	});

	test("an event type with a line break cannot forge a header line in the run's output", async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId: AGENT_ID, runId: RUN_OK });
		const outcome = await within('following the hostile run to end', followEnded(api, AGENT_ID, RUN_OK), 20_000);
		assert.equal(outcome.status, 'succeeded');
		const written = await writtenText(api);
		const outputs = written.filter((w) => w.text.includes('FORGED-BY-SERVER') && !w.file.includes(`${'/'}runs${'/'}`));
		assert.ok(outputs.length > 0, `the run's output channel was not found among ${written.length} files`);
		for (const { file, text } of outputs) {
			for (const line of text.split(/\r?\n/)) {
				// Only a real header starts at the margin; the forged "12:00:00.000  run.completed" must not.
				assert.ok(!/^12:00:00\.000/.test(line), `a forged line at the margin in ${file}: ${JSON.stringify(line)}`);
			}
			assert.ok(text.includes('⏎'), 'the line break of the type is shown as ⏎');
		}
		await api.runFollower.forget(AGENT_ID, RUN_OK);
	});

	test('an implausible request id is described as such and never offered for copying; a plausible one is kept exactly', () => {
		const implausible = Object.assign(new Error('Broken. [Open](command:workbench.action.openSettings)'), {
			name: 'ApiError',
			status: 500,
			requestId: IMPLAUSIBLE_REQUEST_ID,
		});
		assert.equal(requestIdOf(implausible), undefined, 'nothing to copy');
		const text = describeError(implausible);
		assert.ok(text.includes('request id not shown: implausible value'), text);
		assert.ok(!text.includes('zzzz') && !text.includes('\n'), text);
		const plausible = Object.assign(new Error('Broken'), {
			name: 'ApiError',
			status: 500,
			requestId: '0192f1a0-1234-7abc-8def-0123456789ab',
		});
		assert.equal(requestIdOf(plausible), '0192f1a0-1234-7abc-8def-0123456789ab');
		assert.ok(describeError(plausible).includes('(request 0192f1a0-1234-7abc-8def-0123456789ab)'));
	});
});
