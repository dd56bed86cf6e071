import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { MultiStepInput } from '../../../src/views/multiStep';
import type { InputBoxStep, InputStep } from '../../../src/views/multiStep';
import { until } from '../support/until';
import * as fake from '../support/vscodeFake';

type Item = vscode.QuickPickItem;

/** Every input box and quick pick the flow creates, in order. */
function inputs(): { boxes: fake.FakeInputBox[]; picks: fake.FakeQuickPick<Item>[] } {
	const made = { boxes: [] as fake.FakeInputBox[], picks: [] as fake.FakeQuickPick<Item>[] };
	fake.answer('window.createInputBox', () => {
		const box = new fake.FakeInputBox();
		made.boxes.push(box);
		return box;
	});
	fake.answer('window.createQuickPick', () => {
		const pick = new fake.FakeQuickPick<Item>();
		made.picks.push(pick);
		return pick;
	});
	return made;
}

interface State {
	name?: string;
	kind?: string;
}

const header = (step: number): { title: string; step: number; totalSteps: number } => ({ title: 'Create Agent', step, totalSteps: 2 });

function nameBox(state: State, extra: Partial<InputBoxStep> = {}): InputBoxStep {
	return {
		...header(1),
		value: state.name ?? '',
		prompt: 'Name',
		validate: (v) => (v.trim() === '' ? 'A name is required' : v.length > 5 ? 'At most 5 characters' : undefined),
		...extra,
	};
}

/** Step 1 asks a name (box), step 2 a kind (pick). */
const askKind: InputStep<State> = async (input, state) => {
	const item = await input.showQuickPick({ ...header(2), items: [{ label: 'small' }, { label: 'large' }], placeholder: 'Kind' });
	state.kind = item.label;
	return undefined;
};
const askName: InputStep<State> = async (input, state) => {
	state.name = await input.showInputBox(nameBox(state, { remember: (v) => (state.name = v) }));
	return askKind;
};

/** src/views/multiStep.ts on the `vscode` fake (quick inputs driven by the test). */
suite('views/multiStep', () => {
	test('every step answered: true, the state filled, the steps titled and numbered, no Back on the first', async () => {
		const made = inputs();
		const state: State = {};
		const done = MultiStepInput.run(askName, state);
		await until(() => made.boxes.length === 1, 'the first step');
		const box = made.boxes[0]!;
		assert.ok(box.shown);
		assert.equal(box.title, 'Create Agent');
		assert.equal(box.step, 1);
		assert.equal(box.totalSteps, 2);
		assert.equal(box.prompt, 'Name');
		assert.equal(box.ignoreFocusOut, true);
		assert.deepEqual(box.buttons, [], 'no Back on the first step');
		assert.equal(box.validationMessage, undefined, 'an empty first value is not blamed before typing');
		box.type('bot');
		box.accept();
		await until(() => made.picks.length === 1, 'the second step');
		const pick = made.picks[0]!;
		assert.ok(box.disposed, 'the previous input is disposed when the next shows');
		assert.deepEqual(pick.buttons, [vscode.QuickInputButtons.Back]);
		assert.equal(pick.step, 2);
		pick.accept(pick.items[1]);
		assert.equal(await done, true);
		assert.deepEqual(state, { name: 'bot', kind: 'large' });
		assert.ok(pick.disposed, 'the last input is disposed at the end');
	});

	test('validation: checked on every keystroke and on Enter; an invalid value does not pass', async () => {
		const made = inputs();
		const state: State = {};
		const done = MultiStepInput.run(askName, state);
		await until(() => made.boxes.length === 1, 'the first step');
		const box = made.boxes[0]!;
		box.type('toolong');
		assert.equal(box.validationMessage, 'At most 5 characters');
		assert.equal(state.name, 'toolong', 'remember hears each value typed');
		box.accept();
		box.value = '  ';
		box.accept();
		assert.equal(box.validationMessage, 'A name is required');
		await new Promise((resolve) => setImmediate(resolve));
		assert.equal(made.picks.length, 0, 'still on the first step');
		box.hide();
		assert.equal(await done, false);
	});

	test('a prefilled invalid value is blamed at once; a refusal of the service shows instead', async () => {
		const made = inputs();
		const once: InputStep<State> = async (input, state) => {
			state.name = await input.showInputBox(nameBox({ name: 'waytoolong' }));
			return undefined;
		};
		void MultiStepInput.run(once, {});
		await until(() => made.boxes.length === 1, 'the step');
		assert.equal(made.boxes[0]!.validationMessage, 'At most 5 characters');
		made.boxes[0]!.hide();
		const refused: InputStep<State> = async (input, state) => {
			state.name = await input.showInputBox(nameBox({ name: 'bot' }, { refusal: 'That name is taken' }));
			return undefined;
		};
		void MultiStepInput.run(refused, {});
		await until(() => made.boxes.length === 2, 'the step');
		assert.equal(made.boxes[1]!.validationMessage, 'That name is taken');
		made.boxes[1]!.hide();
	});

	test('Back returns to the previous step, which shows the value remembered', async () => {
		const made = inputs();
		const state: State = {};
		const done = MultiStepInput.run(askName, state);
		await until(() => made.boxes.length === 1, 'the first step');
		made.boxes[0]!.type('bot');
		made.boxes[0]!.accept();
		await until(() => made.picks.length === 1, 'the second step');
		made.picks[0]!.trigger(vscode.QuickInputButtons.Back);
		await until(() => made.boxes.length === 2, 'the first step again');
		const again = made.boxes[1]!;
		assert.equal(again.value, 'bot');
		assert.deepEqual(again.buttons, [], 'the first step again: no Back');
		again.type('bot2');
		again.accept();
		await until(() => made.picks.length === 2, 'the second step again');
		made.picks[1]!.accept(made.picks[1]!.items[0]);
		assert.equal(await done, true);
		assert.deepEqual(state, { name: 'bot2', kind: 'small' });
	});

	test('a button other than Back does nothing; dismissing any step ends the flow with false', async () => {
		const made = inputs();
		const done = MultiStepInput.run(askName, {});
		await until(() => made.boxes.length === 1, 'the first step');
		made.boxes[0]!.trigger({ iconPath: new vscode.ThemeIcon('gear') });
		made.boxes[0]!.type('bot');
		made.boxes[0]!.accept();
		await until(() => made.picks.length === 1, 'the second step');
		made.picks[0]!.hide();
		assert.equal(await done, false);
	});

	test('`before` opens the flow at a later step with Back to the steps behind it', async () => {
		const made = inputs();
		const state: State = { name: 'old' };
		const done = MultiStepInput.run(askKind, state, [askName]);
		await until(() => made.picks.length === 1, 'the later step');
		assert.deepEqual(made.picks[0]!.buttons, [vscode.QuickInputButtons.Back]);
		made.picks[0]!.trigger(vscode.QuickInputButtons.Back);
		await until(() => made.boxes.length === 1, 'the step behind');
		assert.equal(made.boxes[0]!.value, 'old');
		made.boxes[0]!.hide();
		assert.equal(await done, false);
	});

	test('accept: the box is busy meanwhile; a problem keeps the step open with the value; then it passes', async () => {
		const made = inputs();
		const answers: Array<(problem: string | undefined) => void> = [];
		let signal: AbortSignal | undefined;
		const step: InputStep<State> = async (input, state) => {
			state.name = await input.showInputBox(
				nameBox(state, {
					accept: (_value, s) => {
						signal = s;
						return new Promise((resolve) => answers.push(resolve));
					},
				}),
			);
			return undefined;
		};
		const state: State = {};
		const done = MultiStepInput.run(step, state);
		await until(() => made.boxes.length === 1, 'the step');
		const box = made.boxes[0]!;
		box.type('bot');
		box.accept();
		assert.equal(box.busy, true);
		assert.equal(box.enabled, false);
		box.accept();
		assert.equal(answers.length, 1, 'Enter again while checking does not check twice');
		answers[0]!('Taken');
		await until(() => !box.busy, 'the check to end');
		assert.equal(box.validationMessage, 'Taken');
		assert.equal(box.value, 'bot');
		assert.equal(box.enabled, true);
		box.accept();
		answers[1]!(undefined);
		assert.equal(await done, true);
		assert.equal(state.name, 'bot');
		assert.equal(signal?.aborted, false);
	});

	test('accept: dismissing the box aborts its signal; a failing accept rejects the flow with an Error', async () => {
		const made = inputs();
		let signal: AbortSignal | undefined;
		const pending: InputStep<State> = async (input) => {
			await input.showInputBox(
				nameBox(
					{},
					{
						accept: (_v, s) => {
							signal = s;
							return new Promise(() => undefined);
						},
					},
				),
			);
			return undefined;
		};
		const dismissed = MultiStepInput.run(pending, {});
		await until(() => made.boxes.length === 1, 'the step');
		made.boxes[0]!.type('bot');
		made.boxes[0]!.accept();
		made.boxes[0]!.hide();
		assert.equal(await dismissed, false);
		assert.equal(signal?.aborted, true);

		const failing: InputStep<State> = async (input) => {
			// A rejection that is no Error (a caller's plain string) still rejects the flow with an Error.
			// eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
			await input.showInputBox(nameBox({}, { accept: () => Promise.reject('not an error') }));
			return undefined;
		};
		const failed = MultiStepInput.run(failing, {});
		await until(() => made.boxes.length === 2, 'the step');
		made.boxes[1]!.type('bot');
		made.boxes[1]!.accept();
		await assert.rejects(failed, (err) => err instanceof Error && err.message === 'not an error');
		assert.ok(made.boxes[1]!.disposed);
	});

	test('quick pick: the active item or a typed value when nothing is selected; nothing keeps it open', async () => {
		const made = inputs();
		const chosen: Item[] = [];
		const items = [{ label: 'a' }, { label: 'b' }];
		const step: InputStep<State> = async (input) => {
			chosen.push(
				await input.showQuickPick({
					...header(1),
					items,
					placeholder: 'p',
					activeItem: items[1],
					busy: true,
					acceptTyped: (value) => (value ? { label: `typed:${value}` } : undefined),
				}),
			);
			return undefined;
		};
		const first = MultiStepInput.run(step, {});
		await until(() => made.picks.length === 1, 'the pick');
		assert.equal(made.picks[0]!.busy, true);
		assert.deepEqual(made.picks[0]!.activeItems, [items[1]]);
		made.picks[0]!.accept();
		assert.equal(await first, true);
		assert.equal(chosen[0], items[1]);

		const second = MultiStepInput.run(step, {});
		await until(() => made.picks.length === 2, 'the pick');
		const pick = made.picks[1]!;
		pick.activeItems = [];
		pick.accept();
		await new Promise((resolve) => setImmediate(resolve));
		assert.equal(chosen.length, 1, 'nothing chosen, nothing typed: still open');
		pick.value = 'zz';
		pick.accept();
		assert.equal(await second, true);
		assert.deepEqual(chosen[1], { label: 'typed:zz' });
	});

	test('quick pick: onShow gets the pick; check false keeps it open, true ends the step, a throw rejects', async () => {
		const made = inputs();
		let shownWith: unknown;
		const checks: Array<(ok: boolean) => void> = [];
		const step: InputStep<State> = async (input, state) => {
			const item = await input.showQuickPick({
				...header(1),
				items: [{ label: 'a' }],
				placeholder: 'p',
				onShow: (pick) => (shownWith = pick),
				check: () => new Promise<boolean>((resolve) => checks.push(resolve)),
			});
			state.kind = item.label;
			return undefined;
		};
		const state: State = {};
		const done = MultiStepInput.run(step, state);
		await until(() => made.picks.length === 1, 'the pick');
		const pick = made.picks[0]!;
		assert.equal(shownWith, pick);
		pick.accept(pick.items[0]);
		assert.equal(pick.busy, true);
		assert.equal(pick.enabled, false);
		pick.accept(pick.items[0]);
		assert.equal(checks.length, 1, 'one check at a time');
		checks[0]!(false);
		await until(() => pick.enabled, 'the check to end');
		assert.equal(state.kind, undefined);
		pick.accept(pick.items[0]);
		checks[1]!(true);
		assert.equal(await done, true);
		assert.equal(state.kind, 'a');

		const throwing: InputStep<State> = async (input) => {
			await input.showQuickPick({
				...header(1),
				items: [{ label: 'a' }],
				placeholder: 'p',
				check: () => Promise.reject(new Error('lookup failed')),
			});
			return undefined;
		};
		const failed = MultiStepInput.run(throwing, {});
		await until(() => made.picks.length === 2, 'the pick');
		made.picks[1]!.accept(made.picks[1]!.items[0]);
		await assert.rejects(failed, /lookup failed/);
	});

	test("a step's own error ends the flow with it", async () => {
		const boom: InputStep<State> = async () => {
			throw new Error('step failed');
		};
		await assert.rejects(MultiStepInput.run(boom, {}), /step failed/);
	});
});
