/**
 * The rules of the layers (README "Developing"), read from the source so they stay true:
 * - only the framework (src/views/) resolves command targets: no `resolveTarget(` elsewhere;
 * - no code of ours reaches our own code through a command id (`executeCommand('cloudAgents.…')`
 *   or `executeCommand('_cloudAgents.…')`): services are passed as objects;
 * - server records are read through src/api only: no `as Record<string, unknown>` outside it, but
 *   for the webview message validators (messages from our own pages, not from the server);
 * - the test harness's commands are registered in src/testing.ts only;
 * - the framework never imports a resource (src/views → src/resources);
 * - the floors: every import of a file of src/ (`import`, `import type`, `export … from`, `import('…')`,
 *   `require('…')`) goes to its own floor or one below (ROOMS says which room of src/ is on which
 *   floor), no two rooms import each other however indirectly (no cycle of rooms), a feature imports
 *   no other feature (the shell hands it what it needs), and only the body (src/shell/main.ts) imports src/testing.ts.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix, relative } from 'node:path';
import * as ts from 'typescript';
import { WIRE_HALVES } from '../support/wireHalves';

// Compiled to out/test/unit/build/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');
const src = join(root, 'src');

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
	});
}

const sources = filesUnder(src).map((path) => ({ path: relative(root, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));

/** Where a pattern occurs, as `file:line`, in the files `include` keeps. */
function occurrences(pattern: RegExp, include: (path: string) => boolean): string[] {
	const out: string[] = [];
	for (const { path, text } of sources.filter((s) => include(s.path))) {
		text.split('\n').forEach((line, i) => {
			if (pattern.test(line)) {
				out.push(`${path}:${i + 1}`);
			}
		});
	}
	return out;
}

/** The floors of the house, top to bottom (README "Developing" → "Layers"). */
const FLOORS = ['shell', 'platform', 'features', 'framework', 'services', 'bottom', 'base', 'constants'] as const;
type Floor = (typeof FLOORS)[number];

/**
 * Every room of src/ (a folder, written with its trailing slash, or a file at the top level) and its
 * floor. A folder inside a room may be a room of its own on a lower floor (the agent workspace's
 * file system below the workspace feature): a file belongs to the deepest room that holds it. A file
 * of a room may import its own room, a room of its floor (features excepted: see FEATURE_CROSSINGS)
 * or a room of a floor below; never a room above.
 */
const ROOMS: Readonly<Record<string, Floor>> = {
	// The shell: activation, the test seams beside it, the composition of the features.
	'src/extension.ts': 'shell',
	'src/extension.web.ts': 'shell',
	'src/testing.ts': 'shell',
	'src/shell/': 'shell',
	// The platforms: what differs between Node's extension host and the browser's, one room each,
	// and the seams they fill (src/platform/types.ts); the entries pick one.
	'src/platform/': 'platform',
	'src/platform/node/': 'platform',
	'src/platform/web/': 'platform',
	// The features: each resource (its list, actions and own flows), Source Control, the
	// language-model tools, the agent workspace, the flows on no single record.
	'src/resources/': 'features',
	'src/changes/': 'features',
	'src/chat/': 'features',
	'src/review/': 'features',
	'src/workspace/': 'features',
	'src/flows/': 'features',
	// The framework: lists, actions, the registry, multi-step forms, ui helpers.
	'src/views/': 'framework',
	// The services.
	'src/auth/': 'services',
	'src/runFollowing/': 'services',
	// The agent workspace's file system (the provider, its cache, walks and transfers) under the
	// workspace feature that registers it.
	'src/workspace/fs/': 'services',
	'src/webviews/': 'services',
	// What people are told about failures (the error notifications, their request ids and actions):
	// vscode and the client's errors, below every room that shows one.
	'src/messages/': 'services',
	'src/compare/': 'services',
	// The watcher over the whole account, its history and who announces (issue 45).
	'src/activity/': 'services',
	// The bottom: the server's API (no vscode) and the utilities.
	'src/api/': 'bottom',
	'src/util/': 'bottom',
	// The base: what every floor uses and the client needs too, below it (bounds, bytes, hashing and
	// ids, async helpers, the clock, times, the logger's redaction): no vscode, no client.
	'src/base/': 'base',
	// Leaf constants, importable by anyone.
	'src/ids.ts': 'constants',
	'src/manifestIds.gen.ts': 'constants',
};

/** The imports of one feature's room by another (`from → to`) kept for a later change, each with its reason. */
const FEATURE_CROSSINGS: ReadonlySet<string> = new Set<string>([
	// The language-model tools apply the resources' own record rules (the prompt's byte limit:
	// promptProblem; how an artifact opens and the service's read cap: artifactKind, exceedsReadCap).
	// Pure rules, not another feature's behaviour: their place is below the features (the read cap
	// among the bounds of src/base/limits.ts), a change of its own; handing them through the shell
	// would hide the dependency, not remove it.
	'src/chat/chatTools.ts → src/resources/agents.ts',
	'src/chat/chatTools.ts → src/resources/artifacts.ts',
]);

interface Source {
	path: string;
	text: string;
}

/** One import of a file of src/ by another: the paths, relative to the repository, with `/`. */
interface Edge {
	from: string;
	to: string;
}

/**
 * The room of a file: the deepest folder of ROOMS that holds it, else its top-level folder under
 * src/ (with a trailing slash), or the file itself at the top level.
 */
function roomOf(path: string): string {
	const nested = Object.keys(ROOMS)
		.filter((room) => room.endsWith('/') && path.startsWith(room))
		.sort((a, b) => b.length - a.length)[0];
	if (nested !== undefined) {
		return nested;
	}
	const rest = path.slice('src/'.length);
	const slash = rest.indexOf('/');
	return slash < 0 ? path : `src/${rest.slice(0, slash + 1)}`;
}

/**
 * Every module a file names (`import`, `import type`, `export … from`, `import x = require(…)`,
 * `import('…')`, `require('…')`, and `import('…')` in a type), read from its syntax tree.
 */
function specifiersOf({ path, text }: Source): string[] {
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
	const out: string[] = [];
	const literal = (node: ts.Node | undefined): void => {
		if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) {
			out.push(node.text);
		}
	};
	const visit = (node: ts.Node): void => {
		if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
			literal(node.moduleSpecifier);
		} else if (ts.isExternalModuleReference(node)) {
			literal(node.expression);
		} else if (
			ts.isCallExpression(node) &&
			(node.expression.kind === ts.SyntaxKind.ImportKeyword ||
				(ts.isIdentifier(node.expression) && node.expression.text === 'require'))
		) {
			literal(node.arguments[0]);
		} else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
			literal(node.argument.literal);
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return out;
}

/**
 * The imports among `files` (relative specifiers only: packages and Node's modules are no room),
 * and the relative specifiers that name no file of them.
 */
function importsAmong(files: readonly Source[]): { edges: Edge[]; unresolved: string[] } {
	const known = new Set(files.map((f) => f.path));
	const edges: Edge[] = [];
	const unresolved: string[] = [];
	for (const file of files) {
		for (const spec of specifiersOf(file).filter((s) => s.startsWith('.'))) {
			const base = posix.join(posix.dirname(file.path), spec);
			const to = [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')].find((p) => known.has(p));
			if (to === undefined) {
				unresolved.push(`${file.path} → ${spec}`);
			} else {
				edges.push({ from: file.path, to });
			}
		}
	}
	return { edges, unresolved };
}

/** The floor of a file, or undefined when ROOMS has not placed its room. */
function floorOf(path: string): Floor | undefined {
	return ROOMS[roomOf(path)];
}

/** Each import that goes to a floor above its file's, and each import of src/testing.ts but by the body (src/shell/main.ts). */
function upwardImports(edges: readonly Edge[]): string[] {
	const out: string[] = [];
	for (const { from, to } of edges) {
		const [a, b] = [floorOf(from), floorOf(to)];
		if (a !== undefined && b !== undefined && FLOORS.indexOf(b) < FLOORS.indexOf(a)) {
			out.push(`${from} → ${to} (floor ${a} imports floor ${b} above it)`);
		}
		if (to === 'src/testing.ts' && from !== 'src/shell/main.ts') {
			out.push(`${from} → ${to} (only src/shell/main.ts imports the test seams)`);
		}
	}
	return [...new Set(out)];
}

/** Each import of one feature's room by another, but those FEATURE_CROSSINGS keeps for later. */
function featureCrossings(edges: readonly Edge[], allowed: ReadonlySet<string> = FEATURE_CROSSINGS): string[] {
	return edges
		.filter(({ from, to }) => floorOf(from) === 'features' && floorOf(to) === 'features' && roomOf(from) !== roomOf(to))
		.map(({ from, to }) => `${from} → ${to}`)
		.filter((crossing, i, all) => !allowed.has(crossing) && all.indexOf(crossing) === i);
}

/**
 * Each cycle of rooms: for every set of rooms that import each other (a strongly connected
 * component of the room graph), one shortest cycle through it, then every arrow between two of its
 * rooms with an import that draws it.
 */
function roomCycles(edges: readonly Edge[]): string[] {
	const graph = new Map<string, Map<string, Edge>>();
	for (const edge of edges) {
		const [a, b] = [roomOf(edge.from), roomOf(edge.to)];
		if (a !== b) {
			const out = graph.get(a) ?? new Map<string, Edge>();
			if (!out.has(b)) {
				out.set(b, edge);
			}
			graph.set(a, out);
		}
	}
	const next = (room: string): string[] => [...(graph.get(room)?.keys() ?? [])].sort();
	/** The rooms reachable from `room` (itself included). */
	const reach = (room: string): Set<string> => {
		const seen = new Set([room]);
		const queue = [room];
		for (let r = queue.shift(); r !== undefined; r = queue.shift()) {
			for (const n of next(r).filter((n) => !seen.has(n))) {
				seen.add(n);
				queue.push(n);
			}
		}
		return seen;
	};
	const rooms = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((m) => [...m.keys()])])].sort();
	const reached = new Map(rooms.map((r) => [r, reach(r)]));
	const done = new Set<string>();
	const out: string[] = [];
	for (const room of rooms) {
		if (done.has(room)) {
			continue;
		}
		const component = rooms.filter((r) => reached.get(room)!.has(r) && reached.get(r)!.has(room));
		component.forEach((r) => done.add(r));
		if (component.length < 2) {
			continue;
		}
		// The shortest way back to `room` (breadth first), as the list of rooms on it.
		const back = new Map<string, string>();
		const queue = [room];
		for (let r = queue.shift(); r !== undefined && !back.has(room); r = queue.shift()) {
			for (const n of next(r).filter((n) => !back.has(n))) {
				back.set(n, r);
				queue.push(n);
			}
		}
		const path = [room];
		for (let r = back.get(room)!; r !== room; r = back.get(r)!) {
			path.unshift(r);
		}
		path.unshift(room);
		// Every arrow between two rooms of the component, each with one import that draws it.
		const arrows = component.flatMap((from) =>
			next(from)
				.filter((to) => component.includes(to))
				.map((to) => {
					const edge = graph.get(from)!.get(to)!;
					return `${from} → ${to} (${edge.from} → ${edge.to})`;
				}),
		);
		out.push(`cycle of ${component.length} rooms {${component.join(', ')}}: ${path.join(' → ')}\n    ${arrows.join('\n    ')}`);
	}
	return out;
}

const imports = importsAmong(sources);

/**
 * The modules of src/api that code outside it may import directly rather than through its door,
 * src/api/index.ts (the rule its comment states): the leaves that hold no client, to any file; each
 * platform's half of the wire, to its platform's file only.
 */
const API_LEAVES: Readonly<Record<string, (importer: string) => boolean>> = {
	'src/api/types.ts': () => true,
	'src/api/validation.ts': () => true,
	'src/api/decode.ts': () => true,
	'src/api/pagination.ts': () => true,
	// What a platform's half of the wire is made of (src/api/wire.ts and the errors it raises), to
	// those halves only: they are the client's, kept in their platform's room.
	...Object.fromEntries(
		['src/api/wire.ts', 'src/api/errors.ts', 'src/api/netErrors.ts', 'src/api/loopback.ts'].map((m) => [
			m,
			(importer: string) => WIRE_HALVES.includes(importer),
		]),
	),
};

/** Each import of a module of src/api from outside it past its door (index.ts) that API_LEAVES does not allow. */
function pastTheDoor(edges: readonly Edge[]): string[] {
	return edges
		.filter(({ from, to }) => !from.startsWith('src/api/') && to.startsWith('src/api/') && to !== 'src/api/index.ts')
		.filter(({ from, to }) => !(API_LEAVES[to]?.(from) ?? false))
		.map(({ from, to }) => `${from} → ${to}`);
}

const NODE_ROOM = 'src/platform/node/';
const WEB_ROOM = 'src/platform/web/';

/** The files reached from `entries` through `edges`, not following an import into `leftOut`. */
function reached(entries: readonly string[], edges: readonly Edge[], leftOut: string): Set<string> {
	const seen = new Set(entries);
	const todo = [...entries];
	for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
		for (const { to } of edges.filter((e) => e.from === file && !e.to.startsWith(leftOut) && !seen.has(e.to))) {
			seen.add(to);
			todo.push(to);
		}
	}
	return seen;
}

/** Whether a module name is one of Node's (with or without `node:`) or a package only Node has. */
function nodeOnlyModule(name: string): boolean {
	return name.startsWith('node:') || builtinModules.includes(name.split('/')[0] ?? '') || /^undici(\/|$)/.test(name);
}

/**
 * What is out of its platform's room (issue 43): a file that imports a Node built-in or undici outside
 * src/platform/node/; a file only Node's entry reaches (src/extension.ts: the features' entry and the
 * comparison's worker are reached from it) outside src/platform/node/; a file only the browser's entry
 * reaches (src/extension.web.ts, which the web build cuts off at src/platform/node/) outside
 * src/platform/web/; and an import of a platform's room from anywhere but that room, its entry and
 * the body's start (src/shell/main.ts `startNode`, src/shell/webMain.ts `startWeb`; Node's also the features' entry,
 * src/shell/featureEntry.ts, which holds Node's local folders for dist/features.js).
 */
function outOfPlatformRooms(files: readonly Source[], edges: readonly Edge[]): string[] {
	const out: string[] = [];
	for (const file of files.filter((f) => !f.path.startsWith(NODE_ROOM))) {
		for (const name of specifiersOf(file).filter(nodeOnlyModule)) {
			out.push(`${file.path} imports ${name}: Node's code goes in ${NODE_ROOM}`);
		}
	}
	const node = reached(['src/extension.ts'], edges, WEB_ROOM);
	const web = reached(['src/extension.web.ts'], edges, NODE_ROOM);
	// The entries, and the browser's start of the body (Node's is src/shell/main.ts, which both reach).
	const entries = new Set(['src/extension.ts', 'src/extension.web.ts', 'src/shell/webMain.ts']);
	for (const path of [...node].filter((p) => !web.has(p) && !p.startsWith(NODE_ROOM) && !entries.has(p))) {
		out.push(`${path} serves Node's extension host only: it goes in ${NODE_ROOM}`);
	}
	for (const path of [...web].filter((p) => !node.has(p) && !p.startsWith(WEB_ROOM) && !entries.has(p))) {
		out.push(`${path} serves the browser's extension host only: it goes in ${WEB_ROOM}`);
	}
	const doors: Record<string, readonly string[]> = {
		[NODE_ROOM]: ['src/extension.ts', 'src/shell/main.ts', 'src/shell/featureEntry.ts'],
		[WEB_ROOM]: ['src/extension.web.ts', 'src/shell/webMain.ts'],
	};
	for (const { from, to } of edges) {
		for (const [room, allowed] of Object.entries(doors)) {
			if (to.startsWith(room) && !from.startsWith(room) && !allowed.includes(from)) {
				out.push(`${from} → ${to}: only ${room} and ${allowed.join(', ')} import a platform's room`);
			}
		}
	}
	return out;
}

suite('layers: the rules the README states, read from src/', () => {
	test('the source is there to read', () => {
		assert.ok(sources.length > 50, `${sources.length} files`);
		assert.ok(sources.some((s) => s.path === 'src/views/targets.ts'));
	});

	test('only the framework resolves command targets', () => {
		assert.deepEqual(
			occurrences(/resolveTarget\(/, (p) => !p.startsWith('src/views/')),
			[],
		);
	});

	test('no internal call goes through one of our command ids', () => {
		assert.deepEqual(
			occurrences(/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./, () => true),
			[],
		);
	});

	test('no cast of a server record outside src/api', () => {
		// The webview protocols validate messages from our own pages (never server records).
		const allowed = new Set(['src/webviews/messages.ts', 'src/webviews/computer/protocol.ts', 'src/webviews/savings/protocol.ts']);
		assert.deepEqual(
			occurrences(/as Record<string, unknown>/, (p) => !p.startsWith('src/api/') && !allowed.has(p)),
			[],
		);
	});

	test("the test harness's commands are registered in src/testing.ts only", () => {
		assert.deepEqual(
			occurrences(/registerCommand\(\s*['"`]_cloudAgents\./, (p) => p !== 'src/testing.ts'),
			[],
		);
		assert.ok(occurrences(/registerCommand\(\s*['"`]_cloudAgents\./, (p) => p === 'src/testing.ts').length > 0);
	});

	test('the framework imports no resource', () => {
		assert.deepEqual(
			occurrences(/from '\.\.\/resources/, (p) => p.startsWith('src/views/')),
			[],
		);
	});

	test('the map names only rooms that exist, and every folder of src/ is a room of it (issue 43: the map had drifted)', () => {
		for (const room of Object.keys(ROOMS)) {
			assert.ok(
				sources.some((s) => (room.endsWith('/') ? s.path.startsWith(room) : s.path === room)),
				`${room}: no such file or folder in src/`,
			);
		}
		const folders = new Set(sources.map((s) => `${posix.dirname(s.path)}/`).filter((d) => d !== 'src/'));
		for (const folder of folders) {
			assert.ok(
				Object.keys(ROOMS).some((room) => room.endsWith('/') && folder.startsWith(room)),
				`${folder} is in no room of the map`,
			);
		}
	});

	test("README's picture of the floors names only paths of src/ that exist", () => {
		const readme = readFileSync(join(root, 'README.md'), 'utf8');
		const named = new Set([...readme.matchAll(/\bsrc\/[\w./-]*[\w/]/g)].map((m) => m[0]));
		assert.ok(named.size > 20, `${named.size} paths`);
		const missing = [...named].filter((path) => {
			try {
				statSync(join(root, path));
				return false;
			} catch {
				return true;
			}
		});
		assert.deepEqual(missing, []);
	});

	test('every relative import names a file of src/', () => {
		assert.ok(imports.edges.length > 500, `${imports.edges.length} imports`);
		assert.deepEqual(imports.unresolved, []);
	});

	test('outside src/api the client is imported through its door (src/api/index.ts), but for the leaves and platform halves API_LEAVES names (issue 43)', () => {
		assert.deepEqual(pastTheDoor(imports.edges), []);
		for (const leaf of Object.keys(API_LEAVES)) {
			assert.ok(
				sources.some((s) => s.path === leaf),
				`API_LEAVES names ${leaf}, which src/ does not have`,
			);
		}
		// The check sees what it looks for: a deep import of the client, a platform half from elsewhere.
		assert.deepEqual(
			pastTheDoor([
				{ from: 'src/views/a.ts', to: 'src/api/client.ts' },
				{ from: 'src/views/a.ts', to: 'src/api/netErrors.ts' },
				{ from: 'src/platform/node/network.ts', to: 'src/api/netErrors.ts' },
				{ from: 'src/views/a.ts', to: 'src/api/pagination.ts' },
				{ from: 'src/views/a.ts', to: 'src/api/index.ts' },
				{ from: 'src/api/client.ts', to: 'src/api/http.ts' },
			]),
			['src/views/a.ts → src/api/client.ts', 'src/views/a.ts → src/api/netErrors.ts'],
		);
	});

	test("every Node-only and web-only file sits in its platform's room, and only the entries import a room (issue 43)", () => {
		assert.deepEqual(outOfPlatformRooms(sources, imports.edges), []);
		assert.ok(sources.filter((s) => s.path.startsWith(NODE_ROOM)).length >= 5 && sources.some((s) => s.path.startsWith(WEB_ROOM)));
		// The check sees what it looks for: a Node built-in elsewhere, a file only one entry reaches
		// out of its room, a shared file importing a platform's half.
		const files: Source[] = [
			{ path: 'src/extension.ts', text: "import './shell/a';\nimport './platform/node/n';\nimport './util/onlyNode';" },
			{ path: 'src/extension.web.ts', text: "import './shell/a';\nimport './platform/web/w';\nimport './util/onlyWeb';" },
			{ path: 'src/shell/a.ts', text: "import { readFile } from 'node:fs';\nimport '../platform/web/w';" },
			{ path: 'src/platform/node/n.ts', text: "import 'undici';" },
			{ path: 'src/platform/web/w.ts', text: '' },
			{ path: 'src/util/onlyNode.ts', text: "import * as os from 'os';" },
			{ path: 'src/util/onlyWeb.ts', text: '' },
		];
		assert.deepEqual(outOfPlatformRooms(files, importsAmong(files).edges), [
			"src/shell/a.ts imports node:fs: Node's code goes in src/platform/node/",
			"src/util/onlyNode.ts imports os: Node's code goes in src/platform/node/",
			"src/util/onlyNode.ts serves Node's extension host only: it goes in src/platform/node/",
			"src/util/onlyWeb.ts serves the browser's extension host only: it goes in src/platform/web/",
			"src/shell/a.ts → src/platform/web/w.ts: only src/platform/web/ and src/extension.web.ts, src/shell/webMain.ts import a platform's room",
		]);
	});

	test('one door registers our commands (issue 43): a record’s actions through the action registry, a command on no record through registerFlows', () => {
		// registerCommand (the one rule for a command's errors) is called by those two doors only;
		// VS Code's own registerCommand by registerCommand itself, activation's stand-ins
		// (src/shell/standIns.ts), the stand-ins of the commands loaded on first use (src/shell/lazy.ts)
		// and the test seams (src/testing.ts).
		assert.deepEqual(
			occurrences(/(?<![.\w])registerCommand\(/, (p) => p.startsWith('src/')).filter(
				(at) => !/^src\/views\/(registry|actionRegistry)\.ts:/.test(at),
			),
			[],
			'a command registered past its door: a FlowCommand for registerFlows (src/shell/features.ts, or src/shell/main.ts when the body starts), or a ResourceAction',
		);
		assert.deepEqual(
			occurrences(/commands\.registerCommand\(/, (p) => p.startsWith('src/')).filter(
				(at) => !/^src\/(views\/registry|shell\/lazy|shell\/standIns|testing)\.ts:/.test(at),
			),
			[],
		);
	});

	test('src/util/ imports nothing from the client (issue 43): the helpers every floor uses sit beside it, not on it', () => {
		const found = imports.edges
			.filter(({ from, to }) => from.startsWith('src/util/') && to.startsWith('src/api/'))
			.map(({ from, to }) => `${from} → ${to}`);
		assert.deepEqual(
			found,
			[],
			'src/util/ takes an import from the client: the base (src/base/) or a room above the client is the place',
		);
	});

	test('every room of src/ is on a floor (ROOMS)', () => {
		assert.deepEqual([...new Set(sources.map((s) => roomOf(s.path)).filter((r) => ROOMS[r] === undefined))], []);
	});

	test('no file imports a floor above its own (and only src/shell/main.ts imports src/testing.ts)', () => {
		const upward = upwardImports(imports.edges);
		assert.equal(upward.length, 0, `${upward.length} upward imports:\n  ${upward.join('\n  ')}`);
	});

	test('no cycle of rooms', () => {
		const cycles = roomCycles(imports.edges);
		assert.equal(cycles.length, 0, `${cycles.length} cycles:\n  ${cycles.join('\n  ')}`);
	});

	test("a feature imports no other feature's room (the shell hands it what it needs)", () => {
		const crossings = featureCrossings(imports.edges);
		assert.equal(crossings.length, 0, `${crossings.length} imports between features:\n  ${crossings.join('\n  ')}`);
		const all = new Set(featureCrossings(imports.edges, new Set()));
		assert.deepEqual(
			[...FEATURE_CROSSINGS].filter((c) => !all.has(c)),
			[],
			'FEATURE_CROSSINGS lists an import that is gone',
		);
	});

	test('the floor checks fail on an upward import, a cycle of rooms and a crossing of features', () => {
		const synthetic = importsAmong([
			{
				path: 'src/util/low.ts',
				text: [
					"import type { A } from '../views/a';",
					"export { B } from '../auth/b';",
					"const c = () => import('../compare/c');",
					"const d = require('../runFollowing/d') as typeof import('../workspace/fs/e');",
					"import {\n\tF,\n} from '../api';",
				].join('\n'),
			},
			{ path: 'src/views/a.ts', text: "import { run } from '../resources/runs';" },
			{ path: 'src/auth/b.ts', text: "import { C } from '../compare/c';" },
			{ path: 'src/compare/c.ts', text: "import { D } from '../runFollowing/d';" },
			{ path: 'src/runFollowing/d.ts', text: "import { B } from '../auth/b';\nimport { T } from '../testing';" },
			{ path: 'src/workspace/fs/e.ts', text: "import { g } from './missing';\nimport { h } from '../h';" },
			{ path: 'src/workspace/h.ts', text: "import { E } from './fs/e';" },
			{ path: 'src/api/index.ts', text: "import * as vscode from 'vscode';\nimport { x } from 'node:fs';" },
			{ path: 'src/resources/runs.ts', text: "import { agent } from '../chat/tools';" },
			{ path: 'src/chat/tools.ts', text: '' },
			{ path: 'src/testing.ts', text: '' },
		]);
		assert.deepEqual(synthetic.unresolved, ['src/workspace/fs/e.ts → ./missing']);
		assert.deepEqual(
			synthetic.edges.filter((e) => e.from === 'src/util/low.ts').map((e) => e.to),
			['src/views/a.ts', 'src/auth/b.ts', 'src/compare/c.ts', 'src/runFollowing/d.ts', 'src/workspace/fs/e.ts', 'src/api/index.ts'],
		);
		assert.deepEqual(upwardImports(synthetic.edges), [
			'src/util/low.ts → src/views/a.ts (floor bottom imports floor framework above it)',
			'src/util/low.ts → src/auth/b.ts (floor bottom imports floor services above it)',
			'src/util/low.ts → src/compare/c.ts (floor bottom imports floor services above it)',
			'src/util/low.ts → src/runFollowing/d.ts (floor bottom imports floor services above it)',
			'src/util/low.ts → src/workspace/fs/e.ts (floor bottom imports floor services above it)',
			'src/views/a.ts → src/resources/runs.ts (floor framework imports floor features above it)',
			'src/runFollowing/d.ts → src/testing.ts (floor services imports floor shell above it)',
			'src/runFollowing/d.ts → src/testing.ts (only src/shell/main.ts imports the test seams)',
			'src/workspace/fs/e.ts → src/workspace/h.ts (floor services imports floor features above it)',
		]);
		assert.deepEqual(roomCycles(synthetic.edges), [
			'cycle of 3 rooms {src/auth/, src/compare/, src/runFollowing/}: src/auth/ → src/compare/ → src/runFollowing/ → src/auth/\n' +
				'    src/auth/ → src/compare/ (src/auth/b.ts → src/compare/c.ts)\n' +
				'    src/compare/ → src/runFollowing/ (src/compare/c.ts → src/runFollowing/d.ts)\n' +
				'    src/runFollowing/ → src/auth/ (src/runFollowing/d.ts → src/auth/b.ts)',
			'cycle of 2 rooms {src/workspace/, src/workspace/fs/}: src/workspace/ → src/workspace/fs/ → src/workspace/\n' +
				'    src/workspace/ → src/workspace/fs/ (src/workspace/h.ts → src/workspace/fs/e.ts)\n' +
				'    src/workspace/fs/ → src/workspace/ (src/workspace/fs/e.ts → src/workspace/h.ts)',
		]);
		assert.deepEqual(featureCrossings(synthetic.edges), ['src/resources/runs.ts → src/chat/tools.ts']);
	});

	test('the checks see what they look for', () => {
		assert.ok(
			/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./.test(
				"vscode.commands.executeCommand<string>('_cloudAgents.views.rows')",
			),
		);
		assert.ok(/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./.test("executeCommand('cloudAgents.signIn')"));
		assert.ok(!/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./.test("executeCommand('setContext', 'cloudAgents.loaded', true)"));
	});
});
