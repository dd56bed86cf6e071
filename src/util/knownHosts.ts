/**
 * OpenSSH known_hosts lines for the SSH gateway's host key: building the line, finding whether a
 * file already has it, and adding it to a file (created 0600 when missing, its folder 0700).
 * Plain Node (no `vscode`), so unit tests exercise it on real files.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { GatewayHostKey } from '../api/decode';
import { isKnownHostsHost } from '../api/decode';
import { SAFETY } from '../api/limits';

/** The host field of a known_hosts line: `host`, or `[host]:port` for a port other than 22. */
export function knownHostsHost(host: string, port?: number): string {
	const h = host.toLowerCase().replace(/\.$/, '');
	if (!isKnownHostsHost(h)) {
		throw new Error(`not a host name or IP address: ${JSON.stringify(host.slice(0, 80))}`);
	}
	return port === undefined || port === 22 ? h : `[${h}]:${port}`;
}

/** The known_hosts line for a checked host key: `<host> <key type> <base64>` (no comment, no newline). */
export function knownHostsLine(key: Pick<GatewayHostKey, 'keyType' | 'keyBase64'>, host: string, port?: number): string {
	return `${knownHostsHost(host, port)} ${key.keyType} ${key.keyBase64}`;
}

/**
 * True when `content` already trusts this key for this host: a line (not a comment, not
 * `@revoked`) whose host list names the host (exactly; hashed `|1|` entries cannot be compared and
 * do not count) with the same key type and key.
 */
export function hasKnownHost(content: string, line: string): boolean {
	const [host, type, key] = line.split(' ');
	for (const raw of content.split(/\r?\n/)) {
		const fields = raw.trim().split(/\s+/);
		if (fields.length === 0 || fields[0] === '' || fields[0]!.startsWith('#')) {
			continue;
		}
		if (fields[0]!.startsWith('@')) {
			if (fields[0] === '@revoked') {
				continue;
			}
			fields.shift();
		}
		const [hosts, t, k] = fields;
		if (
			t === type &&
			k === key &&
			hosts !== undefined &&
			hosts
				.split(',')
				.map((h) => h.toLowerCase())
				.includes(host!)
		) {
			return true;
		}
	}
	return false;
}

/** What `addKnownHost` did. */
export type AddKnownHostResult = 'added' | 'present';

/**
 * Adds `line` to the known_hosts file at `file` unless it is there already. A missing file is
 * created with mode 0600 (its folder with 0700); an existing file keeps its mode and content, and
 * gets a newline first when its last line has none. A file over SAFETY.knownHostsMaxBytes, or a
 * path that is not a regular file, is refused and nothing is written.
 */
export async function addKnownHost(file: string, line: string): Promise<AddKnownHostResult> {
	if (/[\r\n]/.test(line)) {
		throw new Error('a known_hosts line cannot contain a line break');
	}
	let content = '';
	let exists = true;
	try {
		const st = await fs.lstat(file);
		if (!st.isFile()) {
			throw new Error(`${file} is not a regular file; nothing was written`);
		}
		if (st.size > SAFETY.knownHostsMaxBytes) {
			throw new Error(`${file} is larger than ${SAFETY.knownHostsMaxBytes} bytes; nothing was written`);
		}
		content = await fs.readFile(file, 'utf8');
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
			throw err;
		}
		exists = false;
	}
	if (hasKnownHost(content, line)) {
		return 'present';
	}
	if (!exists) {
		await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
		// 'wx': never follow or replace something created meanwhile.
		await fs.writeFile(file, `${line}\n`, { mode: 0o600, flag: 'wx' });
		return 'added';
	}
	const sep = content === '' || content.endsWith('\n') ? '' : '\n';
	await fs.appendFile(file, `${sep}${line}\n`);
	return 'added';
}
