/**
 * Plain formatting of sizes for the views (no `vscode` import, so plain-Node unit tests run it).
 */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * A byte count for people: "512 B", "1.5 KiB", "8 GiB", "2.3 MiB". One decimal below 10 units,
 * none from 10 on, and never a trailing ".0" ("8 GiB", not "8192.0 MiB").
 */
export function formatBytes(n: number | undefined): string | undefined {
	if (n === undefined || !Number.isFinite(n) || n < 0) {
		return undefined;
	}
	if (n < 1024) {
		return `${Math.round(n)} B`;
	}
	let value = n;
	let unit = 0;
	while (value >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit++;
	}
	const text = value < 10 ? value.toFixed(1).replace(/\.0$/, '') : String(Math.round(value));
	// Rounding can reach 1024 ("1024 KiB"): show the next unit instead.
	if (text === '1024' && unit < UNITS.length - 1) {
		return `1 ${UNITS[unit + 1]}`;
	}
	return `${text} ${UNITS[unit]}`;
}

/** A memory size given in MiB (the service's `memory_mib`): 8192 → "8 GiB", 512 → "512 MiB". */
export function formatMemoryMib(mib: number | undefined): string | undefined {
	if (mib === undefined || !Number.isFinite(mib) || mib < 0) {
		return undefined;
	}
	return formatBytes(mib * 1024 * 1024);
}
