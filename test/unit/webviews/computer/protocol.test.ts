/**
 * The messages between the computer panel and its page (src/webviews/computer/protocol.ts): the
 * extension's check of every page message (each type and its fields' bounds, nothing more), the
 * page's check of a host message's type, and the saved page state read back from an untrusted shape.
 * The validator's own rules: messages.test.ts.
 */
import * as assert from 'node:assert/strict';
import {
	COMPUTER_PAGE_SPEC,
	COMPUTER_STRING_KEYS,
	isComputerHostMessage,
	parseComputerPageState,
	validateComputerPageMessage,
} from '../../../../src/webviews/computer/protocol';

const refusedReason = (message: unknown): string => {
	const r = validateComputerPageMessage(message);
	assert.equal(r.ok, false, String(JSON.stringify(message)).slice(0, 80));
	return (r as { reason: string }).reason;
};

suite('webviews/computer/protocol: page messages', () => {
	test('accepts every message the page sends', () => {
		const samples = [
			{ type: 'ready' },
			{ type: 'reconnect' },
			{ type: 'requestPaste' },
			{ type: 'connected', width: 1280, height: 800 },
			{ type: 'disconnected', clean: false, expired: true },
			{ type: 'securityFailure', status: 1, reason: 'Authentication failure' },
		];
		assert.deepEqual(samples.map((s) => s.type).sort(), Object.keys(COMPUTER_PAGE_SPEC).sort());
		for (const s of samples) {
			assert.deepEqual(validateComputerPageMessage(s), { ok: true, message: s }, s.type);
		}
	});

	test('drops page messages that would carry data the extension did not ask for', () => {
		assert.match(refusedReason({ type: 'reconnect', url: 'wss://elsewhere' }), /unexpected field "url"/);
		assert.match(refusedReason({ type: 'openExternal', url: 'https://x' }), /unknown message type/);
		assert.match(refusedReason({ type: 'ready', agentId: 'other' }), /unexpected field/);
	});

	test('a desktop size is an integer from 0 to 65535 on each side', () => {
		for (const [width, height] of [
			[0, 0],
			[65535, 65535],
			[1, 65535],
		]) {
			assert.equal(validateComputerPageMessage({ type: 'connected', width, height }).ok, true, `${width}x${height}`);
		}
		for (const [width, height] of [
			[-1, 2],
			[2, -1],
			[65536, 1],
			[1, 65536],
			[1.5, 2],
			[Number.NaN, 2],
			[Number.POSITIVE_INFINITY, 2],
			['1280', 800],
			[1280, undefined],
		]) {
			refusedReason({ type: 'connected', width, height });
		}
	});

	test('a security failure: a status from -1 to 2^32-1 and a reason of at most 500 characters', () => {
		for (const [status, reason] of [
			[-1, ''],
			[0, 'x'.repeat(500)],
			[0xffffffff, 'Too many attempts'],
		] as const) {
			assert.equal(validateComputerPageMessage({ type: 'securityFailure', status, reason }).ok, true, String(status));
		}
		for (const [status, reason] of [
			[-2, 'x'],
			[0x100000000, 'x'],
			[1.5, 'x'],
			['1', 'x'],
			[1, 'x'.repeat(501)],
			[1, 42],
			[1, undefined],
		]) {
			refusedReason({ type: 'securityFailure', status, reason });
		}
	});

	test('a disconnect carries two booleans, nothing truthy in their place', () => {
		assert.equal(validateComputerPageMessage({ type: 'disconnected', clean: true, expired: false }).ok, true);
		for (const [clean, expired] of [
			[1, false],
			['true', false],
			[true, null],
			[true, undefined],
		]) {
			refusedReason({ type: 'disconnected', clean, expired });
		}
	});

	test('anything not a plain message object is dropped', () => {
		for (const bad of [undefined, null, 'ready', 42, ['ready'], { type: 7 }, {}]) {
			refusedReason(bad);
		}
	});
});

suite('webviews/computer/protocol: host messages and strings', () => {
	test('the page takes the five host message types and no other', () => {
		for (const type of ['agent', 'session', 'ended', 'minting', 'paste']) {
			assert.equal(isComputerHostMessage({ type }), true, type);
		}
		for (const type of ['', 'ready', 'Agent', 'sessions', 'toString', '__proto__', 'constructor']) {
			assert.equal(isComputerHostMessage({ type }), false, type);
		}
	});

	test('the page’s string keys are distinct, plain identifiers', () => {
		assert.equal(new Set(COMPUTER_STRING_KEYS).size, COMPUTER_STRING_KEYS.length);
		for (const key of COMPUTER_STRING_KEYS) {
			assert.match(key, /^[a-z][A-Za-z]*$/);
		}
	});
});

suite('webviews/computer/protocol: saved page state', () => {
	test("another deployment's agent (issue 47): its deployment id is kept; anything else in its place is left out", () => {
		const state = { agentId: 'a1', agentName: 'B', scale: 'fit', viewOnly: false };
		assert.equal(
			parseComputerPageState({ ...state, deployment: 'staging-example-test-0123456789ab' })?.deployment,
			'staging-example-test-0123456789ab',
		);
		for (const deployment of [42, '', 'Staging Example', 'x/../y', 'a'.repeat(65)]) {
			assert.deepEqual(parseComputerPageState({ ...state, deployment }), state, String(deployment));
		}
	});

	test('reads a saved page state, defaulting the view options and refusing one without an agent', () => {
		assert.deepEqual(parseComputerPageState({ agentId: 'a1', agentName: 'Build bot', scale: 'native', viewOnly: true }), {
			agentId: 'a1',
			agentName: 'Build bot',
			scale: 'native',
			viewOnly: true,
		});
		assert.deepEqual(parseComputerPageState({ agentId: 'a1', agentName: 'B', scale: 'huge', viewOnly: 'yes' }), {
			agentId: 'a1',
			agentName: 'B',
			scale: 'fit',
			viewOnly: false,
		});
		for (const bad of [
			undefined,
			null,
			'a1',
			42,
			{},
			{ agentId: '', agentName: 'x' },
			{ agentId: 'a'.repeat(256), agentName: 'x' },
			{ agentId: 'a1' },
			{ agentId: 7, agentName: 'x' },
			{ agentId: 'a1', agentName: null },
		]) {
			assert.equal(parseComputerPageState(bad), undefined, JSON.stringify(bad));
		}
	});

	test('an agent id of 255 characters is kept; a longer name is cut to 255; only the known fields come back', () => {
		const state = parseComputerPageState({
			agentId: 'a'.repeat(255),
			agentName: 'n'.repeat(10_000),
			scale: 'native',
			viewOnly: true,
			session: { url: 'wss://h.example/s', protocols: ['session.secret'] },
		});
		assert.ok(state);
		assert.equal(state.agentId.length, 255);
		assert.equal(state.agentName, 'n'.repeat(255));
		assert.deepEqual(Object.keys(state).sort(), ['agentId', 'agentName', 'scale', 'viewOnly']);
	});

	test('view options default to fit and interactive whatever else is saved in their place', () => {
		for (const [scale, viewOnly] of [
			[undefined, undefined],
			['NATIVE', 1],
			[['native'], 'true'],
			[null, {}],
		]) {
			assert.deepEqual(
				parseComputerPageState({ agentId: 'a1', agentName: '', scale, viewOnly }),
				{ agentId: 'a1', agentName: '', scale: 'fit', viewOnly: false },
				JSON.stringify([scale, viewOnly]),
			);
		}
	});
});
