import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
	ALL_VIEW_IDS,
	AUTH_PROVIDER_ID,
	AUTH_PROVIDER_LABEL,
	COMMAND_IDS,
	CONTEXT_KEYS,
	DOCUMENT_SCHEMES,
	EMPTY_SCHEME,
	FILE_SYSTEM_SCHEMES,
	FS_SCHEME,
	IMAGE_SCHEME,
	PROVIDER_SCHEME,
	RECORD_SCHEME,
	TAB_SCHEMES,
	VIEW_CONTAINER_ID,
	VIEW_IDS,
	EXTENSION_ID,
	CONFIG,
	WEBVIEW_TYPES,
	TOOLS,
	TOOL_NAMES,
	isPromptSource,
	manifestCommandTitles,
} from '../../src/ids';
import { readManifest } from './support/manifest';

interface Manifest {
	name: string;
	publisher: string;
	main: string;
	activationEvents?: string[];
	contributes: {
		commands: { command: string; title: string; category?: string }[];
		views: Record<string, { id: string }[]>;
		viewsContainers: { activitybar: { id: string }[] };
		viewsWelcome: { view: string; contents: string; when?: string }[];
		configuration: { properties: Record<string, unknown> };
		authentication: { id: string; label: string }[];
		menus?: Record<string, { command?: string }[]>;
		keybindings?: { command: string; key: string; mac?: string; when?: string }[];
		walkthroughs?: {
			id: string;
			title: string;
			steps: { id: string; title: string; description: string; media: { markdown?: string }; completionEvents?: string[] }[];
		}[];
		languageModelTools?: {
			name: string;
			displayName?: string;
			modelDescription?: string;
			userDescription?: string;
			toolReferenceName?: string;
			canBeReferencedInPrompt?: boolean;
			tags?: string[];
			inputSchema?: { type?: string; properties?: Record<string, unknown>; required?: string[] };
		}[];
	};
}

// Compiled to out/test/unit/, so the repository root is three levels up.
const root = join(__dirname, '..', '..', '..');
// Its texts as VS Code shows them (package.nls.json's, for package.json's `%key%` references).
const manifest = readManifest<Manifest>(root);

suite('package.json manifest', () => {
	test('contributes exactly the commands listed in COMMAND_IDS, in the same order (generated: npm run ids:gen)', () => {
		assert.deepEqual(
			manifest.contributes.commands.map((c) => c.command),
			[...COMMAND_IDS],
			'src/manifestIds.gen.ts is stale: run npm run ids:gen',
		);
	});

	test('gives every command the Cloud Agents category', () => {
		for (const command of manifest.contributes.commands) {
			assert.equal(command.category, 'Cloud Agents', command.command);
		}
	});

	test('menus only reference contributed commands', () => {
		const known = new Set<string>(COMMAND_IDS);
		for (const [menu, items] of Object.entries(manifest.contributes.menus ?? {})) {
			for (const item of items) {
				if (item.command !== undefined) {
					assert.ok(known.has(item.command), `${menu} references unknown command ${item.command}`);
				}
			}
		}
	});

	test('contributes the view container and the views listed in ALL_VIEW_IDS (generated: npm run ids:gen), VIEW_IDS among them', () => {
		assert.deepEqual(
			manifest.contributes.viewsContainers.activitybar.map((c) => c.id),
			[VIEW_CONTAINER_ID],
		);
		assert.deepEqual(
			Object.values(manifest.contributes.views)
				.flat()
				.map((v) => v.id),
			[...ALL_VIEW_IDS],
			'src/manifestIds.gen.ts is stale: run npm run ids:gen',
		);
		for (const id of Object.values(VIEW_IDS)) {
			assert.ok((ALL_VIEW_IDS as readonly string[]).includes(id), id);
		}
	});

	test('before the extension has started, every view says it is starting, not VS Code\'s "There is no data provider registered…" (issue 42, item 6)', () => {
		const starting = `!${CONTEXT_KEYS.loaded}`;
		const welcomes = manifest.contributes.viewsWelcome;
		for (const view of ALL_VIEW_IDS) {
			const shown = welcomes.filter((w) => w.view === view && w.when === starting);
			assert.equal(shown.length, 1, `one "starting" welcome for ${view}`);
			assert.equal(shown[0]!.contents, 'Starting Cloud Agents…', view);
		}
		// The other welcomes wait for the extension's state: none shows beside "starting".
		for (const w of welcomes.filter((x) => x.when !== starting)) {
			assert.ok((w.when ?? '').split(/\s*&&\s*/).includes(CONTEXT_KEYS.loaded), `${w.view}: ${w.when}`);
		}
	});

	test('signed out, the Agents view says first why (unreachable: Check Connection; else Sign In); the other views one short line, no button', () => {
		const signedOut = `!${CONTEXT_KEYS.signedIn} && ${CONTEXT_KEYS.loaded}`;
		const welcomes = manifest.contributes.viewsWelcome;
		const signInButton = /\[Sign In\]\(command:cloudAgents\.signIn\)/;
		const withButton = new Set<string>();
		for (const view of ALL_VIEW_IDS) {
			const shown = welcomes.filter((w) => w.view === view && (w.when ?? '').startsWith(signedOut));
			assert.ok(shown.length > 0, `no signed-out welcome for ${view}`);
			assert.ok(
				shown.every((w) => w.contents.trim() !== ''),
				`empty signed-out welcome for ${view}`,
			);
			if (shown.some((w) => signInButton.test(w.contents))) {
				withButton.add(view);
			}
			if (view !== VIEW_IDS.agents) {
				// One short line: the reason and the buttons are in the Agents view above.
				assert.equal(shown.length, 1, view);
				const text = shown[0]!.contents;
				assert.ok(!text.includes('\n') && !text.includes('](command:') && text.length <= 40, `${view}: ${JSON.stringify(text)}`);
			}
		}
		// Four stacked "Sign In" buttons read as four different sign-ins: one is enough.
		assert.deepEqual([...withButton], [VIEW_IDS.agents]);
		// In the Agents view (welcome content shows in contribution order), the first entry says why:
		// unreachable first, with Check Connection and Configure API URL and no Sign In; else Sign In.
		const agents = welcomes.filter((w) => w.view === VIEW_IDS.agents && (w.when ?? '').startsWith(signedOut));
		const unreachable = `${CONTEXT_KEYS.serverReachable} == 'unreachable'`;
		assert.ok(agents[0]?.when?.endsWith(unreachable), `first: ${agents[0]?.when}`);
		assert.match(agents[0]!.contents, /^The Cloud Agents service cannot be reached/);
		assert.match(agents[0]!.contents, /\[Check Connection\]\(command:cloudAgents\.checkConnection\)/);
		assert.match(agents[0]!.contents, /\[Configure API URL\]/);
		assert.doesNotMatch(agents[0]!.contents, signInButton);
		assert.ok(agents[1]?.when?.endsWith(`${CONTEXT_KEYS.serverReachable} != 'unreachable'`), `second: ${agents[1]?.when}`);
		assert.match(agents[1]!.contents, signInButton);
		assert.ok(
			agents.slice(1).every((w) => !w.when?.endsWith(unreachable)),
			'the unreachable reason shows once, first',
		);
	});

	test('the palette offers the signed-in commands before the extension has activated (running one activates it), and hides them once it knows you are signed out', () => {
		// A context key the extension has not set yet reads as undefined: `!cloudAgents.loaded` is true.
		const palette = (manifest.contributes.menus?.commandPalette ?? []) as Array<{ command: string; when?: string }>;
		// (Entries with more conditions, e.g. an editor of ours being active, only arise after activation.)
		const gated = palette.filter((e) => e.when === CONTEXT_KEYS.signedIn);
		assert.deepEqual(
			gated.map((e) => e.command),
			[],
			'hidden until activation',
		);
		const offered = palette.filter((e) => e.when === `!${CONTEXT_KEYS.loaded} || ${CONTEXT_KEYS.signedIn}`);
		assert.ok(offered.length >= 20, `${offered.length} signed-in palette entries`);
	});

	test('activates on contributions, every scheme a tab can hold, restored webview panels, and after startup (for linked folders)', () => {
		// After startup (never during it): a folder linked to an agent shows its source control again
		// (src/changes/); activation does no network I/O and loads the features only when a link exists.
		// Issue 33, item 8: a tab of any scheme of ours (a model provider's document, a run's result, an
		// image, a diff's empty side) restored after a reload activates the extension to read it.
		assert.deepEqual(manifest.activationEvents, [
			...TAB_SCHEMES.map((scheme) => `onFileSystem:${scheme}`),
			...Object.values(WEBVIEW_TYPES).map((t) => `onWebviewPanel:${t}`),
			'onStartupFinished',
		]);
		assert.ok(!manifest.activationEvents?.includes('*'), 'never during startup');
	});

	test('every scheme of ours is a tab scheme registered at activation (src/shell/standIns.ts), and the body serves each through its stand-in', () => {
		// Activation registers a stand-in per scheme (FILE_SYSTEM_SCHEMES, DOCUMENT_SCHEMES): so VS Code
		// can restore a tab of each after a reload, before anything else of ours has run.
		const atActivation = [...Object.keys(FILE_SYSTEM_SCHEMES), ...DOCUMENT_SCHEMES].sort();
		assert.deepEqual(atActivation, [...TAB_SCHEMES].sort());
		// No other registration of a scheme: VS Code's own calls are made in the stand-ins' module and
		// in directRegistrations (src/util/registrations.ts, what tests and nothing else use).
		const direct: string[] = [];
		const served = new Set<string>();
		const walk = (dir: string): void => {
			for (const entry of readdirSync(dir, { withFileTypes: true })) {
				const path = join(dir, entry.name);
				if (entry.isDirectory()) {
					walk(path);
				} else if (entry.name.endsWith('.ts')) {
					const file = path.slice(root.length + 1);
					const text = readFileSync(path, 'utf8');
					if (
						/register(?:FileSystemProvider|TextDocumentContentProvider)\(/.test(text) &&
						!['src/shell/standIns.ts', 'src/util/registrations.ts'].includes(file)
					) {
						direct.push(file);
					}
					for (const m of text.matchAll(/\.(?:fileSystem|textDocuments)\(\s*([A-Z_]+)/g)) {
						served.add(m[1]!);
					}
				}
			}
		};
		walk(join(root, 'src'));
		assert.deepEqual(direct, [], 'a scheme registered past the stand-ins: hand the provider to `Registrations`');
		const names: Record<string, string> = { FS_SCHEME, RECORD_SCHEME, IMAGE_SCHEME, PROVIDER_SCHEME, EMPTY_SCHEME };
		assert.deepEqual([...served].map((n) => names[n]).sort(), [...TAB_SCHEMES].sort(), 'the body serves every tab scheme');
	});

	test('Ctrl+P and Ctrl+Shift+F run our Go to File and Search Workspace only in windows whose folders are all agent workspaces', () => {
		// VS Code's own Quick Open and Search cannot read `cloud-agent:` files (the search provider APIs
		// are proposed); in a window with a local folder they still find its files, so the keys stay theirs.
		const bindings = manifest.contributes.keybindings ?? [];
		assert.deepEqual(
			bindings.map((b) => [b.command, b.key, b.mac, b.when]),
			[
				['cloudAgents.workspace.goToFile', 'ctrl+p', 'cmd+p', CONTEXT_KEYS.agentWorkspace],
				['cloudAgents.workspace.search', 'ctrl+shift+f', 'cmd+shift+f', CONTEXT_KEYS.agentWorkspace],
			],
		);
		const known = new Set<string>(COMMAND_IDS);
		for (const b of bindings) {
			assert.ok(known.has(b.command), `keybinding for unknown command ${b.command}`);
			assert.ok(b.when?.trim(), `${b.key} must be scoped with a when clause: it replaces one of VS Code's own keys`);
		}
	});

	test('Delete Image… is offered on the rows of custom images no runtime uses, not on an image in use (the service refuses it)', () => {
		// A small reader of the clauses these menus use: `a == b`, `a =~ /re/`, joined with `&&`.
		const holds = (when: string, keys: Record<string, string>): boolean =>
			when.split('&&').every((clause) => {
				const eq = /^\s*(\S+)\s*==\s*(\S+)\s*$/.exec(clause);
				if (eq) {
					return keys[eq[1]!] === eq[2];
				}
				const re = /^\s*(\S+)\s*=~\s*\/(.*)\/\s*$/.exec(clause);
				assert.ok(re, `clause not read by this test: ${clause}`);
				return new RegExp(re[2]!).test(keys[re[1]!] ?? '');
			});
		const entries = ((manifest.contributes.menus?.['view/item/context'] ?? []) as { command?: string; when?: string }[]).filter(
			(m) => m.command === 'cloudAgents.images.delete',
		);
		assert.equal(entries.length, 1);
		const when = entries[0]!.when ?? '';
		const row = (viewItem: string): Record<string, string> => ({ view: 'cloudAgents.account', viewItem });
		assert.equal(holds(when, row('image:custom')), true, 'a custom image no runtime uses');
		assert.equal(holds(when, row('image:custom:inUse')), false, 'a custom image in use');
		assert.equal(holds(when, row('image:builtin')), false, 'a built-in image');
	});

	test('contributes exactly the language-model tools listed in TOOL_NAMES (generated: npm run ids:gen), each complete for a chat', () => {
		const tools = manifest.contributes.languageModelTools ?? [];
		assert.deepEqual(
			tools.map((t) => t.name),
			[...TOOL_NAMES],
		);
		assert.deepEqual(Object.values(TOOLS).sort(), [...TOOL_NAMES].sort(), 'TOOLS names every contributed tool');
		const references = new Set<string>();
		for (const tool of tools) {
			assert.match(tool.name, /^cloudAgents_[A-Za-z]+$/, tool.name);
			assert.ok((tool.modelDescription ?? '').length > 80, `${tool.name} modelDescription`);
			assert.ok(
				tool.userDescription && tool.displayName?.startsWith('Cloud Agents: '),
				`${tool.name} userDescription and displayName`,
			);
			assert.match(tool.toolReferenceName ?? '', /^cloudAgents[A-Za-z]+$/, `${tool.name} toolReferenceName`);
			assert.ok(!references.has(tool.toolReferenceName!), `${tool.name}: toolReferenceName used twice`);
			references.add(tool.toolReferenceName!);
			assert.equal(tool.canBeReferencedInPrompt, true, tool.name);
			assert.ok(tool.tags?.includes('cloud-agents'), `${tool.name} tags`);
			assert.equal(tool.inputSchema?.type, 'object', `${tool.name} inputSchema`);
			for (const key of tool.inputSchema?.required ?? []) {
				assert.ok(key in (tool.inputSchema?.properties ?? {}), `${tool.name}: required ${key} is a property`);
			}
		}
	});

	test('declares the apiUrl setting and the extension id used by tests', () => {
		assert.ok(`${CONFIG.section}.${CONFIG.apiUrl}` in manifest.contributes.configuration.properties);
		assert.equal(`${manifest.publisher}.${manifest.name}`, EXTENSION_ID);
		assert.equal(manifest.main, './dist/extension.js');
	});

	test('a Getting Started walkthrough (issue 42, item 17): sign in, browse agents, send a first prompt, open the workspace, review changes; each step with its command and a completion event', () => {
		const walkthrough = manifest.contributes.walkthroughs?.[0];
		assert.ok(walkthrough, 'contributes.walkthroughs');
		assert.deepEqual(
			walkthrough.steps.map((s) => s.id),
			['signIn', 'browseAgents', 'sendPrompt', 'openWorkspace', 'reviewChanges'],
		);
		const ours = new Set<string>(COMMAND_IDS);
		const viewIds = new Set(Object.values(manifest.contributes.views).flatMap((v) => v.map((x) => x.id)));
		const container = manifest.contributes.viewsContainers.activitybar[0]?.id;
		for (const step of walkthrough.steps) {
			const links = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
			assert.equal(links.length, 1, `${step.id}: one command link`);
			const link = links[0]!;
			assert.ok(
				ours.has(link) || link === `workbench.view.extension.${container}`,
				`${step.id}: ${link} is ours (or shows our view container)`,
			);
			assert.ok((step.completionEvents ?? []).length > 0, `${step.id}: a completion event`);
			for (const event of step.completionEvents ?? []) {
				const [kind, what] = event.split(':');
				assert.ok(
					(kind === 'onCommand' && ours.has(what!)) ||
						(kind === 'onView' && viewIds.has(what!)) ||
						(kind === 'onContext' && what === CONTEXT_KEYS.signedIn),
					`${step.id}: ${event} names one of our commands, views or context keys`,
				);
			}
			assert.ok(step.media.markdown, `${step.id}: its page`);
			const page = readFileSync(join(root, step.media.markdown), 'utf8');
			assert.ok(page.startsWith('## '), `${step.id}: ${step.media.markdown} is a page with a heading`);
		}
	});

	test('contributes the one authentication provider whose session changes the extension listens to', () => {
		assert.deepEqual(
			manifest.contributes.authentication.map((a) => a.id),
			[AUTH_PROVIDER_ID],
		);
		// Activation registers it by its label (src/shell/standIns.ts), as the manifest names it.
		const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
		assert.equal(nls['authentication.cloudAgents.label'], AUTH_PROVIDER_LABEL);
	});
});

suite('prompt sources', () => {
	test('only real text documents may be the source of a prompt, never the Output panel or logs', () => {
		for (const scheme of ['file', 'untitled', 'vscode-remote', 'cloud-agent', 'cloud-agents-record']) {
			assert.ok(isPromptSource(scheme), scheme);
		}
		for (const scheme of ['output', 'vscode-log', 'vscode-userdata', 'vscode-settings', 'git', 'debug', 'walkThrough']) {
			assert.ok(!isPromptSource(scheme), scheme);
		}
	});
});

suite('action titles from the manifest', () => {
	test('manifestCommandTitles reads each contributed command title, and nothing from a malformed manifest', () => {
		const titles = manifestCommandTitles(manifest);
		assert.equal(titles.size, manifest.contributes.commands.length);
		assert.equal(titles.get('cloudAgents.runs.cancel'), 'Cancel Run');
		assert.equal(titles.get('cloudAgents.images.delete'), 'Delete Image…');
		for (const junk of [
			undefined,
			null,
			'x',
			{},
			{ contributes: { commands: 'no' } },
			{ contributes: { commands: [null, 1, { command: 2 }] } },
		]) {
			assert.equal(manifestCommandTitles(junk).size, 0);
		}
	});

	test('manifestCommandTitles takes the translation where VS Code gives a title as { value, original } (a package.nls.<lang>.json that differs)', () => {
		const translated = {
			contributes: {
				commands: [
					{ command: 'cloudAgents.runs.cancel', title: { value: 'Lauf abbrechen', original: 'Cancel Run' } },
					{ command: 'cloudAgents.refresh', title: 'Refresh' },
					{ command: 'cloudAgents.signIn', title: { original: 'Sign In' } },
				],
			},
		};
		assert.deepEqual(
			[...manifestCommandTitles(translated)],
			[
				['cloudAgents.runs.cancel', 'Lauf abbrechen'],
				['cloudAgents.refresh', 'Refresh'],
			],
		);
	});

	test('every command an action in src/resources names is contributed with a title (the quick pick takes it when the action sets none)', () => {
		const titles = manifestCommandTitles(manifest);
		const dir = join(root, 'src', 'resources');
		const named: string[] = [];
		for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
			for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/\bcommand: '(cloudAgents\.[\w.]+)'/g)) {
				named.push(m[1] ?? '');
			}
		}
		assert.ok(named.length > 40, `found ${named.length} action commands`);
		assert.deepEqual(
			named.filter((id) => !titles.get(id)),
			[],
		);
	});

	test('the inline buttons one row can show have distinct icons (Cancel Run and Stop Following on a followed running run)', () => {
		const icons = new Map(
			(manifest.contributes.commands as Array<{ command: string; icon?: string }>).map((c) => [c.command, c.icon ?? ''] as const),
		);
		const inline = (
			(manifest.contributes.menus?.['view/item/context'] ?? []) as Array<{ command: string; when?: string; group?: string }>
		)
			.filter((e) => (e.group ?? '').startsWith('inline'))
			.map((e) => {
				const when = e.when ?? '';
				const view = /view == (\S+)/.exec(when)?.[1] ?? '';
				const re = /viewItem =~ \/(.+)\/(\w*)/.exec(when);
				const eq = /viewItem == (\S+)/.exec(when)?.[1];
				const matches = (contextValue: string): boolean =>
					re ? new RegExp(re[1] ?? '', re[2]).test(contextValue) : eq === undefined || eq === contextValue;
				return { command: e.command, view, matches, literal: eq };
			});
		// Rows as the lists draw them (`<kind>:<state>:<flags>`), every run combination among them.
		const rows: string[] = [
			'agent:idle',
			'artifact:file',
			'runtime:paused',
			'runtime:running',
			'imageBuild:running:active',
			'modelProvider:openai',
		];
		rows.push('githubRequest:pending:https');
		for (const status of ['queued', 'running', 'succeeded', 'failed', 'cancelled']) {
			const state = ['queued', 'running'].includes(status) ? 'active' : 'terminal';
			for (const result of ['', ':hasResult']) {
				for (const followed of ['', ':followed']) {
					rows.push(`run:${status}:${state}${result}${followed}`);
				}
			}
		}
		rows.push(...inline.flatMap((e) => (e.literal === undefined ? [] : [e.literal])));
		const clashes: string[] = [];
		let checked = 0;
		for (const view of new Set(inline.map((e) => e.view))) {
			for (const row of rows) {
				const shown = inline.filter((e) => e.view === view && e.matches(row));
				checked += shown.length > 1 ? 1 : 0;
				const seen = new Map<string, string>();
				for (const { command } of shown) {
					const icon = icons.get(command) ?? '';
					const other = seen.get(icon);
					if (other !== undefined && other !== command) {
						clashes.push(`${view} ${row}: ${other} and ${command} both show ${icon}`);
					}
					seen.set(icon, command);
				}
			}
		}
		assert.ok(checked > 5, `${checked} rows show more than one inline button`);
		assert.deepEqual(clashes, []);
		assert.notEqual(icons.get('cloudAgents.runs.cancel'), icons.get('cloudAgents.runs.stopFollowing'));
	});
});
