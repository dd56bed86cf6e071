/**
 * src/platform/node/knownHostsFile.ts (Node's known_hosts file) on real files in a temporary folder: no
 * duplicates, creation with 0600 (folder 0700), appending after a last line without a newline,
 * refusals, where the file is.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { knownHostsLine } from '../../../../src/util/knownHosts';
import { addKnownHost, knownHostsPath, nodeKnownHosts } from '../../../../src/platform/node/knownHostsFile';

const KEY = { keyType: 'ssh-ed25519', keyBase64: 'AAAAC3NzaC1lZDI1NTE5AAAAIAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH' };

suite("Node's known_hosts file (src/platform/node/knownHostsFile.ts)", () => {
	let dir: string;
	setup(async () => {
		dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ca-known-hosts-'));
	});
	teardown(async () => {
		await fs.rm(dir, { recursive: true, force: true });
	});

	test('a missing file is created 0600 in a new 0700 folder with exactly the line', async () => {
		const file = path.join(dir, 'ssh', 'known_hosts');
		const line = knownHostsLine(KEY, 'gw.example.com', 2222);
		assert.equal(await addKnownHost(file, line), 'added');
		assert.equal(await fs.readFile(file, 'utf8'), `${line}\n`);
		if (process.platform !== 'win32') {
			assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
			assert.equal((await fs.stat(path.dirname(file))).mode & 0o777, 0o700);
		}
		assert.equal(await addKnownHost(file, line), 'present');
		assert.equal(await fs.readFile(file, 'utf8'), `${line}\n`, 'no duplicate line');
	});

	test('an existing file keeps its content and mode; a last line without newline gets one first', async () => {
		const file = path.join(dir, 'known_hosts');
		await fs.writeFile(file, 'github.com ssh-ed25519 AAAAexisting', { mode: 0o644 });
		const line = knownHostsLine(KEY, 'gw.example.com');
		assert.equal(await addKnownHost(file, line), 'added');
		assert.equal(await fs.readFile(file, 'utf8'), `github.com ssh-ed25519 AAAAexisting\n${line}\n`);
		if (process.platform !== 'win32') {
			assert.equal((await fs.stat(file)).mode & 0o777, 0o644);
		}
	});

	test('refused: a line with a line break, a folder in place of the file; nothing written', async () => {
		await assert.rejects(addKnownHost(path.join(dir, 'k'), 'a b c\nd e f'));
		await assert.rejects(fs.stat(path.join(dir, 'k')));
		await fs.mkdir(path.join(dir, 'folder'));
		await assert.rejects(addKnownHost(path.join(dir, 'folder'), knownHostsLine(KEY, 'gw.example.com')), /not a regular file/);
	});

	test('where the file is: ~/.ssh/known_hosts without a setting, the setting with ~ as the home folder', () => {
		assert.equal(knownHostsPath(''), path.join(os.homedir(), '.ssh', 'known_hosts'));
		assert.equal(knownHostsPath('  '), path.join(os.homedir(), '.ssh', 'known_hosts'));
		assert.equal(knownHostsPath('~/keys/hosts'), path.join(os.homedir(), 'keys', 'hosts'));
		assert.equal(knownHostsPath(path.join(dir, 'k')), path.join(dir, 'k'));
	});

	test('has: the line in the file; a missing file or a folder in its place trusts nothing', async () => {
		const file = path.join(dir, 'known_hosts');
		const line = knownHostsLine(KEY, 'gw.example.com', 2222);
		assert.equal(await nodeKnownHosts.has(file, line), false, 'missing');
		await nodeKnownHosts.add(file, line);
		assert.equal(await nodeKnownHosts.has(file, line), true);
		assert.equal(await nodeKnownHosts.has(dir, line), false, 'a folder');
	});
});
