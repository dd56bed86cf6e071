/**
 * src/util/knownHosts.ts on real files in a temporary folder: the line's format, no duplicates,
 * creation with 0600 (folder 0700), appending after a last line without a newline, refusals.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { addKnownHost, hasKnownHost, knownHostsHost, knownHostsLine } from '../../../src/util/knownHosts';

const KEY = { keyType: 'ssh-ed25519', keyBase64: 'AAAAC3NzaC1lZDI1NTE5AAAAIAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH' };

suite('known_hosts lines (src/util/knownHosts.ts)', () => {
	let dir: string;
	setup(async () => {
		dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ca-known-hosts-'));
	});
	teardown(async () => {
		await fs.rm(dir, { recursive: true, force: true });
	});

	test('the host field: plain on port 22, [host]:port otherwise, lower case; junk refused', () => {
		assert.equal(knownHostsHost('GW.Example.com'), 'gw.example.com');
		assert.equal(knownHostsHost('gw.example.com', 22), 'gw.example.com');
		assert.equal(knownHostsHost('gw.example.com', 2222), '[gw.example.com]:2222');
		assert.equal(knownHostsLine(KEY, 'gw.example.com', 2222), `[gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}`);
		for (const bad of ['', 'a b', 'a,b', 'a\nb', '*.example.com', '-gw.example.com']) {
			assert.throws(() => knownHostsHost(bad), bad);
		}
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

	test('present means: same host (in a host list, any case), same type and key; comments, @revoked and other keys do not count', () => {
		const line = knownHostsLine(KEY, 'gw.example.com', 2222);
		assert.ok(
			hasKnownHost(`other.example ssh-rsa AAAA\n[GW.example.com]:2222,10.0.0.1 ssh-ed25519 ${KEY.keyBase64} a comment\n`, line),
		);
		assert.ok(hasKnownHost(`@cert-authority [gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}\n`, line));
		assert.ok(!hasKnownHost(`# [gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}\n`, line));
		assert.ok(!hasKnownHost(`@revoked [gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}\n`, line));
		assert.ok(!hasKnownHost(`gw.example.com ssh-ed25519 ${KEY.keyBase64}\n`, line), 'another port is another host');
		assert.ok(!hasKnownHost('[gw.example.com]:2222 ssh-ed25519 AAAAother\n', line));
	});

	test('refused: a line with a line break, a folder in place of the file; nothing written', async () => {
		await assert.rejects(addKnownHost(path.join(dir, 'k'), 'a b c\nd e f'));
		await assert.rejects(fs.stat(path.join(dir, 'k')));
		await fs.mkdir(path.join(dir, 'folder'));
		await assert.rejects(addKnownHost(path.join(dir, 'folder'), knownHostsLine(KEY, 'gw.example.com')), /not a regular file/);
	});
});
