/**
 * The automation contract, in one place: how a program (a language-model tool, a test, another
 * extension) says that it, not a person, runs one of our commands.
 *
 * A command's argument is an automation object only when it says so: a JSON object whose field
 * `automation` is `true` (`{ automation: true, agentId, confirm: false }`; `automation(…)` builds one).
 * Anything else is what a person's click passes — a tree row, a Source Control resource state, group
 * or source control (plain objects too), an Explorer URI, an id, or nothing — and the command treats
 * it so, whatever fields it carries (ids such as `{link, paths}` or `{agentId}` are still read).
 *
 * What the marker changes, applied by the registry (src/views/actionRegistry.ts, registry.ts) and
 * never decided by an action alone:
 * - failures are thrown to the caller instead of shown once as a message;
 * - confirmations are not asked (the caller has decided) and the sign-in prompt is not offered;
 * - messages are not shown: they go to the log, and the command's result carries what they said;
 * - options only a program passes are read: `confirm`, `quiet`, `onConflict`, `localFolder`, ….
 *
 * No `vscode` import: the rule is checked by unit tests in plain Node.
 */
import { isJsonObject } from '../api/validation';

/** The field that marks an automation object. */
export const AUTOMATION_FIELD = 'automation';

/** An automation object: its fields and the marker. */
export type Automation<T extends object = Record<string, unknown>> = T & { readonly automation: true };

/** `fields` as an automation object (the marker added). */
export function automation<T extends object>(fields: T): Automation<T> {
	return { ...fields, automation: true };
}

/** True only for an object that carries the marker (`automation: true`). */
export function isAutomation(arg: unknown): arg is Automation {
	return isJsonObject(arg) && arg[AUTOMATION_FIELD] === true;
}
