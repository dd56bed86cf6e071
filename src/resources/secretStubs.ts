import * as vscode from 'vscode';
import { ApiError, LIMITS, SAFETY } from '../api';
import type { CreateSecretStubRequest, Runtime, SecretStub } from '../api';
import { decodeStubConfig, parseStubConfig } from '../api/decode';
import { MultiStepInput } from '../views/multiStep';
import type { InputStep } from '../views/multiStep';
import { describeError, isAuthFailure, isCancellation } from '../messages/errors';
import { iconSafe } from '../util/text';
import type { ActionKit, RecordAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip } from '../views/format';
import { RecordNode } from '../views';
import { argFlag, argString, confirmUnlessTold, displayName, pickItem } from '../views/ui';
import { runtimesList } from './runtimes';
import { secretsList, usedByStubs } from './secrets';
import type { RuntimeTarget } from './runtimes';

/** How a secret stub injects its secret, read from its `stub_config_json`. */
export interface StubShape {
	kind: 'header' | 'query' | 'file' | 'other' | 'unreadable';
	headerName?: string;
	paramName?: string;
	filePath?: string;
	/** The value template (never a secret value: `${credential}` or `{value}` stand for it). */
	template?: string;
}

/** Reads a stub's configuration (decoded by src/api/decode.ts `decodeStubConfig`); never throws. */
export function stubShape(stub: SecretStub): StubShape {
	const config = decodeStubConfig(stub.stub_config_json);
	if (!config) {
		return { kind: 'unreadable' };
	}
	const { filePath } = config;
	if (config.headerName !== undefined) {
		return { kind: 'header', headerName: config.headerName, filePath, template: config.valueFormat ?? config.value };
	}
	if (config.paramName !== undefined) {
		return { kind: 'query', paramName: config.paramName, filePath, template: config.paramFormat ?? config.value };
	}
	if (filePath !== undefined) {
		return { kind: 'file', filePath };
	}
	return { kind: 'other' };
}

/** A stub's shape in a few words: "header Authorization", "query ?key", "file /home/…". */
export function stubShapeText(shape: StubShape): string {
	switch (shape.kind) {
		case 'header':
			return joinParts(
				vscode.l10n.t('header {0}', shape.headerName ?? ''),
				shape.filePath !== undefined && vscode.l10n.t('file {0}', shape.filePath),
			);
		case 'query':
			return joinParts(
				vscode.l10n.t('query ?{0}', shape.paramName ?? ''),
				shape.filePath !== undefined && vscode.l10n.t('file {0}', shape.filePath),
			);
		case 'file':
			return vscode.l10n.t('file {0}', shape.filePath ?? '');
		case 'other':
			return vscode.l10n.t('other shape');
		case 'unreadable':
			return vscode.l10n.t('configuration unreadable');
	}
}

/** A stub in a few words for picks, questions and messages: "api.example.com /v1/* (header Authorization)". */
function stubWords(stub: SecretStub): string {
	const path = stub.path_pattern !== undefined && stub.path_pattern !== '*' ? ` ${stub.path_pattern}` : '';
	return `${stub.host_pattern || stub.id}${path} (${stubShapeText(stubShape(stub))})`;
}

/** What a secret stub command receives: the stub, and the runtime when the row hangs under one. */
export interface SecretStubTarget {
	stub: SecretStub;
	/** The runtime's id (runtime-scoped rows: the runtime route deletes it); undefined in the Account view. */
	runtimeId?: string;
}

/** The row of a stub: host and path patterns; the secret and the shape in the description. */
function stubRow(stub: SecretStub, scope: 'runtime' | 'global'): ReturnType<ListDescriptor<SecretStub, SecretStubTarget, unknown>['row']> {
	const shape = stubShape(stub);
	const host = stub.host_pattern ?? '';
	const path = stub.path_pattern;
	const secret = stub.stub_value_display_name;
	const runtime = stub.runtime_display_name;
	return {
		label: path && path !== '*' ? `${host} ${path}` : host || stub.id,
		description: joinParts(secret, stubShapeText(shape), scope === 'global' && runtime),
		icon: new vscode.ThemeIcon('key'),
		contextValue: `secretStub:${scope}`,
		tooltip: plainTooltip(vscode.l10n.t('Secret stub'), [
			[vscode.l10n.t('Host pattern'), host],
			[vscode.l10n.t('Path pattern'), path],
			[vscode.l10n.t('Injects'), stubShapeText(shape)],
			[vscode.l10n.t('Value template'), shape.template],
			[vscode.l10n.t('Secret'), secret],
			[vscode.l10n.t('Runtime'), runtime],
			[vscode.l10n.t('ID'), stub.id],
		]),
		command: { command: 'cloudAgents.secretStubs.showDetails', title: vscode.l10n.t('Show Secret Stub Details') },
	};
}

/** The stubs of one runtime: the service lists every stub with its runtime's name (no runtime id). */
export function stubsOfRuntime(stubs: readonly SecretStub[], runtime: Pick<Runtime, 'display_name'>): SecretStub[] {
	return stubs.filter((s) => s.runtime_display_name === runtime.display_name);
}

/**
 * The secret stubs of a runtime, under its row in the Runtimes view (GET /v1/secret-stubs, the ones
 * naming the runtime). Rows `secretStub:runtime`; a click shows the stub's record; "Delete Secret
 * Stub…" uses the runtime route.
 */
export const runtimeSecretStubsList: ListDescriptor<SecretStub, SecretStubTarget, Runtime> = {
	key: 'runtimeSecretStubs',
	kind: 'secretStub',
	parent: { as: 'children', of: runtimesList },
	title: () => vscode.l10n.t('Secret Stubs'),
	source: {
		list: async (ctx, request, runtime) => ({
			items: stubsOfRuntime(await ctx.client().listSecretStubs({ signal: request.signal }), runtime),
			more: false,
		}),
	},
	keyOf: (stub) => stub.id,
	fields: (stub, parentKey) => ({ stub, runtimeId: parentKey }),
	row: (stub) => stubRow(stub, 'runtime'),
	empty: () => ({
		label: vscode.l10n.t('No secret stubs'),
		tooltip: vscode.l10n.t(
			'Secret stubs inject a secret into matching egress requests of this runtime. Use "Add Secret Stub…" on the runtime.',
		),
		command: { command: 'cloudAgents.secretStubs.create', title: vscode.l10n.t('Add Secret Stub…') },
	}),
};

/**
 * Every secret stub of the organization (the Account view's "Secret Stubs" group, GET
 * /v1/secret-stubs): rows `secretStub:global`, deleted through the global route. The palette and
 * automation (`{stubId}`, or the id as a string) find a stub in the same listing.
 */
export const secretStubsList: ListDescriptor<SecretStub, SecretStubTarget, unknown> = {
	key: 'secretStubs',
	kind: 'secretStub',
	title: () => vscode.l10n.t('Secret Stubs'),
	commands: { refresh: 'cloudAgents.secretStubs.refresh' },
	source: { list: async (ctx, request) => ({ items: await ctx.client().listSecretStubs({ signal: request.signal }), more: false }) },
	keyOf: (stub) => stub.id,
	fields: (stub) => ({ stub }),
	row: (stub) => stubRow(stub, 'global'),
	empty: () => ({
		label: vscode.l10n.t('No secret stubs'),
		tooltip: vscode.l10n.t(
			'Secret stubs inject a secret into matching egress requests of a runtime. Add one with "Add Secret Stub…" on a runtime.',
		),
		command: { command: 'cloudAgents.secretStubs.create', title: vscode.l10n.t('Add Secret Stub…') },
	}),
	target: {
		idField: 'stubId',
		// The service has no read of one stub: the listing (a single request) is searched.
		get: async (ctx, id) => (await ctx.client().listSecretStubs()).find((s) => s.id === id),
		choices: (ctx) => ctx.client().listSecretStubs(),
		pickText: (stub) => ({
			label: stubWords(stub),
			description: joinParts(stub.stub_value_display_name, stub.runtime_display_name),
			detail: stub.id,
		}),
		placeholder: () => vscode.l10n.t('Pick a secret stub'),
		matchOnDetail: false,
		notFound: (id) => vscode.l10n.t('The secret stub {0} was not found.', id),
	},
};

/** How a stub injects its secret. */
export type StubShapeKind = 'header' | 'query' | 'file';

/** The answers of "Add Secret Stub…" (also the automation object's members). */
export interface StubAnswers {
	host: string;
	/** Empty: no path pattern (null is sent). */
	path: string;
	shape: StubShapeKind;
	headerName: string;
	/** The header value template; empty: the secret as is. */
	valueFormat: string;
	paramName: string;
	/** The query parameter value template; empty: the secret as is. */
	paramFormat: string;
	/** Where the runtime gets the decrypted secret as a file; empty: no file (required for `file`). */
	filePath: string;
	/** The secret's display name or UUID. */
	secret: string;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A header field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A host pattern: names, wildcards, IPv4/IPv6 literals and a port. No scheme, path or space. */
const HOST_PATTERN = /^[A-Za-z0-9.*\-_:[\]]+$/;
const PLACEHOLDERS = ['${credential}', '{value}'];

/**
 * The checks of each answer, step by step, before anything is sent (service-api.md "Secret stub"
 * and LIMITS): a message for the user, or undefined when the answer may be sent.
 */
export const checkStub = {
	host(this: void, value: string): string | undefined {
		const v = value.trim();
		if (v.length === 0) {
			return vscode.l10n.t('Enter the host pattern requests must match, for example api.example.com or *.example.com.');
		}
		if (v.length > LIMITS.secretStubHostMaxChars) {
			return vscode.l10n.t('A host pattern has at most {0} characters.', LIMITS.secretStubHostMaxChars);
		}
		if (v.includes('://') || v.includes('/')) {
			return vscode.l10n.t('Only the host: no scheme (https://) and no path (the next step asks for the path).');
		}
		if (!HOST_PATTERN.test(v)) {
			return vscode.l10n.t('A host pattern has letters, digits, dots, dashes, * wildcards and an optional :port, no spaces.');
		}
		return undefined;
	},
	path(this: void, value: string): string | undefined {
		const v = value.trim();
		if (v === '') {
			return undefined;
		}
		if (!v.startsWith('/') && !v.startsWith('*')) {
			return vscode.l10n.t('A path pattern starts with / (or * for any path); leave it empty to match every path.');
		}
		if (/\s/.test(v) || CONTROL.test(v)) {
			return vscode.l10n.t('A path pattern has no spaces or control characters.');
		}
		return undefined;
	},
	headerName(this: void, value: string): string | undefined {
		const v = value.trim();
		if (v.length < LIMITS.secretStubNameMinChars) {
			return vscode.l10n.t('Enter the header name, for example Authorization.');
		}
		return TOKEN.test(v)
			? undefined
			: vscode.l10n.t("A header name has letters, digits and !#$%&'*+.^_`|~- only (no spaces or colons).");
	},
	paramName(this: void, value: string): string | undefined {
		const v = value.trim();
		if (v.length < LIMITS.secretStubNameMinChars) {
			return vscode.l10n.t('Enter the query parameter name, for example api_key.');
		}
		return /[\s&=#?]/.test(v) || CONTROL.test(v)
			? vscode.l10n.t('A query parameter name has no spaces and none of & = # ?.')
			: undefined;
	},
	template(this: void, value: string): string | undefined {
		if (value === '') {
			return undefined;
		}
		if (CONTROL.test(value)) {
			return vscode.l10n.t('A value template has no line breaks or control characters.');
		}
		return PLACEHOLDERS.some((p) => value.includes(p))
			? undefined
			: vscode.l10n.t(
					'Put ${credential} (or {value}) where the secret goes, for example Bearer ${credential}; leave it empty to send the secret as is.',
				);
	},
	filePath(this: void, value: string, required: boolean): string | undefined {
		const v = value.trim();
		if (v === '') {
			return required
				? vscode.l10n.t(
						'Enter the absolute path in the runtime where the secret is written, for example /home/agent/.config/token.',
					)
				: undefined;
		}
		if (!v.startsWith('/')) {
			return vscode.l10n.t('The delivery path is an absolute path in the runtime (it starts with /).');
		}
		return CONTROL.test(v) ? vscode.l10n.t('A path has no control characters.') : undefined;
	},
	secret(this: void, value: string): string | undefined {
		const v = value.trim();
		if (v === '') {
			return vscode.l10n.t("Enter the secret's display name or UUID.");
		}
		return v.length > SAFETY.idMaxChars || CONTROL.test(v) ? vscode.l10n.t('Not a secret name or UUID.') : undefined;
	},
};

/** Checks every answer (automation, and once more after the steps); throws the first problem. */
export function stubRequest(a: StubAnswers): CreateSecretStubRequest {
	const problems: Array<[string, string | undefined]> = [
		['host', checkStub.host(a.host)],
		['path', checkStub.path(a.path)],
		['shape', ['header', 'query', 'file'].includes(a.shape) ? undefined : vscode.l10n.t('The shape is header, query or file.')],
		...(a.shape === 'header'
			? ([
					['headerName', checkStub.headerName(a.headerName)],
					['valueFormat', checkStub.template(a.valueFormat)],
				] as Array<[string, string | undefined]>)
			: []),
		...(a.shape === 'query'
			? ([
					['paramName', checkStub.paramName(a.paramName)],
					['paramFormat', checkStub.template(a.paramFormat)],
				] as Array<[string, string | undefined]>)
			: []),
		['filePath', checkStub.filePath(a.filePath, a.shape === 'file')],
		['secret', checkStub.secret(a.secret)],
	];
	const bad = problems.find(([, m]) => m !== undefined);
	if (bad) {
		throw new Error(vscode.l10n.t('Not sent: {0}: {1}', bad[0], bad[1]!));
	}
	const filePath = a.filePath.trim();
	let config: CreateSecretStubRequest['config'];
	if (a.shape === 'header') {
		config = {
			headerName: a.headerName.trim(),
			...(a.valueFormat !== '' ? { valueFormat: a.valueFormat } : {}),
			...(filePath !== '' ? { filePath } : {}),
		};
	} else if (a.shape === 'query') {
		config = {
			paramName: a.paramName.trim(),
			...(a.paramFormat !== '' ? { paramFormat: a.paramFormat } : {}),
			...(filePath !== '' ? { filePath } : {}),
		};
	} else {
		config = { filePath };
	}
	const path = a.path.trim();
	return { host: a.host.trim(), path: path === '' ? null : path, config, stub_value: a.secret.trim() };
}

/** The answers an automation object gives (missing members empty); `stubRequest` checks them all. */
function answersFrom(arg: unknown): StubAnswers {
	const s = (name: string): string => argString(arg, name) ?? '';
	return {
		host: s('host'),
		path: s('path'),
		// Checked by stubRequest (an unknown shape is refused there, with the others' problems).
		shape: (s('shape') || 'header') as StubShapeKind,
		headerName: s('headerName'),
		valueFormat: s('valueFormat'),
		paramName: s('paramName'),
		paramFormat: s('paramFormat'),
		filePath: s('filePath'),
		secret: s('secret'),
	};
}

interface SecretItem extends vscode.QuickPickItem {
	ref: string;
}

/** The steps of "Add Secret Stub…", by what they ask. */
export type StubStep = 'host' | 'path' | 'shape' | 'name' | 'template' | 'file' | 'secret';

/** A value the service refused: the step that asked for it, and the service's words (with its request id). */
export interface StubRefusal {
	step: StubStep;
	message: string;
}

/**
 * The step whose answer the service refused, from the field it names (`error.details`, or a
 * message "stub_value: no secret …"); undefined when the refusal names no field of the form.
 */
export function refusedStep(err: unknown): StubStep | undefined {
	if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.isAuthFailure) {
		return undefined;
	}
	const fields = [...err.fieldErrors.map((f) => f.field), /^\s*([A-Za-z_][\w.[\]]*)\s*:/.exec(err.message)?.[1]];
	for (const field of fields) {
		const name = field?.replace(/^(body|config)[.[]/, '').replace(/\]$/, '');
		switch (name) {
			case 'host':
			case 'host_pattern':
				return 'host';
			case 'path':
			case 'path_pattern':
				return 'path';
			case 'config':
				return 'shape';
			case 'headerName':
			case 'paramName':
				return 'name';
			case 'valueFormat':
			case 'paramFormat':
			case 'value':
				return 'template';
			case 'filePath':
				return 'file';
			case 'stub_value':
			case 'secret':
				return 'secret';
			default:
				break;
		}
	}
	// A 404 naming no field, from a create that found its runtime: the secret is what was not found.
	return err.status === 404 && /secret/i.test(err.message) ? 'secret' : undefined;
}

/**
 * Where the form reopens after `err`, with what it says there: at the step whose answer the service
 * refused, with its words; a failure that names no answer (a general 422, a 409, an outage) at the
 * last step, where Enter sends every kept answer again. A refused token or a cancellation is
 * rethrown: the session asks to sign in again, and a cancelled send needs no message.
 */
function reopenedAfter(err: unknown): StubRefusal {
	if (isCancellation(err) || isAuthFailure(err)) {
		throw err;
	}
	const step = refusedStep(err);
	return step !== undefined
		? { step, message: vscode.l10n.t('The service refused this: {0}', describeError(err)) }
		: { step: 'secret', message: vscode.l10n.t('Not added (Enter sends again, Back changes an answer): {0}', describeError(err)) };
}

/** The answers of a form not yet answered. */
function emptyAnswers(): StubAnswers {
	return {
		host: '',
		path: '',
		shape: 'header',
		headerName: '',
		valueFormat: '',
		paramName: '',
		paramFormat: '',
		filePath: '',
		secret: '',
	};
}

/** What every step of the Add Secret Stub form shares. */
interface StubForm {
	readonly kit: ActionKit;
	readonly title: string;
	/** The answers so far (each step writes its own). */
	readonly a: StubAnswers;
	/** The service's refusal of the last try, shown once on its step. */
	refused: StubRefusal | undefined;
	/** What reading each secret name or UUID checked in this form said ('unchecked': the read failed otherwise than 404). */
	readonly checked: Map<string, 'exists' | 'missing' | 'unchecked'>;
	/** The secrets stubs already use, with how many use each, loaded once in the background for the last step. */
	readonly known: Promise<Array<[string, number]>>;
}

/** The service's refusal, shown once on its step (the step shown again later has its own checks only). */
function refusalOf(form: StubForm, step: StubStep): string | undefined {
	if (form.refused?.step !== step) {
		return undefined;
	}
	const { message } = form.refused;
	form.refused = undefined;
	return message;
}

/** The refusal of an input box or placeholder: server text on one line, `$(` shown as typed. */
function shownRefusal(form: StubForm, step: StubStep): string | undefined {
	const message = refusalOf(form, step);
	return message === undefined ? undefined : iconSafe(message, SAFETY.notificationMaxChars);
}

/** How many steps the form has for these answers (a file-only stub has no name and template). */
function totalSteps(a: StubAnswers): number {
	return a.shape === 'file' ? 5 : 7;
}

/** The secrets stubs already use, by display name, with how many use each; none when the listing fails. */
function secretsInUse(kit: ActionKit): Promise<Array<[string, number]>> {
	return kit
		.client()
		.listSecretStubs()
		.then(
			(stubs) => {
				const names = new Map<string, number>();
				for (const stub of stubs) {
					const name = stub.stub_value_display_name;
					if (name !== undefined && name !== '') {
						names.set(name, (names.get(name) ?? 0) + 1);
					}
				}
				return [...names].sort(([x], [y]) => x.localeCompare(y));
			},
			(err: unknown) => {
				kit.log.warn(`Listing secret stubs for the secret step failed: ${describeError(err)}`);
				return [] as Array<[string, number]>;
			},
		);
}

/** Step 1: the host pattern egress requests must match. */
function hostStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title } = form;
	return async (input) => {
		a.host = (
			await input.showInputBox({
				title,
				step: 1,
				totalSteps: totalSteps(a),
				value: a.host,
				prompt: vscode.l10n.t('The host pattern egress requests must match before the secret is injected.'),
				placeholder: 'api.example.com',
				validate: checkStub.host,
				remember: (v) => (a.host = v),
				refusal: shownRefusal(form, 'host'),
			})
		).trim();
		return pathStep(form);
	};
}

/** Step 2: the path pattern (optional). */
function pathStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title } = form;
	return async (input) => {
		a.path = (
			await input.showInputBox({
				title,
				step: 2,
				totalSteps: totalSteps(a),
				value: a.path,
				prompt: vscode.l10n.t('Optional: the path pattern requests must also match (e.g. /v1/*). Leave empty for every path.'),
				placeholder: '/v1/*',
				validate: checkStub.path,
				remember: (v) => (a.path = v),
				refusal: shownRefusal(form, 'path'),
			})
		).trim();
		return shapeStep(form);
	};
}

/** Step 3: how the secret is injected: a header, a query parameter or a file only. */
function shapeStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title } = form;
	return async (input) => {
		const items: Array<vscode.QuickPickItem & { shape: StubShapeKind }> = [
			{ label: vscode.l10n.t('Header'), description: vscode.l10n.t('a request header carries the secret'), shape: 'header' },
			{ label: vscode.l10n.t('Query parameter'), description: vscode.l10n.t('a query parameter carries the secret'), shape: 'query' },
			{
				label: vscode.l10n.t('File only'),
				description: vscode.l10n.t('the secret is written to a file in the runtime'),
				shape: 'file',
			},
		];
		const picked = await input.showQuickPick({
			title,
			step: 3,
			totalSteps: totalSteps(a),
			items,
			activeItem: items.find((i) => i.shape === a.shape),
			placeholder: shownRefusal(form, 'shape') ?? vscode.l10n.t('How is the secret injected?'),
		});
		a.shape = picked.shape;
		return a.shape === 'file' ? fileStep(form) : nameStep(form);
	};
}

/** Step 4 (header or query): the header or parameter that carries the secret. */
function nameStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title } = form;
	return async (input) => {
		const header = a.shape === 'header';
		const value = (
			await input.showInputBox({
				title,
				step: 4,
				totalSteps: totalSteps(a),
				value: header ? a.headerName : a.paramName,
				prompt: header
					? vscode.l10n.t('The header that carries the secret.')
					: vscode.l10n.t('The query parameter that carries the secret.'),
				placeholder: header ? 'Authorization' : 'api_key',
				validate: header ? checkStub.headerName : checkStub.paramName,
				remember: (v) => (header ? (a.headerName = v) : (a.paramName = v)),
				refusal: shownRefusal(form, 'name'),
			})
		).trim();
		if (header) {
			a.headerName = value;
		} else {
			a.paramName = value;
		}
		return templateStep(form);
	};
}

/** Step 5 (header or query): the value's template, `${credential}` where the secret goes (optional). */
function templateStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title } = form;
	return async (input) => {
		const header = a.shape === 'header';
		const value = await input.showInputBox({
			title,
			step: 5,
			totalSteps: totalSteps(a),
			value: header ? a.valueFormat : a.paramFormat,
			prompt: header
				? vscode.l10n.t(
						'Optional: the header value, with ${credential} where the secret goes (e.g. Bearer ${credential}). Empty sends the secret as is.',
					)
				: vscode.l10n.t('Optional: the parameter value, with ${credential} where the secret goes. Empty sends the secret as is.'),
			placeholder: header ? 'Bearer ${credential}' : '${credential}',
			validate: checkStub.template,
			remember: (v) => (header ? (a.valueFormat = v) : (a.paramFormat = v)),
			refusal: shownRefusal(form, 'template'),
		});
		if (header) {
			a.valueFormat = value;
		} else {
			a.paramFormat = value;
		}
		return fileStep(form);
	};
}

/** Step 6, or 4 for a file only: the path in the runtime the decrypted secret is written to (optional but for a file only). */
function fileStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title } = form;
	return async (input) => {
		const required = a.shape === 'file';
		a.filePath = (
			await input.showInputBox({
				title,
				step: required ? 4 : 6,
				totalSteps: totalSteps(a),
				value: a.filePath,
				prompt: required
					? vscode.l10n.t('The absolute path in the runtime where the decrypted secret is written.')
					: vscode.l10n.t(
							'Optional: also write the decrypted secret to this absolute path in the runtime. Leave empty for none.',
						),
				placeholder: '/home/agent/.config/token',
				validate: (v) => checkStub.filePath(v, required),
				remember: (v) => (a.filePath = v),
				refusal: shownRefusal(form, 'file'),
			})
		).trim();
		return secretStep(form);
	};
}

/** The last step: the secret, by display name or UUID, checked by reading it before anything is sent. */
function secretStep(form: StubForm): InputStep<StubAnswers> {
	const { a, title, kit, checked, known } = form;
	return async (input) => {
		/** Why a name or UUID cannot be used (the service's refusal, or its answer to the check), shown on its item. */
		const notices = new Map<string, string>();
		const refusal = refusalOf(form, 'secret');
		if (refusal !== undefined) {
			notices.set(a.secret, refusal);
		}
		// The reason goes on a line of its own (the item's detail, with an error icon): pickItem escapes
		// `$(` in its text, so an icon written into the text would show as the literal "$(error)", and the
		// description's single line cut the reason short.
		const described = (ref: string, label: string, description: string, extra: { ref: string; alwaysShow?: boolean }): SecretItem => {
			const notice = notices.get(ref);
			const item = pickItem({ label, description, detail: notice }, extra);
			return notice !== undefined ? { ...item, iconPath: new vscode.ThemeIcon('error') } : item;
		};
		const typed = (value: string): SecretItem | undefined =>
			checkStub.secret(value) === undefined
				? described(value.trim(), value.trim(), vscode.l10n.t('the name or UUID you typed'), {
						ref: value.trim(),
						alwaysShow: true,
					})
				: undefined;
		let usedNames: Array<[string, number]> = [];
		let pickShown: vscode.QuickPick<SecretItem> | undefined;
		const refill = (): void => {
			const pick = pickShown;
			if (!pick) {
				return;
			}
			const t = typed(pick.value);
			const used = usedNames
				.filter(([name]) => name !== t?.ref)
				.map(([name, n]) => described(name, name, usedByStubs(n), { ref: name }));
			pick.items = t ? [t, ...used] : used;
		};
		/**
		 * Reads the secret by name or UUID before anything is sent: one that does not exist keeps the
		 * step open with the reason on its item; a check that could not be made lets a second Enter
		 * through (the service decides).
		 */
		const check = async (item: SecretItem): Promise<boolean> => {
			const before = checked.get(item.ref);
			if (before === 'exists' || before === 'unchecked') {
				return true;
			}
			try {
				await kit.client().getSecret(item.ref);
				checked.set(item.ref, 'exists');
				notices.delete(item.ref);
				return true;
			} catch (err) {
				const missing = err instanceof ApiError && err.status === 404;
				checked.set(item.ref, missing ? 'missing' : 'unchecked');
				notices.set(
					item.ref,
					missing
						? vscode.l10n.t('No secret has this name or UUID ({0}).', describeError(err))
						: vscode.l10n.t('Could not check the secret: {0}. Press Enter again to send it anyway.', describeError(err)),
				);
				kit.log.warn(`secret stub: checking the secret failed: ${describeError(err)}`);
				refill();
				return false;
			}
		};
		const picked = await input.showQuickPick<SecretItem>({
			title,
			step: totalSteps(a),
			totalSteps: totalSteps(a),
			items: [],
			busy: true,
			placeholder: vscode.l10n.t('The secret: type its display name or UUID, or pick one other stubs use'),
			acceptTyped: typed,
			check,
			onShow: (pick) => {
				pickShown = pick;
				if (a.secret !== '') {
					pick.value = a.secret;
				}
				// What is typed survives Back: the step shows it again when reached anew.
				pick.onDidChangeValue((value) => {
					a.secret = value;
					refill();
				});
				refill();
				void known.then((names) => {
					usedNames = names;
					pick.busy = false;
					refill();
				});
			},
		});
		a.secret = picked.ref;
		return undefined;
	};
}

/** The steps by name, in the form's order. */
const STUB_STEPS: Record<StubStep, (form: StubForm) => InputStep<StubAnswers>> = {
	host: hostStep,
	path: pathStep,
	shape: shapeStep,
	name: nameStep,
	template: templateStep,
	file: fileStep,
	secret: secretStep,
};

/**
 * Asks for the answers step by step, each checked before the next shows (the secret read from the
 * service); undefined when dismissed. With `previous` and `refused`, the form reopens at the step the
 * service refused, every answer kept and the service's words shown on that step.
 */
async function askStub(kit: ActionKit, runtime: Runtime, previous?: StubAnswers, refused?: StubRefusal): Promise<StubAnswers | undefined> {
	const form: StubForm = {
		kit,
		title: vscode.l10n.t('Add Secret Stub to {0}', displayName(runtime.display_name, runtime.id)),
		a: previous ? { ...previous } : emptyAnswers(),
		refused,
		checked: new Map(),
		known: secretsInUse(kit),
	};
	const order: StubStep[] =
		form.a.shape === 'file'
			? ['host', 'path', 'shape', 'file', 'secret']
			: ['host', 'path', 'shape', 'name', 'template', 'file', 'secret'];
	const at = Math.max(0, refused ? order.indexOf(refused.step) : 0);
	const before = order.slice(0, at).map((step) => STUB_STEPS[step](form));
	return (await MultiStepInput.run(STUB_STEPS[order[at]!](form), form.a, before)) ? form.a : undefined;
}

/**
 * Re-reads the lists a stub shows in: under its runtime, the Account view's, and the Secrets group
 * (its rows count the stubs that use each secret).
 */
async function refreshStubLists(kit: ActionKit): Promise<void> {
	await Promise.all([kit.list(runtimesList).refresh(), kit.list(secretStubsList).refresh(), kit.list(secretsList).refresh()]);
}

/**
 * The runtime row a "Secret Stubs" group row hangs under (the group's inline "Add Secret Stub…"),
 * else the argument as it is.
 */
function runtimeRowOf(arg: unknown): unknown {
	if (arg instanceof vscode.TreeItem && !(arg instanceof RecordNode) && 'parentNode' in arg) {
		const parent = arg.parentNode;
		if (parent instanceof RecordNode && parent.descriptor.key === runtimesList.key) {
			return parent;
		}
	}
	return arg;
}

/**
 * "Add Secret Stub…": the answers from automation (when it names a `host`) or a multi-step input
 * checked step by step, checked once more, then one POST. Returns the stub.
 */
async function createStub(runtime: Runtime, kit: ActionKit): Promise<SecretStub | undefined> {
	const send = (request: CreateSecretStubRequest): Thenable<SecretStub> =>
		vscode.window.withProgress(
			{
				location: vscode.ProgressLocation.Notification,
				title: vscode.l10n.t('Adding a secret stub to {0}…', displayName(runtime.display_name, runtime.id)),
			},
			() => kit.client().createSecretStub(runtime.id, request),
		);
	let request: CreateSecretStubRequest;
	let stub: SecretStub;
	if (kit.automation && argString(kit.arg, 'host') !== undefined) {
		request = stubRequest(answersFrom(kit.arg));
		stub = await send(request);
	} else {
		// A value the service refuses reopens the form at its step, every answer kept.
		let answers: StubAnswers | undefined;
		let refused: StubRefusal | undefined;
		for (;;) {
			answers = await askStub(kit, runtime, answers, refused);
			if (!answers) {
				return undefined;
			}
			request = stubRequest(answers);
			try {
				stub = await send(request);
				break;
			} catch (err) {
				refused = reopenedAfter(err);
				kit.log.warn(`secret stub: not added, the form reopens at its ${refused.step} step: ${describeError(err)}`);
			}
		}
	}
	await refreshStubLists(kit);
	if (!argFlag(kit.arg, 'quiet')) {
		kit.info(
			vscode.l10n.t(
				'Added the secret stub {0} to {1}: it injects the secret "{2}".',
				stubWords(stub),
				runtime.display_name,
				stub.stub_value_display_name || request.stub_value,
			),
		);
	}
	return stub;
}

/**
 * "Delete Secret Stub…": asks (modal), then deletes through the runtime route when the stub's
 * runtime is known (its row under a runtime, or `runtimeId` from automation), else the global one.
 */
async function deleteStub(target: SecretStubTarget, kit: ActionKit): Promise<SecretStub | undefined> {
	const { stub } = target;
	const runtimeId = target.runtimeId ?? argString(kit.arg, 'runtimeId');
	const del = vscode.l10n.t('Delete Secret Stub');
	const detail = vscode.l10n.t(
		'Requests of the runtime {0} to {1} no longer get the secret "{2}". The secret itself is kept.',
		stub.runtime_display_name ?? '',
		stubWords(stub),
		stub.stub_value_display_name ?? '',
	);
	if (!(await confirmUnlessTold(kit.arg, vscode.l10n.t('Delete the secret stub {0}?', stubWords(stub)), detail, del))) {
		return undefined;
	}
	await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Deleting the secret stub {0}…', stubWords(stub)) },
		() => (runtimeId !== undefined ? kit.client().deleteRuntimeSecretStub(runtimeId, stub.id) : kit.client().deleteSecretStub(stub.id)),
	);
	await refreshStubLists(kit);
	if (!argFlag(kit.arg, 'quiet')) {
		kit.info(vscode.l10n.t('Deleted the secret stub {0}.', stubWords(stub)));
	}
	return stub;
}

/** "Show Secret Stub Details": the record as read-only JSON, its configuration parsed (`config`). */
function showStubDetails(stub: SecretStub, kit: ActionKit): Promise<vscode.TextDocument> {
	const parsed = parseStubConfig(stub.stub_config_json);
	const doc = { ...stub, config: parsed === undefined ? stub.stub_config_json : parsed };
	return kit.showJson(vscode.l10n.t('Secret Stub {0}', displayName(stubWords(stub))), ['secret-stubs', stub.id], doc);
}

/**
 * What a user can do with secret stubs: "Add Secret Stub…" on a runtime (its row, its "Secret
 * Stubs" group row, or a pick), "Delete Secret Stub…" (modal; the runtime route from a runtime's
 * row, the global route elsewhere) and "Show Secret Stub Details" (read-only JSON), on a row of
 * either stub list, `{stubId, runtimeId?}` from automation, or a pick.
 *
 * Automation: create takes `{runtimeId, host, path?, shape: 'header'|'query'|'file', headerName?,
 * valueFormat?, paramName?, paramFormat?, filePath?, secret, quiet?}` (checked like the steps);
 * delete takes `{stubId, runtimeId?, confirm?: false, quiet?}`; both return the stub.
 */
export const secretStubActions = {
	create: {
		on: runtimesList,
		command: 'cloudAgents.secretStubs.create',
		filter: (r) => r.can_manage !== false,
		targetArg: runtimeRowOf,
		run: ({ runtime }, kit) => createStub(runtime, kit),
	} satisfies RecordAction<Runtime, RuntimeTarget>,
	delete: {
		on: secretStubsList,
		alsoOn: [runtimeSecretStubsList],
		command: 'cloudAgents.secretStubs.delete',
		run: deleteStub,
	} satisfies RecordAction<SecretStub, SecretStubTarget>,
	showDetails: {
		on: secretStubsList,
		alsoOn: [runtimeSecretStubsList],
		command: 'cloudAgents.secretStubs.showDetails',
		run: ({ stub }, kit) => showStubDetails(stub, kit),
	} satisfies RecordAction<SecretStub, SecretStubTarget>,
};
