// npm run screenshots: the README's pictures, taken from what `npm start` serves. Starts
// scripts/start.mjs (emulator with demo data + code-server with the extension, signed in), drives
// the page with Playwright + Chromium like a person would, and writes docs/images/*.png.
//   npm run screenshots              all pictures
//   npm run screenshots -- views     only those whose name contains "views"
// Each picture is one function below; a new surface adds one.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, DEV_TOKEN, Processes, ROOT, ensureSystemPackages, freePort, log, startEmulator } from './lib/harness.mjs';

const OUT = join(ROOT, 'docs', 'images');
const only = process.argv[2];

/** Starts `npm start` on free ports; resolves with its workbench and emulator URLs and the child. */
async function startDemo() {
	const [port, emulatorPort] = [await freePort(), await freePort()];
	const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
		cwd: ROOT,
		env: { ...process.env, PORT: String(port), EMULATOR_PORT: String(emulatorPort) },
		stdio: ['ignore', 'pipe', 'inherit'],
		detached: true,
	});
	let out = '';
	const url = await new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`npm start printed no URL in 5 min:\n${out}`)), 300_000);
		child.stdout.on('data', (d) => {
			out += d;
			const m = /(http:\/\/127\.0\.0\.1:\d+\/\?workspace=\S+)/.exec(out);
			if (m) {
				clearTimeout(timer);
				resolve(m[1]);
			}
		});
		child.once('exit', (c) => {
			clearTimeout(timer);
			reject(new Error(`npm start exited (${c}):\n${out}`));
		});
	});
	const emulatorUrl = /API \(emulator\): (\S+)/.exec(out)?.[1];
	return {
		url,
		emulatorUrl,
		stop: () => {
			try {
				process.kill(-child.pid, 'SIGINT');
			} catch {
				/* gone */
			}
		},
	};
}

async function api(emulatorUrl, method, path, body) {
	const res = await fetch(`${emulatorUrl}${path}`, {
		method,
		headers: { authorization: `Bearer ${DEV_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!res.ok) {
		throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
	}
	return res.status === 204 ? undefined : res.json();
}

const container = (page) => page.locator('[id="workbench.view.extension.cloudAgents"]');
const pane = (page, title) => container(page).locator('.pane', { has: page.locator('.pane-header h3.title', { hasText: title }) });

/** Expands (or collapses) a view of the container by its header. */
async function setExpanded(page, title, expanded) {
	const header = pane(page, title).locator('.pane-header');
	await header.waitFor({ state: 'visible', timeout: 60_000 });
	if (((await header.getAttribute('aria-expanded')) === 'true') !== expanded) {
		await header.click();
	}
}

/**
 * Opens the Cloud Agents container in its first-run layout: the four lists open, Account collapsed
 * (the workbench keeps a view's state across the pages of one demo, so a picture that changed it
 * does not leak into the next).
 */
async function openCloudAgents(page) {
	if (!(await container(page).isVisible())) {
		await page.locator('.activitybar .action-item:has(> .action-label[aria-label^="Cloud Agents"])').first().click();
	}
	await setExpanded(page, 'Account', false);
	for (const title of ['Agents', 'Runs', 'Runtimes', 'Artifacts']) {
		await setExpanded(page, title, true);
	}
	await pane(page, 'Agents').locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 60_000 });
}

async function palette(page, label) {
	await page.keyboard.press('F1');
	const input = page.locator('.quick-input-widget input');
	await input.fill(`>${label}`);
	await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ state: 'visible' });
	await page.keyboard.press('Enter');
}

/**
 * Links the billing agent ("Refactor billing module") to the window's folder (`billing`, its
 * workspace before its runs: scripts/start.mjs) through its row's "Compare with Local Folder…".
 */
async function linkBilling(page) {
	await openCloudAgents(page);
	const agents = pane(page, 'Agents');
	const row = agents.locator('.monaco-list-row', { hasText: 'Refactor billing module' }).first();
	// The oldest agent: scrolled into view first.
	for (let i = 0; i < 20 && !(await row.isVisible()); i++) {
		await agents.locator('.monaco-list').first().hover();
		await page.mouse.wheel(0, 100);
		await page.waitForTimeout(200);
	}
	await row.click({ button: 'right' });
	const menu = page.locator('.context-view.monaco-menu-container');
	const item = menu.locator('.action-item', { hasText: 'Compare with Local Folder' }).first();
	// A menu item takes clicks only after a short timer: click again while the menu stays open.
	for (let i = 0; i < 5 && (await menu.isVisible()); i++) {
		await item.click();
		await menu.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => {});
	}
	// Enter twice, each once its question shows: the workspace root, then the window's folder.
	const pick = async (question, label) => {
		await page.locator(`.quick-input-widget input[placeholder="${question}"]`).waitFor({ state: 'visible', timeout: 30_000 });
		await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ state: 'visible', timeout: 30_000 });
		await page.keyboard.press('Enter');
	};
	await pick('Which folder of the agent workspace?', 'Workspace root');
	await pick('Which local folder?', 'billing');
}

/** The user settings of the workbench `npm start` serves (scripts/start.mjs writes them there). */
const DEMO_SETTINGS = join(ROOT, '.vscode-test', 'start', 'user-data', 'User', 'settings.json');

/**
 * Replaces the demo's user settings with `edit(what they hold)` through the workbench's JSON editor
 * (a write behind its back may go unnoticed) and saves them; returns what they held.
 */
async function replaceUserSettings(page, edit) {
	const original = JSON.parse(readFileSync(DEMO_SETTINGS, 'utf8'));
	const wanted = JSON.stringify(edit(original));
	// The demo opens a Markdown preview (a webview) that can hold the keyboard: F1 would go to it.
	await page.evaluate('document.activeElement instanceof HTMLIFrameElement && document.activeElement.blur()');
	await palette(page, 'Preferences: Open User Settings (JSON)');
	const editor = page.locator('.editor-instance .monaco-editor').first();
	await editor.waitFor({ state: 'visible', timeout: 30_000 });
	await editor.click();
	await page.keyboard.press('ControlOrMeta+A');
	await page.keyboard.press('Delete');
	await page.keyboard.insertText(wanted);
	await page.keyboard.press('ControlOrMeta+S');
	for (let i = 0; i < 50 && JSON.stringify(JSON.parse(readFileSync(DEMO_SETTINGS, 'utf8'))) !== wanted; i++) {
		await page.waitForTimeout(200);
	}
	for (
		let i = 0;
		i < 5 &&
		(await page
			.locator('.modal-editor-part')
			.isVisible()
			.catch(() => false));
		i++
	) {
		await page.keyboard.press('Escape');
		await page.waitForTimeout(300);
	}
	return original;
}

/** The pictures, in README order. */
const SHOTS = {
	/** The views, a followed run in the Output panel and its end notification (README's first picture). */
	async screenshot(page, { emulatorUrl }) {
		await openCloudAgents(page);
		await pane(page, 'Agents').locator('.monaco-list-row', { hasText: 'Docs writer' }).first().click();
		await palette(page, 'Cloud Agents: Send Prompt');
		await page
			.locator('.quick-input-list .monaco-list-row', { hasText: 'Docs writer' })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
		await page.locator('.quick-input-widget input').fill('Docs writer');
		await page.keyboard.press('Enter');
		await page
			.locator('.quick-input-widget .quick-input-title', { hasText: 'Send Prompt to Docs writer' })
			.first()
			.waitFor({ state: 'visible' });
		await page.locator('.quick-input-widget input').fill('Outline the getting-started guide');
		await page.keyboard.press('Enter');
		await page
			.locator('.notification-list-item-message', { hasText: 'Docs writer: Outline the getting-started guide' })
			.first()
			.waitFor({ state: 'visible', timeout: 60_000 });
		// The rows catch up with the end without a refresh: the run succeeded, the agent is idle again.
		await pane(page, 'Runs')
			.locator('.monaco-list-row', { hasText: 'Outline the getting-started' })
			.filter({ hasText: 'succeeded' })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
		await pane(page, 'Agents')
			.locator('.monaco-list-row', { hasText: 'Docs writer' })
			.filter({ hasText: 'idle' })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
		void emulatorUrl;
	},
	/**
	 * Several deployments: a second emulator (the demo seed again) as "Staging" in
	 * cloudAgents.deployments, signed in with a key of its own; the Agents view lists both under a
	 * root row each. The settings go back and the emulator stops after the picture.
	 */
	async deployments(page) {
		await openCloudAgents(page);
		const procs = new Processes();
		let original;
		// Undone after the picture, or at once when taking it fails: the settings as they were, the emulator stopped.
		const after = async () => {
			if (original !== undefined) {
				await replaceUserSettings(page, () => original).catch(() => {});
			}
			await procs.stopAll();
		};
		try {
			const staging = await startEmulator(procs, {
				port: await freePort(),
				logFile: join(ROOT, 'test-results', 'screenshots-staging-emulator.log'),
			});
			original = JSON.parse(readFileSync(DEMO_SETTINGS, 'utf8'));
			await replaceUserSettings(page, (settings) => ({
				...settings,
				'cloudAgents.deployments': [{ name: 'Staging', apiUrl: staging }],
			}));
			const key = (await (await fetch(`${staging}/_emulator/keys`, { method: 'POST' })).json()).api_key;
			await palette(page, 'Cloud Agents: Sign In');
			const pick = async (label) => {
				await page
					.locator('.quick-input-list .monaco-list-row', { hasText: label })
					.first()
					.waitFor({ state: 'visible', timeout: 30_000 });
				await page.locator('.quick-input-widget input').fill(label);
				await page.keyboard.press('Enter');
			};
			await pick('Staging');
			await pick('API key');
			await page.locator('.quick-input-widget', { hasText: 'API key for' }).first().waitFor({ state: 'visible', timeout: 30_000 });
			await page.locator('.quick-input-widget input').fill(key);
			await page.keyboard.press('Enter');
			await openCloudAgents(page);
			// The Agents view alone, so that both deployments' agents show whole.
			for (const title of ['Runs', 'Runtimes', 'Artifacts']) {
				await setExpanded(page, title, false);
			}
			await pane(page, 'Agents')
				.locator('.monaco-list-row', { hasText: 'Staging' })
				.first()
				.waitFor({ state: 'visible', timeout: 60_000 });
			await palette(page, 'Notifications: Clear All Notifications');
			// No editor (the demo's README preview), and no hover card over a row.
			await page.evaluate('document.activeElement instanceof HTMLIFrameElement && document.activeElement.blur()');
			await palette(page, 'View: Close All Editors');
			await page.mouse.move(900, 450);
			await page
				.locator('.monaco-hover')
				.first()
				.waitFor({ state: 'hidden', timeout: 10_000 })
				.catch(() => {});
		} catch (err) {
			await after();
			throw err;
		}
		return after;
	},
	/** Send Prompt from an agent row: one step, the multi-line box with its image buttons. */
	async 'send-prompt'(page) {
		await openCloudAgents(page);
		const row = pane(page, 'Agents').locator('.monaco-list-row', { hasText: 'CI triage' }).first();
		await row.hover();
		await row.locator('.action-label[aria-label="Send Prompt…"]').click();
		await page.locator('.quick-input-widget input').fill('Why did the nightly build fail?');
	},
	/** The agent's workspace in the Explorer, a file open from it. */
	async workspace(page, { emulatorUrl }) {
		const { agents } = await api(emulatorUrl, 'GET', '/v2/agents?limit=100');
		const agent = agents.find((a) => a.name === 'Docs writer');
		await openCloudAgents(page);
		const row = pane(page, 'Agents').locator('.monaco-list-row', { hasText: agent.name }).first();
		await row.click();
		await palette(page, 'Cloud Agents: Open Agent Workspace');
		await page.locator('.quick-input-list .monaco-list-row', { hasText: agent.name }).first().click();
		await page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Add to Workspace' }).click();
		const folder = page.locator('.explorer-folders-view .monaco-list-row', { hasText: `Agent: ${agent.name}` }).first();
		await folder.waitFor({ state: 'visible', timeout: 60_000 });
		for (let i = 0; i < 20 && (await folder.getAttribute('aria-expanded')) !== 'true'; i++) {
			await folder.click();
			await page.waitForTimeout(300);
		}
		const file = page.locator('.explorer-folders-view .monaco-list-row', { hasText: /\.md\s*$/ }).last();
		await file.waitFor({ state: 'visible', timeout: 30_000 });
		await file.dblclick();
		await page.locator('.editor-instance .monaco-editor').first().waitFor({ state: 'visible', timeout: 30_000 });
	},
	/**
	 * Source Control: the billing agent linked to the window's folder (`billing`, its workspace before
	 * its runs: scripts/start.mjs) through its row's "Compare with Local Folder…", a changed file open
	 * as a diff (local ↔ agent).
	 */
	async changes(page) {
		await linkBilling(page);
		const file = page.locator('[id="workbench.view.scm"] .monaco-list-row', { hasText: 'billing.ts' }).first();
		await file.waitFor({ state: 'visible', timeout: 60_000 });
		await file.click();
		await page
			.locator('.tabs-container .tab', { hasText: 'billing.ts (local ↔ Refactor billing module)' })
			.first()
			.waitFor({ state: 'visible', timeout: 30_000 });
		await page.locator('.monaco-diff-editor .view-lines').first().waitFor({ state: 'visible', timeout: 30_000 });
		await page.waitForTimeout(1500);
	},
	/**
	 * Review (issue 46): the billing agent linked to the window's folder, billing.ts open as a diff, a
	 * comment added on the agent's side with VS Code's comment UI; the Comments panel lists it.
	 */
	async review(page) {
		await linkBilling(page);
		const file = page.locator('[id="workbench.view.scm"] .monaco-list-row', { hasText: 'billing.ts' }).first();
		await file.waitFor({ state: 'visible', timeout: 60_000 });
		await file.click();
		const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines').first();
		await modified.waitFor({ state: 'visible', timeout: 30_000 });
		await palette(page, 'Notifications: Clear All Notifications');
		const form = page.locator('.review-widget .comment-form').last();
		// The comment ranges come with the review code, loaded with the agent's file: asked again until offered (bounded).
		for (let attempt = 1; attempt <= 5 && !(await form.isVisible()); attempt++) {
			await modified.click();
			await page.keyboard.press('Control+Home');
			for (let i = 0; i < 3; i++) {
				await page.keyboard.press('ArrowDown');
			}
			await page.keyboard.press('Shift+ArrowDown');
			await page.keyboard.press('Shift+ArrowDown');
			await palette(page, 'Comments: Add Comment on Current Selection');
			await form.waitFor({ state: 'visible', timeout: 5_000 }).catch(() => {});
		}
		await form.locator('.monaco-editor, textarea').first().click();
		await page.keyboard.type('Round half to even here, and reuse roundCents from src/lib/util.ts.');
		await page.keyboard.press('Control+Enter');
		await page
			.locator('.review-widget .comment-body', { hasText: 'Round half to even' })
			.first()
			.waitFor({ state: 'visible', timeout: 15_000 });
		await palette(page, 'Comments: Focus on Comments View');
		await page.waitForTimeout(1500);
	},
	/**
	 * Continue in Cloud (issue 46): the billing agent linked to the window's folder, then "Continue in
	 * Cloud…" from the palette: the changed files offered, all selected.
	 */
	async 'continue-in-cloud'(page) {
		await linkBilling(page);
		await page
			.locator('[id="workbench.view.scm"] .monaco-list-row', { hasText: 'billing.ts' })
			.first()
			.waitFor({ state: 'visible', timeout: 60_000 });
		await palette(page, 'Notifications: Clear All Notifications');
		await palette(page, 'Cloud Agents: Continue in Cloud');
		await page
			.locator('.quick-input-list .monaco-list-row', { hasText: 'Refactor billing module' })
			.first()
			.waitFor({ state: 'visible', timeout: 30_000 });
		await page.locator('.quick-input-widget input').fill('Refactor billing module');
		await page.keyboard.press('Enter');
		await page
			.locator(
				'.quick-input-widget .quick-input-list .monaco-list-row .monaco-checkbox, .quick-input-widget .quick-input-list input[type="checkbox"]',
			)
			.first()
			.waitFor({ state: 'visible', timeout: 60_000 });
		await page.waitForTimeout(1000);
	},
	/**
	 * Activity (issue 45): runs started through the API that end (one succeeds, one fails) and a
	 * GitHub authorization request, listed unread with the badge on the Cloud Agents icon.
	 */
	async activity(page, { emulatorUrl }) {
		await openCloudAgents(page);
		for (const title of ['Runs', 'Runtimes', 'Artifacts', 'Account']) {
			await setExpanded(page, title, false);
		}
		await setExpanded(page, 'Activity', true);
		const { agents } = await api(emulatorUrl, 'GET', '/v2/agents?limit=100');
		const agent = agents.find((a) => a.name === 'Docs writer');
		const enc = encodeURIComponent(agent.id);
		await palette(page, 'Cloud Agents: Check Activity Now');
		const ok = await api(emulatorUrl, 'POST', `/v2/agents/${enc}/runs`, { prompt: 'Update the API reference [[hold]]' });
		await palette(page, 'Cloud Agents: Check Activity Now');
		await api(emulatorUrl, 'POST', `/_emulator/runs/${encodeURIComponent(ok.id)}/release`);
		await api(emulatorUrl, 'POST', '/_emulator/github/authorization-requests', {
			requested_by: agent.name,
			reason: 'Open a pull request with the updated docs',
			authorization_url: 'https://github.com/login/oauth/authorize?client_id=demo',
		});
		await page.waitForTimeout(1500);
		await palette(page, 'Cloud Agents: Check Activity Now');
		await pane(page, 'Activity')
			.locator('.monaco-list-row', { hasText: 'asks for GitHub access' })
			.first()
			.waitFor({ state: 'visible', timeout: 30_000 });
		await page.waitForTimeout(1500);
	},
	/** Runtimes with names, status and resources; a runtime's details open by name. */
	async runtimes(page) {
		await openCloudAgents(page);
		const p = pane(page, 'Runtimes');
		const row = p.locator('.monaco-list-row', { hasText: 'atlas-dev' }).first();
		await row.waitFor({ state: 'visible', timeout: 30_000 });
		await row.click();
		await page.locator('.tabs-container .tab', { hasText: 'atlas-dev' }).first().waitFor({ state: 'visible', timeout: 20_000 });
	},
	/** The Account view with its groups opened (the other views collapsed), an image's details open. */
	async account(page) {
		await openCloudAgents(page);
		for (const title of ['Agents', 'Runs', 'Runtimes', 'Artifacts']) {
			await setExpanded(page, title, false);
		}
		await setExpanded(page, 'Account', true);
		const p = pane(page, 'Account');
		// Bottom up, so that opening a group does not push the next one out of sight.
		for (const group of ['GitHub Requests', 'Checkpoints', 'Image builds', 'Images']) {
			const row = p.locator('.monaco-list-row', { hasText: group }).first();
			await row.waitFor({ state: 'visible', timeout: 30_000 });
			if ((await row.getAttribute('aria-expanded')) !== 'true') {
				await row.click();
				await page.waitForTimeout(1500);
			}
		}
		const image = p.locator('.monaco-list-row', { hasText: 'Python ML toolchain' }).first();
		await image.waitFor({ state: 'visible', timeout: 30_000 });
		await image.click();
		await page
			.locator('.tabs-container .tab', { hasText: 'Python ML toolchain' })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
	},
	/** The agent's computer in an editor tab (noVNC against the emulator's desktop). */
	async computer(page) {
		await openCloudAgents(page);
		const row = pane(page, 'Agents').locator('.monaco-list-row', { hasText: 'Docs writer' }).first();
		await row.click();
		await palette(page, 'Cloud Agents: Open Computer');
		const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Docs writer' }).first();
		if (
			await pick.waitFor({ state: 'visible', timeout: 10_000 }).then(
				() => true,
				() => false,
			)
		) {
			await page.locator('.quick-input-widget input').fill('Docs writer');
			await page.keyboard.press('Enter');
		}
		await page
			.locator('.tabs-container .tab', { hasText: 'Computer — Docs writer' })
			.first()
			.waitFor({ state: 'visible', timeout: 60_000 });
		await page.locator('iframe.webview').first().waitFor({ state: 'attached', timeout: 30_000 });
		await page.waitForTimeout(4000);
	},
	/** The Token Savings dashboard. */
	async 'token-savings'(page) {
		await openCloudAgents(page);
		await palette(page, 'Cloud Agents: Open Token Savings');
		await page.locator('.tabs-container .tab', { hasText: 'Token Savings' }).first().waitFor({ state: 'visible', timeout: 30_000 });
		await page.waitForTimeout(4000);
	},
};

const demo = await startDemo();
let failed = 0;
let browser;
try {
	ensureSystemPackages({ browser: true, build: false });
	browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
	mkdirSync(OUT, { recursive: true });
	for (const [name, take] of Object.entries(SHOTS)) {
		if (only && !name.includes(only)) {
			continue;
		}
		// A fresh page per picture (same demo): nothing left open from the one before.
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await context.newPage();
		try {
			await page.goto(demo.url);
			await page.locator('.monaco-workbench .activitybar').waitFor({ state: 'visible', timeout: 120_000 });
			await page.waitForTimeout(1500);
			// A picture may leave something to undo once it is taken (deployments: settings, an emulator).
			const after = await take(page, { emulatorUrl: demo.emulatorUrl });
			try {
				await page.waitForTimeout(800);
				await page.screenshot({ path: join(OUT, `${name}.png`) });
			} finally {
				await after?.();
			}
			log(`docs/images/${name}.png`);
		} catch (err) {
			failed++;
			console.error(`${name}: ${err.message}`);
			await page.screenshot({ path: join(ROOT, 'test-results', `FAILED-screenshot-${name}.png`) }).catch(() => {});
		} finally {
			await context.close();
		}
	}
} finally {
	await browser?.close();
	demo.stop();
}
process.exit(failed ? 1 : 0);
