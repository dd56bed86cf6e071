import * as assert from 'node:assert/strict';
import * as nodePath from 'node:path';
import { baseName, extensionOf, isAbsoluteLocalPath } from '../../../src/util/fileNames';

suite('util/fileNames: names and paths as text, without node:path', () => {
	const names = ['a', 'a.b', '.a', '..', '...', '..a', 'a.', '.a.b', 'a..b', 'a.b.c', '/x/y.z', 'x.y/z', 'a.b/', '/c:/x/a.TXT', ''];

	test('extensionOf reads the extension as path.posix.extname does', () => {
		for (const name of names) {
			assert.equal(extensionOf(name), nodePath.posix.extname(name), JSON.stringify(name));
		}
	});

	test('baseName is the last segment of a URI path, as path.posix.basename reads it', () => {
		for (const name of names) {
			assert.equal(baseName(name), nodePath.posix.basename(name), JSON.stringify(name));
		}
		assert.equal(baseName('/c:/Users/ada/report.final.pdf'), 'report.final.pdf');
	});

	test('isAbsoluteLocalPath: a POSIX root, a Windows drive or UNC path; nothing relative', () => {
		for (const p of ['/tmp/x.csv', 'C:\\Users\\x.csv', 'c:/x.csv', '\\\\server\\share\\x.csv']) {
			assert.equal(isAbsoluteLocalPath(p), true, p);
		}
		for (const p of ['x.csv', './x.csv', '../x.csv', '~/x.csv', 'C:x.csv', '', 'file:///tmp/x.csv']) {
			assert.equal(isAbsoluteLocalPath(p), false, p);
		}
	});
});
