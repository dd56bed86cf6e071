/**
 * The seam between the comparison and the local folder (src/compare/localFiles.ts): its one piece of
 * logic is NotRegularFileError, what both implementations throw for a link or anything but a
 * regular file (an UnsafePathError, so every caller that refuses unsafe paths refuses it too). The
 * implementations: fileSystemLocalFiles.test.ts, platform/node/nodeLocalFiles.test.ts.
 */
import * as assert from 'node:assert/strict';
import { NotRegularFileError } from '../../../src/compare/localFiles';
import { UnsafePathError } from '../../../src/util/paths';

suite('compare/localFiles: NotRegularFileError', () => {
	test('a symbolic link: kind, path and a message saying it was not followed', () => {
		const err = new NotRegularFileError('src/link.ts', 'symlink');
		assert.ok(err instanceof UnsafePathError);
		assert.ok(err instanceof Error);
		assert.equal(err.kind, 'symlink');
		assert.equal(err.path, 'src/link.ts');
		assert.match(err.message, /src\/link\.ts/);
		assert.match(err.message, /symbolic link \(not followed\)/);
	});

	test('anything else: kind other, a message saying it is not a regular file', () => {
		const err = new NotRegularFileError('dev/pipe', 'other');
		assert.equal(err.kind, 'other');
		assert.match(err.message, /not a regular file/);
		assert.doesNotMatch(err.message, /symbolic/);
	});
});
