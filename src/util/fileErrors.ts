/**
 * Whether an error from a file system says the path is not there: VS Code's `FileSystemError`
 * codes for it (`FileNotFound`, `FileNotADirectory`), a provider's own words where it did not map
 * its error (`EntryNotFound`, `EntryNotADirectory` in its code, name or message), and Node's
 * `ENOENT` and `ENOTDIR`. Anything else (no permission, unavailable, a disk error) is a failure.
 * The one test of "missing" for the run-event store, local folders and the compare engine.
 */
export function isMissingFileError(err: unknown): boolean {
	const code = (err as { code?: unknown } | null)?.code;
	if (typeof code === 'string' && MISSING_CODES.has(code)) {
		return true;
	}
	const words = err instanceof Error ? `${err.name} ${err.message}` : typeof err === 'string' ? err : '';
	return MISSING_WORDS.test(words);
}

const MISSING_CODES = new Set(['FileNotFound', 'FileNotADirectory', 'EntryNotFound', 'EntryNotADirectory', 'ENOENT', 'ENOTDIR']);
const MISSING_WORDS = /\b(?:ENOENT|ENOTDIR|FileNotFound|FileNotADirectory|EntryNotFound|EntryNotADirectory)\b/;
