import * as vscode from 'vscode';
import type { CommandId } from '../ids';
import { isCancellation, showApiError } from '../messages/errors';
import type { UnauthorizedHandler } from '../messages/errors';

/** Where command failures are written; `vscode.LogOutputChannel` satisfies it. */
export interface CommandLogger {
	error(message: string | Error, ...args: unknown[]): void;
}

/** A command handler; tree commands receive the node they were invoked on. */
export type CommandHandler = (...args: never[]) => unknown;

/** The commands `registerCommand` registered and did not dispose (see src/shell/lazy.ts). */
const registered = new Set<string>();

/** Whether `registerCommand` registered `id` (and it is not disposed). */
export function isRegistered(id: string): boolean {
	return registered.has(id);
}

/** Options of `registerCommand`. */
export interface RegisterCommandOptions {
	/**
	 * True for invocations whose caller wants failures back (automation): the error is logged and
	 * rethrown to `executeCommand` instead of being shown.
	 */
	rethrow?: (...args: unknown[]) => boolean;
	/**
	 * The session's 401 handler (its single "sign in again" prompt); without one a 401 is shown as
	 * an error message with a "Sign In" action.
	 */
	onUnauthorized?: UnauthorizedHandler;
	/**
	 * What a failure of one invocation is shown with, by its arguments: a prefix saying what it acted
	 * on (the deployment of a row when several are configured: "Staging: …", issue 47) and the 401
	 * handler of that row's session; the shared `onUnauthorized` and no prefix otherwise.
	 */
	errorContext?: (...args: unknown[]) => { readonly prefix?: string; readonly onUnauthorized?: UnauthorizedHandler };
}

/**
 * Registers a contributed command. Cancellations and aborts are ignored; any other error is logged
 * and shown once as an error message, so handlers can simply throw (or, when `options.rethrow`
 * says so for the arguments, rethrown to the caller). When the service gave no answer at all, the
 * message offers "Retry" (the command again, same arguments) and "Configure API URL".
 */
export function registerCommand(
	id: CommandId,
	handler: CommandHandler,
	log: CommandLogger,
	options: RegisterCommandOptions = {},
): vscode.Disposable {
	const run = async (...args: unknown[]): Promise<unknown> => {
		try {
			return await (handler as (...a: unknown[]) => unknown)(...args);
		} catch (err) {
			if (isCancellation(err)) {
				return undefined;
			}
			log.error(`${id} failed:`, err instanceof Error ? err : String(err));
			if (options.rethrow?.(...args)) {
				throw err;
			}
			// No answer from the service: "Retry" runs the command again with the same arguments.
			const context = options.errorContext?.(...args);
			void showApiError(err, undefined, context?.prefix, context?.onUnauthorized ?? options.onUnauthorized, undefined, () =>
				run(...args),
			);
			return undefined;
		}
	};
	const registration = vscode.commands.registerCommand(id, run);
	registered.add(id);
	return new vscode.Disposable(() => {
		registered.delete(id);
		registration.dispose();
	});
}

/**
 * A command that acts on no record (a flow: sign-in, Check Connection, Token Savings, open an agent's
 * workspace…): its id and what it runs. A flow module says which it has as a list of these;
 * `registerFlows` registers them, as the ActionRegistry (actionRegistry.ts) registers the records'.
 */
export interface FlowCommand {
	readonly id: CommandId;
	readonly run: CommandHandler;
	/** True for the arguments of a caller that wants failures back (automation): see RegisterCommandOptions. */
	readonly rethrow?: (...args: unknown[]) => boolean;
}

/**
 * Registers the commands that act on no record: the one door for them (the shell calls it twice:
 * for the flows it answers at activation, src/extension.ts, and for those loaded on first use,
 * src/shell/features.ts). Each gets `registerCommand`'s one rule for errors with the shared
 * options (the session's 401 handler) and its own `rethrow`.
 */
export function registerFlows(flows: readonly FlowCommand[], log: CommandLogger, shared: RegisterCommandOptions = {}): vscode.Disposable[] {
	return flows.map((flow) => registerCommand(flow.id, flow.run, log, { ...shared, rethrow: flow.rethrow ?? shared.rethrow }));
}
