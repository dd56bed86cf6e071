import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, NetworkError, ValidationError, WorkspaceInterfaceError } from '../../../../src/api';
import { type FsOperation, toFileSystemError } from '../../../../src/workspace/fs/errors';
import { WorkspaceFsError, WorkspaceUnavailableError } from '../../../../src/workspace/fs/workspaceCache';
import { WorkspacePathError } from '../../../../src/util/paths';

/** src/workspace/fs/errors.ts: every failure of the workspace file system becomes a vscode.FileSystemError. */

const URI = vscode.Uri.parse('cloud-agent://agent-abc/src/main.ts');

function map(err: unknown, op: FsOperation = 'stat'): vscode.FileSystemError {
	const out = toFileSystemError(err, URI, op);
	assert.ok(out instanceof vscode.FileSystemError, `${String(out)} is not a FileSystemError`);
	return out;
}

function api(status: number, code = 'some_code', requestId: string | null = 'req-123'): ApiError {
	return new ApiError(status, code, `the service said ${status}`, requestId ?? undefined);
}

suite('workspace/fs/errors: toFileSystemError', () => {
	test('a FileSystemError is passed on as it is', () => {
		const err = vscode.FileSystemError.FileExists(URI);
		assert.equal(toFileSystemError(err, URI, 'writeFile'), err);
	});

	test("the cache's codes map one to one; a message that is only the code becomes the URI", () => {
		const cases: Array<[ConstructorParameters<typeof WorkspaceFsError>[0], string]> = [
			['FileNotFound', 'FileNotFound'],
			['FileExists', 'FileExists'],
			['FileIsADirectory', 'FileIsADirectory'],
			['FileNotADirectory', 'FileNotADirectory'],
			['Unavailable', 'Unavailable'],
			['NoPermissions', 'NoPermissions'],
			['TooLarge', 'NoPermissions'],
			['Conflict', 'Unknown'],
		];
		for (const [code, expected] of cases) {
			const bare = map(new WorkspaceFsError(code, 'src/main.ts'));
			assert.equal(bare.code, expected, code);
			assert.equal(bare.message, URI.toString(true), `${code}: the default message "<code>: <path>" is replaced by the URI`);
			const said = map(new WorkspaceFsError(code, 'src/main.ts', 'the file changed on the agent'));
			assert.equal(said.code, expected, code);
			assert.equal(said.message, 'the file changed on the agent', code);
		}
	});

	test('a conflict is not "file exists": a save shows its reason', () => {
		const out = map(new WorkspaceFsError('Conflict', 'a', 'changed since you opened it'), 'writeFile');
		assert.notEqual(out.code, 'FileExists');
		assert.equal(out.message, 'changed since you opened it');
	});

	test("an unavailable workspace keeps its reason's message", () => {
		const out = map(new WorkspaceUnavailableError('signedOut', '', 'Signed out of Cloud Agents: sign in to see this folder.'));
		assert.equal(out.code, 'Unavailable');
		assert.match(out.message, /Signed out/);
	});

	test('a refused path and a refused input are NoPermissions with the reason', () => {
		const path = map(new WorkspacePathError('../x', 'escape', 'The path leaves the workspace: ../x'));
		assert.equal(path.code, 'NoPermissions');
		assert.equal(path.message, 'The path leaves the workspace: ../x');
		const input = map(new ValidationError('content', 'at most 10 MiB', 'content is larger than 10 MiB'), 'writeFile');
		assert.equal(input.code, 'NoPermissions');
		assert.equal(input.message, 'Refused before sending: content is larger than 10 MiB');
	});

	test('a workspace interface that differs is Unavailable, with its message, code and request id', () => {
		const out = map(new WorkspaceInterfaceError('the listing had no entries', 'req-9'), 'readDirectory');
		assert.equal(out.code, 'Unavailable');
		assert.equal(
			out.message,
			"This server's workspace interface differs: the listing had no entries [workspace_interface_differs, request req-9]",
		);
	});

	test('401 and 403 are NoPermissions with the request id; without one it says unknown', () => {
		assert.equal(map(api(401)).code, 'NoPermissions');
		assert.equal(map(api(401)).message, 'the service said 401 [some_code, request req-123]');
		const noId = map(api(403, 'forbidden', null));
		assert.equal(noId.code, 'NoPermissions');
		assert.equal(noId.message, 'the service said 403 [forbidden, request unknown]');
	});

	test('404 is FileNotFound of the URI, whatever the operation', () => {
		for (const op of ['stat', 'readFile', 'delete', 'rename'] as const) {
			const out = map(api(404), op);
			assert.equal(out.code, 'FileNotFound', op);
			assert.equal(out.message, URI.toString(true), op);
		}
	});

	test('409 means what the operation makes of it', () => {
		assert.equal(map(api(409), 'writeFile').code, 'FileIsADirectory');
		assert.equal(map(api(409), 'readFile').code, 'FileIsADirectory');
		assert.equal(map(api(409), 'readDirectory').code, 'FileNotADirectory');
		const del = map(api(409), 'delete');
		assert.equal(del.code, 'Unknown');
		assert.match(del.message, /request req-123/);
		for (const op of ['rename', 'copy', 'createDirectory', 'stat'] as const) {
			const out = map(api(409), op);
			assert.equal(out.code, 'FileExists', op);
			assert.equal(out.message, URI.toString(true), op);
		}
	});

	test('retryable statuses, 5xx and network failures are Unavailable; another 4xx is a plain error with its reason', () => {
		for (const status of [429, 500, 502, 503, 504]) {
			assert.equal(map(api(status)).code, 'Unavailable', String(status));
		}
		const net = map(new NetworkError('connection_refused', 'connection refused', false));
		assert.equal(net.code, 'Unavailable');
		assert.match(net.message, /connection refused \[connection_refused, request unknown\]/);
		const teapot = map(api(422, 'invalid'));
		assert.equal(teapot.code, 'Unknown');
		assert.equal(teapot.message, 'the service said 422 [invalid, request req-123]');
	});

	test("undici's own failures (UND_ERR_*) are Unavailable; anything else is passed on as an Error", () => {
		const undici = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
		assert.equal(map(undici).code, 'Unavailable');
		const plain = new Error('boom');
		assert.equal(toFileSystemError(plain, URI, 'stat'), plain);
		const odd = Object.assign(new Error('odd'), { code: 'EPERM' });
		assert.equal(toFileSystemError(odd, URI, 'stat'), odd);
		const text = toFileSystemError('a string', URI, 'stat');
		assert.ok(text instanceof Error && !(text instanceof vscode.FileSystemError));
		assert.equal(text.message, 'a string');
		assert.equal(toFileSystemError(undefined, URI, 'stat').message, 'undefined');
	});
});
