import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { LazyFileSystemProvider } from '../../../../src/workspace/fs/lazyProvider';

/** src/workspace/fs/lazyProvider.ts: the stand-in that loads the real `cloud-agent:` provider on the first call. */

const URI = vscode.Uri.parse('cloud-agent://agent-x/a.txt');
const OTHER = vscode.Uri.parse('cloud-agent://agent-x/b.txt');

/** A small real provider: files in a map, every call recorded by name. */
class MapProvider implements vscode.FileSystemProvider {
	readonly files = new Map<string, Uint8Array>();
	readonly calls: string[] = [];
	readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
	readonly onDidChangeFile = this.emitter.event;
	watch(): vscode.Disposable {
		this.calls.push('watch');
		return new vscode.Disposable(() => undefined);
	}
	stat(uri: vscode.Uri): vscode.FileStat {
		this.calls.push('stat');
		const data = this.files.get(uri.toString());
		if (!data) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		return { type: vscode.FileType.File, size: data.byteLength, ctime: 0, mtime: 0 };
	}
	readDirectory(): [string, vscode.FileType][] {
		this.calls.push('readDirectory');
		return [...this.files.keys()].map((k) => [k.split('/').pop()!, vscode.FileType.File]);
	}
	createDirectory(): void {
		this.calls.push('createDirectory');
	}
	readFile(uri: vscode.Uri): Uint8Array {
		this.calls.push('readFile');
		const data = this.files.get(uri.toString());
		if (!data) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		return data;
	}
	writeFile(uri: vscode.Uri, content: Uint8Array): void {
		this.calls.push('writeFile');
		this.files.set(uri.toString(), content);
	}
	delete(uri: vscode.Uri): void {
		this.calls.push('delete');
		this.files.delete(uri.toString());
	}
	rename(from: vscode.Uri, to: vscode.Uri): void {
		this.calls.push('rename');
		this.files.set(to.toString(), this.files.get(from.toString())!);
		this.files.delete(from.toString());
	}
	copy?(from: vscode.Uri, to: vscode.Uri): void {
		this.calls.push('copy');
		this.files.set(to.toString(), this.files.get(from.toString())!);
	}
}

function recordingLog(): { errors: unknown[][]; error(message: string | Error, ...args: unknown[]): void } {
	const errors: unknown[][] = [];
	return { errors, error: (message, ...args) => errors.push([message, ...args]) };
}

suite('workspace/fs/lazyProvider', () => {
	test('nothing loads until the first call; then every call goes to the one real provider', async () => {
		const real = new MapProvider();
		let loads = 0;
		const lazy = new LazyFileSystemProvider(() => (loads++, real), recordingLog(), { copies: true });
		assert.equal(lazy.isLoaded, false);
		assert.equal(loads, 0);
		await lazy.writeFile(URI, new TextEncoder().encode('hi'), { create: true, overwrite: true });
		assert.equal(lazy.isLoaded, true);
		assert.equal((await lazy.stat(URI)).size, 2);
		assert.equal(new TextDecoder().decode(await lazy.readFile(URI)), 'hi');
		assert.deepEqual(await lazy.readDirectory(vscode.Uri.parse('cloud-agent://agent-x/')), [['a.txt', vscode.FileType.File]]);
		await lazy.copy?.(URI, OTHER, { overwrite: false });
		await lazy.rename(OTHER, vscode.Uri.parse('cloud-agent://agent-x/c.txt'), { overwrite: false });
		await lazy.delete(URI, { recursive: false });
		await lazy.createDirectory(vscode.Uri.parse('cloud-agent://agent-x/d'));
		lazy.watch(URI, { recursive: false, excludes: [] }).dispose();
		assert.equal(loads, 1);
		assert.deepEqual(real.calls, [
			'writeFile',
			'stat',
			'readFile',
			'readDirectory',
			'copy',
			'rename',
			'delete',
			'createDirectory',
			'watch',
		]);
		assert.deepEqual([...real.files.keys()], ['cloud-agent://agent-x/c.txt']);
		lazy.dispose();
	});

	test("the real provider's errors reach the caller as they are", async () => {
		const lazy = new LazyFileSystemProvider(() => new MapProvider(), recordingLog());
		assert.throws(
			() => lazy.stat(URI),
			(err: unknown) => err instanceof vscode.FileSystemError && err.code === 'FileNotFound',
		);
		lazy.dispose();
	});

	test("the real provider's change events are passed on, and stop when the stand-in is disposed", () => {
		const real = new MapProvider();
		const lazy = new LazyFileSystemProvider(() => real, recordingLog());
		const seen: vscode.FileChangeEvent[][] = [];
		lazy.onDidChangeFile((e) => seen.push(e));
		const change = [{ type: vscode.FileChangeType.Changed, uri: URI }];
		real.emitter.fire(change); // not loaded yet: nothing is listening
		assert.equal(seen.length, 0);
		lazy.watch(URI, { recursive: true, excludes: [] });
		real.emitter.fire(change);
		assert.deepEqual(seen, [change]);
		lazy.dispose();
		real.emitter.fire(change);
		assert.equal(seen.length, 1);
	});

	test('a failed load is logged and fails the call with Unavailable naming what failed; the next call tries again', () => {
		const log = recordingLog();
		let fail = true;
		const real = new MapProvider();
		real.files.set(URI.toString(), new Uint8Array([1]));
		const lazy = new LazyFileSystemProvider(
			() => {
				if (fail) {
					throw new Error('Cannot find module ./features.js');
				}
				return real;
			},
			log,
			{ what: () => 'test file system' },
		);
		assert.throws(
			() => lazy.stat(URI),
			(err: unknown) =>
				err instanceof vscode.FileSystemError &&
				err.code === 'Unavailable' &&
				/could not load its test file system: .*Cannot find module \.\/features\.js/.test(err.message),
		);
		assert.equal(lazy.isLoaded, false);
		assert.equal(log.errors.length, 1);
		assert.equal(log.errors[0]![0], 'Loading the test file system failed:');
		assert.ok(log.errors[0]![1] instanceof Error);
		fail = false;
		assert.equal((lazy.stat(URI) as vscode.FileStat).size, 1);
		assert.equal(lazy.isLoaded, true);
		lazy.dispose();
	});

	test('a thrown non-Error is logged as text; the default name is the agent workspace file system', () => {
		const log = recordingLog();
		const lazy = new LazyFileSystemProvider(() => {
			// eslint-disable-next-line @typescript-eslint/only-throw-error -- a loader may throw anything
			throw 'no bundle';
		}, log);
		assert.throws(() => lazy.readFile(URI), /agent workspace file system: .*no bundle/);
		assert.deepEqual(log.errors[0], ['Loading the agent workspace file system failed:', 'no bundle']);
		lazy.dispose();
	});

	test('after disposal nothing loads: calls fail with Unavailable (shutting down)', () => {
		let loads = 0;
		const lazy = new LazyFileSystemProvider(() => (loads++, new MapProvider()), recordingLog());
		lazy.dispose();
		assert.throws(
			() => lazy.stat(URI),
			(err: unknown) => err instanceof vscode.FileSystemError && err.code === 'Unavailable' && /shutting down/.test(err.message),
		);
		assert.equal(loads, 0);
	});

	test('copy is offered only when the real provider is said to copy (VS Code then reads and writes instead)', () => {
		const lazy = new LazyFileSystemProvider(() => new MapProvider(), recordingLog());
		assert.equal(lazy.copy, undefined);
		assert.equal(typeof new LazyFileSystemProvider(() => new MapProvider(), recordingLog(), { copies: true }).copy, 'function');
		lazy.dispose();
	});

	test('copy is refused with NoPermissions when the real provider, said to copy, cannot', () => {
		const real = new MapProvider();
		Object.defineProperty(real, 'copy', { value: undefined });
		const lazy = new LazyFileSystemProvider(() => real, recordingLog(), { copies: true });
		assert.throws(
			() => lazy.copy?.(URI, OTHER, { overwrite: false }),
			(err: unknown) => err instanceof vscode.FileSystemError && err.code === 'NoPermissions' && err.message === OTHER.toString(true),
		);
		lazy.dispose();
	});
});
