import * as assert from 'node:assert/strict';
import { AUTOMATION_FIELD, automation, isAutomation } from '../../../src/views/automation';

suite('the automation contract (src/views/automation.ts)', () => {
	test("what Source Control menus and clicks pass is a person's click, however plain an object it is", () => {
		// A resource state's own command argument, a resource state, a group and a source control as
		// the extension host hands them back: plain objects and class instances, none marked.
		const state = { resourceUri: { scheme: 'file', path: '/a.txt' }, contextValue: 'agent:modified', difference: { path: 'a.txt' } };
		class Group {
			readonly id = 'agent';
			readonly resourceStates = [state];
		}
		for (const arg of [
			{ link: 'l1', paths: ['a.txt'] },
			{ agentId: 'a1', confirm: false },
			state,
			new Group(),
			{ id: 'cloudAgents.changes.l1', label: 'agent ↔ folder', count: 1 },
			[state],
			'a1',
			undefined,
			null,
		]) {
			assert.equal(isAutomation(arg), false, JSON.stringify(arg));
		}
	});

	test('only an object that says so is automation: `automation: true`, as written or built', () => {
		assert.equal(isAutomation({ automation: true }), true);
		assert.equal(isAutomation({ automation: true, link: 'l1', paths: ['a.txt'] }), true);
		const built = automation({ agentId: 'a1', confirm: false });
		assert.deepEqual(built, { agentId: 'a1', confirm: false, automation: true });
		assert.equal(isAutomation(built), true);
		assert.equal(AUTOMATION_FIELD, 'automation');
		for (const arg of [{ automation: 'true' }, { automation: 1 }, { automation: false }, [{ automation: true }]]) {
			assert.equal(isAutomation(arg), false, JSON.stringify(arg));
		}
	});
});
