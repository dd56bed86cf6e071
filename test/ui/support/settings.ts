/** The workbench's user settings in the UI tests: read from its file, written through its own JSON editor. */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { until } from './webviewPage';
import type { Workbench } from './workbench';

/** The user settings file of the workbench the driver started (scripts/test-integration.mjs: one folder per driver pid). */
export function userSettingsFile(userDataDir: string): string {
	const file = join(userDataDir, 'User', 'settings.json');
	assert.ok(existsSync(file), `the workbench's user settings file was not found at ${file}`);
	return file;
}

/** The settings file's values, or undefined while it does not parse (a save half done). */
export function readSettings(file: string): unknown {
	try {
		return JSON.parse(readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

/**
 * Whether the settings read hold `settings`: every key of it with its value, and no other key of
 * ours (`cloudAgents.*`). VS Code writes settings of its own meanwhile (the reversed UI run of
 * 2026-12-07 found `"remote.autoForwardPortsSource": "hybrid"` added by its port forwarding), and a
 * wait for the exact file never ended.
 */
function holds(read: unknown, settings: Record<string, unknown>): boolean {
	if (read === null || typeof read !== 'object') {
		return false;
	}
	const got = read as Record<string, unknown>;
	return (
		Object.entries(settings).every(([key, value]) => isDeepStrictEqual(got[key], value)) &&
		Object.keys(got).every((key) => key in settings || !key.startsWith('cloudAgents.'))
	);
}

/**
 * Replaces the user settings through the workbench's own JSON editor and saves them (VS Code applies
 * a save at once; a write behind its back may go unnoticed). The text is inserted on one line, so
 * no auto-indent or auto-closing changes it. Returns once the file on disk holds `settings`: on a
 * busy machine the save lands later than the key press, and a write of ours to the file before it
 * lands is what makes the workbench refuse it ("File Modified Since", a dirty settings.json left
 * behind for the next test).
 */
export async function writeSettingsInEditor(workbench: Workbench, file: string, settings: Record<string, unknown>): Promise<void> {
	const page = workbench.page;
	await workbench.runCommand('Preferences: Open User Settings (JSON)');
	const editor = page.locator('.editor-instance .monaco-editor').first();
	await editor.waitFor({ state: 'visible', timeout: 15_000 });
	await editor.click();
	await page.keyboard.press('ControlOrMeta+A');
	await page.keyboard.press('Delete');
	await page.keyboard.insertText(JSON.stringify(settings));
	await page.keyboard.press('ControlOrMeta+S');
	await until(page, 'the user settings saved from the editor', async () => (holds(readSettings(file), settings) ? true : undefined));
	// This VS Code shows settings.json in a modal editor, which Escape closes ("View: Close Modal Editor").
	const modal = page.locator('.modal-editor-part');
	for (let i = 0; i < 5 && (await modal.isVisible().catch(() => false)); i++) {
		await page.keyboard.press('Escape');
		await page.waitForTimeout(300);
	}
	if (
		await page
			.locator('.editor-instance .monaco-editor')
			.first()
			.isVisible()
			.catch(() => false)
	) {
		await workbench.runCommand('View: Close All Editors');
	}
}

/**
 * Puts the user settings back as `originalText` held them: through the editor, and only when that
 * could not (it never saved them) by writing the file (a write of the same values in another layout
 * would race a save still on its way).
 */
export async function restoreSettings(workbench: Workbench, file: string, originalText: string): Promise<void> {
	const original = JSON.parse(originalText) as Record<string, unknown>;
	await writeSettingsInEditor(workbench, file, original).catch(() => undefined);
	if (!holds(readSettings(file), original)) {
		writeFileSync(file, originalText);
	}
}
