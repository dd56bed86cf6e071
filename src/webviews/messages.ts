/**
 * Validation of messages from a webview. A page is less trusted than the extension (it runs
 * noVNC and draws server data), so the extension accepts only the messages a panel's protocol
 * declares: a plain object with a known `type`, exactly the declared fields, each of the declared
 * kind and within its bounds. Anything else is dropped by the caller and logged with the reason.
 * Plain TypeScript (no `vscode`, no Node), shared by the page bundles' protocol modules.
 */

/** One field of a message. Strings and arrays carry a bound; numbers a range. */
export type FieldSpec =
	| { kind: 'string'; maxLength: number; optional?: boolean }
	| { kind: 'number'; min: number; max: number; integer?: boolean; optional?: boolean }
	| { kind: 'boolean'; optional?: boolean }
	| { kind: 'enum'; values: readonly string[]; optional?: boolean };

/** A protocol: for each message `type`, its fields (besides `type`). */
export type MessageSpec = Readonly<Record<string, Readonly<Record<string, FieldSpec>>>>;

/** The outcome of validating one message. */
export type Validated<T> = { ok: true; message: T } | { ok: false; reason: string };

/** A validator for the messages of type `T` (a union discriminated by `type`). */
export type MessageValidator<T extends { type: string }> = (raw: unknown) => Validated<T>;

/** Longest message type name reported back in a reason (the rest is cut). */
const REASON_TEXT_MAX = 40;

function quote(text: string): string {
	return JSON.stringify(text.length > REASON_TEXT_MAX ? `${text.slice(0, REASON_TEXT_MAX)}…` : text);
}

function checkField(name: string, spec: FieldSpec, value: unknown): string | undefined {
	if (value === undefined) {
		return spec.optional ? undefined : `missing field ${quote(name)}`;
	}
	switch (spec.kind) {
		case 'string':
			if (typeof value !== 'string') {
				return `field ${quote(name)} is not a string`;
			}
			return value.length > spec.maxLength ? `field ${quote(name)} is longer than ${spec.maxLength} characters` : undefined;
		case 'number':
			if (typeof value !== 'number' || !Number.isFinite(value)) {
				return `field ${quote(name)} is not a finite number`;
			}
			if (spec.integer && !Number.isSafeInteger(value)) {
				return `field ${quote(name)} is not an integer`;
			}
			return value < spec.min || value > spec.max ? `field ${quote(name)} is outside ${spec.min}..${spec.max}` : undefined;
		case 'boolean':
			return typeof value === 'boolean' ? undefined : `field ${quote(name)} is not a boolean`;
		case 'enum':
			return typeof value === 'string' && spec.values.includes(value)
				? undefined
				: `field ${quote(name)} is not one of ${spec.values.join(', ')}`;
	}
}

/**
 * Builds the validator of a protocol. `T` must match `spec` (the protocol module declares both side
 * by side, and its unit test feeds every message type through). Extra fields are refused, so a page
 * cannot smuggle data past the declared shape.
 */
export function messageValidator<T extends { type: string }>(spec: MessageSpec): MessageValidator<T> {
	return (raw: unknown): Validated<T> => {
		// What postMessage delivers of an object literal: an object whose prototype is Object's (not
		// null, an array, a primitive's wrapper or a class instance).
		if (raw === null || raw === undefined || Object.getPrototypeOf(raw) !== Object.prototype) {
			return { ok: false, reason: 'not a plain object' };
		}
		const obj = raw as Record<string, unknown>;
		const type = obj.type;
		if (typeof type !== 'string') {
			return { ok: false, reason: 'no message type' };
		}
		if (!Object.prototype.hasOwnProperty.call(spec, type)) {
			return { ok: false, reason: `unknown message type ${quote(type)}` };
		}
		const fields = spec[type]!;
		for (const key of Object.keys(obj)) {
			if (key !== 'type' && !Object.prototype.hasOwnProperty.call(fields, key)) {
				return { ok: false, reason: `${quote(type)}: unexpected field ${quote(key)}` };
			}
		}
		for (const [name, field] of Object.entries(fields)) {
			const problem = checkField(name, field, obj[name]);
			if (problem !== undefined) {
				return { ok: false, reason: `${quote(type)}: ${problem}` };
			}
		}
		return { ok: true, message: obj as T };
	};
}
