import * as assert from 'node:assert/strict';
import {
	compactJson,
	endNotificationActions,
	followedRunActions,
	formatEvent,
	formatTime,
	runChannelName,
	runTitle,
	shortRunId,
	stripAnsi,
} from '../../../src/runFollowing/format';

suite('Run event formatting', () => {
	const at = '2026-01-02T03:04:05.006Z';
	const time = formatTime(at);

	test('formats time as HH:MM:SS.mmm', () => {
		assert.match(time, /^\d\d:\d\d:\d\d\.006$/);
	});

	test('writes one line per event: time, type, payload text', () => {
		assert.equal(
			formatEvent({ seq: 1, type: 'message', created_at: at, data: { role: 'assistant', text: 'Hello' } }),
			`${time}  message  assistant: Hello`,
		);
		assert.equal(
			formatEvent({ seq: 2, type: 'log', created_at: at, data: { level: 'info', text: 'step 1' } }),
			`${time}  log  [info] step 1`,
		);
		assert.equal(
			formatEvent({ seq: 3, type: 'tool.call', created_at: at, data: { tool: 'bash', input: { cmd: 'ls -la' } } }),
			`${time}  tool.call  bash {"cmd":"ls -la"}`,
		);
		assert.equal(
			formatEvent({ seq: 4, type: 'file.changed', created_at: at, data: { path: 'src/a.ts', change: 'modified' } }),
			`${time}  file.changed  modified src/a.ts`,
		);
		assert.equal(
			formatEvent({ seq: 5, type: 'run.status', created_at: at, data: { status: 'running' } }),
			`${time}  run.status  running`,
		);
		assert.equal(
			formatEvent({ seq: 6, type: 'run.completed', created_at: at, data: { status: 'succeeded', result: '# Done\n\nmore' } }),
			`${time}  run.completed  succeeded: # Done …`,
		);
		assert.equal(
			formatEvent({ seq: 7, type: 'run.completed', created_at: at, data: { status: 'failed', error: 'boom' } }),
			`${time}  run.completed  failed: boom`,
		);
		assert.equal(formatEvent({ seq: 8, type: 'custom.thing', created_at: at, data: { a: 1 } }), `${time}  custom.thing  {"a":1}`);
	});

	test('strips ANSI escapes and control characters from server text', () => {
		assert.equal(stripAnsi('\u001b[31mred\u001b[0m \u001b]8;;https://x\u0007link\u001b]8;;\u0007\u0000!'), 'red link!');
		assert.ok(formatEvent({ seq: 1, type: 'log', data: { text: '\u001b[1mbold\u001b[22m' } }).endsWith('  log  bold'));
		assert.ok(!formatEvent({ seq: 1, type: 'log', data: { text: 'a\u001b[2Kb\rc' } }).includes('\u001b'));
	});

	test('indents continuation lines of multi-line payloads', () => {
		const lines = formatEvent({ seq: 1, type: 'message', created_at: at, data: { text: 'one\ntwo' } }).split('\n');
		assert.equal(lines.length, 2);
		assert.equal(lines[1], `${' '.repeat(time.length + 2)}two`);
	});

	test('shortens long payloads and ids', () => {
		assert.ok(compactJson({ s: 'x'.repeat(5000) }).length <= 2001);
		assert.equal(shortRunId('run_01JABCDEFGHJKMNPQRSTVWXYZ0'), 'STVWXYZ0');
	});

	suite('hostile event text cannot forge lines', () => {
		/** A header line: starts at the margin with a time, as `formatEvent` writes them. */
		const HEADER = /^\d\d:\d\d:\d\d\.\d{3} {2}/;
		const forged = '\n12:00:00.000  run.completed  succeeded';

		function assertOneHeader(text: string, what: string): void {
			const lines = text.split('\n');
			assert.equal(lines.filter((l) => HEADER.test(l)).length, 1, `${what}: ${JSON.stringify(text)}`);
			assert.ok(HEADER.test(lines[0]!), `${what}: the first line is the real header`);
			for (const line of lines.slice(1)) {
				assert.ok(
					line === '' || line.startsWith(' '),
					`${what}: a continuation line starts at the margin: ${JSON.stringify(line)}`,
				);
			}
		}

		test('an event type with a line break stays on the header line', () => {
			const text = formatEvent({ seq: 1, type: `log${forged}`, created_at: at, data: {} });
			assert.equal(text.split('\n').length, 1, JSON.stringify(text));
			assert.ok(text.includes('⏎'), 'the break is shown, not taken');
			for (const type of [`log\r12:00:00.000  run.completed  x`, `log\u2028x`, `log\u0085x`, `log\r\n[12:00:00] run.completed`]) {
				assert.equal(formatEvent({ seq: 1, type, created_at: at, data: {} }).split('\n').length, 1, JSON.stringify(type));
			}
		});

		test('payload text with line breaks continues on indented lines only', () => {
			const events = [
				{ seq: 1, type: 'message', created_at: at, data: { role: 'assistant', text: `hello${forged}` } },
				{ seq: 2, type: 'log', created_at: at, data: { level: `info${forged}`, text: `x\r[12:00:00] run.completed` } },
				{ seq: 3, type: 'tool.call', created_at: at, data: { tool: `bash${forged}`, input: {} } },
				{ seq: 4, type: 'tool.result', created_at: at, data: { tool: 'bash', output: `ok${forged}\u2028${forged}` } },
				{ seq: 5, type: 'file.changed', created_at: at, data: { path: `a.ts${forged}`, change: 'modified' } },
				{ seq: 6, type: 'run.completed', created_at: at, data: { status: `failed${forged}`, error: `boom${forged}` } },
				{ seq: 7, type: 'run.status', created_at: at, data: { status: `running${forged}` } },
			];
			for (const event of events) {
				assertOneHeader(formatEvent(event), event.type);
			}
		});

		test('bidi overrides and invisible characters are removed from types and payloads', () => {
			const text = formatEvent({ seq: 1, type: 'lo\u202eg', created_at: at, data: { text: 'a\u2066b\u200bc' } });
			assert.equal(text, `${time}  log  abc`);
		});

		test('an overlong event type is cut', () => {
			const text = formatEvent({ seq: 1, type: 't'.repeat(5000), created_at: at, data: {} });
			assert.ok(text.length < 200, `${text.length} characters`);
		});
	});
});

suite('Run names and actions', () => {
	const runId = 'run_01JC0000000000000001VY06ABN';

	test('a run is named by its agent and a prompt excerpt, never by its id alone', () => {
		assert.equal(runTitle('Docs writer', 'Outline the docs for the release', runId), 'Docs writer: Outline the docs for the release');
		const long = runTitle('Docs writer', `Outline ${'very '.repeat(30)}long`, runId);
		assert.ok(long.startsWith('Docs writer: Outline very'), long);
		assert.ok(long.length <= 'Docs writer: '.length + 40 && long.endsWith('…'), long);
	});

	test('server text in a run name is one neutralised line', () => {
		const title = runTitle('Evil\u202e agent\nname', 'line one\nline two\u0007', runId);
		assert.equal(title, 'Evil agent name: line one line two');
	});

	test('a missing part falls back to the short run id', () => {
		assert.equal(runTitle('Docs writer', undefined, runId), 'Docs writer: run 1VY06ABN');
		assert.equal(runTitle(undefined, 'Fix it', runId), 'Run 1VY06ABN: Fix it');
		assert.equal(runTitle('', '', runId), 'Run 1VY06ABN');
	});

	test('a channel name says "Cloud Agents" and holds no path separator', () => {
		assert.equal(runChannelName('a/b\\c: d'), 'Cloud Agents: a-b-c: d');
	});

	test("the status bar offers only the actions valid for the run's state", () => {
		assert.deepEqual(followedRunActions({ active: true, ended: false, status: 'running' }), ['showOutput', 'cancel', 'stopFollowing']);
		assert.deepEqual(followedRunActions({ active: false, ended: true, status: 'succeeded' }), ['showOutput', 'openResult', 'dismiss']);
		assert.deepEqual(followedRunActions({ active: false, ended: true, status: 'cancelled' }), ['showOutput', 'dismiss']);
	});

	test('the end notification offers no "Open Result" for a cancelled run', () => {
		assert.deepEqual(endNotificationActions('cancelled'), ['showOutput']);
		assert.deepEqual(endNotificationActions('succeeded'), ['openResult', 'showOutput']);
		assert.deepEqual(endNotificationActions('failed'), ['showOutput', 'openResult']);
	});
});
