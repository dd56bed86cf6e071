import { createHash, randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import {
	ApiError,
	SAFETY,
	SECRET_MASK,
	buildStatusClass,
	providerConfiguration,
	readBuild,
	readProvider,
	redactSecrets,
	sleepUntilAborted,
} from '../api';
import type { BuildInfo, ProviderInfo } from '../api';
import { describeError } from '../util/errors';
import { parseFieldPath, locate } from '../util/jsonLocate';
import { iconSafe, notificationText, plainText, singleLine } from '../util/text';
import { imageBuildsList, modelProvidersList } from '../resources';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { argString, isAutomation, showInfo, showWarning } from './support';
import { resolveTarget } from '../views/targets';

/** The body members of a build request are not shown: the template uses ours (docs/contract-choices.md). */
function buildTemplate(dockerfile: string | undefined): string {
	return `${JSON.stringify(
		{
			display_name: 'my-image',
			dockerfile:
				dockerfile ?? 'FROM ubuntu:24.04\nRUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates\n',
			architecture: 'x86_64',
		},
		null,
		'\t',
	)}\n`;
}

/** The folder (global storage) of the model provider documents being edited. */
const PROVIDER_FOLDER = 'model-provider-edits';

/** A local file name for a provider id: letters, digits, `-`, `_` and `.` only, never `.`/`..`. */
function providerFileName(id: string): string {
	const safe = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
	return `${safe === '' || /^\.+$/.test(safe) ? 'provider' : safe}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}.json`;
}

/** The first line of a document that says which provider it edits (never sent). */
const PROVIDER_HEADER = /^\/\/ cloud-agents model provider: (\S+)\n/;

/**
 * Image builds (start from a JSON document with an idempotency key per attempt, follow until the
 * end with one notification) and model providers (edit as JSON; save sends the PATCH; the
 * service's field errors become diagnostics on the members they name).
 */
export function registerAccountResourceCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, {
		onUnauthorized: deps.onUnauthorized,
		rethrow: (arg) => isAutomation(arg) && arg.rethrow === true,
	});
	const out: vscode.Disposable[] = [];
	const buildsProvider = (): ReturnType<FeatureDeps['views']['providerOf']> => deps.views.providerOf(imageBuildsList);

	// ---------------------------------------------------------------- image builds
	/**
	 * The idempotency key of each start attempt, by request text: made once for an attempt and
	 * kept while it has not succeeded, so "Start Build" again on the same request (a retry) sends
	 * the same key and the service cannot create the build twice. A success forgets it.
	 */
	const attemptKeys = new Map<string, string>();
	const keyFor = (requestText: string): { key: string; hash: string } => {
		const hash = createHash('sha256').update(requestText).digest('hex');
		let key = attemptKeys.get(hash);
		if (!key) {
			key = randomUUID();
			attemptKeys.set(hash, key);
			while (attemptKeys.size > 50) {
				attemptKeys.delete(attemptKeys.keys().next().value!);
			}
		}
		return { key, hash };
	};

	const startBuild = async (request: Record<string, unknown>, automation: boolean): Promise<BuildInfo & { idempotencyKey: string }> => {
		const text = JSON.stringify(request);
		const { key, hash } = keyFor(text);
		const raw = await vscode.window.withProgress(
			{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting image build…'), cancellable: false },
			() => deps.session.client.createImageBuild(request, { idempotencyKey: key }),
		);
		attemptKeys.delete(hash);
		const build = readBuild(raw);
		if (!build) {
			throw new Error(vscode.l10n.t('The service started a build but its answer names no build id.'));
		}
		await buildsProvider().refresh();
		void follow(build, automation);
		if (!automation) {
			void showInfo(vscode.l10n.t('Started the image build "{0}". You will be told when it ends.', build.name ?? build.id));
		}
		return { ...build, idempotencyKey: key };
	};

	/** Builds followed now, with the promise of their end. */
	const following = new Map<string, Promise<BuildInfo>>();
	/** Builds whose end was announced (one notification per build). */
	const announced = new Set<string>();

	/** Waits until the Account view is visible (polling runs only while it is), or the signal aborts. */
	const whenVisible = (signal: AbortSignal): Promise<void> => {
		const view = buildsProvider().treeView;
		if (!view || view.visible) {
			return Promise.resolve();
		}
		return new Promise((resolve) => {
			const sub = view.onDidChangeVisibility((e) => {
				if (e.visible) {
					sub.dispose();
					resolve();
				}
			});
			signal.addEventListener(
				'abort',
				() => {
					sub.dispose();
					resolve();
				},
				{ once: true },
			);
		});
	};

	const follow = (build: BuildInfo, quiet: boolean): Promise<BuildInfo> => {
		const existing = following.get(build.id);
		if (existing) {
			return existing;
		}
		const controller = new AbortController();
		const stop = deps.session.onDidChange(() => controller.abort());
		const run = (async (): Promise<BuildInfo> => {
			let current = build;
			let delay: number = SAFETY.buildPollMinMs;
			let signature = JSON.stringify([current.status, current.attempts.length]);
			for (let reads = 0; buildStatusClass(current.status) === 'active'; reads++) {
				if (reads >= SAFETY.buildPollMaxReads) {
					deps.log.warn(`image build ${current.id}: stopped following after ${reads} reads`);
					return current;
				}
				await sleepUntilAborted(delay, controller.signal);
				await whenVisible(controller.signal);
				if (controller.signal.aborted) {
					return current;
				}
				try {
					current = readBuild(await deps.session.client.getImageBuild(build.id, { signal: controller.signal })) ?? current;
				} catch (err) {
					if (controller.signal.aborted) {
						return current;
					}
					deps.log.warn(`image build ${build.id}: ${describeError(err)}`);
				}
				const next = JSON.stringify([current.status, current.attempts.length]);
				if (next !== signature) {
					signature = next;
					delay = SAFETY.buildPollMinMs;
					void buildsProvider().refresh();
				} else {
					delay = Math.min(delay * 1.5, SAFETY.buildPollMaxMs);
				}
			}
			await buildsProvider().refresh();
			if (!announced.has(current.id)) {
				announced.add(current.id);
				const name = current.name ?? current.id;
				const show = vscode.l10n.t('Show Details');
				const message =
					buildStatusClass(current.status) === 'succeeded'
						? vscode.l10n.t('The image build "{0}" succeeded.', name)
						: vscode.l10n.t(
								'The image build "{0}" ended: {1} after {2} attempt(s).',
								name,
								current.status ?? '',
								current.attempts.length,
							);
				if (!quiet) {
					void (buildStatusClass(current.status) === 'succeeded' ? showInfo(message, show) : showWarning(message, show)).then(
						(choice) => {
							if (choice === show) {
								void vscode.commands.executeCommand('cloudAgents.imageBuilds.showDetails', { buildId: current.id });
							}
						},
					);
				} else {
					deps.log.info(notificationText(message));
				}
			}
			return current;
		})().finally(() => {
			stop.dispose();
			following.delete(build.id);
		});
		following.set(build.id, run);
		out.push({ dispose: () => controller.abort() });
		return run;
	};

	out.push(
		/**
		 * "Start Image Build…": opens a JSON request document to edit (prefilled with the active
		 * editor's Dockerfile); "Start Build" in its title sends it. Automation: `{request}` sends
		 * it at once and returns the build with the idempotency key used.
		 */
		registerCommand('cloudAgents.imageBuilds.start', async (arg?: unknown) => {
			if (isAutomation(arg) && arg.request !== null && typeof arg.request === 'object') {
				return startBuild(arg.request as Record<string, unknown>, true);
			}
			const active = vscode.window.activeTextEditor?.document;
			const dockerfile =
				active && (active.languageId === 'dockerfile' || /Dockerfile$/i.test(active.fileName)) ? active.getText() : undefined;
			let n = 1;
			const names = new Set(vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'untitled').map((d) => d.uri.path));
			while (names.has(`image-build-${n}.json`) && n < 1000) {
				n++;
			}
			const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'untitled', path: `image-build-${n}.json` }));
			const editor = await vscode.window.showTextDocument(doc);
			await editor.edit((e) => e.insert(new vscode.Position(0, 0), buildTemplate(dockerfile)));
			await vscode.languages.setTextDocumentLanguage(doc, 'json');
			void showInfo(vscode.l10n.t('Edit the build request, then run "Start Build" from the editor title.'));
			return doc;
		}),
		/** "Start Build": sends the request in the active JSON document (the same key when retried). */
		registerCommand('cloudAgents.imageBuilds.startFromEditor', async (arg?: unknown) => {
			const doc =
				arg instanceof vscode.Uri
					? vscode.workspace.textDocuments.find((d) => d.uri.toString() === arg.toString())
					: vscode.window.activeTextEditor?.document;
			if (!doc) {
				throw new Error(vscode.l10n.t('Open a build request document first ("Start Image Build…").'));
			}
			let request: unknown;
			try {
				request = JSON.parse(doc.getText());
			} catch (err) {
				throw new Error(
					vscode.l10n.t('The build request is not valid JSON: {0}', err instanceof Error ? err.message : String(err)),
					{ cause: err },
				);
			}
			if (request === null || typeof request !== 'object' || Array.isArray(request)) {
				throw new Error(vscode.l10n.t('The build request must be a JSON object.'));
			}
			return startBuild(request as Record<string, unknown>, isAutomation(arg));
		}),
		/**
		 * "Follow Image Build": reads the build with back-off (2 s growing to 30 s while nothing
		 * changes) while the Account view is visible, until it ends; one notification then.
		 * Automation: `{buildId, wait: true}` resolves with the build at its end.
		 */
		registerCommand('cloudAgents.imageBuilds.follow', async (arg?: unknown) => {
			const target = await resolveTarget(deps, imageBuildsList, arg, {
				title: vscode.l10n.t('Follow Image Build'),
				filter: (b) => buildStatusClass(b.status) === 'active',
			});
			if (!target) {
				return undefined;
			}
			const end = follow(target.build, isAutomation(arg) && arg.quiet === true);
			return isAutomation(arg) && arg.wait === true ? end : { following: target.build.id };
		}),
	);

	// ---------------------------------------------------------------- model providers
	const diagnostics = vscode.languages.createDiagnosticCollection('cloudAgents.modelProviders');
	out.push(diagnostics);
	const folder = vscode.Uri.joinPath(deps.context.globalStorageUri, PROVIDER_FOLDER);
	const isProviderDoc = (doc: vscode.TextDocument): boolean =>
		doc.uri.scheme === folder.scheme && doc.uri.path.startsWith(`${folder.path}/`);

	/** Sends a provider document's configuration as the PATCH; field errors become diagnostics. */
	const saveProvider = async (
		doc: vscode.TextDocument,
	): Promise<{ saved: boolean; provider?: ProviderInfo; diagnostics?: number; requestId?: string }> => {
		const text = doc.getText();
		const header = PROVIDER_HEADER.exec(text);
		const providerId = header?.[1];
		if (!providerId) {
			throw new Error(vscode.l10n.t('This document does not name a model provider (its first line was changed).'));
		}
		const body = text.slice(header[0].length);
		let config: unknown;
		try {
			config = JSON.parse(body);
		} catch (err) {
			throw new Error(
				vscode.l10n.t('The provider configuration is not valid JSON: {0}', err instanceof Error ? err.message : String(err)),
				{ cause: err },
			);
		}
		if (config === null || typeof config !== 'object' || Array.isArray(config)) {
			throw new Error(vscode.l10n.t('The provider configuration must be a JSON object.'));
		}
		// Secret values were shown masked: a member still masked keeps the service's value, read
		// again now (never kept in the document or in memory between saves).
		const masked = Object.entries(config)
			.filter(([, v]) => v === SECRET_MASK)
			.map(([k]) => k);
		if (masked.length > 0) {
			const list = await deps.session.client.listModelProviders();
			const current = list.model_providers.map(readProvider).find((p) => p?.id === providerId);
			for (const k of masked) {
				(config as Record<string, unknown>)[k] = current?.raw[k];
			}
		}
		try {
			const raw = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Saving model provider…') },
				() => deps.session.client.updateModelProvider(providerId, config as Record<string, unknown>),
			);
			diagnostics.delete(doc.uri);
			await deps.views.providerOf(modelProvidersList).refresh();
			return { saved: true, provider: readProvider(raw) };
		} catch (err) {
			if (err instanceof ApiError && err.fieldErrors.length > 0) {
				const offset = header[0].length;
				const items = err.fieldErrors.map((f) => {
					const path = parseFieldPath(f.field);
					const found = path ? locate(body, path) : undefined;
					const start = doc.positionAt(offset + (found?.span.offset ?? 0));
					const end = doc.positionAt(offset + (found ? found.span.offset + found.span.length : 0));
					const message =
						found?.exact === false || !found
							? vscode.l10n.t(
									'{0}: {1}',
									singleLine(f.field, SAFETY.labelMaxChars),
									plainText(f.message, SAFETY.notificationMaxChars),
								)
							: plainText(f.message, SAFETY.notificationMaxChars);
					const d = new vscode.Diagnostic(new vscode.Range(start, end), message, vscode.DiagnosticSeverity.Error);
					d.source = 'Cloud Agents';
					d.code = singleLine(f.field, SAFETY.labelMaxChars);
					return d;
				});
				diagnostics.set(doc.uri, items);
				void showWarning(
					vscode.l10n.t(
						'The service refused {0} field(s) of the provider; see the Problems panel. {1}',
						items.length,
						describeError(err),
					),
				);
				return { saved: false, diagnostics: items.length, requestId: err.requestId };
			}
			throw err;
		}
	};

	out.push(
		/**
		 * "Edit Model Provider": the provider's configuration fields (every member but the read-only
		 * ones, under the server's names) as a JSON document; saving it sends the PATCH.
		 * Automation: `{providerId}` returns the document.
		 */
		registerCommand('cloudAgents.modelProviders.edit', async (arg?: unknown) => {
			const target = await resolveTarget(deps, modelProvidersList, arg, { title: vscode.l10n.t('Edit Model Provider') });
			if (!target) {
				return undefined;
			}
			const fresh =
				(await (async () => {
					const list = await deps.session.client.listModelProviders();
					return list.model_providers.map(readProvider).find((p) => p?.id === target.provider.id);
				})()) ?? target.provider;
			const uri = vscode.Uri.joinPath(folder, providerFileName(fresh.id));
			await vscode.workspace.fs.createDirectory(folder);
			const config = redactSecrets(providerConfiguration(fresh.raw));
			const content = `// cloud-agents model provider: ${fresh.id}\n${JSON.stringify(config, null, '\t')}\n`;
			// The document shows what the service has now (an unsaved edit of an open one is replaced).
			const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
			if (open) {
				const edit = new vscode.WorkspaceEdit();
				edit.replace(uri, new vscode.Range(open.positionAt(0), open.positionAt(open.getText().length)), content);
				await vscode.workspace.applyEdit(edit);
				await open.save();
			} else {
				await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(content));
			}
			diagnostics.delete(uri);
			const doc = await vscode.workspace.openTextDocument(uri);
			await vscode.languages.setTextDocumentLanguage(doc, 'jsonc');
			await vscode.window.showTextDocument(doc, { preview: false });
			if (!isAutomation(arg)) {
				void showInfo(
					vscode.l10n.t(
						'Editing the model provider "{0}": save the document to send every configuration field to the service.',
						iconSafe(fresh.name ?? fresh.id),
					),
				);
			}
			return doc;
		}),
		/** "Save Model Provider to the Service": saves the document (which sends the PATCH). Automation: `{uri}` returns the outcome. */
		registerCommand('cloudAgents.modelProviders.save', async (arg?: unknown) => {
			const uriText = argString(arg, 'uri');
			const doc = uriText
				? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uriText)
				: arg instanceof vscode.Uri
					? vscode.workspace.textDocuments.find((d) => d.uri.toString() === arg.toString())
					: vscode.window.activeTextEditor?.document;
			if (!doc || !isProviderDoc(doc)) {
				throw new Error(vscode.l10n.t('Open a model provider with "Edit Model Provider" first.'));
			}
			if (doc.isDirty) {
				pendingSaves.add(doc.uri.toString());
				await doc.save();
			}
			return saveProvider(doc);
		}),
		vscode.workspace.onDidSaveTextDocument((doc) => {
			if (!isProviderDoc(doc) || pendingSaves.delete(doc.uri.toString())) {
				return;
			}
			void saveProvider(doc).catch((err: unknown) => {
				deps.log.warn(`model provider save: ${describeError(err)}`);
				void vscode.window.showErrorMessage(
					notificationText(vscode.l10n.t('Could not save the model provider: {0}', describeError(err))),
				);
			});
		}),
		vscode.workspace.onDidCloseTextDocument((doc) => {
			if (isProviderDoc(doc)) {
				diagnostics.delete(doc.uri);
			}
		}),
	);
	/** Documents the save command saves itself (its own PATCH follows; the save event does not send another). */
	const pendingSaves = new Set<string>();
	return out;
}
