/**
 * The user's known_hosts file in Node's extension host (src/platform/node/nodePlatform.ts hands it down as
 * the platform's `KnownHostsFile`): where it is, whether it has a line, adding one (created 0600 when
 * missing, its folder 0700). Plain Node (no `vscode`), so unit tests exercise it on real files. The
 * web build never holds it: VS Code for the Web cannot write ~/.ssh.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SAFETY } from '../../base/limits';
import type { AddKnownHostResult, KnownHostsFile } from '../../util/knownHosts';
import { hasKnownHost } from '../../util/knownHosts';

/** Where the known_hosts line goes: `configured` (with `~` expanded) when not empty, else ~/.ssh/known_hosts. */
export function knownHostsPath(configured: string): string {
	const setting = configured.trim();
	if (setting === '') {
		return path.join(os.homedir(), '.ssh', 'known_hosts');
	}
	const expanded = setting === '~' || setting.startsWith('~/') ? path.join(os.homedir(), setting.slice(1)) : setting;
	return path.resolve(expanded);
}

/** The content of the known_hosts file at `file`, or undefined when it is missing; refuses what `addKnownHost` refuses. */
async function readKnownHosts(file: string): Promise<string | undefined> {
	try {
		const st = await fs.lstat(file);
		if (!st.isFile()) {
			throw new Error(`${file} is not a regular file; nothing was written`);
		}
		if (st.size > SAFETY.knownHostsMaxBytes) {
			throw new Error(`${file} is larger than ${SAFETY.knownHostsMaxBytes} bytes; nothing was written`);
		}
		return await fs.readFile(file, 'utf8');
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
			throw err;
		}
		return undefined;
	}
}

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
	const content = await readKnownHosts(file);
	if (content !== undefined && hasKnownHost(content, line)) {
		return 'present';
	}
	if (content === undefined) {
		await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
		// 'wx': never follow or replace something created meanwhile.
		await fs.writeFile(file, `${line}\n`, { mode: 0o600, flag: 'wx' });
		return 'added';
	}
	const sep = content === '' || content.endsWith('\n') ? '' : '\n';
	await fs.appendFile(file, `${sep}${line}\n`);
	return 'added';
}

/** Node's known_hosts file: the user's own, through node:fs. */
export const nodeKnownHosts: KnownHostsFile = {
	path: knownHostsPath,
	// A file that cannot be read (missing, a folder, too large) has no line yet; `add` reads it again and says why it refuses.
	has: async (file, line) => hasKnownHost((await readKnownHosts(file).catch(() => undefined)) ?? '', line),
	add: addKnownHost,
};
