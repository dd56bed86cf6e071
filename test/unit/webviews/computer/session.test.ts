/**
 * The check between the service's computer session and the page (src/webviews/computer/session.ts):
 * what the page receives (the socket URL, every subprotocol, the expiry) and the one origin its
 * connect-src names; sessions whose channel, address or subprotocols the page must not get are
 * refused with a ConnectOriginError before any page exists.
 */
import * as assert from 'node:assert/strict';
import type { ComputerSession } from '../../../../src/api/types';
import { SAFETY } from '../../../../src/base/limits';
import { ConnectOriginError } from '../../../../src/webviews/csp';
import { pageSession } from '../../../../src/webviews/computer/session';

const session = (vnc: unknown, expires_at: unknown = '2026-11-23T16:00:00Z') =>
	({ agent_id: 'a', runtime_id: 'r', expires_at, channels: { vnc } }) as unknown as ComputerSession;

/** Asserts `pageSession(s)` is a ConnectOriginError whose message matches `why`. */
function refused(s: ComputerSession, why: RegExp, label?: string): void {
	assert.throws(
		() => pageSession(s),
		(err: unknown) => err instanceof ConnectOriginError && why.test(err.message),
		label,
	);
}

suite('webviews/computer/session', () => {
	test('passes the URL, every subprotocol and the expiry, with the socket origin for connect-src', () => {
		const checked = pageSession(
			session({ websocket_url: 'ws://127.0.0.1:4010/_emulator/vnc/cs_1', protocols: ['binary', 'session.abc'] }),
		);
		assert.deepEqual(checked, {
			origin: 'ws://127.0.0.1:4010',
			info: {
				url: 'ws://127.0.0.1:4010/_emulator/vnc/cs_1',
				protocols: ['binary', 'session.abc'],
				expiresAtMs: Date.parse('2026-11-23T16:00:00Z'),
			},
		});
	});

	test('the page gets a copy of the subprotocols, not the service record’s own array', () => {
		const protocols = ['binary'];
		const checked = pageSession(session({ websocket_url: 'wss://h.example/s', protocols }));
		protocols.push('session.late');
		assert.deepEqual(checked.info.protocols, ['binary']);
	});

	test('refuses ws: to a remote host before any page exists', () => {
		refused(session({ websocket_url: 'ws://vnc.example.com/s', protocols: ['binary'] }), /only accepted for this machine/);
	});

	test('no VNC channel (no channels, channels not an object, vnc null, an array or a string) is refused', () => {
		refused({ agent_id: 'a', channels: {} } as unknown as ComputerSession, /no VNC channel/);
		refused({ agent_id: 'a' } as unknown as ComputerSession, /no VNC channel/);
		for (const vnc of [null, [], 'wss://h.example/s', 42]) {
			refused(session(vnc), /no VNC channel/, JSON.stringify(vnc));
		}
	});

	test('a socket address that is missing, not a string or longer than the limit is refused; one at the limit passes', () => {
		for (const websocket_url of [undefined, 42, ['wss://h.example/s'], { href: 'wss://h.example/s' }]) {
			refused(session({ websocket_url, protocols: ['binary'] }), /no usable socket address/, JSON.stringify(websocket_url));
		}
		const base = 'wss://h.example/';
		const atLimit = base + 'a'.repeat(SAFETY.sessionUrlMaxChars - base.length);
		assert.equal(pageSession(session({ websocket_url: atLimit, protocols: ['binary'] })).info.url, atLimit);
		refused(session({ websocket_url: `${atLimit}a`, protocols: ['binary'] }), /no usable socket address/);
	});

	test('an address of another scheme or with credentials is refused by the origin check', () => {
		refused(session({ websocket_url: 'https://h.example/s', protocols: ['binary'] }), /instead of wss:/);
		refused(session({ websocket_url: 'wss://user:pw@h.example/s', protocols: ['binary'] }), /credentials/);
		refused(session({ websocket_url: 'not a url', protocols: ['binary'] }), /not a URL/);
	});

	test('subprotocols: 1 to the limit of tokens, each a token of at most the limit', () => {
		const ok = (protocols: unknown) => pageSession(session({ websocket_url: 'wss://h.example/s', protocols })).info.protocols;
		assert.deepEqual(ok(["!#$%&'*+-.^_`|~09AZaz"]), ["!#$%&'*+-.^_`|~09AZaz"]);
		const most = Array.from({ length: SAFETY.sessionProtocolsMax }, (_, i) => `p${i}`);
		assert.deepEqual(ok(most), most);
		const longest = `session.${'t'.repeat(SAFETY.sessionProtocolMaxChars - 8)}`;
		assert.deepEqual(ok([longest]), [longest]);
		for (const protocols of [
			[],
			['a b'],
			['a,b'],
			['a;b'],
			['a\r\nX: y'],
			['a"b'],
			['a/b'],
			['é'],
			[''],
			['ok', 3],
			['ok', null],
			'binary',
			undefined,
			{ 0: 'binary', length: 1 },
			[...most, 'one-more'],
			[`${longest}t`],
		]) {
			refused(
				session({ websocket_url: 'wss://h.example/s', protocols }),
				/no usable WebSocket subprotocols/,
				JSON.stringify(protocols)?.slice(0, 40),
			);
		}
	});

	test('an expiry that is absent, not a string or unreadable leaves the countdown out instead of failing', () => {
		const absent = { agent_id: 'a', channels: { vnc: { websocket_url: 'wss://h.example/s', protocols: ['binary'] } } };
		assert.equal(pageSession(absent as unknown as ComputerSession).info.expiresAtMs, undefined);
		for (const expires of [null, 'soon', '', 'NaN', 1_790_000_000_000, { at: 1 }]) {
			const checked = pageSession(session({ websocket_url: 'wss://h.example/s', protocols: ['binary'] }, expires));
			assert.equal(checked.info.expiresAtMs, undefined, JSON.stringify(expires));
		}
		const offset = pageSession(session({ websocket_url: 'wss://h.example/s', protocols: ['binary'] }, '2026-11-23T17:00:00+01:00'));
		assert.equal(offset.info.expiresAtMs, Date.UTC(2026, 10, 23, 16, 0, 0));
	});
});
