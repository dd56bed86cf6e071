import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID } from '../../../src/ids';
import { testApi } from '../support/cloudAgents';

/**
 * package.json and the running extension agree, both ways: what the manifest contributes exists
 * in the extension host, and what the extension registers is contributed. Run inside VS Code, so
 * a command registered under a misspelt id, a menu entry naming a command nobody registers, or a
 * `when` clause naming a view that does not exist fails here rather than silently in the UI.
 */

interface MenuEntry {
	command?: string;
	submenu?: string;
	when?: string;
	alt?: string;
}
interface Manifest {
	contributes: {
		commands: Array<{ command: string; enablement?: string }>;
		menus: Record<string, MenuEntry[]>;
		submenus?: Array<{ id: string }>;
		views: Record<string, Array<{ id: string; when?: string }>>;
		viewsWelcome: Array<{ view: string; when?: string }>;
		keybindings?: Array<{ command: string; when?: string }>;
	};
}

/** Commands VS Code itself registers for every contributed view (`<view id>.<action>`). */
const VIEW_ACTIONS = ['focus', 'resetViewLocation', 'toggleVisibility', 'removeView', 'open'];

function manifest(): Manifest {
	const extension = vscode.extensions.getExtension(EXTENSION_ID);
	assert.ok(extension, `${EXTENSION_ID} is not installed`);
	return extension.packageJSON as Manifest;
}

/** The view ids a `when` clause names: `view == x`, `view != x`, `focusedView == x`, `view =~ /^x$/`. */
function viewsNamedIn(when: string): string[] {
	const out: string[] = [];
	for (const m of when.matchAll(/\b(?:view|focusedView)\s*(?:==|!=)\s*'?([A-Za-z0-9_.-]+)'?/g)) {
		out.push(m[1]!);
	}
	for (const m of when.matchAll(/\b(?:view|focusedView)\s*=~\s*\/\^?([A-Za-z0-9_.\\-]+)\$\//g)) {
		out.push(m[1]!.replace(/\\/g, ''));
	}
	return out;
}

/** The view patterns a `when` clause matches views with, other than one whole name: `view =~ /^cloudAgents\./` (each must match some contributed view). */
function viewPatternsIn(when: string): RegExp[] {
	const out: RegExp[] = [];
	for (const m of when.matchAll(/\b(?:view|focusedView)\s*=~\s*\/((?:\\.|[^/\\])+)\/([a-z]*)/g)) {
		if (!/^\^?[A-Za-z0-9_.\\-]+\$$/.test(m[1]!)) {
			out.push(new RegExp(m[1]!, m[2]));
		}
	}
	return out;
}

suite('Manifest both ways (package.json ↔ the running extension)', () => {
	let registered: Set<string>;
	let contributed: Set<string>;
	let views: Set<string>;

	suiteSetup(async function () {
		this.timeout(30_000);
		// The real commands, not the stand-ins activation registers (src/shell/lazy.ts).
		(await testApi()).features.load();
		registered = new Set(await vscode.commands.getCommands(true));
		contributed = new Set(manifest().contributes.commands.map((c) => c.command));
		views = new Set(
			Object.values(manifest().contributes.views)
				.flat()
				.map((v) => v.id),
		);
	});

	test('every contributed command is registered [web]', () => {
		const missing = [...contributed].filter((id) => !registered.has(id));
		assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
	});

	test('every registered cloudAgents.* command is contributed (the _cloudAgents.* test seams aside) [web]', () => {
		const ours = [...registered].filter((id) => id.startsWith('cloudAgents.'));
		assert.ok(ours.length >= contributed.size, 'the extension registered its commands');
		const viewAction = (id: string): boolean => [...views].some((view) => VIEW_ACTIONS.some((action) => id === `${view}.${action}`));
		const extra = ours.filter((id) => !contributed.has(id) && !viewAction(id));
		assert.deepEqual(extra, [], `registered but not contributed: ${extra.join(', ')}`);
		// The seams are not in the manifest (they never show in the palette or a menu).
		for (const id of [...registered].filter((c) => c.startsWith('_cloudAgents.'))) {
			assert.ok(!contributed.has(id), `test seam ${id} is contributed`);
		}
	});

	test('every menu entry of every menu names a command that is contributed and registered (or a declared submenu)', () => {
		const submenus = new Set((manifest().contributes.submenus ?? []).map((s) => s.id));
		const wrong: string[] = [];
		for (const [menu, entries] of Object.entries(manifest().contributes.menus)) {
			for (const entry of entries) {
				for (const id of [entry.command, entry.alt].filter((c): c is string => c !== undefined)) {
					if (!contributed.has(id) || !registered.has(id)) {
						wrong.push(`${menu}: ${id}`);
					}
				}
				if (entry.submenu !== undefined && !submenus.has(entry.submenu)) {
					wrong.push(`${menu}: submenu ${entry.submenu}`);
				}
				if (entry.command === undefined && entry.submenu === undefined) {
					wrong.push(`${menu}: an entry with neither command nor submenu`);
				}
			}
		}
		assert.deepEqual(wrong, [], `menu entries naming no real command: ${wrong.join('; ')}`);
	});

	test('every when clause and welcome that names a view names a contributed view', () => {
		const m = manifest().contributes;
		const clauses: Array<[string, string]> = [
			...Object.entries(m.menus).flatMap(([menu, entries]) =>
				entries.filter((e) => e.when).map((e): [string, string] => [`${menu} ${e.command ?? e.submenu ?? ''}`, e.when!]),
			),
			...m.viewsWelcome.filter((w) => w.when).map((w): [string, string] => [`viewsWelcome ${w.view}`, w.when!]),
			...Object.values(m.views)
				.flat()
				.filter((v) => v.when)
				.map((v): [string, string] => [`views ${v.id}`, v.when!]),
			...(m.keybindings ?? []).filter((k) => k.when).map((k): [string, string] => [`keybinding ${k.command}`, k.when!]),
			...m.commands.filter((c) => c.enablement).map((c): [string, string] => [`enablement ${c.command}`, c.enablement!]),
		];
		let named = 0;
		const wrong: string[] = [];
		for (const [where, when] of clauses) {
			for (const view of viewsNamedIn(when)) {
				named++;
				if (!views.has(view)) {
					wrong.push(`${where}: ${view}`);
				}
			}
			for (const pattern of viewPatternsIn(when)) {
				named++;
				if (![...views].some((view) => pattern.test(view))) {
					wrong.push(`${where}: ${pattern.source} (matches no view)`);
				}
			}
		}
		for (const welcome of m.viewsWelcome) {
			named++;
			if (!views.has(welcome.view)) {
				wrong.push(`viewsWelcome: ${welcome.view}`);
			}
		}
		assert.ok(named > 0, 'the check found view names to check');
		assert.deepEqual(wrong, [], `when clauses naming no contributed view: ${wrong.join('; ')}`);
	});

	test('the checks catch a wrong name (the when-clause parser reads the forms package.json uses)', () => {
		assert.deepEqual(viewsNamedIn('view == cloudAgents.agents && viewItem =~ /^agent:/'), ['cloudAgents.agents']);
		assert.deepEqual(viewsNamedIn("focusedView == 'cloudAgents.runs' || view != cloudAgents.runtimez"), [
			'cloudAgents.runs',
			'cloudAgents.runtimez',
		]);
		assert.deepEqual(viewsNamedIn('view =~ /^cloudAgents\\.artifacts$/'), ['cloudAgents.artifacts']);
		assert.deepEqual(viewsNamedIn('view =~ /^cloudAgents\\./ && viewItem == offline'), []);
		assert.deepEqual(
			viewPatternsIn('view =~ /^cloudAgents\\./ && viewItem == offline').map((p) => p.source),
			['^cloudAgents\\.'],
		);
		assert.deepEqual(viewPatternsIn('view =~ /^cloudAgents\\.artifacts$/'), []);
		assert.ok(viewPatternsIn('view =~ /^cloudAgents\\./')[0]?.test('cloudAgents.agents'));
		assert.equal(viewPatternsIn('view =~ /^cloudAgentz\\./')[0]?.test('cloudAgents.agents'), false);
		assert.equal(views.has('cloudAgents.runtimez'), false);
	});
});
