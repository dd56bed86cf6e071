import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Services, RecordAction } from '../../../src/views/actions';
import { ActionRegistry } from '../../../src/views/actionRegistry';
import type { ListDescriptor } from '../../../src/views/descriptor';

interface Thing {
	id: string;
}

/**
 * A command from the palette activates the extension and runs at once, while the session is still
 * reading the sign-in state from SecretStorage. A clean-clone run on a loaded machine showed "You
 * are signed out of Cloud Agents" for Add Secret Stub in a window that was signed in: the command
 * waited on that question, and its pick never opened.
 */
suite('Action registry: a command run before the sign-in state is read', () => {
	test('waits for the first read of the sign-in state and goes on signed in, without asking to sign in', async function () {
		this.timeout(30_000);
		const changed = new vscode.EventEmitter<void>();
		const session = { signedIn: false, initialized: false, apiUrl: 'http://127.0.0.1:9', onDidChange: changed.event };
		const services = {
			session,
			views: { ctx: {}, providerOf: () => ({ find: () => undefined, parent: undefined }) },
			context: { extension: { packageJSON: { contributes: { commands: [] } } } },
		} as unknown as Services;
		const things = {
			key: 'test.things',
			kind: 'Thing',
			keyOf: (t: Thing) => t.id,
			fields: (t: Thing) => ({ thing: t }),
			target: { idField: 'thingId', get: (_ctx: unknown, id: string) => Promise.resolve({ id }) },
		} as unknown as ListDescriptor<Thing, { thing: Thing }>;
		const ran: string[] = [];
		const action: RecordAction<Thing, { thing: Thing }> = {
			on: things,
			command: 'cloudAgents.test.thing' as RecordAction<Thing, { thing: Thing }>['command'],
			run: ({ thing }) => {
				ran.push(thing.id);
				return Promise.resolve(thing.id);
			},
		};
		const registry = new ActionRegistry(services, [], []);
		// A person's argument (an id, not an automation object), while the state is still being read.
		const invoked = registry.invoke(action, 'thing-1');
		await new Promise<void>((resolve) => setTimeout(resolve, 0));
		assert.deepEqual(ran, [], 'the action ran before the sign-in state was read');
		// The read ends: a token is stored.
		session.signedIn = true;
		session.initialized = true;
		changed.fire();
		// A ceiling for the failure's message only: without the wait, the action asked to sign in and waits on that question.
		let timer: NodeJS.Timeout | undefined;
		const result = await Promise.race([
			invoked,
			new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting after 20 s (asked to sign in?)'), 20_000))),
		]).finally(() => clearTimeout(timer));
		assert.equal(result, 'thing-1');
		assert.deepEqual(ran, ['thing-1']);
		changed.dispose();
	});
});
