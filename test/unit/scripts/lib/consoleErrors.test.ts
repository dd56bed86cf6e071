import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The classifier of the integration run's console-error check (scripts/lib/consoleErrors.mjs),
// fed with messages and log lines as code-server 4.139 writes them (taken from real runs).

type Source = 'console' | 'pageerror' | 'exthost' | 'ourlog';
interface Entry {
	source: Source;
	text: string;
	url?: string;
	shutdown?: string;
}
interface Expected {
	re: RegExp;
	why: string;
	seen?: number;
}
interface Phase {
	name?: string;
	strict: boolean;
	unload?: boolean;
	expected?: Expected[];
}
interface Verdict {
	verdict: string;
	why: string;
	fails: boolean;
}
interface Judged extends Verdict {
	phase: string;
	source: Source;
	text: string;
}
interface Check {
	phases: { name: string; start: number }[];
	entries: { time: number; source: string }[];
	attach(page: unknown): void;
	phase(name: string, options: { strict: boolean; unload?: boolean }): (re: RegExp, why: string) => void;
	judge(): { judged: Judged[]; failures: string[] };
}
interface Result {
	state: string;
	notes: string[];
	error?: { message: string };
}
interface ConsoleErrorsModule {
	classify(entry: Entry, phase: Phase): Verdict;
	PENDING: { re: RegExp; phase?: RegExp; cause: string }[];
	ourMarker(text: string, url?: string): string | undefined;
	parseLogEntries(content: string): { time: number; level: string; text: string }[];
	ConsoleErrorCheck: new (options: { userDataDir: string }) => Check;
	consoleCheckResult(check: Check, logFile: string): Result;
}

// Compiled to out/test/unit/scripts/lib/, so the repository root is five levels up.
const MODULE = join(__dirname, '..', '..', '..', '..', '..', 'scripts', 'lib', 'consoleErrors.mjs');
let m: ConsoleErrorsModule;

const INSTALL = '/tmp/run/extensions/cloud-agents.cloud-agents-vscode-0.1.0/dist/extension.js';
const RUNNER = '/tmp/run/extensions/cloud-agents-test.cloud-agents-test-runner-0.0.1/dist/suites.js';
const HOST = 'file:///root/.cache/code-server/lib/vscode/out/vs/workbench/api/node/extensionHostProcess.js';

/** A failed command as the extension host logs it (called from the palette, or from a test). */
function commandFailure(caller: 'palette' | 'test'): string {
	return (
		[
			'Error: "src/no-such-file.ts" is not a file in the workspace of agent a1.main (13 files listed).',
			`\tat sE.openWalkedFile (${INSTALL}:142:4272)`,
			`\tat async bf._executeContributedCommand (${HOST}:164:48874)`,
			...(caller === 'test' ? [`\tat async Context2.<anonymous> (${RUNNER}:1274:9)`] : []),
		].join('\n') +
		' cloudAgents.workspace.goToFile {"value":"cloud-agents.cloud-agents-vscode","_lower":"cloud-agents.cloud-agents-vscode"}'
	);
}

const UI: Phase = { strict: true };
const IN_HOST: Phase = { strict: false };

/** Local time as VS Code's log files write it: `2026-11-23 13:13:36.150`. */
function logTime(ms: number): string {
	const d = new Date(ms);
	const p = (n: number, w = 2): string => String(n).padStart(w, '0');
	return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

suite('harness: console-error check (scripts/lib/consoleErrors.mjs)', () => {
	suiteSetup(async () => {
		m = (await import(pathToFileURL(MODULE).href)) as ConsoleErrorsModule;
	});

	suite('what counts as ours', () => {
		const ours: [string, string][] = [
			['extension runtime error (renderer)', "[cloud-agents.cloud-agents-vscode]Cannot read properties of undefined (reading 'id')"],
			[
				'console.error from our bundle',
				`%c[Extension Host] %cTypeError: x is not a function\n\tat t.refresh (${INSTALL}:12:34) color: blue color: `,
			],
			['command id', "command 'cloudAgents.runs.follow' not found"],
			['view id', 'No view is registered with id: cloudAgents.artifacts'],
			['view container', 'Cannot open workbench.view.extension.cloudAgents'],
			['workspace URI', 'Unable to resolve resource cloud-agent://a1.main/src/x.ts'],
			['record URI', "Unable to open 'cloud-agents-record:/run/r1.md'"],
			['model provider document URI', "Unable to write file 'cloud-agents-provider:/OpenAI.json?mp_openai'"],
		];
		for (const [what, text] of ours) {
			test(`${what} is ours and fails in the UI tests and in the in-host suites`, () => {
				assert.ok(m.ourMarker(text), text);
				assert.deepEqual(
					[m.classify({ source: 'console', text }, UI).verdict, m.classify({ source: 'console', text }, UI).fails],
					['ours', true],
				);
				assert.equal(m.classify({ source: 'console', text }, IN_HOST).fails, true);
			});
		}

		test('the test runner extension and its display name are not ours', () => {
			assert.equal(m.ourMarker(`Error: boom\n\tat x (${RUNNER}:1:1) cloud-agents-test.cloud-agents-test-runner`), undefined);
			assert.equal(m.ourMarker('[Cloud Agents integration test runner] wrote the report'), undefined);
		});

		test('an unhandled error in our code logged by the extension host fails in every phase', () => {
			const text = `Error: boom\n\tat Timeout._onTimeout (${INSTALL}:9:9)`;
			assert.equal(m.classify({ source: 'exthost', text }, IN_HOST).verdict, 'ours');
			assert.equal(m.classify({ source: 'exthost', text }, IN_HOST).fails, true);
			assert.equal(m.classify({ source: 'exthost', text }, UI).fails, true);
		});

		test('a command failure is ours from the palette, a reported failure when an in-host test called it', () => {
			assert.deepEqual(m.classify({ source: 'exthost', text: commandFailure('palette') }, UI).verdict, 'ours');
			assert.deepEqual(m.classify({ source: 'exthost', text: commandFailure('palette') }, IN_HOST).verdict, 'ours');
			const byTest = m.classify({ source: 'exthost', text: commandFailure('test') }, IN_HOST);
			assert.equal(byTest.verdict, 'reported');
			assert.equal(byTest.fails, false);
			assert.equal(
				m.classify({ source: 'exthost', text: commandFailure('test') }, UI).fails,
				true,
				'the UI tests have no such exemption',
			);
		});

		test("our log channel's error lines fail in the UI tests; in the in-host suites they report provoked faults", () => {
			const text = 'cloudAgents.agents.openWorkspace failed: injected fault: 400 for GET /v2/agents';
			assert.equal(m.classify({ source: 'ourlog', text: 'anything at all' }, UI).fails, true);
			assert.equal(m.classify({ source: 'ourlog', text }, IN_HOST).verdict, 'reported');
		});

		test('a refused save of a cloud-agent: file is reported in the in-host suites, an error in the UI tests', () => {
			const text =
				"%c  ERR color: #f33 [text file model] handleSaveError(1) - exit - resulted in a save error: Error: Unable to write file 'cloud-agent://a1.main/x/shared.md' (Error: File Modified Since) cloud-agent://a1.main/x/shared.md";
			assert.equal(m.classify({ source: 'console', text }, IN_HOST).verdict, 'reported');
			assert.equal(m.classify({ source: 'console', text }, UI).fails, true);
			const shown =
				"Failed to save 'flaky.md': Unable to write file 'cloud-agent://a1.main/x/flaky.md' (Unavailable (FileSystemError): injected fault: 503 for PUT /v2/agents/{agent_id}/workspace/files)";
			assert.equal(m.classify({ source: 'console', text: shown }, IN_HOST).verdict, 'reported');
			assert.equal(m.classify({ source: 'console', text: shown }, UI).fails, true);
		});

		test('an error notification (no source in the console) fails in the UI tests only', () => {
			const text = 'The API key was not accepted. (request 01a20889-9b5b-711a-a920-1aeefad9ff01)';
			assert.deepEqual(m.classify({ source: 'console', text }, UI), {
				verdict: 'unattributed',
				why: m.classify({ source: 'console', text }, UI).why,
				fails: true,
			});
			assert.equal(m.classify({ source: 'console', text }, IN_HOST).fails, false);
			assert.equal(
				m.classify({ source: 'pageerror', text: 'TypeError: e is undefined' }, UI).fails,
				true,
				'an uncaught page error naming no one',
			);
		});

		test('an error the workbench logs (an unhandled rejection naming no one) fails in the in-host suites too', () => {
			// Seen when a picker's items promise rejected: the workbench got our ApiError without its message.
			const text = '%c  ERR color: #f33 An unknown error occurred. Please consult the log for more details.';
			assert.equal(m.classify({ source: 'console', text }, IN_HOST).fails, true);
			assert.equal(m.classify({ source: 'pageerror', text: 'TypeError: e is undefined' }, IN_HOST).fails, true);
			const githubNoise = "%c  ERR color: #f33 Error: Timed out waiting for authentication provider 'github' to register.";
			assert.equal(m.classify({ source: 'console', text: githubNoise }, IN_HOST).verdict, 'noise');
		});
	});

	/** The URL of VS Code's webview host page (pre/index.html) hosting a webview of `extensionId` ('' for the workbench's own), as code-server 4.139 serves it. */
	const webviewHostPage = (extensionId: string): string =>
		`http://127.0.0.1:45563/stable-53c2f3253bcf32886706fc023e794bbeb253c90f/static/out/vs/workbench/contrib/webview/browser/pre/index.html?id=be0b42b1-3169-4a74-a990-c9b65f678615&parentId=1&origin=4f859d5d-0108-4d13-bec9-0511b3549003&swVersion=6&extensionId=${extensionId}&platform=browser&vscode-resource-base-authority=vscode-resource.vscode-cdn.net&parentOrigin=http%3A%2F%2F127.0.0.1%3A45563`;
	/** The page error of the webview host's focus poll (trackFocus) for a frame without a body. */
	const webviewFocusPoll = (extensionId: string): string =>
		"Cannot read properties of null (reading 'classList')\nTypeError: Cannot read properties of null (reading 'classList')\n" +
		`    at ${webviewHostPage(extensionId)}:66:108`;

	suite('what is not ours', () => {
		const noise: [string, Entry][] = [
			[
				'GitHub authentication time-out',
				{
					source: 'console',
					text: "%c  ERR color: #f33 Error: Timed out waiting for authentication provider 'github' to register.",
				},
			],
			[
				'a vscode.* extension not shipped',
				{ source: 'console', text: "Activating extension 'vscode.github-authentication' failed: Not Found." },
			],
			[
				'open-vsx look-up',
				{
					source: 'console',
					text: '%c  ERR color: #f33 Failed: getaddrinfo ENOTFOUND open-vsx.org\n    at egt.queryRawGalleryExtensions (http://127.0.0.1:1/workbench.js:1:1)',
				},
			],
			[
				'open-vsx resource',
				{
					source: 'console',
					text: 'Failed to load resource: net::ERR_NAME_NOT_RESOLVED',
					url: 'https://open-vsx.org/vscode/gallery/extensionquery',
				},
			],
			[
				'a save participant time-out naming no listener',
				{
					source: 'console',
					text: '%c  ERR color: #f33 Error: Aborted onWillSaveTextDocument-event after 1750ms\n    at http://127.0.0.1:1/workbench.js:770:46762',
				},
			],
			[
				"the workbench's flush of a run channel's log while the page unloads (IndexedDB closed)",
				{
					source: 'console',
					text: "%c  ERR color: #f33 oa: Unable to write file 'vscode-log:/20261206T003824/exthost/webWorker/output_logging_20261206T003828/1-Cloud Agents Docs writer Across reloads 1 [[ticks60….log' (Error: IndexedDB database 'vscode-web-db' is closed.)",
				},
			],
			[
				"the workbench's flush of a run channel's log while the page unloads (its transaction aborted)",
				{
					source: 'console',
					text: "%c  ERR color: #f33 oa: Unable to write file 'vscode-log:/20261206T011211/exthost/webWorker/output_logging_20261206T011213/1-Cloud Agents Docs writer Across reloads 1 [[ticks60….log' (CodeExpectedError: unknown error)",
				},
			],
			[
				"the webview host's focus poll of the Markdown preview's frame before it has a body",
				{ source: 'pageerror', text: webviewFocusPoll('vscode.markdown-language-features') },
			],
			[
				"the webview host's load handler finding the frame of the workbench's own webview (a walkthrough step) gone",
				{
					source: 'pageerror',
					text: `Found unexpected null\nError: Found unexpected null\n    at assertIsDefined (${webviewHostPage('')}:87:12)\n    at hookupOnLoadHandlers (${webviewHostPage('')}:1012:40)`,
				},
			],
			[
				'vsda 404',
				{
					source: 'console',
					text: 'Failed to load resource: the server responded with a status of 404 (Not Found)',
					url: 'http://127.0.0.1:1/stable-1/static/node_modules/vsda/rust/web/vsda_bg.wasm',
				},
			],
		];
		for (const [what, entry] of noise) {
			test(`${what} is workbench noise, also in the UI tests`, () => {
				assert.deepEqual([m.classify(entry, UI).verdict, m.classify(entry, UI).fails], ['noise', false]);
			});
		}

		test('page unload: the workbench cancelling reads of our folder is noise only while a test leaves the page', () => {
			const AUTH = 'cloud-agent://agent-hezdeyjqmqytkljvge3wiljugm3diljzmu2tgljzmi3tmmdcgrrdezryhexgi33dom';
			const UNLOAD: Phase = { strict: true, unload: true };
			const cancelled: Entry[] = [
				{
					source: 'console',
					text: `%c  ERR color: #f33 oa: Unable to read file '${AUTH}/.vscode/settings.json' (Canceled: Canceled)\n    at ume.restoreReadError (http://127.0.0.1:1/workbench.js:1:1)`,
				},
				{
					source: 'console',
					text: `%c  ERR color: #f33 Failed to resolve files at location: ${AUTH}/.claude/agents Canceled: Canceled\n    at Rw (http://127.0.0.1:1/workbench.js:8:1620)`,
				},
				{
					source: 'console',
					text: `%c  ERR color: #f33 Failed to resolve files at location: ${AUTH}/.claude/agents CodeExpectedError: ENOPRO: No file system provider found for resource '${AUTH}/.claude/agents'\n    at ume.withProvider (http://127.0.0.1:1/workbench.js:1:1)`,
				},
				{ source: 'console', text: '%c  ERR color: #f33 Canceled: Canceled\n    at Rw (http://127.0.0.1:1/workbench.js:8:1620)' },
				{
					source: 'console',
					text: '%c  ERR color: #f33 CodeExpectedError\n    at ume.withProvider (http://127.0.0.1:1/workbench.js:5225:122553)',
				},
				{
					// The page a test lands on reads the folder's settings before extensions are registered (CI run of 39386d8).
					source: 'console',
					text: `%c  ERR color: #f33 CodeExpectedError: ENOPRO: No file system provider found for resource '${AUTH}/.vscode/settings.json'\n    at ume.withProvider (http://127.0.0.1:1/workbench.js:5225:122553)\n    at async ume.withReadProvider (http://127.0.0.1:1/workbench.js:5225:122645)`,
				},
				{
					source: 'console',
					text: '%c  ERR color: #f33 Error: Throttler is disposed\n    at Tp.queue (http://127.0.0.1:1/workbench.js:31:73445)',
				},
				{
					source: 'console',
					text: '%c  ERR color: #f33 Error: Unable to resolve resource output:tasks\n    at Fmt.doCreateReferencedObject (http://127.0.0.1:1/workbench.js:1598:28745)',
				},
				{
					source: 'console',
					text: "%c  ERR color: #f33 oa: Unable to write file 'vscode-remote:/x/User/caches/CachedConfigurations/folder/-1/configuration.json' (Canceled: Canceled)\n    at ume.writeFile (http://127.0.0.1:1/workbench.js:1:1)",
				},
			];
			for (const entry of cancelled) {
				assert.deepEqual([m.classify(entry, UNLOAD).verdict, m.classify(entry, UNLOAD).fails], ['noise', false], entry.text);
				assert.equal(m.classify(entry, UI).fails, true, `outside an unload it fails: ${entry.text}`);
			}
			// What the workbench logs while tearing the page down, naming no extension, is noise there only.
			const teardown: Entry = {
				source: 'console',
				text: "%c  ERR color: #f33 InvalidStateError: Failed to execute 'abort' on 'IDBTransaction': The transaction has finished.\n    at s.close (http://127.0.0.1:1/workbench.js:1:1)",
			};
			assert.deepEqual([m.classify(teardown, UNLOAD).verdict, m.classify(teardown, UNLOAD).fails], ['noise', false]);
			assert.equal(m.classify(teardown, UI).fails, true);
			// Anything else of ours still fails while the page unloads.
			const notCancel: Entry = {
				source: 'console',
				text: `%c  ERR color: #f33 oa: Unable to read file '${AUTH}/.vscode/settings.json' (Error: EACCES)`,
			};
			assert.equal(m.classify(notCancel, UNLOAD).fails, true);
			assert.equal(m.classify({ source: 'exthost', text: `Error: Canceled: Canceled\n\tat x (${INSTALL}:1:1)` }, UNLOAD).fails, true);
		});

		test('a tree refresh cancelled by an extension host that is terminating is noise in any phase; from a running host it fails, also while a page unloads', () => {
			const UNLOAD: Phase = { strict: true, unload: true };
			const text = 'Unable to refresh tree view cloudAgents.account: Canceled';
			const shutdown = 'exthost3: received terminate message from renderer';
			for (const phase of [UI, UNLOAD, IN_HOST]) {
				const v = m.classify({ source: 'exthost', text, shutdown }, phase);
				assert.deepEqual([v.verdict, v.fails], ['noise', false]);
				assert.match(v.why, /exthost3: received terminate message from renderer/);
			}
			// Only a terminating host cancels its calls to the workbench: from a running one it is unexplained.
			assert.deepEqual(
				[m.classify({ source: 'exthost', text }, UNLOAD).verdict, m.classify({ source: 'exthost', text }, UNLOAD).fails],
				['ours', true],
			);
			assert.equal(m.classify({ source: 'exthost', text }, UI).fails, true);
			// Another reason, or a stack of ours after it, still fails from a terminating host.
			assert.equal(
				m.classify({ source: 'exthost', text: 'Unable to refresh tree view cloudAgents.account: Error: boom', shutdown }, UI).fails,
				true,
			);
			assert.equal(m.classify({ source: 'exthost', text: `${text}\n\tat x (${INSTALL}:1:1)`, shutdown }, UI).fails, true);
		});

		test('the noise list needs the right source URL: a 404 of another resource still fails', () => {
			const entry: Entry = {
				source: 'console',
				text: 'Failed to load resource: the server responded with a status of 404 (Not Found)',
				url: 'http://127.0.0.1:1/v2/agents',
			};
			assert.equal(m.classify(entry, UI).fails, true);
		});

		test("the webview host's focus poll failing in a webview of ours is ours", () => {
			const verdict = m.classify({ source: 'pageerror', text: webviewFocusPoll('cloud-agents.cloud-agents-vscode') }, UI);
			assert.deepEqual([verdict.verdict, verdict.fails], ['ours', true]);
		});

		test("the same TypeError from anywhere but the webview host's page fails the UI tests", () => {
			const text =
				"Cannot read properties of null (reading 'classList')\nTypeError: Cannot read properties of null (reading 'classList')\n    at http://127.0.0.1:1/stable-1/static/out/vs/code/browser/workbench/workbench.js:66:108";
			assert.equal(m.classify({ source: 'pageerror', text }, UI).fails, true);
		});

		test('a noise text that also names us is ours', () => {
			assert.equal(
				m.classify({ source: 'console', text: 'getaddrinfo ENOTFOUND open-vsx.org while resolving cloudAgents.signIn' }, UI)
					.verdict,
				'ours',
			);
		});

		test('extension-host errors of other extensions never fail', () => {
			const text = `Error: spawn git ENOENT\n\tat ChildProcess._handle.onexit (node:internal/child_process:286:19) git.refresh {"value":"vscode.git","_lower":"vscode.git"}`;
			assert.deepEqual(
				[m.classify({ source: 'exthost', text }, UI).verdict, m.classify({ source: 'exthost', text }, UI).fails],
				['other', false],
			);
		});

		test('an error the running test declared is let through and counted as seen', () => {
			const phase: Phase = { strict: true, expected: [{ re: /^injected fault: 400/, why: 'provoked' }] };
			assert.equal(m.classify({ source: 'console', text: 'injected fault: 400 for GET /v2/agents' }, phase).verdict, 'expected');
			assert.equal(phase.expected?.[0]?.seen, 1);
			assert.equal(
				m.classify({ source: 'console', text: 'cloudAgents.x failed: other' }, phase).fails,
				true,
				'only what was declared',
			);
		});
	});

	test('a PENDING-FIX entry lets its exact message through only in the phases it names', () => {
		m.PENDING.push({ re: /^Cannot read properties of undefined \(reading 'id'\)$/, phase: /^UI a$/, cause: 'test entry' });
		try {
			const entry: Entry = { source: 'console', text: "Cannot read properties of undefined (reading 'id')" };
			assert.equal(m.classify(entry, { name: 'UI a', strict: true }).verdict, 'pending');
			assert.equal(m.classify(entry, { name: 'UI b', strict: true }).fails, true);
			assert.equal(
				m.classify({ source: 'console', text: `${entry.text} at x` }, { name: 'UI a', strict: true }).fails,
				true,
				'the exact message only',
			);
		} finally {
			m.PENDING.pop();
		}
	});

	test('parseLogEntries keeps a stack with its entry and reads the local timestamp', () => {
		const entries = m.parseLogEntries(
			[
				'2026-11-23 13:12:45.007 [info] ExtensionService#_doActivateExtension cloud-agents.cloud-agents-vscode, startup: false',
				`2026-11-23 13:13:36.150 [error] ${commandFailure('palette')}`,
				'2026-11-23 13:13:45.731 [info] ExtensionService#_doActivateExtension vscode.tunnel-forwarding',
				'',
			].join('\n'),
		);
		assert.deepEqual(
			entries.map((e) => e.level),
			['info', 'error', 'info'],
		);
		assert.equal(entries[1]?.text, commandFailure('palette'));
		assert.equal(entries[1]?.time, new Date(2026, 10, 23, 13, 13, 36, 150).getTime());
	});

	suite('ConsoleErrorCheck over a run', () => {
		let dir: string;
		setup(() => {
			dir = mkdtempSync(join(tmpdir(), 'console-check-'));
		});
		teardown(() => {
			rmSync(dir, { recursive: true, force: true });
		});

		/** A Playwright page stand-in that emits console messages and page errors. */
		function fakePage(): EventEmitter & { error(text: string, url?: string): void } {
			const page = new EventEmitter() as EventEmitter & { error(text: string, url?: string): void };
			page.error = (text, url = '') => {
				page.emit('console', { type: () => 'error', text: () => text, location: () => ({ url }) });
			};
			return page;
		}

		function writeLogs(exthost: string[], ourLog: string[], hostFolder = 'exthost1'): void {
			const host = join(dir, 'logs', '20261123T131232', hostFolder);
			mkdirSync(join(host, 'cloud-agents.cloud-agents-vscode'), { recursive: true });
			writeFileSync(join(host, 'remoteexthost.log'), exthost.join('\n'));
			writeFileSync(join(host, 'cloud-agents.cloud-agents-vscode', 'Cloud Agents.log'), ourLog.join('\n'));
		}

		/** A check over a fake page with the in-host phase, then one UI phase, started at the given times. */
		function inHostThenUi(uiName: string, inHostStart: number, uiStart: number): { check: Check; page: ReturnType<typeof fakePage> } {
			const check = new m.ConsoleErrorCheck({ userDataDir: dir });
			const page = fakePage();
			check.attach(page);
			check.phase('in-host suites', { strict: false });
			check.phase(uiName, { strict: true });
			check.phases[0]!.start = inHostStart;
			check.phases[1]!.start = uiStart;
			return { check, page };
		}

		test('fails with each offending message, attributed to the phase it happened in; reported faults of the in-host phase pass', () => {
			const now = Date.now();
			const { check, page } = inHostThenUi('UI cloudAgentsView', now - 10_000, now - 5_000);
			writeLogs(
				[
					`${logTime(now - 9_000)} [info] Extension host with pid 1 started`,
					`${logTime(now - 8_000)} [error] ${commandFailure('test')}`,
					`${logTime(now - 3_000)} [error] Error: rejected promise not handled within 1 second: boom\n\tat x (${INSTALL}:1:1)`,
				],
				[
					`${logTime(now - 8_000)} [error] cloudAgents.workspace.goToFile failed: "src/no-such-file.ts" is not a file`,
					`${logTime(now - 8_000)} [warning] runtimes: loading failed`,
				],
			);
			page.error('Failed to load resource: net::ERR_NAME_NOT_RESOLVED', 'https://open-vsx.org/x');
			page.error('Could not refresh the agents. (request 01a2)');
			page.emit('pageerror', new Error('boom in cloud-agent://a1.main/x'));

			const { judged, failures } = check.judge();
			assert.deepEqual(
				judged.map((j) => [j.phase, j.source, j.verdict]),
				[
					['in-host suites', 'exthost', 'reported'],
					['in-host suites', 'ourlog', 'reported'],
					['UI cloudAgentsView', 'exthost', 'ours'],
					['UI cloudAgentsView', 'console', 'noise'],
					['UI cloudAgentsView', 'console', 'unattributed'],
					['UI cloudAgentsView', 'pageerror', 'ours'],
				],
			);
			assert.equal(failures.length, 3);
			assert.match(failures[0]!, /^\[UI cloudAgentsView\] extension host log \(ours: extension id[^]*rejected promise not handled/);
			assert.match(failures[1]!, /Could not refresh the agents/);
			assert.match(failures[2]!, /page error[^]*boom in cloud-agent:/);

			const result = m.consoleCheckResult(check, join(dir, 'console-errors.log'));
			assert.equal(result.state, 'failed');
			assert.match(result.error?.message ?? '', /^3 error\(s\) of ours/);
			assert.match(readFileSync(join(dir, 'console-errors.log'), 'utf8'), /open-vsx\.org\/x → noise/);
		});

		test("a provoked in-host failure whose notification reaches the page after the UI phase began is the in-host phase's; the same text later, or never logged, fails", () => {
			const now = Date.now();
			const text =
				'Agent workspace 922A:Main: This server\'s workspace interface differs: the answer to the "list" operation has no entries array (request 01a2). Its files are not asked for again until you retry.';
			const run = (logged: boolean, lateMs: number): { verdicts: string[]; failures: string[] } => {
				rmSync(join(dir, 'logs'), { recursive: true, force: true });
				// The extension logged it 2.7 s before the notification reached the page, in the in-host phase.
				const loggedAt = now - 2_700;
				const { check, page } = inHostThenUi('UI agents-and-prompt', now - 60_000, loggedAt + 1_000);
				writeLogs([], logged ? [`${logTime(loggedAt)} [warning] ${text}`] : []);
				page.error(text);
				check.entries.at(-1)!.time = loggedAt + lateMs;
				const { judged, failures } = check.judge();
				return { verdicts: judged.filter((j) => j.source === 'console').map((j) => j.verdict), failures };
			};
			const late = run(true, 2_700);
			assert.deepEqual(late.verdicts, ['reported']);
			assert.deepEqual(late.failures, []);
			assert.deepEqual(run(false, 2_700).verdicts, ['unattributed'], 'never logged in-host: a UI error');
			assert.deepEqual(run(true, 120_000).verdicts, ['unattributed'], 'long after: a new failure of the UI test');
		});

		test('one logged failure accounts for one late notification: a second one with the same text fails', () => {
			const now = Date.now();
			const text = 'Could not refresh the agents. (request 01a2)';
			const { check, page } = inHostThenUi('UI a', now - 60_000, now - 2_000);
			writeLogs([], [`${logTime(now - 3_000)} [error] ${text}`]);
			page.error(text);
			page.error(text);
			const { judged, failures } = check.judge();
			assert.deepEqual(
				judged.filter((j) => j.source === 'console').map((j) => j.verdict),
				['reported', 'unattributed'],
			);
			assert.equal(failures.length, 1);
		});

		test("an old window's extension host that terminates after its test's page-unload phase ended: its cancelled tree refresh is noise by its source, not its time", () => {
			// As in a run of agent-window-restored (06:08): the test closed its second window (whose host
			// is exthost3) in a leavePage phase that ended 1 s after the main workbench was ready; the
			// server got to that host 1.7 s after the close, in the next phase.
			const now = Date.now();
			const check = new m.ConsoleErrorCheck({ userDataDir: dir });
			check.phase('UI agent-window-restored', { strict: true });
			check.phase('UI agent-window-restored (page unload)', { strict: true, unload: true });
			check.phase('after the UI tests', { strict: true });
			check.phases[0]!.start = now - 60_000;
			check.phases[1]!.start = now - 3_000;
			check.phases[2]!.start = now - 1_900;
			writeLogs(
				[
					`${logTime(now - 20_000)} [info] Extension host with pid 18327 started`,
					`${logTime(now - 1_400)} [info] Extension host terminating: received terminate message from renderer`,
					`${logTime(now - 1_300)} [error] Unable to refresh tree view cloudAgents.account: Canceled`,
					`${logTime(now - 1_300)} [info] Extension host with pid 18327 exiting with code 0`,
				],
				[],
				'exthost3',
			);
			const { judged, failures } = check.judge();
			assert.deepEqual(failures, []);
			assert.deepEqual(
				judged.map((j) => [j.phase, j.source, j.verdict]),
				[['after the UI tests', 'exthost', 'noise']],
			);
			assert.match(judged[0]!.why, /exthost3: received terminate message from renderer/);
		});

		test('the same cancelled tree refresh logged by a host before it began to terminate fails, also inside a page-unload phase', () => {
			const now = Date.now();
			const check = new m.ConsoleErrorCheck({ userDataDir: dir });
			check.phase('UI savings', { strict: true });
			check.phase('UI savings (page unload)', { strict: true, unload: true });
			check.phases[0]!.start = now - 60_000;
			check.phases[1]!.start = now - 3_000;
			writeLogs(
				[
					`${logTime(now - 20_000)} [info] Extension host with pid 1 started`,
					`${logTime(now - 2_000)} [error] Unable to refresh tree view cloudAgents.agents: Canceled`,
					`${logTime(now - 1_000)} [info] Extension host terminating: received terminate message from renderer`,
				],
				[],
			);
			const { judged, failures } = check.judge();
			assert.deepEqual(
				judged.map((j) => [j.phase, j.verdict]),
				[['UI savings (page unload)', 'ours']],
			);
			assert.equal(failures.length, 1);
		});

		test('passes a run with only noise and declared errors, and fails one whose declared error never came', () => {
			const check = new m.ConsoleErrorCheck({ userDataDir: dir });
			const page = fakePage();
			check.attach(page);
			check.phase('in-host suites', { strict: false });
			const expectA = check.phase('UI a', { strict: true });
			expectA(/^injected fault: 400/, 'provoked by a');
			page.error("%c  ERR color: #f33 Error: Timed out waiting for authentication provider 'github' to register.");
			page.error('injected fault: 400 for GET /v2/agents (request 1)');
			const clean = m.consoleCheckResult(check, join(dir, 'console-errors.log'));
			assert.equal(clean.state, 'passed', clean.error?.message);
			assert.match(clean.notes[0]!, /^2 error entries checked over 2 phase\(s\): 1 workbench noise/);

			const missed = new m.ConsoleErrorCheck({ userDataDir: dir });
			missed.phase('UI b', { strict: true })(/never logged/, 'provoked by b');
			const result = m.consoleCheckResult(missed, join(dir, 'console-errors.log'));
			assert.equal(result.state, 'failed');
			assert.match(result.error?.message ?? '', /\[UI b\] the test declared an error it provokes .* but the check never saw it/);
		});
	});

	test('in-host: our "Cannot reach the Cloud Agents service" notification of a provoked network failure is reported, not an error; in the UI tests it fails', () => {
		const entry: Entry = {
			source: 'console',
			text: 'Cannot reach the Cloud Agents service: Network error: other side closed [UND_ERR_SOCKET]',
		};
		assert.deepEqual([m.classify(entry, { strict: false }).verdict, m.classify(entry, { strict: false }).fails], ['reported', false]);
		assert.equal(m.classify(entry, { strict: true }).fails, true);
	});
});
