/**
 * OpenSSH known_hosts lines for the SSH gateway's host key: building the line and finding whether
 * a file's content already has it. Pure (no `vscode`, no Node): both extension hosts use it. The
 * file itself is the platform's (`KnownHostsFile`: Node's in src/platform/node/knownHostsFile.ts; VS Code
 * for the Web has none).
 */
import { isKnownHostsHost } from '../base/hosts';

/** The host field of a known_hosts line: `host`, or `[host]:port` for a port other than 22. */
export function knownHostsHost(host: string, port?: number): string {
	const h = host.toLowerCase().replace(/\.$/, '');
	if (!isKnownHostsHost(h)) {
		throw new Error(`not a host name or IP address: ${JSON.stringify(host.slice(0, 80))}`);
	}
	return port === undefined || port === 22 ? h : `[${h}]:${port}`;
}

/** The known_hosts line for a checked host key: `<host> <key type> <base64>` (no comment, no newline). */
export function knownHostsLine(key: { readonly keyType: string; readonly keyBase64: string }, host: string, port?: number): string {
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

/** What adding a line to the known_hosts file did. */
export type AddKnownHostResult = 'added' | 'present';

/**
 * The user's OpenSSH known_hosts file, where the extension host can write it (Node's: the user's
 * own files; the browser's extension host, VS Code for the Web, cannot reach ~/.ssh at all).
 */
export interface KnownHostsFile {
	/** The file: `configured` (the setting; `~` is the home folder) when not empty, else ~/.ssh/known_hosts. */
	path(this: void, configured: string): string;
	/** True when the file at `file` already trusts `line` (a missing or unreadable file trusts nothing). */
	has(this: void, file: string, line: string): Promise<boolean>;
	/** Adds `line` to the file at `file` unless it is there already (created 0600 when missing). */
	add(this: void, file: string, line: string): Promise<AddKnownHostResult>;
}
