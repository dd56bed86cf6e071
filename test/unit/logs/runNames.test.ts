import * as assert from 'node:assert/strict';
import { endNotificationActions, followedRunActions, runChannelName, runTitle } from '../../../src/logs/format';

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
