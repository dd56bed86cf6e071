import * as assert from 'node:assert/strict';
import { onSignedOut } from '../../../src/util/lifecycle';

/** A session stand-in: `signedIn`, and a change event fired by hand. */
function fakeSession(signedIn: boolean) {
	const listeners = new Set<() => void>();
	return {
		signedIn,
		onDidChange(listener: () => void) {
			listeners.add(listener);
			return { dispose: () => listeners.delete(listener) };
		},
		set(value: boolean) {
			this.signedIn = value;
			for (const l of [...listeners]) l();
		},
	};
}

suite('util/lifecycle: onSignedOut', () => {
	test('fires on each change from signed in to signed out, not on other changes, and not after dispose', () => {
		const session = fakeSession(false);
		let calls = 0;
		const sub = onSignedOut(session, () => calls++);
		session.set(false); // signed out, still: nothing
		assert.equal(calls, 0);
		session.set(true);
		session.set(true); // another change while signed in (a new token): nothing
		assert.equal(calls, 0);
		session.set(false);
		assert.equal(calls, 1);
		session.set(false);
		assert.equal(calls, 1, 'staying signed out is not another sign-out');
		session.set(true);
		session.set(false);
		assert.equal(calls, 2);
		sub.dispose();
		session.set(true);
		session.set(false);
		assert.equal(calls, 2, 'nothing after dispose');
	});
});
