import * as vscode from 'vscode';
import { LIMITS, SAFETY } from '../api';
import type { CreateSecretStubRequest, Runtime, SecretStub } from '../api';
import { describeError } from '../util/errors';
import { plainText } from '../util/text';
import { RecordNode } from '../views';
import { runtimesList } from '../resources';
import { joinParts } from '../views/format';
import { runtimeSecretStubsList, secretStubsList, stubShape } from '../resources';
import type { SecretStubTarget } from '../resources';
import { stubShapeText } from '../resources/secretStubs';
import { titledRecordUri } from '../views/recordDocuments';
import { MultiStepInput } from './multiStep';
import type { InputStep } from './multiStep';
import { commandRegistrar } from './registry';
import { resolveTarget } from '../views/targets';
import type { FeatureDeps } from './support';
import { argString, displayName, isAutomation, pickItem, pickWhenLoaded, showInfo, showModalWarning } from './support';

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

/** The answers an automation object gives (missing members empty). */
function answersFrom(arg: Record<string, unknown>): StubAnswers {
	const s = (name: string): string => argString(arg, name) ?? '';
	return {
		host: s('host'),
		path: s('path'),
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

/** Asks for the answers step by step, each checked before the next shows; undefined when dismissed. */
async function askStub(deps: FeatureDeps, runtime: Runtime): Promise<StubAnswers | undefined> {
	const title = vscode.l10n.t('Add Secret Stub to {0}', displayName(runtime.display_name, runtime.id));
	const a: StubAnswers = {
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
	const total = (): number => (a.shape === 'file' ? 5 : 7);
	// The secrets stubs already use, loaded once in the background for the last step.
	const known = deps.session.client.listSecretStubs().then(
		(stubs) => {
			const names = new Map<string, number>();
			for (const stub of stubs) {
				const name = (stub as Record<string, unknown>).stub_value_display_name;
				if (typeof name === 'string' && name !== '') {
					names.set(name, (names.get(name) ?? 0) + 1);
				}
			}
			return [...names].sort(([x], [y]) => x.localeCompare(y));
		},
		(err: unknown) => {
			deps.log.warn(`Listing secret stubs for the secret step failed: ${describeError(err)}`);
			return [] as Array<[string, number]>;
		},
	);

	const secretStep: InputStep<StubAnswers> = async (input) => {
		const typed = (value: string): SecretItem | undefined =>
			checkStub.secret(value) === undefined
				? pickItem(
						{ label: value.trim(), description: vscode.l10n.t('the name or UUID you typed') },
						{ ref: value.trim(), alwaysShow: true },
					)
				: undefined;
		const picked = await input.showQuickPick<SecretItem>({
			title,
			step: total(),
			totalSteps: total(),
			items: [],
			busy: true,
			placeholder: vscode.l10n.t('The secret: type its display name or UUID, or pick one other stubs use'),
			acceptTyped: typed,
			onShow: (pick) => {
				let used: SecretItem[] = [];
				const refill = (): void => {
					const t = typed(pick.value);
					pick.items = t && !used.some((u) => u.ref === t.ref) ? [t, ...used] : used;
				};
				pick.onDidChangeValue(refill);
				if (a.secret !== '') {
					pick.value = a.secret;
				}
				void known.then((names) => {
					used = names.map(([name, n]) =>
						pickItem({ label: name, description: vscode.l10n.t('used by {0} secret stub(s)', n) }, { ref: name }),
					);
					pick.busy = false;
					refill();
				});
			},
		});
		a.secret = picked.ref;
		return undefined;
	};
	const fileStep: InputStep<StubAnswers> = async (input) => {
		const required = a.shape === 'file';
		a.filePath = (
			await input.showInputBox({
				title,
				step: required ? 4 : 6,
				totalSteps: total(),
				value: a.filePath,
				prompt: required
					? vscode.l10n.t('The absolute path in the runtime where the decrypted secret is written.')
					: vscode.l10n.t(
							'Optional: also write the decrypted secret to this absolute path in the runtime. Leave empty for none.',
						),
				placeholder: '/home/agent/.config/token',
				validate: (v) => checkStub.filePath(v, required),
			})
		).trim();
		return secretStep;
	};
	const templateStep: InputStep<StubAnswers> = async (input) => {
		const header = a.shape === 'header';
		const value = await input.showInputBox({
			title,
			step: 5,
			totalSteps: total(),
			value: header ? a.valueFormat : a.paramFormat,
			prompt: header
				? vscode.l10n.t(
						'Optional: the header value, with ${credential} where the secret goes (e.g. Bearer ${credential}). Empty sends the secret as is.',
					)
				: vscode.l10n.t('Optional: the parameter value, with ${credential} where the secret goes. Empty sends the secret as is.'),
			placeholder: header ? 'Bearer ${credential}' : '${credential}',
			validate: checkStub.template,
		});
		if (header) {
			a.valueFormat = value;
		} else {
			a.paramFormat = value;
		}
		return fileStep;
	};
	const nameStep: InputStep<StubAnswers> = async (input) => {
		const header = a.shape === 'header';
		const value = (
			await input.showInputBox({
				title,
				step: 4,
				totalSteps: total(),
				value: header ? a.headerName : a.paramName,
				prompt: header
					? vscode.l10n.t('The header that carries the secret.')
					: vscode.l10n.t('The query parameter that carries the secret.'),
				placeholder: header ? 'Authorization' : 'api_key',
				validate: header ? checkStub.headerName : checkStub.paramName,
			})
		).trim();
		if (header) {
			a.headerName = value;
		} else {
			a.paramName = value;
		}
		return templateStep;
	};
	const shapeStep: InputStep<StubAnswers> = async (input) => {
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
			totalSteps: total(),
			items,
			activeItem: items.find((i) => i.shape === a.shape),
			placeholder: vscode.l10n.t('How is the secret injected?'),
		});
		a.shape = picked.shape;
		return a.shape === 'file' ? fileStep : nameStep;
	};
	const pathStep: InputStep<StubAnswers> = async (input) => {
		a.path = (
			await input.showInputBox({
				title,
				step: 2,
				totalSteps: total(),
				value: a.path,
				prompt: vscode.l10n.t('Optional: the path pattern requests must also match (e.g. /v1/*). Leave empty for every path.'),
				placeholder: '/v1/*',
				validate: checkStub.path,
			})
		).trim();
		return shapeStep;
	};
	const hostStep: InputStep<StubAnswers> = async (input) => {
		a.host = (
			await input.showInputBox({
				title,
				step: 1,
				totalSteps: total(),
				value: a.host,
				prompt: vscode.l10n.t('The host pattern egress requests must match before the secret is injected.'),
				placeholder: 'api.example.com',
				validate: checkStub.host,
			})
		).trim();
		return pathStep;
	};
	return (await MultiStepInput.run(hostStep, a)) ? a : undefined;
}

/** A string member of a stub record ('' when absent). */
function member(stub: SecretStub, name: string): string {
	const v = (stub as Record<string, unknown>)[name];
	return typeof v === 'string' ? v : '';
}

/** A stub in a few words for questions and messages: "api.example.com /v1/* (header Authorization)". */
function stubWords(stub: SecretStub): string {
	const s = stub as Record<string, unknown>;
	const path = typeof s.path_pattern === 'string' && s.path_pattern !== '*' ? ` ${s.path_pattern}` : '';
	return `${member(stub, 'host_pattern') || stub.id}${path} (${stubShapeText(stubShape(stub))})`;
}

/** The stub a command acts on: a row of either stub list, `{stubId, runtimeId?}` from automation, or a pick. */
async function resolveStub(deps: FeatureDeps, arg: unknown, title: string): Promise<SecretStubTarget | undefined> {
	if (arg instanceof RecordNode && (arg.descriptor === runtimeSecretStubsList || arg.descriptor === secretStubsList)) {
		return arg.target as SecretStubTarget;
	}
	const stubId = typeof arg === 'string' ? arg : argString(arg, 'stubId');
	const runtimeId = argString(arg, 'runtimeId');
	const loading = deps.session.client.listSecretStubs();
	if (stubId !== undefined) {
		const stub = (await loading).find((s) => s.id === stubId);
		if (!stub) {
			throw new Error(vscode.l10n.t('The secret stub {0} was not found.', stubId));
		}
		return { stub, runtimeId };
	}
	const pick = await pickWhenLoaded(
		loading.then((stubs) =>
			stubs.map((stub) => {
				return pickItem(
					{
						label: stubWords(stub),
						description: joinParts(member(stub, 'stub_value_display_name'), member(stub, 'runtime_display_name')),
						detail: stub.id,
					},
					{ stub },
				);
			}),
		),
		{ title, placeHolder: vscode.l10n.t('Pick a secret stub') },
	);
	return pick ? { stub: pick.stub } : undefined;
}

/**
 * Registers the secret stub commands: "Add Secret Stub…" (a runtime row or the palette; a
 * multi-step input checked step by step), "Delete Secret Stub…" (modal; the runtime route from a
 * runtime's row, the global route elsewhere) and "Show Secret Stub Details" (read-only JSON).
 *
 * Automation: create takes `{runtimeId, host, path?, shape: 'header'|'query'|'file', headerName?,
 * valueFormat?, paramName?, paramFormat?, filePath?, secret}` (checked like the steps); delete takes
 * `{stubId, runtimeId?, confirm?: false}`; all return the stub.
 */
export function registerSecretStubCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, {
		onUnauthorized: deps.onUnauthorized,
		rethrow: (arg) => isAutomation(arg) && arg.rethrow === true,
	});
	const refresh = async (): Promise<void> => {
		await Promise.all([deps.views.providerOf(runtimesList).refresh(), deps.views.providerOf(secretStubsList).refresh()]);
	};
	return [
		registerCommand('cloudAgents.secretStubs.create', async (arg?: unknown) => {
			// From a runtime's "Secret Stubs" group row: the runtime it hangs under.
			const parentNode =
				arg instanceof vscode.TreeItem && !(arg instanceof RecordNode) ? (arg as { parentNode?: unknown }).parentNode : undefined;
			const on = parentNode instanceof RecordNode && parentNode.descriptor === runtimesList ? parentNode : arg;
			const runtime = (
				await resolveTarget(deps, runtimesList, on, {
					title: vscode.l10n.t('Add Secret Stub'),
					filter: (r) => r.can_manage !== false,
				})
			)?.runtime;
			if (!runtime) {
				return undefined;
			}
			const answers = isAutomation(arg) && argString(arg, 'host') !== undefined ? answersFrom(arg) : await askStub(deps, runtime);
			if (!answers) {
				return undefined;
			}
			const request = stubRequest(answers);
			const stub = await vscode.window.withProgress(
				{
					location: vscode.ProgressLocation.Notification,
					title: vscode.l10n.t('Adding a secret stub to {0}…', displayName(runtime.display_name, runtime.id)),
				},
				() => deps.session.client.createSecretStub(runtime.id, request),
			);
			await refresh();
			if (!(isAutomation(arg) && arg.quiet === true)) {
				void showInfo(
					vscode.l10n.t(
						'Added the secret stub {0} to {1}: it injects the secret "{2}".',
						stubWords(stub),
						runtime.display_name,
						member(stub, 'stub_value_display_name') || request.stub_value,
					),
				);
			}
			return stub;
		}),
		registerCommand('cloudAgents.secretStubs.delete', async (arg?: unknown) => {
			const target = await resolveStub(deps, arg, vscode.l10n.t('Delete Secret Stub'));
			if (!target) {
				return undefined;
			}
			const { stub, runtimeId } = target;
			if (!(isAutomation(arg) && arg.confirm === false)) {
				const del = vscode.l10n.t('Delete Secret Stub');
				const detail = vscode.l10n.t(
					'Requests of the runtime {0} to {1} no longer get the secret "{2}". The secret itself is kept.',
					member(stub, 'runtime_display_name'),
					stubWords(stub),
					member(stub, 'stub_value_display_name'),
				);
				if ((await showModalWarning(vscode.l10n.t('Delete the secret stub {0}?', stubWords(stub)), detail, del)) !== del) {
					return undefined;
				}
			}
			await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Deleting the secret stub {0}…', stubWords(stub)) },
				() =>
					runtimeId !== undefined
						? deps.session.client.deleteRuntimeSecretStub(runtimeId, stub.id)
						: deps.session.client.deleteSecretStub(stub.id),
			);
			await refresh();
			if (!(isAutomation(arg) && arg.quiet === true)) {
				void showInfo(vscode.l10n.t('Deleted the secret stub {0}.', stubWords(stub)));
			}
			return stub;
		}),
		registerCommand('cloudAgents.secretStubs.showDetails', async (arg?: unknown) => {
			const target = await resolveStub(deps, arg, vscode.l10n.t('Show Secret Stub Details'));
			if (!target) {
				return undefined;
			}
			const { stub } = target;
			const s = stub as Record<string, unknown>;
			let config: unknown = s.stub_config_json;
			if (typeof config === 'string' && config.length <= SAFETY.stubConfigMaxChars) {
				try {
					config = JSON.parse(config);
				} catch {
					// Shown as the string it is.
				}
			}
			const doc = { ...s, config };
			const title = vscode.l10n.t('Secret Stub {0}', displayName(stubWords(stub)));
			return deps.records.show(
				titledRecordUri(title, 'secret-stubs', stub.id),
				`${plainText(JSON.stringify(doc, null, 2), SAFETY.documentMaxChars)}\n`,
				'json',
				{ forceLanguage: true },
			);
		}),
	];
}
