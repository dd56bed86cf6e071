/** The account label shown for a signed-in user (plain, no vscode: unit-tested). */
import { meLabel } from '../api';
import type { Me } from '../api';

/** Who a token belongs to, for messages and the Accounts menu: the /v2/me label, else the API URL's host. */
export function accountLabel(me: Me | undefined, apiUrl?: string): string {
	const label = meLabel(me);
	if (label !== undefined) {
		return label;
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
