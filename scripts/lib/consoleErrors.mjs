// The "zero console errors from our extension" check of the integration + UI run
// (scripts/test-integration.mjs). It gathers, with the time each was seen:
//  - the workbench page's console messages of type 'error' and its uncaught page errors (Playwright);
//  - the `[error]` entries of the extension host's log (`<user-data>/logs/<session>/exthost<N>/
//    remoteexthost.log`, `exthost.log` in desktop builds): unhandled errors and rejections, and
//    failed commands (`… <commandId> {"value":"<extension id>",…}`) of every extension;
//  - the `[error]` entries of our own log channel (`exthost<N>/cloud-agents.cloud-agents-vscode/*.log`).
// and classifies each one (`classify`, a pure function, unit-tested in test/unit/scripts/lib/consoleErrors.test.ts).
//
// What counts as ours: an entry that mentions our extension id (which is also our install folder,
// so it covers stacks through our dist/extension.js), a command, view, context-key or setting id
// (`cloudAgents.<x>`), our view container, one of our URI schemes (`cloud-agent:`,
// `cloud-agents-record:`, `cloud-agents-provider:`) or our name "Cloud Agents"; every entry of our own log channel.
//
// When it fails the run:
//  - during the UI tests (strict phases): every error of ours, and every browser console error that
//    names no extension at all (an error notification carries no source in the console, so one our
//    extension shows cannot be told apart): only NOT_OURS (proven workbench noise), PENDING (known,
//    fix pending) and what the running UI test declared it provokes are let through;
//  - during the in-host suites (which inject faults on purpose and assert the failure is reported):
//    only UNHANDLED errors of ours fail. Reported failures are not errors there: our own log
//    channel's error lines, error notifications, the workbench's save-error log line for a
//    `cloud-agent:` file, and a command rejection whose stack runs through the test runner (a test
//    called the command and asserts that it rejects). An error the workbench itself logs ("ERR …",
//    e.g. an unhandled rejection) or an uncaught page error fails there even when it names no one.
// Extension-host entries that mention no part of us belong to other extensions and never fail.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Our extension id (publisher.name); also the start of its install folder's name. */
export const EXTENSION_ID = 'cloud-agents.cloud-agents-vscode';

/** How an entry is recognised as ours; the first that matches names the reason. */
export const OUR_MARKERS = [
	{ name: 'extension id / install folder', re: /cloud-agents\.cloud-agents-vscode/i },
	{ name: 'command, view, context key or setting id', re: /\bcloudAgents\.[A-Za-z]/ },
	{ name: 'view container', re: /workbench\.view\.extension\.cloudAgents\b/ },
	{ name: 'URI scheme cloud-agent:', re: /\bcloud-agent:/ },
	{ name: 'URI scheme cloud-agents-record:', re: /\bcloud-agents-record:/ },
	{ name: 'URI scheme cloud-agents-image:', re: /\bcloud-agents-image:/ },
	{ name: 'URI scheme cloud-agents-provider:', re: /\bcloud-agents-provider:/ },
	{ name: 'name "Cloud Agents"', re: /\bCloud Agents\b(?! integration test runner)/ },
];

/**
 * The workbench writing a log file (an output channel's too: its name, "Cloud Agents: …", names us)
 * while the page unloads, in VS Code for the Web: the log's IndexedDB closed, or its transaction
 * aborted ("unknown error"); both seen in scripts/test-web.mjs's reloads. Noise wherever it names us.
 */
export const LOG_FLUSH_AT_UNLOAD =
	/Unable to write file 'vscode-log:\/[^']*' \((Error: IndexedDB database 'vscode-web-db' is closed\.|CodeExpectedError: unknown error)\)/;

/**
 * Browser console errors proven NOT to come from our extension (each seen in a run and traced to
 * its source). Keep this list small; an entry that mentions us is never matched against it.
 * `url` (optional) must match the console message's source URL as well.
 */
export const NOT_OURS = [
	{
		re: /Timed out waiting for authentication provider 'github' to register/,
		reason: 'built-in GitHub authentication: no GitHub in code-server',
	},
	{ re: /Activating extension 'vscode\.[^']+' failed/, reason: 'a built-in vscode.* extension not shipped by code-server' },
	{ re: /open-vsx\.org/, reason: 'extension gallery look-up (open-vsx) without internet' },
	{
		re: /^Failed to load resource: net::ERR_NAME_NOT_RESOLVED/,
		url: /open-vsx\.org/,
		reason: 'extension gallery look-up (open-vsx) without internet',
	},
	{
		re: /\[lifecycle\] Long running operations during shutdown are unsupported in the web \(id: (join\.disconnectRemote|join\.chat\w+|workbench\.contrib\.\w+)\)/,
		reason: "the workbench's own shutdown participants when the page unloads (a reload into a workspace)",
	},
	{
		re: LOG_FLUSH_AT_UNLOAD,
		reason: 'the workbench flushing its own log while the page unloads',
	},
	{
		// VS Code's mainThreadSaveParticipant.ts: a 1750 ms limit on the extension host's answer to a
		// save as a whole. A listener that overran would be named (the extension host blames it as
		// "onWillSaveTextDocument-listener from extension …", which names us if it is ours); this one
		// names none: the extension host answered late on a loaded machine. The save goes ahead.
		re: /^%c\s+ERR color: #f33 Error: Aborted onWillSaveTextDocument-event after 1750ms(\n|$)/,
		reason: "the workbench's save participant gave up waiting for a busy extension host (no listener named; the save goes ahead)",
	},
	{
		// An uncaught error of VS Code's own webview host page (workbench/contrib/webview/browser/
		// pre/index.html: the first frame of its stack is there) hosting a webview that is not ours: its
		// URL names the extension whose webview it hosts, none for the workbench's own (a walkthrough
		// step's Markdown) or a built-in one (vscode.*). Seen: trackFocus polling a frame that has no
		// body yet ("Cannot read properties of null (reading 'classList')", the Markdown preview a UI
		// test opens from an Activity row and closes at once) and hookupOnLoadHandlers finding its frame
		// gone ("Found unexpected null", the walkthrough's step page). No code of ours runs in that page;
		// the same error for a webview of ours names our extension id, which makes it ours.
		re: /^[^\n]*\n[A-Za-z]*Error: [^\n]*\n\s+at (?:[\w$.<>]+ \()?https?:\/\/[^\s()]+\/vs\/workbench\/contrib\/webview\/browser\/pre\/index\.html\?[^\s()]*\bextensionId=(?:vscode\.[\w-]+)?&/,
		reason: "VS Code's webview host page failing for a webview of the workbench or a built-in extension (its stack starts in pre/index.html)",
	},
	{
		re: /^Failed to load resource: the server responded with a status of 404/,
		url: /\/vsda\//,
		reason: 'code-server does not ship vsda (its log: "File not found: …/vsda/rust/web/vsda_bg.wasm")',
	},
];

/**
 * Errors of ours known today whose fix is pending in a file owned by someone else: each entry
 * names the cause (`// PENDING-FIX: <cause>`), matches one message exactly and, with `phase`, only
 * in the phases whose names match. Remove an entry with its fix.
 */
export const PENDING = [
	// (Fixed: quick picks fed a rejecting items promise — pickWhenLoaded, now in src/views/ui.ts.)
	{
		// PENDING-FIX: VS Code's extHostComments `$provideCommentingRanges` awaits
		// `documents.ensureDocumentData(uri)` before it calls a comment controller's range provider; for
		// a model the workbench has just created (settings.json), that open races the document's own
		// sync to the extension host and the workbench logs "document … already exists!", then
		// "unknown document". The review feature (issue 46, src/review/reviewFeature.ts) sets its range
		// provider only while an editor shows a cloud-agent: file, which took it out of the in-host
		// suites; during the review UI test (an agent's file is shown throughout) it is still seen at
		// times. Nothing is shown to a person. Fix: VS Code (or a provider that is not needed: a
		// "Comment on Selection" command creating the thread itself).
		re: /^%c\s+ERR color: #f33 Error: (document '[^']*\/User\/settings\.json already exists!'|unknown document)(\n|$)/,
		phase: /^UI review-feedback\b/,
		cause: "VS Code's comments range request opens settings.json in the extension host while its sync is under way (review UI test only)",
	},
];

/** The marker an entry's text (and source URL) matches, or undefined. */
export function ourMarker(text, url = '') {
	const all = `${text}\n${url}`;
	return OUR_MARKERS.find((m) => m.re.test(all))?.name;
}

/**
 * Classifies one collected entry.
 * @param {{ source: 'console'|'pageerror'|'exthost'|'ourlog', text: string, url?: string, shutdown?: string }} entry
 *   `shutdown`: logged by an extension host after it began to terminate (its folder and reason)
 * @param {{ name?: string, strict: boolean, expected?: { re: RegExp, why: string, seen?: number }[] }} phase
 * @returns {{ verdict: 'ours'|'unattributed'|'expected'|'pending'|'reported'|'noise'|'other', why: string, fails: boolean }}
 */
export function classify(entry, phase) {
	const text = entry.text ?? '';
	const url = entry.url ?? '';
	const result = (verdict, why, fails = false) => ({ verdict, why, fails });
	const declared = (phase.expected ?? []).find((e) => e.re.test(text));
	if (declared) {
		declared.seen = (declared.seen ?? 0) + 1;
		return result('expected', `declared by the test: ${declared.why}`);
	}
	if (phase.unload && entry.source === 'console' && UNLOAD_CANCEL.test(text)) {
		return result('noise', 'the workbench cancelling its pending reads as the page unloads (a UI test navigated away: leavePage)');
	}
	if (entry.source === 'exthost' && entry.shutdown && UNLOAD_CANCEL_EXTHOST.test(text)) {
		return result(
			'noise',
			`the extension host of a window that went away, while it terminated (${entry.shutdown}): a tree refresh it had sent to that window was cancelled`,
		);
	}
	if (entry.source === 'console' && LOG_FLUSH_AT_UNLOAD.test(text)) {
		return result('noise', 'the workbench flushing a log file (an output channel of ours too) while the page unloads');
	}
	const pending = PENDING.find((p) => p.re.test(text) && (!p.phase || p.phase.test(phase.name ?? '')));
	if (pending) {
		return result('pending', `PENDING-FIX: ${pending.cause}`);
	}
	const marker = entry.source === 'ourlog' ? 'our own log channel' : ourMarker(text, url);
	if (marker) {
		if (!phase.strict) {
			if (entry.source === 'ourlog') {
				return result('reported', 'in-host phase: a failure our extension reported in its log channel');
			}
			if (entry.source === 'console' && /^(%c\s+ERR color: #f33 \[text file model\] handleSaveError|Failed to save ')/.test(text)) {
				return result('reported', 'in-host phase: the workbench logs and shows a save our file system provider refused');
			}
			if (entry.source === 'console' && /^Cannot reach the Cloud Agents service: /.test(text)) {
				return result(
					'reported',
					'in-host phase: the notification of a command that got no answer (a suite cut the connection on purpose)',
				);
			}
			if (entry.source === 'exthost' && /cloud-agents-test\.cloud-agents-test-runner/.test(text)) {
				return result('reported', 'in-host phase: a command rejected to the test that called it');
			}
		}
		return result('ours', marker, true);
	}
	if (entry.source === 'exthost') {
		return result('other', 'extension-host entry of another extension');
	}
	if (phase.unload && entry.source === 'console') {
		return result('noise', 'the workbench tearing down the page while a UI test leaves it (names no extension)');
	}
	const noise = NOT_OURS.find((n) => n.re.test(text) && (!n.url || n.url.test(url)));
	if (noise) {
		return result('noise', noise.reason);
	}
	if (phase.strict) {
		return result('unattributed', 'names no extension (an error notification shows no source): counted as ours in the UI tests', true);
	}
	// The workbench's own error log ("ERR …": its unexpected-error and unhandled-rejection handler)
	// and uncaught page errors are never a notification of a provoked failure: they fail here too.
	if (entry.source === 'pageerror' || UNEXPECTED.test(text)) {
		return result(
			'unattributed',
			'in-host phase: an error the workbench logged (unhandled error or rejection) naming no extension',
			true,
		);
	}
	return result('unattributed', 'in-host phase: names no extension (error notifications of provoked failures)');
}

/**
 * What the workbench logs for the file reads and folder look-ups still pending when its page unloads
 * (every scheme's, ours included: the extension host stops, pending calls reject with "Canceled" and
 * late ones find no provider). Only in a phase a UI test opened with `leavePage`. That phase also
 * covers the page it lands on: there the workbench reads a `cloud-agent:` folder's configuration
 * files (.vscode/settings.json, tasks.json, launch.json, mcp.json) before the extension host has
 * registered any extension (its activateByEvent only records the event then), so they find no
 * provider yet; it reads them again once ours registers.
 */
export const UNLOAD_CANCEL =
	/^%c\s+ERR color: #f33 (Canceled: Canceled$|Canceled: Canceled\n|Failed to resolve files at location: \S+ (Canceled: Canceled|CodeExpectedError: ENOPRO: No file system provider found for resource '[^']*')|\w+: Unable to (read|write) file '[^']*' \(Canceled: Canceled\)|CodeExpectedError(: ENOPRO: No file system provider found for resource '[^']*')?\n\s+at \w+\.withProvider \(|Error: Throttler is disposed\n|Error: Unable to resolve resource output:)/;

/**
 * The extension host's twin of UNLOAD_CANCEL, judged by where it comes from rather than by when: VS
 * Code's tree-view service (extHostTreeViews.ts, ExtHostTreeView: the `.catch` of its refresh queue)
 * logs this, with no stack, when its `$refresh` call to the workbench rejects with "Canceled". That
 * happens only when the extension host terminates (its window reloaded or closed: "received
 * terminate message from renderer"; or, for a window that went without saying so, "renderer
 * disconnected for too long" up to 5 minutes later): AbstractExtHostExtensionService.terminate
 * disposes the RPC protocol first, which rejects every call still waiting for the workbench's answer,
 * and deactivates the extensions only after that. No extension can settle a refresh the window never
 * answered, so it is noise only in the log of a host that is terminating (after its "Extension host
 * terminating:" line: `shutdown` on the entry, set by ConsoleErrorCheck.readLogs), in any phase: that
 * host terminates when the server gets to it, which on a loaded machine is after the `leavePage` phase
 * of the window's test has ended. The same line from a host that is not terminating fails.
 */
export const UNLOAD_CANCEL_EXTHOST = /^Unable to refresh tree view [\w.-]+: Canceled$/;

/** The extension host's info line as it starts to terminate (AbstractExtHostExtensionService.terminate), with the reason. */
const HOST_TERMINATING = /^Extension host terminating: (.*)$/;

/** How the workbench's log service prints an error in the browser console. */
const UNEXPECTED = /^%c\s+ERR\b/;

const LOG_LINE = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) \[(\w+)\] ?(.*)$/;

/**
 * Splits a VS Code log file into entries (a timestamped line plus the untimestamped lines after
 * it, such as a stack). `time` is in ms since the epoch (the log writes local time).
 * @returns {{ time: number, level: string, text: string }[]}
 */
export function parseLogEntries(content) {
	const entries = [];
	for (const line of content.split(/\r?\n/)) {
		const m = LOG_LINE.exec(line);
		if (m) {
			entries.push({ time: new Date(`${m[1]}T${m[2]}`).getTime(), level: m[3], text: m[4] });
		} else if (entries.length > 0 && line !== '') {
			entries[entries.length - 1].text += `\n${line}`;
		}
	}
	return entries;
}

/**
 * The log files to read under a code-server user-data-dir: each extension host's own log
 * (`remoteexthost.log` / `exthost.log`, with the host's folder name: one extension host process per
 * window and per reload of it) and our log channel's files.
 * @returns {{ path: string, source: 'exthost'|'ourlog', host?: string }[]}
 */
export function findLogFiles(userDataDir) {
	const out = [];
	const logs = join(userDataDir, 'logs');
	const dirs = (p) => {
		try {
			return readdirSync(p, { withFileTypes: true })
				.filter((d) => d.isDirectory())
				.map((d) => d.name);
		} catch {
			return [];
		}
	};
	for (const session of dirs(logs)) {
		for (const host of dirs(join(logs, session)).filter((d) => /^exthost\d*$/.test(d))) {
			const hostDir = join(logs, session, host);
			for (const name of ['remoteexthost.log', 'exthost.log']) {
				if (existsSync(join(hostDir, name))) {
					out.push({ path: join(hostDir, name), source: 'exthost', host });
				}
			}
			const ours = join(hostDir, EXTENSION_ID);
			let files = [];
			try {
				files = readdirSync(ours).filter((f) => f.endsWith('.log'));
			} catch {
				/* not created */
			}
			for (const f of files) {
				out.push({ path: join(ours, f), source: 'ourlog' });
			}
		}
	}
	return out;
}

/** How long after the extension logged a failure of an in-host suite its notification may still reach the page. */
const LATE_NOTICE_MS = 30_000;

const SOURCE_NAMES = { console: 'browser console', pageerror: 'page error', exthost: 'extension host log', ourlog: 'Cloud Agents log' };

/**
 * Collects errors for a whole run in phases (the in-host suites, then one phase per UI test) and
 * judges them at the end. Browser entries are timed when they arrive, log entries by their
 * timestamps; each goes to the phase that was running then.
 */
export class ConsoleErrorCheck {
	/** @param {{ userDataDir: string }} options */
	constructor({ userDataDir }) {
		this.userDataDir = userDataDir;
		/** @type {{ source: string, text: string, url?: string, time: number }[]} */
		this.entries = [];
		/** @type {{ name: string, start: number, strict: boolean, expected: { re: RegExp, why: string, seen?: number }[] }[]} */
		this.phases = [];
		/** Our log channel's warnings and errors (what it told, with when), to recognise a late notification of an in-host one. */
		/** @type {{ text: string, time: number, echoed?: boolean }[]} */
		this.logged = [];
	}

	/** Listens to a Playwright page's console errors and uncaught errors. */
	attach(page) {
		page.on('console', (m) => {
			if (m.type() !== 'error') {
				return;
			}
			this.entries.push({ source: 'console', text: m.text(), url: m.location()?.url ?? '', time: Date.now() });
		});
		page.on('pageerror', (e) => {
			this.entries.push({ source: 'pageerror', text: `${e.message}\n${e.stack ?? ''}`, time: Date.now() });
		});
	}

	/** Starts a phase; `strict` for the UI tests, `unload` while a UI test's page navigates away. Returns a function the phase's test uses to declare an error it provokes. */
	phase(name, { strict, unload = false }) {
		const p = { name, start: Date.now(), strict, unload, expected: [] };
		this.phases.push(p);
		return (re, why) => {
			p.expected.push({ re, why, seen: 0 });
		};
	}

	/** Reads the log files' error entries (once, at the end: later calls do nothing). */
	readLogs() {
		if (this.logsRead) {
			return;
		}
		this.logsRead = true;
		for (const { path, source, host } of findLogFiles(this.userDataDir)) {
			let content;
			try {
				content = readFileSync(path, 'utf8');
			} catch {
				continue;
			}
			/** Once the host logged that it terminates: why, for every entry after that line (UNLOAD_CANCEL_EXTHOST). */
			let shutdown;
			for (const e of parseLogEntries(content)) {
				const terminating = source === 'exthost' && e.level === 'info' ? HOST_TERMINATING.exec(e.text) : null;
				if (terminating && shutdown === undefined) {
					shutdown = `${host}: ${terminating[1]}`;
				}
				if (e.level === 'error' || e.level === 'critical') {
					this.entries.push({ source, text: e.text, time: e.time, file: path, ...(shutdown ? { shutdown } : {}) });
				}
				if (source === 'ourlog' && (e.level === 'warning' || e.level === 'error')) {
					this.logged.push({ text: e.text, time: e.time });
				}
			}
		}
	}

	/**
	 * Reads the logs, classifies every entry and checks that each declared error was seen.
	 * @returns {{ judged: object[], failures: string[] }} failures: one printable paragraph each
	 */
	judge() {
		this.readLogs();
		const firstPhase = this.phases[0] ?? { name: 'run', start: 0, strict: false, expected: [] };
		const phaseAt = (t) => this.phases.filter((p) => p.start <= t).pop() ?? firstPhase;
		const judged = this.entries
			.sort((a, b) => a.time - b.time)
			.map((e) => {
				const phase = phaseAt(e.time);
				const verdict = classify(e, phase);
				const late = verdict.fails ? this.lateInHostNotice(e, phase, phaseAt) : undefined;
				if (late) {
					return {
						...e,
						phase: phase.name,
						verdict: 'reported',
						why: `in-host phase: a failure an in-host suite provoked, logged by the extension at ${new Date(late.time).toISOString()} (before this phase); its notification reached the page ${e.time - late.time} ms later`,
						fails: false,
					};
				}
				return { ...e, phase: phase.name, ...verdict };
			});
		const failures = judged
			.filter((j) => j.fails)
			.map((j) => `[${j.phase}] ${SOURCE_NAMES[j.source]} (${j.verdict}: ${j.why}):\n${indent(j.text)}`);
		for (const p of this.phases) {
			for (const e of p.expected) {
				if (!e.seen) {
					failures.push(
						`[${p.name}] the test declared an error it provokes (${e.why}: ${e.re}) but the check never saw it: is the collection broken?`,
					);
				}
			}
		}
		return { judged, failures };
	}

	/**
	 * The in-host log line a browser console entry of a UI phase is the late notification of, if any:
	 * the extension logged the same text (a warning or error) during an in-host phase, less than
	 * LATE_NOTICE_MS before, and before this phase started. A notification reaches the page after the
	 * extension shows it; on a loaded machine that can be after the in-host phase ended. Each logged
	 * line accounts for one notification only.
	 */
	lateInHostNotice(entry, phase, phaseAt) {
		if (entry.source !== 'console' || !phase.strict) {
			return undefined;
		}
		const text = entry.text ?? '';
		const line = this.logged.find(
			(l) =>
				!l.echoed &&
				l.time < phase.start &&
				entry.time - l.time >= 0 &&
				entry.time - l.time <= LATE_NOTICE_MS &&
				!phaseAt(l.time).strict &&
				l.text.length > 0 &&
				text.trim() === l.text.trim(),
		);
		if (line) {
			line.echoed = true;
		}
		return line;
	}

	/** Writes every collected entry with its verdict to `path` (test-results/logs/console-errors.log). */
	static write(path, judged) {
		writeFileSync(
			path,
			judged
				.map(
					(j) =>
						`${new Date(j.time).toISOString()} [${j.phase}] ${SOURCE_NAMES[j.source]}${j.url ? ` ${j.url}` : ''} → ${j.verdict} (${j.why})\n${indent(j.text)}`,
				)
				.join('\n\n') + '\n',
		);
	}
}

function indent(text) {
	const lines = String(text).split('\n');
	const shown = lines.slice(0, 12).map((l) => `      ${l.length > 400 ? `${l.slice(0, 400)}…` : l}`);
	if (lines.length > 12) {
		shown.push(`      … (${lines.length - 12} more lines)`);
	}
	return shown.join('\n');
}

/**
 * Runs the check for a finished run and returns a result row for the driver's summary: passed
 * when nothing of ours was logged, failed with every offending message otherwise.
 */
export function consoleCheckResult(check, logFile) {
	const { judged, failures } = check.judge();
	ConsoleErrorCheck.write(logFile, judged);
	const count = (v) => judged.filter((j) => j.verdict === v).length;
	const notes = [
		`${judged.length} error entr${judged.length === 1 ? 'y' : 'ies'} checked over ${check.phases.length} phase(s): ` +
			`${count('noise')} workbench noise, ${count('other')} of other extensions, ${count('reported')} reported failures of provoked faults (in-host), ` +
			`${count('unattributed')} unattributed, ${count('expected')} declared by a test, ${count('pending')} pending fixes; details in ${logFile}`,
	];
	const titlePath = ['console', 'no console or extension-host error from Cloud Agents over the whole run'];
	return failures.length === 0
		? { titlePath, state: 'passed', durationMs: 0, notes }
		: {
				titlePath,
				state: 'failed',
				durationMs: 0,
				notes,
				error: { message: `${failures.length} error(s) of ours:\n\n${failures.join('\n\n')}` },
			};
}
