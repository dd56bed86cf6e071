import * as assert from 'node:assert/strict';
import { isMissingFileError } from '../../../src/util/fileErrors';

/** An error as VS Code's FileSystemError or Node's fs throws it: a code, a name, a message. */
function fsError(code: string | undefined, name = 'Error', message = 'failed'): Error {
	const err = new Error(message) as Error & { code?: string };
	err.name = name;
	if (code !== undefined) {
		err.code = code;
	}
	return err;
}

suite('util/fileErrors: isMissingFileError', () => {
	test("missing, by VS Code's codes, a provider's names and messages, and Node's codes", () => {
		for (const code of ['FileNotFound', 'FileNotADirectory', 'EntryNotFound', 'EntryNotADirectory', 'ENOENT', 'ENOTDIR']) {
			assert.equal(isMissingFileError(fsError(code)), true, code);
		}
		assert.equal(isMissingFileError(fsError(undefined, 'EntryNotFound (FileSystemError)')), true);
		assert.equal(isMissingFileError(fsError('Unknown', 'Error', 'ENOENT: no such file or directory, open /x')), true);
		assert.equal(isMissingFileError('EntryNotFound'), true);
	});

	test('any other failure is a failure, not "missing"', () => {
		for (const code of ['NoPermissions', 'Unavailable', 'FileExists', 'EACCES', 'EIO', 'Unknown']) {
			assert.equal(isMissingFileError(fsError(code)), false, code);
		}
		assert.equal(isMissingFileError(fsError(undefined, 'Error', 'FileNotFoundish trouble')), false);
		assert.equal(isMissingFileError(undefined), false);
		assert.equal(isMissingFileError(null), false);
		assert.equal(isMissingFileError({ message: 'ENOENT' }), false);
	});
});
