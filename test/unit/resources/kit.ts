/**
 * What the resource modules' tests share: a list context and an action kit around a real
 * CloudAgentsClient (of the emulator), recording what an action tells, asks and shows, and a
 * row's fields read back. Not a test file: the resource tests (test/unit/resources/*.test.ts) import it.
 */
import type { CloudAgentsClient } from '../../../src/api';
import * as assert from 'node:assert/strict';
import { startWorkspaceEmulator, type TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import type { ActionKit } from '../../../src/views/actions';
import type { ListContext, ListDescriptor, RowContext } from '../../../src/views/descriptor';

/** A list context: the client, and the records other lists "loaded" (by descriptor key). */
export function listContext(
	client: CloudAgentsClient | undefined,
	loaded: Record<string, unknown[]> = {},
	flags: Record<string, string[]> = {},
): ListContext {
	return {
		client: () => {
			if (!client) {
				throw new Error('this test gives the list no client');
			}
			return client;
		},
		lookup: <U>(descriptor: ListDescriptor<U, object, unknown>, key: string): U | undefined =>
			(loaded[descriptor.key] as U[] | undefined)?.find((r) => descriptor.keyOf(r) === key),
		flag: (name, key) => (flags[name] ?? []).includes(key),
	};
}

/** A row context of `ctx` with a parent. */
export function rowContext<P>(ctx: ListContext, parent: P, parentKey?: string): RowContext<P> {
	return { ...ctx, parent, parentKey };
}

/** The records a list source yields for its first `pages` pages (page or list). */
export async function readList<T, F extends object, P>(
	descriptor: ListDescriptor<T, F, P>,
	ctx: ListContext,
	parent: P,
	opts: { limit?: number; pages?: number } = {},
): Promise<T[]> {
	const signal = new AbortController().signal;
	const source = descriptor.source as unknown as {
		page?: (c: ListContext, r: unknown, p: P) => Promise<{ items: T[]; nextCursor?: string }>;
		list?: (c: ListContext, r: unknown, p: P) => Promise<{ items: T[]; more: boolean }>;
	};
	if (source.list) {
		return (await source.list(ctx, { pages: opts.pages ?? 1, pageSize: opts.limit ?? 100, signal }, parent)).items;
	}
	const out: T[] = [];
	let cursor: string | undefined;
	for (let i = 0; i < (opts.pages ?? 50); i++) {
		const page = await source.page!(ctx, { cursor, limit: opts.limit ?? 100, signal }, parent);
		out.push(...page.items);
		cursor = page.nextCursor;
		if (!cursor) {
			break;
		}
	}
	return out;
}

/** The text of a row's tooltip (a function is called, as VS Code does on hover). */
export function tooltipText(tooltip: string | (() => string) | undefined): string {
	return typeof tooltip === 'function' ? tooltip() : (tooltip ?? '');
}

/** What a kit was asked to do, in order. */
export interface KitLog {
	confirms: Array<{ message: string; detail: string | undefined; action: string }>;
	infos: string[];
	warnings: string[];
	progress: string[];
	json: Array<{ title: string; key: string[]; value: unknown }>;
	refreshes: number;
	listRefreshes: string[];
	copies: Array<{ text: string; message: string }>;
}

export interface FakeKitOptions {
	client?: CloudAgentsClient;
	arg?: unknown;
	automation?: boolean;
	/** The answer to `confirm` (default: declined). */
	confirm?: boolean;
	/** Records of lists `kit.list(d)` serves (by descriptor key). */
	lists?: Record<string, unknown[]>;
	title?: string;
	/** Overrides of any other kit member a test needs. */
	extra?: Partial<ActionKit>;
}

/** An action kit that records what it was asked (the registry's real one needs the whole extension). */
export function fakeKit(opts: FakeKitOptions = {}): { kit: ActionKit; log: KitLog } {
	const log: KitLog = { confirms: [], infos: [], warnings: [], progress: [], json: [], refreshes: 0, listRefreshes: [], copies: [] };
	const logLines: string[] = [];
	const list = (descriptor: ListDescriptor<unknown, object, unknown>): unknown => {
		const records = opts.lists?.[descriptor.key] ?? [];
		return {
			records,
			find: (key: string) => records.find((r) => descriptor.keyOf(r) === key),
			nameOf: (key: string) => {
				const r = records.find((x) => descriptor.keyOf(x) === key);
				return r === undefined ? undefined : descriptor.name?.(r);
			},
			refresh: async () => {
				log.listRefreshes.push(descriptor.key);
			},
		};
	};
	const kit = {
		arg: opts.arg,
		args: opts.arg === undefined ? [] : [opts.arg],
		title: opts.title ?? 'Test Action',
		automation: opts.automation ?? false,
		client: () => {
			if (!opts.client) {
				throw new Error('this test gives the kit no client');
			}
			return opts.client;
		},
		list,
		refresh: async () => {
			log.refreshes++;
		},
		showJson: async (title: string, key: string[], value: unknown) => {
			log.json.push({ title, key, value });
			return {} as never;
		},
		confirm: async (message: string, detail: string | undefined, action: string) => {
			log.confirms.push({ message, detail, action });
			return (opts.automation ?? false) || (opts.confirm ?? false);
		},
		progress: async <R>(title: string, work: (signal: AbortSignal, report: (m: string) => void) => Promise<R>) => {
			log.progress.push(title);
			return work(new AbortController().signal, () => undefined);
		},
		pending: async <R>(title: string, work: (signal: AbortSignal) => Promise<R>) => {
			log.progress.push(title);
			return work(new AbortController().signal);
		},
		info: (m: string) => void log.infos.push(m),
		warn: (m: string) => void log.warnings.push(m),
		copy: async (text: string, message: string) => void log.copies.push({ text, message }),
		log: {
			info: (m: string) => void logLines.push(m),
			warn: (m: string) => void logLines.push(m),
			error: (m: string) => void logLines.push(m),
			debug: (m: string) => void logLines.push(m),
			trace: (m: string) => void logLines.push(m),
			appendLine: (m: string) => void logLines.push(m),
			lines: logLines,
		},
		...opts.extra,
	} as unknown as ActionKit;
	return { kit, log };
}

/**
 * One emulator (demo seed) for a suite and a client of it, put back to the demo seed (data,
 * counters, clock) with no faults before every test: tests that change its data stay independent,
 * without the cost of a start each. Call it in the suite's body; read the fields in the tests.
 */
export function emulatorPerSuite(): { emu: TestEmulator; client: CloudAgentsClient } {
	const handle = {} as { emu: TestEmulator; client: CloudAgentsClient };
	suiteSetup(async () => {
		const { emu, client } = await startWorkspaceEmulator();
		Object.assign(handle, { emu, client });
	});
	setup(async () => {
		await handle.emu.admin('DELETE', '/faults');
		await handle.emu.admin('POST', '/reset', { seed: 'demo' });
	});
	suiteTeardown(async () => {
		await handle.emu?.close();
	});
	return handle;
}

/** An item of the resources' quick picks, read loosely: each test knows the rows it offers. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = any;

/** The fake's quick pick (support/vscodeFake.ts), its items read loosely. */
export const FakeQuickPick = fake.FakeQuickPick<Row>;

/** Waits until `check` holds (a condition, never a time). */
export async function until(check: () => boolean): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (!check() && Date.now() < deadline) {
		await new Promise((r) => setImmediate(r));
	}
	assert.ok(check(), 'the condition never held');
}

/** `fake.installQuickInputs()` (quick picks and input boxes, in the order made), the picks' items read loosely. */
export function quickInputs(): ReturnType<typeof fake.installQuickInputs<Row>> {
	return fake.installQuickInputs<Row>();
}
