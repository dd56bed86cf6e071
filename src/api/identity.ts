/**
 * Who a token belongs to, read from GET /v2/me. The service does not show that record's members, so
 * this takes the first plausible one (see the README's Assumptions): a non-empty string or a finite
 * number under a usual name, else the same inside `user` or `data` (one level).
 */
import { isJsonObject } from './validation';

const LABEL_MEMBERS = ['display_name', 'email', 'name', 'login', 'username', 'user_name', 'id', 'user_id'] as const;

/** The account's label from a /v2/me answer, or undefined when none of its members is plausible. */
export function meLabel(me: unknown, depth = 0): string | undefined {
	if (!isJsonObject(me)) {
		return undefined;
	}
	for (const key of LABEL_MEMBERS) {
		const v: unknown = Reflect.get(me, key);
		if (typeof v === 'string' && v.trim() !== '') {
			return v.trim();
		}
		if (typeof v === 'number' && Number.isFinite(v)) {
			return String(v);
		}
	}
	if (depth > 0) {
		return undefined;
	}
	// `user` first, then `data`: a `user` with no plausible member does not hide `data`'s.
	for (const key of ['user', 'data']) {
		const nested: unknown = Reflect.get(me, key);
		const label = nested === me ? undefined : meLabel(nested, depth + 1);
		if (label !== undefined) {
			return label;
		}
	}
	return undefined;
}
