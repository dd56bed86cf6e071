/**
 * Quick picks and input boxes for the workspace commands' unit tests: what `window.createQuickPick`
 * and `window.createInputBox` return in the vscode fake (test/unit/support/vscodeFake.ts answers
 * them with undefined). A test answers those with `installQuickInputs()` and then drives what a
 * person does (types, accepts, hides) and waits for what the code under test sets.
 */
import * as vscode from 'vscode';
import * as fake from '../support/vscodeFake';

type Check = () => void;

/** Something whose properties the code under test sets; `until` waits for one of them to hold. */
class Watched {
	private readonly checks = new Set<Check>();
	protected changed(): void {
		for (const c of [...this.checks]) {
			c();
		}
	}
	/** Resolves when `predicate` holds (checked now and after every property the code sets). */
	until(predicate: () => boolean): Promise<void> {
		return new Promise((resolve) => {
			const check = (): void => {
				if (predicate()) {
					this.checks.delete(check);
					resolve();
				}
			};
			this.checks.add(check);
			check();
		});
	}
}

/** Defines accessors on `target` for `names` that call `changed()` when set. */
function watched(target: Watched, names: string[]): void {
	const values = new Map<string, unknown>();
	for (const name of names) {
		Object.defineProperty(target, name, {
			get: () => values.get(name),
			set: (v: unknown) => {
				values.set(name, v);
				(target as unknown as { changed(): void }).changed();
			},
		});
	}
}

export class FakeQuickPick<T extends vscode.QuickPickItem = vscode.QuickPickItem> extends Watched {
	declare title: string | undefined;
	declare placeholder: string | undefined;
	declare busy: boolean;
	declare enabled: boolean;
	declare items: readonly T[];
	declare activeItems: readonly T[];
	declare selectedItems: readonly T[];
	matchOnDescription = false;
	matchOnDetail = false;
	keepScrollPosition = false;
	shown = false;
	disposed = false;
	private readonly accepted = new vscode.EventEmitter<void>();
	private readonly hidden = new vscode.EventEmitter<void>();
	readonly onDidAccept = this.accepted.event;
	readonly onDidHide = this.hidden.event;
	constructor() {
		super();
		watched(this, ['title', 'placeholder', 'busy', 'enabled', 'items', 'activeItems', 'selectedItems']);
		this.items = [];
		this.activeItems = [];
		this.selectedItems = [];
	}
	show(): void {
		this.shown = true;
		this.changed();
	}
	hide(): void {
		if (this.shown) {
			this.shown = false;
			this.hidden.fire();
		}
	}
	dispose(): void {
		this.disposed = true;
		this.hide();
	}
	/** A person picks `item` (Enter). */
	accept(item: T | undefined): void {
		this.selectedItems = item ? [item] : [];
		this.accepted.fire();
	}
}

export class FakeInputBox extends Watched {
	declare title: string | undefined;
	declare prompt: string | undefined;
	declare placeholder: string | undefined;
	declare validationMessage: string | undefined;
	value = '';
	shown = false;
	disposed = false;
	private readonly valueChanged = new vscode.EventEmitter<string>();
	private readonly accepted = new vscode.EventEmitter<void>();
	private readonly hidden = new vscode.EventEmitter<void>();
	readonly onDidChangeValue = this.valueChanged.event;
	readonly onDidAccept = this.accepted.event;
	readonly onDidHide = this.hidden.event;
	constructor() {
		super();
		watched(this, ['title', 'prompt', 'placeholder', 'validationMessage']);
	}
	show(): void {
		this.shown = true;
		this.changed();
	}
	hide(): void {
		if (this.shown) {
			this.shown = false;
			this.hidden.fire();
		}
	}
	dispose(): void {
		this.disposed = true;
	}
	/** A person types `value` (replacing what was there). */
	type(value: string): void {
		this.value = value;
		this.valueChanged.fire(value);
	}
	/** A person presses Enter. */
	accept(): void {
		this.accepted.fire();
	}
}

/** Answers `window.createQuickPick` and `window.createInputBox` with fakes; returns those created, in order. */
export function installQuickInputs(): {
	picks: FakeQuickPick[];
	boxes: FakeInputBox[];
	nextPick(): Promise<FakeQuickPick>;
	nextBox(): Promise<FakeInputBox>;
} {
	const picks: FakeQuickPick[] = [];
	const boxes: FakeInputBox[] = [];
	const waiting: { pick: Array<(p: FakeQuickPick) => void>; box: Array<(b: FakeInputBox) => void> } = { pick: [], box: [] };
	fake.answer('window.createQuickPick', () => {
		const pick = new FakeQuickPick();
		picks.push(pick);
		waiting.pick.splice(0).forEach((w) => w(pick));
		return pick;
	});
	fake.answer('window.createInputBox', () => {
		const box = new FakeInputBox();
		boxes.push(box);
		waiting.box.splice(0).forEach((w) => w(box));
		return box;
	});
	let picksTaken = 0;
	let boxesTaken = 0;
	return {
		picks,
		boxes,
		/** The next pick created (one already created and not yet taken first). */
		nextPick: () =>
			picks.length > picksTaken
				? Promise.resolve(picks[picksTaken++]!)
				: new Promise((r) => waiting.pick.push((p) => (picksTaken++, r(p)))),
		nextBox: () =>
			boxes.length > boxesTaken
				? Promise.resolve(boxes[boxesTaken++]!)
				: new Promise((r) => waiting.box.push((b) => (boxesTaken++, r(b)))),
	};
}
