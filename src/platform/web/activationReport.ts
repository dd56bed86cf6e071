/**
 * The bench's report of an activation in the browser's extension host (src/extension.web.ts calls
 * it when `activate()` returns). A web worker has no environment to be asked through nor a file
 * system of its own: activate() is one entry in the worker's performance timeline (as VS Code's own
 * marks are), which the bench's activation section reads in the worker (bench/sections/activation.ts).
 */
import type * as vscode from 'vscode';
import { ACTIVATION_MEASURE } from '../../ids';

/** Adds activate()'s span (`performance.now()` at its start and end) to the worker's timeline. */
export function reportActivation(_context: vscode.ExtensionContext, activateStart: number, activateEnd: number): void {
	performance.measure(ACTIVATION_MEASURE, { start: activateStart, end: activateEnd });
}
