import type { Frame, Page } from 'playwright-core';
import { SLOWDOWN } from './workbench';

/** Polls `probe` until it returns a value other than undefined (or times out with `what`). */
export async function until<T>(page: Page, what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
	const end = Date.now() + timeoutMs * SLOWDOWN;
	let last: unknown;
	for (;;) {
		try {
			const v = await probe();
			if (v !== undefined) {
				return v;
			}
		} catch (err) {
			last = err;
		}
		if (Date.now() > end) {
			throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
		}
		await page.waitForTimeout(250);
	}
}

/**
 * The page frame of the webview whose document title starts with `title` and which holds `marker`
 * (a selector of our markup). VS Code nests each webview as `iframe.webview` → `#active-frame`;
 * the inner frame is the page we rendered. `not`: a frame to skip (the page before a reconnect).
 */
export async function webviewFrame(page: Page, title: string, marker: string, not?: Frame): Promise<Frame> {
	return until(
		page,
		`the webview page "${title}"`,
		async () => {
			for (const frame of page.frames()) {
				if (frame === not || frame.isDetached() || frame.parentFrame() === null) {
					continue;
				}
				const t = await frame.title().catch(() => '');
				if (t.startsWith(title) && (await frame.locator(marker).count()) === 1) {
					return frame;
				}
			}
			return undefined;
		},
		30_000,
	);
}
