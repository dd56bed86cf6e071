import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs';
import { afterReplies } from '../../../src/util/turns';

/**
 * The extension host's writer as src/util/turns.ts describes it: an answer, once its promise
 * settles, is buffered and written on a zero-delay timer set then. `answer` stands for one
 * `getChildren` of ours: it may schedule work, then its rows settle.
 */
function hostTurn(schedule: (work: () => void) => void, order: string[]): Promise<void> {
	return new Promise((done) => {
		const record = (what: string): void => {
			order.push(what);
			if (order.length === 2) {
				done();
			}
		};
		const rows = Promise.resolve(['row']);
		schedule(() => record('work'));
		void rows.then(() => setTimeout(() => record('answer written'), 0));
	});
}

/** Runs `fn` in the poll phase (an I/O callback), as a message from the window is handled. */
function inIoCallback(fn: () => void): void {
	readFile(__filename, () => fn());
}

suite('afterReplies (util/turns.ts)', () => {
	test('work scheduled while answering runs after the answer is written (from an I/O callback)', async () => {
		const order: string[] = [];
		await new Promise<void>((resolve) => inIoCallback(() => void hostTurn(afterReplies, order).then(resolve)));
		assert.deepEqual(order, ['answer written', 'work']);
	});

	test('and from a timer callback', async () => {
		const order: string[] = [];
		await new Promise<void>((resolve) => setTimeout(() => void hostTurn(afterReplies, order).then(resolve), 0));
		assert.deepEqual(order, ['answer written', 'work']);
	});

	test('a plain zero-delay timer would run first (what it replaces)', async () => {
		const order: string[] = [];
		await new Promise<void>((resolve) => inIoCallback(() => void hostTurn((work) => setTimeout(work, 0), order).then(resolve)));
		assert.deepEqual(order, ['work', 'answer written']);
	});

	test('cancelled before or after its immediate, the work never runs', async () => {
		let ran = 0;
		const early = afterReplies(() => ran++);
		early();
		const late = afterReplies(() => ran++);
		await new Promise((resolve) => setImmediate(resolve));
		late();
		await new Promise((resolve) => setTimeout(resolve, 20));
		assert.equal(ran, 0);
	});
});
