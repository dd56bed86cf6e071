import * as assert from 'node:assert/strict';
import { newestWholeLines, wholeLines } from '../../../src/util/lines';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

suite('util/lines: newestWholeLines', () => {
	test('bytes within the limit are kept as they are', () => {
		const all = bytes('{"seq":1}\n{"seq":2}\n');
		assert.equal(newestWholeLines(all, all.byteLength), all);
		assert.equal(text(newestWholeLines(all, 1000)), '{"seq":1}\n{"seq":2}\n');
	});

	test('past the limit the oldest records go whole: the cut never starts inside a record', () => {
		const all = bytes('{"seq":1}\n{"seq":2}\n{"seq":3}\n');
		// 10 bytes a record: 25 bytes hold two whole records and half of another.
		assert.equal(text(newestWholeLines(all, 25)), '{"seq":2}\n{"seq":3}\n');
		assert.equal(text(newestWholeLines(all, 20)), '{"seq":2}\n{"seq":3}\n');
		assert.equal(text(newestWholeLines(all, 19)), '{"seq":3}\n');
		for (let max = 0; max < all.byteLength; max++) {
			const kept = text(newestWholeLines(all, max));
			assert.ok(kept.length <= max, `${max}: ${kept.length} bytes kept`);
			assert.ok(
				kept === '' || (kept.endsWith('\n') && '{"seq":1}\n{"seq":2}\n{"seq":3}\n'.endsWith(kept) && kept.startsWith('{')),
				`${max}: ${kept}`,
			);
		}
	});

	test('a last record longer than the limit leaves nothing', () => {
		assert.equal(newestWholeLines(bytes(`${'x'.repeat(50)}\n`), 10).byteLength, 0);
		assert.equal(newestWholeLines(bytes('a\nb\n'), 0).byteLength, 0);
	});
});

suite('util/lines: wholeLines', () => {
	test('whole records are kept as they are; a torn last record is left out; no newline at all keeps nothing', () => {
		const all = bytes('{"seq":1}\n{"seq":2}\n');
		assert.equal(wholeLines(all), all);
		assert.equal(text(wholeLines(bytes('{"seq":1}\n{"seq":2}\n{"se'))), '{"seq":1}\n{"seq":2}\n');
		assert.equal(wholeLines(bytes('{"seq":1')).byteLength, 0);
		assert.equal(wholeLines(new Uint8Array(0)).byteLength, 0);
	});
});
