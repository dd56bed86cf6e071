/**
 * The shared async helpers (src/base/async.ts): which errors count as a cancellation, the error a
 * cancelled call raises, sleeps that end early on abort (and leave no listener behind), and clamp.
 */
import * as assert from 'node:assert/strict';
import { abortError, clamp, isAbortError, sleep, sleepUntilAborted, throwIfAborted } from '../../../src/base/async';

/** A signal that records what is added and removed (an AbortSignal exposes no listener count). */
function recordingSignal(): { signal: AbortSignal; added: number; removed: number; abort: () => void } {
	const controller = new AbortController();
	const state = { signal: controller.signal, added: 0, removed: 0, abort: () => controller.abort() };
	const add = controller.signal.addEventListener.bind(controller.signal);
	const remove = controller.signal.removeEventListener.bind(controller.signal);
	Object.defineProperty(controller.signal, 'addEventListener', {
		value: (...args: Parameters<AbortSignal['addEventListener']>) => {
			state.added++;
			add(...args);
		},
	});
	Object.defineProperty(controller.signal, 'removeEventListener', {
		value: (...args: Parameters<AbortSignal['removeEventListener']>) => {
			state.removed++;
			remove(...args);
		},
	});
	return state;
}

suite('base/async: cancellation errors', () => {
	test('isAbortError: by name AbortError, code ABORT_ERR or UND_ERR_ABORTED; nothing else', () => {
		const named = new Error('x');
		named.name = 'AbortError';
		assert.equal(isAbortError(named), true);
		assert.equal(isAbortError({ code: 'ABORT_ERR' }), true, 'a plain object with the code (Node streams)');
		assert.equal(isAbortError(Object.assign(new Error('y'), { code: 'UND_ERR_ABORTED' })), true, "undici's");
		const aborted = new AbortController();
		aborted.abort();
		assert.equal(isAbortError(aborted.signal.reason), true, "the platform's DOMException");
		for (const other of [
			undefined,
			null,
			'AbortError',
			42,
			new Error('The operation was aborted'),
			Object.assign(new Error('t'), { name: 'TimeoutError', code: 23 }),
			{ code: 'ECONNRESET' },
		]) {
			assert.equal(isAbortError(other), false, JSON.stringify(other) ?? typeof other);
		}
	});

	test('abortError: a reason that is already an AbortError is raised as it is; any other reason becomes the cause', () => {
		const controller = new AbortController();
		controller.abort();
		assert.equal(abortError(controller.signal), controller.signal.reason, "the signal's own AbortError, not a copy");

		const why = new Error('the user closed the view');
		const withError = new AbortController();
		withError.abort(why);
		const e1 = abortError(withError.signal);
		assert.equal(e1.name, 'AbortError');
		assert.equal(e1.message, 'The operation was aborted');
		assert.equal(e1.cause, why);
		assert.equal(isAbortError(e1), true);

		const withText = new AbortController();
		withText.abort('timeout');
		assert.equal(abortError(withText.signal).cause, 'timeout');

		const none = abortError(undefined);
		assert.equal(none.name, 'AbortError');
		assert.equal(none.cause, undefined);
	});

	test('throwIfAborted: silent without a signal or before the abort, throws the abort error after it', () => {
		throwIfAborted(undefined);
		const controller = new AbortController();
		throwIfAborted(controller.signal);
		const why = new Error('stop');
		controller.abort(why);
		assert.throws(
			() => throwIfAborted(controller.signal),
			(err: unknown) => isAbortError(err) && (err as Error).cause === why,
		);
	});
});

suite('base/async: sleeps', () => {
	test('zero, negative and NaN waits resolve at once and listen to no signal', async () => {
		for (const ms of [0, -5, Number.NaN]) {
			await sleep(ms);
		}
		const s = recordingSignal();
		await sleep(0, s.signal);
		assert.equal(s.added, 0, 'no listener for a wait that does not wait');
	});

	test('an already aborted signal rejects at once, even for a zero wait', async () => {
		const controller = new AbortController();
		const why = new Error('gone');
		controller.abort(why);
		await assert.rejects(sleep(0, controller.signal), (err: unknown) => isAbortError(err) && (err as Error).cause === why);
		await assert.rejects(sleep(60_000, controller.signal), (err: unknown) => isAbortError(err));
	});

	test('an abort during a long wait rejects at once with the abort error', async () => {
		const controller = new AbortController();
		const pending = sleep(600_000, controller.signal);
		controller.abort(new Error('closed'));
		await assert.rejects(pending, (err: unknown) => isAbortError(err) && (err as Error).cause instanceof Error);
	});

	test('a wait that ends takes its abort listener away; one aborted removes it by itself (once)', async () => {
		const done = recordingSignal();
		await sleep(1, done.signal);
		assert.deepEqual([done.added, done.removed], [1, 1]);
		done.abort(); // Later aborts reach no one: nothing rejects unhandled.

		const aborted = recordingSignal();
		const pending = sleep(600_000, aborted.signal);
		aborted.abort();
		await assert.rejects(pending);
		assert.equal(aborted.added, 1);
	});

	test('sleepUntilAborted resolves (never rejects) on abort, before or during the wait', async () => {
		const controller = new AbortController();
		const pending = sleepUntilAborted(600_000, controller.signal);
		controller.abort();
		assert.equal(await pending, undefined);
		assert.equal(await sleepUntilAborted(600_000, controller.signal), undefined, 'already aborted');
		assert.equal(await sleepUntilAborted(0), undefined);
	});
});

suite('base/async: clamp', () => {
	test('numbers inside are kept; outside are brought to the nearer bound', () => {
		assert.equal(clamp(5, 1, 10, 3), 5);
		assert.equal(clamp(1, 1, 10, 3), 1);
		assert.equal(clamp(10, 1, 10, 3), 10);
		assert.equal(clamp(-100, 1, 10, 3), 1);
		assert.equal(clamp(1e9, 1, 10, 3), 10);
		assert.equal(clamp(2.5, 1, 10, 3), 2.5, 'fractions are not rounded');
	});

	test('NaN, infinities and non-numbers become the fallback, itself clamped', () => {
		for (const bad of [Number.NaN, Infinity, -Infinity, '5', null, undefined, {}, [7]]) {
			assert.equal(clamp(bad, 1, 10, 3), 3, JSON.stringify(bad) ?? typeof bad);
		}
		assert.equal(clamp('x', 1, 10, 50), 10, 'a fallback above the range');
		assert.equal(clamp(undefined, 1, 10, -1), 1, 'a fallback below the range');
	});
});
