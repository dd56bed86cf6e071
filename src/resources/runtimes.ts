import * as vscode from 'vscode';
import { fromRfc3339, sleep } from '../api';
import type { CloudAgentsClient, Runtime } from '../api';
import { contextToken, iconSafe, notificationText } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import type { ActionKit, RecordAction } from '../views/actions';
import { displayName, isStatus, pickItem, toAbortSignal } from '../views/ui';
import { formatMemoryMib, joinParts, localTime, plainTooltip, relativeTime, runtimeStatusIcon } from '../views/format';

/** True when the runtime is on its way somewhere: creating, deleting, or status ≠ desired status. */
export function runtimeInTransition(runtime: Runtime): boolean {
	if (runtime.status === 'creating' || runtime.status === 'deleting') {
		return true;
	}
	return (
		runtime.desired_status !== undefined &&
		runtime.desired_status !== runtime.status &&
		!['error', 'crashed', 'unavailable'].includes(runtime.status)
	);
}

/** The agent's runtime as the service shows it now; undefined when it cannot be read. */
export async function runtimeOfAgent(client: CloudAgentsClient, agent: { id: string; runtimeId?: string }): Promise<Runtime | undefined> {
	try {
		return await findRuntime(client, agent.runtimeId ?? (await client.getAgent(agent.id)).runtime_id);
	} catch {
		// The callers fall back to the general advice (or the service's own words).
		return undefined;
	}
}

/** Show Runtime Details: the whole record, read again, as read-only JSON in a tab titled by the runtime's name. */
export async function showRuntimeDetails(runtime: Runtime, kit: Pick<ActionKit, 'client' | 'showJson'>): Promise<unknown> {
	const fresh = (await findRuntime(kit.client(), runtime.id)) ?? runtime;
	return kit.showJson(vscode.l10n.t('Runtime {0}', iconSafe(fresh.display_name || fresh.id)), ['runtimes', fresh.id], fresh);
}

/** Whether a runtime is in a state only the service can repair (error, crashed, unavailable): no prompt or computer helps. */
export function runtimeBroken(runtime: Runtime | undefined): boolean {
	return runtime !== undefined && ['error', 'crashed', 'unavailable'].includes(runtime.status);
}

/**
 * Why an agent cannot take work now (a computer session, a new run) and what helps, by its
 * runtime's status, as the end of a sentence "… cannot …: <advice>": only a paused or suspended
 * runtime is told to resume (Resume Runtime is on its menu in the Runtimes view); one that is
 * starting is waited for; one in error, crashed or unavailable has no Resume: only the service can
 * repair it. Undefined (the runtime could not be read): the general advice.
 */
export function notRunningAdvice(runtime: Runtime | undefined): string {
	if (!runtime) {
		return vscode.l10n.t(
			'its runtime is not running or is still starting. Its status is in the Runtimes view; try again when it is running and the agent is idle.',
		);
	}
	const rt = displayName(runtime.display_name, runtime.id);
	switch (runtime.status) {
		case 'paused':
		case 'suspended':
			return vscode.l10n.t(
				'its runtime {0} is {1}. Resume it (Resume Runtime in the Runtimes view), then try again.',
				rt,
				runtime.status,
			);
		case 'creating':
			return vscode.l10n.t('its runtime {0} is still being created. Try again when its row in the Runtimes view says running.', rt);
		case 'running':
			return runtime.desired_status !== undefined && runtime.desired_status !== 'running'
				? vscode.l10n.t('its runtime {0} is going to {1}.', rt, runtime.desired_status)
				: vscode.l10n.t('its runtime {0} is running but not ready yet. Wait until the agent is idle, then try again.', rt);
		case 'error':
		case 'crashed':
		case 'unavailable':
			return vscode.l10n.t(
				'its runtime {0} is in {1}{2}, which only the service can repair: Show Runtime Details (Runtimes view) has its error; the runtime must be repaired or recreated on the service.',
				rt,
				runtime.status,
				runtime.error_code ? ` (${runtime.error_code})` : '',
			);
		case 'shutdown':
		case 'deleting':
			return vscode.l10n.t('its runtime {0} is {1}; it will not run again.', rt, runtime.status);
		default:
			return runtimeInTransition(runtime)
				? vscode.l10n.t(
						'its runtime {0} is {1}, on its way to {2}. Try again when it is running.',
						rt,
						runtime.status,
						runtime.desired_status ?? '?',
					)
				: vscode.l10n.t('its runtime {0} is {1}, not running.', rt, runtime.status);
	}
}

/** What a runtime command receives: `{runtime}` (a row, the resolver). */
export interface RuntimeTarget {
	runtime: Runtime;
}

/** Walks the runtimes for one id (the service has no single-runtime read); bounded by the client's walk. */
export async function findRuntime(
	client: { iterateRuntimes(o: { limit: number }): AsyncIterable<Runtime> },
	runtimeId: string,
): Promise<Runtime | undefined> {
	for await (const runtime of client.iterateRuntimes({ limit: 100 })) {
		if (runtime.id === runtimeId) {
			return runtime;
		}
	}
	return undefined;
}

/**
 * After the service refused a change of `runtime` with 409 (someone changed it since it was shown):
 * the runtime as it is now, the Runtimes view refreshed; undefined, with a warning, when it is gone.
 * Any other failure is thrown again.
 */
export async function rereadAfterConflict(err: unknown, runtime: Runtime, kit: ActionKit): Promise<Runtime | undefined> {
	if (!isStatus(err, 409)) {
		throw err;
	}
	const fresh = await findRuntime(kit.client(), runtime.id);
	await kit.list(runtimesList).refresh();
	if (!fresh) {
		kit.warn(vscode.l10n.t('The runtime {0} no longer exists.', runtime.display_name));
	}
	return fresh;
}

/**
 * The Runtimes view: every runtime, a page (`cloudAgents.pageSize`) at a time through the service's
 * cursors; it refreshes itself while a runtime is in transition. A row's `contextValue` is
 * `runtime:<status>` plus `:degraded`, `:transition` and `:vnc` (VNC enabled); a click shows the
 * runtime's details.
 */
export const runtimesList: ListDescriptor<Runtime, RuntimeTarget> = {
	key: 'runtimes',
	kind: 'runtime',
	viewId: 'cloudAgents.runtimes',
	commands: { refresh: 'cloudAgents.runtimes.refresh', loadMore: 'cloudAgents.runtimes.loadMore' },
	readAhead: true,
	source: { page: (ctx, request) => ctx.client().listRuntimes(request) },
	keyOf: (runtime) => runtime.id,
	name: (runtime) => runtime.display_name || undefined,
	fields: (runtime) => ({ runtime }),
	isActive: runtimeInTransition,
	signature: (r) => [r.id, r.status, r.desired_status, r.revision, r.degraded],
	row(runtime) {
		const degraded = runtime.degraded === true;
		const transition = runtimeInTransition(runtime);
		const statusText =
			transition && runtime.desired_status && runtime.desired_status !== runtime.status
				? `${runtime.status} → ${runtime.desired_status}`
				: runtime.status;
		return {
			label: runtime.display_name || runtime.id,
			contextValue: [
				`runtime:${contextToken(runtime.status)}`,
				degraded && 'degraded',
				transition && 'transition',
				runtime.vnc_enabled && 'vnc',
			]
				.filter((p): p is string => typeof p === 'string')
				.join(':'),
			icon: runtimeStatusIcon(runtime.status, degraded, transition),
			description: joinParts(statusText, degraded && vscode.l10n.t('degraded'), relativeTime(fromRfc3339(runtime.updated_at))),
			// Built on hover: its date would load the locale data before the first rows (RowSpec.tooltip).
			tooltip: () =>
				plainTooltip(runtime.display_name, [
					[vscode.l10n.t('Status'), runtime.status],
					[vscode.l10n.t('Desired status'), runtime.desired_status],
					[
						vscode.l10n.t('Degraded'),
						degraded ? vscode.l10n.t('yes: the runtime is running but its heartbeat has stalled') : undefined,
					],
					[vscode.l10n.t('Error'), runtime.error_code ?? undefined],
					[vscode.l10n.t('ID'), runtime.id],
					[vscode.l10n.t('Revision'), runtime.revision],
					[vscode.l10n.t('Image'), runtime.image_id],
					[vscode.l10n.t('Memory'), formatMemoryMib(runtime.resources?.requests?.memory_mib)],
					[vscode.l10n.t('vCPUs'), runtime.resources?.requests?.vcpus],
					[vscode.l10n.t('SSH'), runtime.ssh_enabled],
					[
						vscode.l10n.t('VNC'),
						runtime.vnc_enabled ? (runtime.vnc_ready ? vscode.l10n.t('ready') : vscode.l10n.t('not ready')) : undefined,
					],
					[vscode.l10n.t('Can manage'), runtime.can_manage],
					[vscode.l10n.t('Created'), runtime.created_at ? new Date(runtime.created_at).toLocaleString() : undefined],
				]),
			// Clicking a row shows the runtime's details.
			command: { command: 'cloudAgents.runtimes.showDetails', title: vscode.l10n.t('Show Runtime Details') },
		};
	},
	target: {
		idField: 'runtimeId',
		get: (ctx, id) => findRuntime(ctx.client(), id),
		choices: async (ctx) => {
			const out: Runtime[] = [];
			for await (const runtime of ctx.client().iterateRuntimes({ limit: 100 })) {
				out.push(runtime);
			}
			return out;
		},
		pickText: (runtime) => ({
			label: runtime.display_name || runtime.id,
			description: joinParts(runtime.status, runtime.degraded === true && vscode.l10n.t('degraded')),
			detail: runtime.id,
		}),
		placeholder: () => vscode.l10n.t('Pick a runtime'),
		notFound: (id) => vscode.l10n.t('The runtime {0} was not found.', id),
	},
};

const resumable = (r: Runtime): boolean => r.status === 'paused' || r.status === 'suspended';

/**
 * Resumes a runtime with `expected_revision`, offering a retry with the fresh revision after a 409.
 * Automation may also pass `expectedRevision` (default: the revision read) and
 * `onConflict: 'retry' | 'cancel'` (skips the question after a 409).
 */
async function resumeRuntime({ runtime: first }: RuntimeTarget, kit: ActionKit): Promise<Runtime | undefined> {
	const given = kit.automation ? (kit.arg as { expectedRevision?: unknown; onConflict?: unknown }) : {};
	let runtime = first;
	let expected = typeof given.expectedRevision === 'number' ? given.expectedRevision : runtime.revision;
	const onConflict = given.onConflict === 'retry' || given.onConflict === 'cancel' ? given.onConflict : undefined;
	const runtimes = kit.list(runtimesList);
	for (;;) {
		try {
			const target = runtime;
			const resumed = await vscode.window.withProgress(
				{
					location: vscode.ProgressLocation.Notification,
					title: notificationText(vscode.l10n.t('Resuming runtime {0}…', displayName(target.display_name, target.id))),
				},
				() => kit.client().resumeRuntime(target.id, { expectedRevision: expected }),
			);
			await runtimes.refresh();
			// Visible feedback that ends with the transition: a progress notification while the runtime
			// moves, closed when its row says running (a lasting "is resuming" message contradicted the row).
			// Not awaited: the command returns the resumed record at once.
			void followResume(resumed, kit);
			return resumed;
		} catch (err) {
			// Someone changed the runtime (or it is no longer paused): re-read and offer again.
			const fresh = await rereadAfterConflict(err, runtime, kit);
			if (!fresh) {
				return undefined;
			}
			if (!resumable(fresh)) {
				kit.info(vscode.l10n.t('The runtime {0} is {1} now; there is nothing to resume.', fresh.display_name, fresh.status));
				return undefined;
			}
			let retry = onConflict === 'retry';
			if (onConflict === undefined) {
				const again = vscode.l10n.t('Resume Revision {0}', fresh.revision ?? '?');
				const choice = await vscode.window.showWarningMessage(
					notificationText(
						vscode.l10n.t(
							'The runtime {0} changed since it was shown (revision {1}, now {2}). Resume it as it is now?',
							fresh.display_name,
							expected ?? '?',
							fresh.revision ?? '?',
						),
					),
					again,
				);
				retry = choice === again;
			}
			if (!retry || fresh.revision === expected) {
				return undefined;
			}
			runtime = fresh;
			expected = fresh.revision;
		}
	}
}

/** How often, and how long at most, a resume is followed to its end. */
const RESUME_FOLLOW = { intervalMs: 1500, maxMs: 10 * 60_000 };

/**
 * Shows "The runtime … is resuming" as a progress notification until the runtime is no longer in
 * transition: on running, the list is refreshed (the row says running) and the notification closes
 * with a short status-bar message; on another status (error, crashed…) a warning says so. The user
 * may cancel the notification (the runtime keeps resuming); a failed read ends it quietly.
 */
async function followResume(first: Runtime, kit: ActionKit): Promise<void> {
	const name = displayName(first.display_name, first.id);
	const runtimes = kit.list(runtimesList);
	const settled = await vscode.window.withProgress(
		{
			location: vscode.ProgressLocation.Notification,
			title: notificationText(vscode.l10n.t('The runtime {0} is resuming', name)),
			cancellable: true,
		},
		async (progress, token) => {
			const abort = toAbortSignal(token);
			try {
				const end = Date.now() + RESUME_FOLLOW.maxMs;
				let runtime: Runtime | undefined = first;
				while (!token.isCancellationRequested && Date.now() < end) {
					// Settled: no longer moving, and moved (a service may answer the resume before it says so).
					if (runtime && !runtimeInTransition(runtime) && (runtime.status !== first.status || runtime.status === 'running')) {
						return runtime;
					}
					progress.report({
						message: runtime ? notificationText(`${runtime.status} → ${runtime.desired_status ?? 'running'}`) : undefined,
					});
					await sleep(RESUME_FOLLOW.intervalMs, abort.signal).catch(() => undefined);
					if (token.isCancellationRequested) {
						break;
					}
					runtime = await findRuntime(kit.client(), first.id).catch(() => undefined);
					if (!runtime) {
						return undefined;
					}
				}
				return undefined;
			} finally {
				abort.dispose();
			}
		},
	);
	if (!settled) {
		return;
	}
	// The row says what the notification said last before it closes.
	await runtimes.refresh();
	if (settled.status === 'running') {
		vscode.window.setStatusBarMessage(notificationText(vscode.l10n.t('The runtime {0} is running.', name)), 5000);
	} else {
		kit.warn(vscode.l10n.t('The runtime {0} did not resume: it is {1}.', name, settled.status));
	}
}

/** Lists a runtime's VNC credentials and copies the locator of the one picked (`{quiet: true}`: only returns them). */
async function listVncCredentials(runtime: Runtime, kit: ActionKit): Promise<unknown> {
	const credentials = await kit.client().listVncCredentials(runtime.id);
	if (kit.automation && (kit.arg as { quiet?: unknown }).quiet === true) {
		return credentials;
	}
	if (credentials.length === 0) {
		kit.info(vscode.l10n.t('The runtime {0} has no VNC credentials.', runtime.display_name));
		return credentials;
	}
	const pick = await vscode.window.showQuickPick(
		credentials.map((c) =>
			pickItem(
				{
					label: c.display_name || c.id,
					description: joinParts(
						c.revoked_at ? vscode.l10n.t('revoked') : vscode.l10n.t('active'),
						c.last_used_at
							? vscode.l10n.t('last used {0}', localTime(fromRfc3339(c.last_used_at)) ?? c.last_used_at)
							: undefined,
					),
					detail: c.locator,
				},
				{ credential: c },
			),
		),
		{
			title: vscode.l10n.t('VNC credentials of {0}', displayName(runtime.display_name, runtime.id)),
			placeHolder: vscode.l10n.t('Pick one to copy its locator'),
		},
	);
	if (pick?.credential.locator) {
		await kit.copy(pick.credential.locator, vscode.l10n.t('Copied the VNC locator of {0}', pick.label));
	}
	return credentials;
}

type RuntimeAction = RecordAction<Runtime, RuntimeTarget>;

/**
 * What a user can do with a runtime. Automation may pass `{runtimeId}` instead of a row (plus the
 * options each action names).
 */
export const runtimeActions = {
	showDetails: {
		on: runtimesList,
		command: 'cloudAgents.runtimes.showDetails',
		// The whole record, read again, as read-only JSON in a tab titled by the runtime's name.
		run: ({ runtime }, kit) => showRuntimeDetails(runtime, kit),
	} satisfies RecordAction<Runtime, RuntimeTarget>,
	resume: { on: runtimesList, command: 'cloudAgents.runtimes.resume', filter: resumable, run: resumeRuntime } satisfies RuntimeAction,
	listVncCredentials: {
		on: runtimesList,
		command: 'cloudAgents.runtimes.listVncCredentials',
		filter: (r) => r.vnc_enabled === true,
		run: ({ runtime }, kit) => listVncCredentials(runtime, kit),
	} satisfies RecordAction<Runtime, RuntimeTarget>,
	copyId: {
		on: runtimesList,
		command: 'cloudAgents.runtimes.copyId',
		run: async ({ runtime }, kit) => {
			await kit.copy(runtime.id, vscode.l10n.t('Copied the runtime ID {0}', runtime.id));
			return runtime.id;
		},
	} satisfies RecordAction<Runtime, RuntimeTarget>,
};
