import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent } from '../../../src/api';
import { Session, accountFingerprint, tokenKey } from '../../../src/auth/session';
import { agentsList } from '../../../src/resources/agents';
import type { ListContext } from '../../../src/views/descriptor';
import { DescriptorTreeProvider } from '../../../src/views/listTree';
import { RecordNode } from '../../../src/views/rows';
import type { ListHost } from '../../../src/views/listTree';
import { ROW_CACHE_KEY, RowCache } from '../../../src/views/rowCache';
import type { RowSnapshot } from '../../../src/testing';
import { createIdleAgent, emu, restoreDevToken, testApi, waitFor, within } from '../support/cloudAgents';
import { devToken } from '../support/env';
import { MemoryMemento, MemorySecrets, silentLog } from '../support/memoryStores';
import { hostPlatform } from '../support/hostPlatform';

/** The emulator's read-only token: another account as far as the extension can tell (emulator/README.md "Tokens"). */
const OTHER_TOKEN = 'ca_readonly_0123456789abcdef';
/** A record kept with the rows as last loaded that the service does not have: it shows only from the cache. */
const SENTINEL = { id: 'agent-only-in-the-cache', name: 'Only in the cache', status: 'idle' };

/** A session whose API URL the test sets (as a change of `cloudAgents.apiUrl` does). */
class UrlSession extends Session {
	private url: string | undefined;
	override get apiUrl(): string {
		return this.url ?? super.apiUrl;
	}
	switchUrl(url: string): void {
		this.url = url;
		this.apiUrlChanged();
	}
}

/** A window of its own: a session over in-memory secrets, the rows cache over a shared globalState, the Agents view. */
interface Window {
	session: UrlSession;
	secrets: MemorySecrets;
	cache: RowCache;
	tree: DescriptorTreeProvider<Agent>;
	/** As a TreeView's: `message` reads '' until set; `messageSets` counts the sets (each one an event of the extension host). */
	view: { visible: boolean; message: string | undefined; readonly messageSets: number };
	dispose(): void;
}

function description(row: vscode.TreeItem): string {
	return typeof row.description === 'string' ? row.description : '';
}

function isCached(row: vscode.TreeItem): boolean {
	return row instanceof RecordNode && row.cachedAt !== undefined;
}

/**
 * Issue 23: the Agents view shows its rows as last loaded at once, marked, until the answer comes;
 * never a stale row as fresh, never the rows of another account or server (src/views/rowCache.ts).
 */
suite('Rows as last loaded (Agents view)', () => {
	const windows: Window[] = [];
	let state: MemoryMemento;

	async function openWindow(token: string | undefined = devToken()): Promise<Window> {
		const secrets = new MemorySecrets();
		const session = new UrlSession(secrets, silentLog, hostPlatform.connect);
		if (token !== undefined) {
			secrets.seed(tokenKey(session.apiUrl), token);
		}
		// As activation does: the cache hears the first sign-in state.
		const cache = new RowCache(state, session);
		await session.initialize(undefined);
		const host: ListHost = {
			get signedIn() {
				return session.signedIn;
			},
			onDidChange: session.onDidChange,
			log: silentLog,
			reportError: () => undefined,
			rowCache: cache,
		};
		const ctx: ListContext = { client: () => session.client, lookup: () => undefined, flag: () => false };
		const tree = new DescriptorTreeProvider(agentsList, host, ctx);
		const visibility = new vscode.EventEmitter<vscode.TreeViewVisibilityChangeEvent>();
		// A new TreeView's message reads '' in VS Code; each set is an event of its (debounced) channel.
		let message: string | undefined = '';
		let messageSets = 0;
		const view = {
			visible: true,
			get message(): string | undefined {
				return message;
			},
			set message(value: string | undefined) {
				messageSets++;
				message = value;
			},
			get messageSets(): number {
				return messageSets;
			},
			onDidChangeVisibility: visibility.event,
		};
		tree.attach(view as unknown as vscode.TreeView<vscode.TreeItem>);
		const w: Window = {
			session,
			secrets,
			cache,
			tree,
			view,
			dispose: () => {
				tree.dispose();
				cache.dispose();
				session.dispose();
				secrets.dispose();
				visibility.dispose();
			},
		};
		windows.push(w);
		return w;
	}

	/** The next redraw of the whole list, then its rows. */
	async function nextRows(w: Window): Promise<vscode.TreeItem[]> {
		await within(
			'the answer to redraw the list',
			new Promise<void>((resolve) => {
				const sub = w.tree.onDidChangeTreeData((e) => {
					if (e === undefined) {
						sub.dispose();
						resolve();
					}
				});
			}),
			20_000,
		);
		return w.tree.getChildren();
	}

	/** Loads the Agents view once in a window signed in with `token`, then adds SENTINEL to what it kept. */
	async function keepRows(token = devToken()): Promise<void> {
		const w = await openWindow(token);
		// That window closes once it has kept its rows (open, it would keep them again on its next poll).
		windows.splice(windows.indexOf(w), 1);
		const rows = await w.tree.getChildren();
		assert.ok(rows.length > 0 && rows.every((r) => !isCached(r)), 'a first load shows fresh rows');
		const kept = state.get<Record<string, { items: unknown[] }>>(ROW_CACHE_KEY);
		assert.ok(kept?.agents && kept.agents.items.length > 0, 'the answer was kept');
		w.dispose();
		kept.agents.items.push(SENTINEL);
		await state.update(ROW_CACHE_KEY, kept);
	}

	/**
	 * GET /v2/agents waits from now until released (the emulator's `hold` fault): what shows before
	 * the answer is read while the answer cannot have come, on any machine, with no time guessed.
	 */
	async function holdListing(): Promise<void> {
		const r = await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/agents', hold: true }] });
		assert.equal(r.status, 200, JSON.stringify(r.body));
	}

	/** Lets the held listings go on (clears the rules). */
	async function releaseListing(): Promise<void> {
		await emu('DELETE', '/_emulator/faults');
	}

	/**
	 * The rows `read` gives with the listing held (holdListing first): once the emulator holds a GET
	 * /v2/agents, it is released, and what `read` resolves to is returned. Rows given before the
	 * answer (the rows as last loaded) are what `read` resolved to then; rows that waited for it are
	 * the answer's.
	 */
	async function rowsOverHeldListing(read: () => Thenable<vscode.TreeItem[]>): Promise<vscode.TreeItem[]> {
		let settled = false;
		const rows = Promise.resolve(read()).finally(() => (settled = true));
		// (Rows that needed no listing, an answer read before the hold, come at once: they are what shows.)
		await waitFor('the listing held by the emulator, or the rows', async () => {
			const { body } = await emu<{ rules: Array<{ applied: number }> }>('GET', '/_emulator/faults');
			return settled || (body.rules[0]?.applied ?? 0) > 0 || undefined;
		});
		await releaseListing();
		return within('the rows', rows, 20_000);
	}

	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
	});

	setup(() => {
		state = new MemoryMemento();
	});

	teardown(async () => {
		await emu('DELETE', '/_emulator/faults');
		for (const w of windows.splice(0)) {
			w.dispose();
		}
	});

	suiteTeardown(async () => {
		await restoreDevToken();
	});

	test('the rows as last loaded show at once, marked, without waiting for GET /v2/agents; the answer replaces them', async function () {
		this.timeout(60_000);
		await keepRows();
		assert.ok(!state.dump().includes(devToken()), 'the token is never kept, only its fingerprint');
		assert.ok(state.dump().includes(accountFingerprint(devToken())));

		await holdListing();
		const w = await openWindow();
		// The listing is held: rows that come now did not wait for its answer; they are marked as cached.
		const first = await within('the rows as last loaded, with the listing held', w.tree.getChildren(), 20_000);
		assert.ok(first.length > 1 && first.every(isCached), 'every row shown before the answer is marked as cached');
		for (const row of first) {
			assert.match(description(row), /^cached · /, 'the description says so first');
			const icon = row.iconPath as vscode.ThemeIcon;
			assert.equal(icon.color?.id, 'disabledForeground', 'the icon is dimmed');
			const hover = w.tree.resolveTreeItem(w.tree.getTreeItem(row), row);
			assert.match(typeof hover.tooltip === 'string' ? hover.tooltip : '', /^As last loaded .*, not refreshed yet\./);
		}
		assert.ok(
			first.some((r) => r.id === `agent/${SENTINEL.id}`),
			'the kept rows are what shows',
		);
		// No message set while the read is under way, not even an empty one: the extension host debounces
		// a view's message with its rows (200 ms, leading edge), so any set here would hold the answer's
		// rows back until its trailing edge (issue 23).
		assert.equal(w.view.messageSets, 0, 'no view message set while the rows as last loaded wait for the answer');

		const answered = nextRows(w);
		await releaseListing();
		const fresh = await answered;
		assert.ok(fresh.length > 0 && fresh.every((r) => !isCached(r) && !/cached/.test(description(r))), 'the answer shows fresh rows');
		assert.ok(!fresh.some((r) => r.id === `agent/${SENTINEL.id}`), 'a row the service no longer has is gone');
		assert.equal(w.view.messageSets, 0, 'nor when the answer replaced them');
	});

	test('in the extension: the Agents view shows its rows as last loaded when its list starts over, and a command on such a row runs on its record [web]', async function () {
		this.timeout(60_000);
		const id = await createIdleAgent('cached-rename');
		const config = vscode.workspace.getConfiguration('cloudAgents');
		const pageSize = config.inspect<number>('pageSize')?.globalValue;
		try {
			// A first load keeps the rows (the extension's globalState).
			await config.update('pageSize', 49, vscode.ConfigurationTarget.Global);
			// (Rows kept by earlier suites show first, marked: the answer follows.)
			await waitFor('the fresh rows, with the new agent', async () => {
				const rows = await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', 'agents');
				return rows.some((r) => r.id === `agent/${id}` && !/^cached/.test(r.description ?? '')) || undefined;
			});
			// Another page size: every list starts over, as in a new window.
			await config.update('pageSize', 48, vscode.ConfigurationTarget.Global);
			await holdListing();
			const rows = await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', 'agents', undefined, {
				asShown: true,
			});
			// The rename reads on: the listing goes on too.
			await releaseListing();
			// Shown marked as cached: shown before the listing's answer (the mark says it, not a time bound).
			const row = rows.find((r) => r.id === `agent/${id}`);
			assert.match(row?.description ?? '', /^cached · /, 'shown marked');
			assert.match(row?.tooltip ?? '', /^As last loaded /);
			// Rename from the row's context menu (the row as the argument; the new name as automation passes it).
			const renamed = await within(
				'the rename',
				vscode.commands.executeCommand<Agent | undefined>(
					'_cloudAgents.views.runOnRow',
					'agents',
					`agent/${id}`,
					'cloudAgents.agents.rename',
					{
						name: 'Renamed from a cached row',
					},
				),
				20_000,
			);
			assert.equal(renamed?.name, 'Renamed from a cached row');
			const onService = await emu<{ name: string }>('GET', `/v2/agents/${encodeURIComponent(id)}`, undefined, devToken());
			assert.equal(onService.body.name, 'Renamed from a cached row');
		} finally {
			await emu('DELETE', '/_emulator/faults');
			await config.update('pageSize', pageSize, vscode.ConfigurationTarget.Global);
			await emu('DELETE', `/v2/agents/${encodeURIComponent(id)}`, undefined, devToken());
		}
	});

	test('a failed refresh keeps the rows marked under the error row; a refused token shows none of them', async function () {
		this.timeout(60_000);
		await keepRows();
		const fault = await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/agents', status: 400, count: 100 }] });
		assert.equal(fault.status, 200, JSON.stringify(fault.body));
		const w = await openWindow();
		const first = await w.tree.getChildren();
		assert.ok(first.every(isCached));
		const after = await nextRows(w);
		const records = after.filter((r) => r instanceof RecordNode);
		assert.ok(
			after.some((r) => !(r instanceof RecordNode)),
			`an error or offline row shows: ${after.map((r) => r.id).join(', ')}`,
		);
		assert.ok(records.length > 0 && records.every(isCached), 'the rows stay, still marked');
		assert.match(w.view.message ?? '', /^Last loaded .* — not refreshed$/);

		await emu('DELETE', '/_emulator/faults');
		const refused = await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/agents', status: 401, count: 100 }] });
		assert.equal(refused.status, 200, JSON.stringify(refused.body));
		const w2 = await openWindow();
		await w2.tree.getChildren();
		const afterRefusal = await nextRows(w2);
		assert.ok(!afterRefusal.some((r) => r instanceof RecordNode), 'nothing loaded with a refused token shows');
		assert.equal(w2.view.message || undefined, undefined);
	});

	test('sign-out forgets the rows: signed out, no rows; signed in again, none before the answer', async function () {
		this.timeout(60_000);
		await keepRows();
		const w = await openWindow();
		await w.session.deleteToken();
		assert.equal(state.get(ROW_CACHE_KEY), undefined, 'signing out cleared the rows kept');
		assert.deepEqual(await w.tree.getChildren(), [], 'signed out: no rows (the welcome content shows)');

		await holdListing();
		const again = await openWindow();
		// Nothing to show before the answer: the rows it gives are the answer's, fresh.
		const rows = await rowsOverHeldListing(() => again.tree.getChildren());
		assert.ok(rows.length > 0 && rows.every((r) => !isCached(r)), 'the rows waited for the answer');
	});

	test('another account (another token) never shows the rows of the first one', async function () {
		this.timeout(60_000);
		await keepRows(devToken());
		// A window signed in with another token: the kept rows are not its own.
		await holdListing();
		const other = await openWindow(OTHER_TOKEN);
		assert.equal(state.get(ROW_CACHE_KEY), undefined, "the first account's rows were dropped on sign-in");
		const rows = await rowsOverHeldListing(() => other.tree.getChildren());
		assert.ok(!rows.some(isCached), 'no row of the other account before the answer');
		assert.ok(!rows.some((r) => r.id === `agent/${SENTINEL.id}`));

		// The token changing under an open window (another sign-in, here or in another window).
		await emu('DELETE', '/_emulator/faults');
		await keepRows(devToken());
		const w = await openWindow(devToken());
		await w.secrets.store(tokenKey(w.session.apiUrl), OTHER_TOKEN);
		await waitFor('the new sign-in state', () =>
			Promise.resolve(w.session.cacheScope?.account === accountFingerprint(OTHER_TOKEN) || undefined),
		);
		assert.equal(state.get(ROW_CACHE_KEY), undefined, 'a changed token drops the rows kept');
		await holdListing();
		const afterChange = await rowsOverHeldListing(() => w.tree.getChildren());
		assert.ok(!afterChange.some(isCached) && !afterChange.some((r) => r.id === `agent/${SENTINEL.id}`));
	});

	test('another API URL never shows the rows kept for the first one', async function () {
		this.timeout(60_000);
		await keepRows();
		const w = await openWindow();
		// Nothing answers there: what shows is the offline row, never a row of the first server.
		const elsewhere = 'http://127.0.0.1:9';
		await w.secrets.store(tokenKey(elsewhere), devToken());
		// Not the first change event after the switch: the stored token's own event may land first, its
		// read overtaken by the switch (the scope stays unset then); the switch's read sets it.
		w.session.switchUrl(elsewhere);
		await waitFor('the new sign-in state', async () => (w.session.cacheScope?.apiUrl === elsewhere ? true : undefined), 10_000);
		assert.equal(state.get(ROW_CACHE_KEY), undefined, 'the rows of the other URL were dropped');
		const rows = await within('the rows', w.tree.getChildren(), 30_000);
		assert.ok(!rows.some((r) => r instanceof RecordNode), `no record row: ${rows.map((r) => r.id).join(', ')}`);

		// Kept for URL A, read with URL B (a globalState written by another window): not shown either.
		const kept = {
			agents: { v: 1, apiUrl: 'http://127.0.0.1:1', account: accountFingerprint(devToken()), savedAt: Date.now(), items: [SENTINEL] },
		};
		await state.update(ROW_CACHE_KEY, kept);
		await holdListing();
		const other = await openWindow();
		const fresh = await rowsOverHeldListing(() => other.tree.getChildren());
		assert.ok(!fresh.some(isCached) && !fresh.some((r) => r.id === `agent/${SENTINEL.id}`));
	});
});
