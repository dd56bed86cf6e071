/**
 * The language-model tools as activation registers them: one stand-in per contributed tool name
 * (so `vscode.lm.tools` lists them and any chat can call them from the start), whose calls load the
 * tools' code with the features (dist/features.js, src/shell/lazy.ts) on first use and hand it
 * every call. The tools themselves are src/chat/chatTools.ts.
 */
import * as vscode from 'vscode';

/** What the loaded tools answer for each call, by tool name. */
export interface ToolHandlers {
	invoke(
		name: string,
		options: vscode.LanguageModelToolInvocationOptions<unknown>,
		token: vscode.CancellationToken,
	): Promise<vscode.LanguageModelToolResult>;
	prepare(
		name: string,
		options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>,
		token: vscode.CancellationToken,
	): Promise<vscode.PreparedToolInvocation | undefined>;
}

/**
 * Registers a stand-in for each of `names` (contributed in package.json `languageModelTools`);
 * `load` loads the tools' code (synchronously, at most once: the features' `require`). A host
 * without the language-model API registers nothing. The caller owns the disposables.
 */
export function registerLazyTools(names: readonly string[], load: () => ToolHandlers): vscode.Disposable[] {
	if (typeof vscode.lm?.registerTool !== 'function') {
		return [];
	}
	return names.map((name) =>
		vscode.lm.registerTool<unknown>(name, {
			invoke: (options, token) => load().invoke(name, options, token),
			prepareInvocation: (options, token) => load().prepare(name, options, token),
		}),
	);
}
