import * as assert from 'node:assert/strict';
import { type ToolHandlers, registerLazyTools } from '../../../src/chat/lazyTools';
import * as fake from '../support/vscodeFake';

/** src/chat/lazyTools.ts: the stand-ins activation registers with `vscode.lm` (the fake records them). */
type Registered = [
	string,
	{ invoke: (o: unknown, t: unknown) => Promise<unknown>; prepareInvocation: (o: unknown, t: unknown) => Promise<unknown> },
];

suite('chat/lazyTools', () => {
	test('one stand-in per tool name; nothing loads until a call, then every call goes to the loaded handlers by name', async () => {
		let loads = 0;
		const seen: string[] = [];
		const handlers: ToolHandlers = {
			invoke: async (name, options) => {
				seen.push(`invoke ${name} ${JSON.stringify(options.input)}`);
				return new fake.LanguageModelToolResult([]);
			},
			prepare: async (name) => {
				seen.push(`prepare ${name}`);
				return undefined;
			},
		};
		const disposables = registerLazyTools(['toolA', 'toolB'], () => {
			loads++;
			return handlers;
		});
		assert.equal(disposables.length, 2);
		const registered = fake.calls('lm.registerTool') as unknown as Registered[];
		assert.deepEqual(
			registered.map((r) => r[0]),
			['toolA', 'toolB'],
		);
		assert.equal(loads, 0);
		const token = new fake.CancellationTokenSource().token;
		await registered[1]![1].invoke({ input: { q: 1 } }, token);
		await registered[0]![1].prepareInvocation({ input: {} }, token);
		assert.deepEqual(seen, ['invoke toolB {"q":1}', 'prepare toolA']);
		assert.equal(loads, 2, "load() is asked on each call (the features' require answers from its cache)");
	});

	test('a failure to load reaches the caller of that call', async () => {
		registerLazyTools(['toolA'], () => {
			throw new Error('features did not load');
		});
		const tool = (fake.calls('lm.registerTool') as unknown as Registered[])[0]![1];
		await assert.rejects(async () => tool.invoke({ input: {} }, undefined), /features did not load/);
	});

	test('a host without the language-model API registers nothing', () => {
		const registerTool = fake.lm.registerTool;
		Object.assign(fake.lm, { registerTool: undefined });
		try {
			assert.deepEqual(
				registerLazyTools(['toolA'], () => {
					throw new Error('never loaded');
				}),
				[],
			);
		} finally {
			Object.assign(fake.lm, { registerTool });
		}
	});
});
