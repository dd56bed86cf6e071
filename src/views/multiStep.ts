import * as vscode from 'vscode';

/** Thrown by a step's input when the user pressed Back. */
class BackAction extends Error {
	constructor() {
		super('back');
	}
}

/** Thrown by a step's input when the user dismissed it (Escape, focus lost). */
class CancelAction extends Error {
	constructor() {
		super('cancelled');
	}
}

/** One step: asks (through `input`), records the answer in the state, returns the next step or undefined at the end. */
export type InputStep<S> = (input: MultiStepInput, state: S) => Promise<InputStep<S> | undefined>;

/** What every step shows: the flow's title and where it is ("2/6"). */
export interface StepHeader {
	title: string;
	step: number;
	totalSteps: number;
}

/** An input box step. */
export interface InputBoxStep extends StepHeader {
	value: string;
	prompt: string;
	placeholder?: string;
	/** Checked on every keystroke and again on Enter: a message blocks the step, undefined lets it pass. */
	validate(value: string): string | undefined;
	/**
	 * Run on Enter once `validate` passes (the box busy meanwhile; its signal aborts when the box is
	 * dismissed): a message keeps the step open with the value as typed, undefined lets it pass.
	 */
	accept?(value: string, signal: AbortSignal): Promise<string | undefined>;
	/** Told each value typed, so that the text survives Back (the step shows it again when reached anew). */
	remember?(value: string): void;
	/** Shown as the step's message until the value changes (the service refused this value). */
	refusal?: string;
}

/** A quick-pick step. */
export interface QuickPickStep<T extends vscode.QuickPickItem> extends StepHeader {
	items: T[];
	placeholder: string;
	activeItem?: T;
	busy?: boolean;
	/** Called once the pick shows, to fill it (items loading in the background) or react to typing. */
	onShow?(pick: vscode.QuickPick<T>): void;
	/** What Enter yields when no item is selected (a typed value), or undefined to keep the pick open. */
	acceptTyped?(value: string): T | undefined;
	/**
	 * Checks the item Enter chose before the step ends (the pick is busy and disabled meanwhile):
	 * false keeps the pick open (the check shows why, e.g. in the item's description).
	 */
	check?(item: T): Promise<boolean>;
}

/**
 * A multi-step input (one quick input reused from step to step) with a Back button from the second
 * step on: `MultiStepInput.run(first, state)` resolves true when the last step finished, false when
 * the user dismissed it. Each step validates its own answer before the next one shows.
 * `before` opens the flow at `start` with those steps behind it (Back returns to them): a form
 * reopened at the step the service refused.
 */
export class MultiStepInput {
	private readonly history: InputStep<never>[] = [];
	private current: vscode.QuickInput | undefined;

	/** Runs the steps from `start`; true when every step was answered. */
	static async run<S>(start: InputStep<S>, state: S, before: readonly InputStep<S>[] = []): Promise<boolean> {
		const input = new MultiStepInput();
		input.history.push(...(before as readonly InputStep<never>[]));
		try {
			return await input.stepThrough(start, state);
		} finally {
			input.current?.dispose();
		}
	}

	private async stepThrough<S>(start: InputStep<S>, state: S): Promise<boolean> {
		let step: InputStep<S> | undefined = start;
		while (step) {
			this.history.push(step);
			if (this.current) {
				this.current.enabled = false;
				this.current.busy = true;
			}
			try {
				step = await step(this, state);
			} catch (err) {
				if (err instanceof BackAction) {
					this.history.pop();
					step = this.history.pop() as InputStep<S> | undefined;
				} else if (err instanceof CancelAction) {
					return false;
				} else {
					throw err;
				}
			}
		}
		return true;
	}

	private show(input: vscode.QuickInput): void {
		this.current?.dispose();
		this.current = input;
		input.show();
	}

	/** Shows an input box step; resolves with the (valid) value, or throws Back / Cancel. */
	async showInputBox(spec: InputBoxStep): Promise<string> {
		const box = vscode.window.createInputBox();
		const disposables: vscode.Disposable[] = [];
		const hidden = new AbortController();
		try {
			box.title = spec.title;
			box.step = spec.step;
			box.totalSteps = spec.totalSteps;
			box.value = spec.value;
			box.prompt = spec.prompt;
			box.placeholder = spec.placeholder;
			box.ignoreFocusOut = true;
			box.buttons = this.history.length > 1 ? [vscode.QuickInputButtons.Back] : [];
			box.validationMessage = spec.refusal ?? (spec.value === '' ? undefined : spec.validate(spec.value));
			return await new Promise<string>((resolve, reject) => {
				disposables.push(
					box.onDidTriggerButton((button) => {
						if (button === vscode.QuickInputButtons.Back) {
							reject(new BackAction());
						}
					}),
					box.onDidChangeValue((value) => {
						spec.remember?.(value);
						box.validationMessage = spec.validate(value);
					}),
					box.onDidAccept(() => {
						const value = box.value;
						const message = spec.validate(value);
						box.validationMessage = message;
						if (message !== undefined) {
							return;
						}
						if (!spec.accept) {
							resolve(value);
							return;
						}
						if (box.busy) {
							return;
						}
						box.busy = true;
						box.enabled = false;
						spec.accept(value, hidden.signal).then(
							(problem) => {
								box.busy = false;
								box.enabled = true;
								box.validationMessage = problem;
								if (problem === undefined) {
									resolve(value);
								}
							},
							(err: unknown) => {
								box.busy = false;
								box.enabled = true;
								reject(err instanceof Error ? err : new Error(String(err)));
							},
						);
					}),
					box.onDidHide(() => {
						hidden.abort();
						reject(new CancelAction());
					}),
				);
				this.show(box);
			});
		} finally {
			for (const d of disposables) {
				d.dispose();
			}
		}
	}

	/** Shows a quick-pick step; resolves with the item accepted, or throws Back / Cancel. */
	async showQuickPick<T extends vscode.QuickPickItem>(spec: QuickPickStep<T>): Promise<T> {
		const pick = vscode.window.createQuickPick<T>();
		const disposables: vscode.Disposable[] = [];
		let checking = false;
		try {
			pick.title = spec.title;
			pick.step = spec.step;
			pick.totalSteps = spec.totalSteps;
			pick.placeholder = spec.placeholder;
			pick.items = spec.items;
			pick.ignoreFocusOut = true;
			pick.busy = spec.busy ?? false;
			if (spec.activeItem) {
				pick.activeItems = [spec.activeItem];
			}
			pick.buttons = this.history.length > 1 ? [vscode.QuickInputButtons.Back] : [];
			return await new Promise<T>((resolve, reject) => {
				disposables.push(
					pick.onDidTriggerButton((button) => {
						if (button === vscode.QuickInputButtons.Back) {
							reject(new BackAction());
						}
					}),
					pick.onDidAccept(() => {
						const chosen = pick.selectedItems[0] ?? pick.activeItems[0] ?? spec.acceptTyped?.(pick.value);
						if (!chosen || checking) {
							return;
						}
						if (!spec.check) {
							resolve(chosen);
							return;
						}
						checking = true;
						pick.busy = true;
						pick.enabled = false;
						spec.check(chosen).then(
							(ok) => {
								checking = false;
								pick.busy = false;
								pick.enabled = true;
								if (ok) {
									resolve(chosen);
								}
							},
							(err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
						);
					}),
					pick.onDidHide(() => reject(new CancelAction())),
				);
				this.show(pick);
				spec.onShow?.(pick);
			});
		} finally {
			for (const d of disposables) {
				d.dispose();
			}
		}
	}
}
