/** The account label shown for a signed-in user (plain, no vscode: unit-tested). */
import type { Me } from '../api';

/** Who a token belongs to, for messages and the Accounts menu. */
export function accountLabel(me: Me | undefined, apiUrl?: string): string {
	// GET /v2/me's members are not shown in the description: take the first plausible one.
	const m = (me ?? {}) as Record<string, unknown>;
	for (const key of ['display_name', 'email', 'name', 'login', 'username', 'user_name', 'id', 'user_id']) {
		const v = m[key];
		if (typeof v === 'string' && v.trim() !== '') {
			return v.trim();
		}
		if (typeof v === 'number' && Number.isFinite(v)) {
			return String(v);
		}
	}
	const nested = m.user ?? m.data;
	if (nested && typeof nested === 'object' && nested !== me) {
		const label = accountLabel(nested as Me);
		if (label !== '') {
			return label;
		}
	}
	if (apiUrl) {
		try {
			return new URL(apiUrl).host;
		} catch {
			// Fall through.
		}
	}
	return '';
}
