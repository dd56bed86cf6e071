import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent, Run } from '../../../src/api';
import { ApiError, LIMITS } from '../../../src/api';
import { pickPromptAgent, sendPrompt } from '../../../src/resources/prompt';
import { automation } from '../../../src/views/automation';
import { makePng } from '../../../emulator/src/png';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, quickInputs, type FakeKitOptions, until } from './kit';

/** src/resources/prompt.ts: Send Prompt against the emulator: limits before sending, the busy agent, the runtime that refuses, drafts. */
suite('resources/prompt', () => {
	const env = emulatorPerSuite();
	let agents: Agent[];
	let inputs: ReturnType<typeof quickInputs>;
	let boxes: fake.FakeInputBox[];

	setup(async () => {
		agents = (await env.client.listAgents({ limit: 100 })).items;
		inputs = quickInputs();
		boxes = inputs.boxes;
	});

	const agent = (name: string): Agent => agents.find((a) => a.name === name)!;
	const kitOf = (opts: FakeKitOptions = {}) =>
		fakeKit({ client: env.client, ...opts, extra: { selected: () => undefined, ...opts.extra } });
	const auto = (fields: Record<string, unknown>) => kitOf({ arg: automation(fields), automation: true });
	const creates = async (): Promise<number> => (await env.emu.counters()).mutations.by_kind['runs.create'] ?? 0;
	const warnings = (): string[] => fake.calls('window.showWarningMessage').map((c) => c[0] as string);
	const activeRunOf = async (a: Agent): Promise<Run> => (await env.client.listRuns(a.id)).find((r) => r.status === 'running')!;

	test('automation: the prompt sent to an idle agent as a new run, waiting said under its title', async () => {
		const billing = agent('Refactor billing module');
		const { kit, log } = auto({ prompt: 'Add tests' });
		const sent = await sendPrompt(billing, kit);
		assert.equal(sent?.prompt, 'Add tests');
		assert.equal(sent?.run.prompt, 'Add tests');
		assert.deepEqual(log.progress, ['Sending the prompt to Refactor billing module: waiting for the service…']);
		assert.equal(await creates(), 1);
	});

	test('limits checked before sending: an empty prompt, one past the byte limit, too many images, an image too large', async () => {
		const billing = agent('Refactor billing module');
		const before = (await env.emu.counters()).requests.total;
		assert.equal(await sendPrompt(billing, auto({ prompt: '   ' }).kit), undefined);
		assert.equal(await sendPrompt(billing, auto({ prompt: 'é'.repeat(LIMITS.promptBytes / 2 + 1) }).kit), undefined);
		const paths = Array.from({ length: LIMITS.images + 1 }, (_, i) => `/img/${i}.png`);
		assert.equal(await sendPrompt(billing, auto({ prompt: 'x', images: paths }).kit), undefined);
		const big = vscode.Uri.file('/img/big.png');
		fake.memoryFiles.set(big.toString(), new Uint8Array(Math.floor(LIMITS.imageEncodedBytes / 4) * 3 + 1));
		assert.equal(await sendPrompt(billing, auto({ prompt: 'x', images: [big.fsPath] }).kit), undefined);
		assert.deepEqual(warnings(), [
			'Not sent: Enter a prompt.',
			`Not sent: The prompt is ${LIMITS.promptBytes + 2} bytes long; the limit is ${LIMITS.promptBytes} bytes (UTF-8, after trimming).`,
			`Not sent: images must be at most ${LIMITS.images} images (got ${LIMITS.images + 1}).`,
			`Not sent: images[0] (${big.fsPath}) must be at most ${Math.floor(LIMITS.imageEncodedBytes / 4) * 3} bytes per image file.`,
		]);
		assert.equal((await env.emu.counters()).requests.total, before, 'nothing sent');
	});

	test('an image is sent with the prompt; with an image the prompt may be empty', async () => {
		const billing = agent('Refactor billing module');
		const png = vscode.Uri.file('/img/chart.png');
		fake.memoryFiles.set(png.toString(), new Uint8Array(makePng(4, 4)));
		const sent = await sendPrompt(billing, auto({ prompt: '', images: [png.fsPath] }).kit);
		assert.ok(sent?.run.id);
		assert.equal(await creates(), 1);
	});

	test('a busy agent (409) for automation: onConflict decides — followUp steers the active run, cancel sends nothing', async () => {
		const triage = agent('CI triage');
		const active = await activeRunOf(triage);
		assert.equal(await sendPrompt(triage, auto({ prompt: 'Stop', onConflict: 'cancel' }).kit), undefined);
		const sent = await sendPrompt(triage, auto({ prompt: 'Also check lint', onConflict: 'followUp' }).kit);
		assert.equal(sent?.prompt, 'Also check lint');
		assert.equal(sent?.run.id, active.id, 'the follow-up went to the active run');
		assert.equal(await creates(), 0);
	});

	test('a busy agent, cancelAndSend: the active run cancelled (waited for), then a new run', async () => {
		const triage = agent('CI triage');
		const active = await activeRunOf(triage);
		const { kit, log } = auto({ prompt: 'Start over', onConflict: 'cancelAndSend' });
		const sent = await sendPrompt(triage, kit);
		assert.notEqual(sent?.run.id, active.id);
		assert.equal((await env.client.getRun(triage.id, active.id)).status, 'cancelled');
		assert.ok(log.progress.includes(`Cancelling run ${active.id}…`), log.progress.join('\n'));
		assert.equal(await creates(), 1);
	});

	test('a 409 from a paused runtime: automation gets the refusal itself, with its request id', async () => {
		const sandbox = agent('Sandbox explorer');
		await assert.rejects(sendPrompt(sandbox, auto({ prompt: 'hi' }).kit), (err: unknown) => {
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 409);
			assert.ok(err.requestId);
			return true;
		});
		assert.equal(await creates(), 0);
	});

	test('a person: a paused runtime is explained with what helps, the typed prompt kept and offered again', async () => {
		const sandbox = agent('Sandbox explorer');
		fake.answer('window.showWarningMessage', async () => undefined);
		const { kit } = kitOf();
		const first = sendPrompt(sandbox, kit);
		await until(() => boxes.length === 1 && !boxes[0]!.busy);
		const box = boxes[0]!;
		assert.equal(box.title, 'Send Prompt to Sandbox explorer');
		box.type('Parse the new samples');
		box.accept();
		assert.equal(await first, undefined);
		await until(() => warnings().length === 1);
		assert.match(
			warnings()[0]!,
			/^Not sent to Sandbox explorer: its runtime cobalt-sandbox is paused\. Resume it \(Resume Runtime in the Runtimes view\), then try again\. \(request [^)]+\) Your prompt is kept: Send Prompt offers it again\.$/,
		);
		assert.deepEqual(fake.calls('window.showWarningMessage')[0]!.slice(1), ['Show Runtime Details']);
		const second = sendPrompt(sandbox, kit);
		await until(() => boxes.length === 2 && !boxes[1]!.busy);
		assert.equal(boxes[1]!.value, 'Parse the new samples');
		assert.match(boxes[1]!.prompt!, /\(the prompt not sent last time\)$/);
		boxes[1]!.hide();
		assert.equal(await second, undefined);
	});

	test('a person: a runtime only the service can repair is said in the box before anything is typed', async () => {
		const legacy = agent('Legacy migration');
		const { kit } = kitOf();
		const sending = sendPrompt(legacy, kit);
		await until(() => boxes.length === 1 && !boxes[0]!.busy);
		const message = boxes[0]!.validationMessage as { message: string; severity: number };
		assert.match(
			message.message,
			/^Legacy migration cannot take a prompt now: its runtime fjord-legacy is in error \(image_pull_failed\)/,
		);
		assert.equal(message.severity, vscode.InputBoxValidationSeverity.Warning);
		// What is wrong with the prompt typed comes first.
		boxes[0]!.type('x'.repeat(LIMITS.promptBytes + 1));
		assert.match(boxes[0]!.validationMessage as string, /the limit is/);
		boxes[0]!.accept();
		assert.equal(boxes[0]!.disposed, false, 'a prompt past the limit is not accepted');
		boxes[0]!.hide();
		assert.equal(await sending, undefined);
		assert.equal((await env.emu.counters()).mutations.total, 0);
	});

	test('a person, busy agent: the box says so; Enter sends a follow-up, the stop button switches to cancel-and-send', async () => {
		const triage = agent('CI triage');
		const active = await activeRunOf(triage);
		const { kit } = kitOf();
		const sending = sendPrompt(triage, kit);
		await until(() => boxes.length === 1 && !boxes[0]!.busy);
		const box = boxes[0]!;
		assert.match(box.title!, /^CI triage is busy: "Watch the CI pipeline and report failures" \(running\)$/);
		assert.match(box.prompt!, /^Enter sends this as a follow-up to the active run/);
		box.trigger(box.button('Cancel the Active Run and Send as a New Run'));
		assert.match(box.prompt!, /^Enter cancels the active run, then sends this as a new run\./);
		box.trigger(box.button('Send as a Follow-up to the Active Run'));
		box.type('Look at e2e');
		box.accept();
		const sent = await sending;
		assert.equal(sent?.run.id, active.id);
		assert.equal(await creates(), 0);
		assert.ok(box.disposed);
	});

	test("a person: the active editor's selection sent as the prompt; the typed text kept", async () => {
		const billing = agent('Refactor billing module');
		const text = 'line one\nline two\nline three';
		const selection = { isEmpty: false };
		Object.assign(fake.window, {
			activeTextEditor: {
				document: { uri: vscode.Uri.file('/w/notes.md'), getText: (sel?: unknown) => (sel === selection ? 'line two' : text) },
				selection,
			},
		});
		const { kit } = kitOf();
		const sending = sendPrompt(billing, kit);
		await until(() => boxes.length === 1 && !boxes[0]!.busy);
		boxes[0]!.type('half typed');
		boxes[0]!.trigger(boxes[0]!.button('Send the Selection of the Active Editor'));
		const sent = await sending;
		assert.equal(sent?.prompt, 'line two');
		await env.client.cancelRun(billing.id, sent.run.id);
		const again = sendPrompt(billing, kit);
		await until(() => boxes.length === 2);
		assert.equal(boxes[1]!.value, 'half typed');
		boxes[1]!.trigger(boxes[1]!.button('Send the Whole Active Editor'));
		assert.equal((await again)?.prompt, text);
	});

	test('an Output panel is no prompt source: no editor buttons', async () => {
		Object.assign(fake.window, {
			activeTextEditor: {
				document: { uri: vscode.Uri.parse('output:channel'), getText: () => 'log' },
				selection: { isEmpty: false },
			},
		});
		const { kit } = kitOf();
		const sending = sendPrompt(agent('Refactor billing module'), kit);
		await until(() => boxes.length === 1);
		assert.deepEqual(
			boxes[0]!.buttons.map((b) => (b as { tooltip: string }).tooltip),
			['Attach Images…'],
		);
		boxes[0]!.hide();
		assert.equal(await sending, undefined);
	});

	test('the agent step: the selected agent first, then recently used, then by activity', async () => {
		const billing = agent('Refactor billing module');
		const triage = agent('CI triage');
		const picks = inputs.picks;
		const state = new Map<string, unknown>([['cloudAgents.recentAgents', [triage.id]]]);
		const { kit } = kitOf({
			extra: { selected: () => billing, context: { globalState: { get: (k: string) => state.get(k) } } } as never,
		});
		const picking = pickPromptAgent(kit, 'Send Prompt: pick an agent');
		await until(() => picks.length === 1 && picks[0]!.items.length > 0);
		const items = picks[0]!.items as Array<{ label: string; description: string; agent: Agent }>;
		assert.equal(items[0]!.agent.id, billing.id);
		assert.match(items[0]!.description, /selected$/);
		assert.equal(items[1]!.agent.id, triage.id);
		assert.match(items[1]!.description, /recently used$/);
		assert.equal(items.length, agents.length);
		picks[0]!.accept(items[1]);
		assert.equal((await picking)?.id, triage.id);
	});
});
