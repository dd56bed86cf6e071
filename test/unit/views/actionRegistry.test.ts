import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError } from '../../../src/api';
import type { CommandId } from '../../../src/ids';
import type {
	ActionFollower,
	ActionKit,
	FilesAction,
	LinkAction,
	RecordAction,
	ResourceAction,
	ScmTargets,
	Services,
} from '../../../src/views/actions';
import { ActionRegistry, PENDING_SAID_AFTER_MS, imagesIn } from '../../../src/views/actionRegistry';
import { deploymentId } from '../../../src/auth/deployments';
import { IMAGE_SCHEME } from '../../../src/ids';
import { automation } from '../../../src/views/automation';
import type { ListDescriptor } from '../../../src/views/descriptor';
import { captureTimeouts, disposedAfterEach, until } from '../support/until';
import * as fake from '../support/vscodeFake';

interface Thing {
	id: string;
	name: string;
}

const cmd = (id: string): CommandId => id as CommandId;

/** The services an action registry is built with: a session, views and stores, each recording what it is asked. */
function services(options: { signedIn?: boolean; initialized?: boolean } = {}) {
	const things: Thing[] = [
		{ id: 't1', name: 'One' },
		{ id: 't2', name: 'Two' },
	];
	const changed = new vscode.EventEmitter<void>();
	const session = {
		signedIn: options.signedIn ?? true,
		initialized: options.initialized ?? true,
		apiUrl: 'https://api.example.test',
		onDidChange: changed.event,
		client: { name: 'client' },
	};
	const asked: string[] = [];
	const provider = {
		find: () => undefined,
		parent: undefined,
		refresh: async (listId?: unknown) => void asked.push(`refresh:${String(listId)}`),
		loadMore: async (listId?: unknown) => void asked.push(`loadMore:${String(listId)}`),
	};
	const lines: string[] = [];
	const log = {
		info: (m: string) => void lines.push(`info ${m}`),
		error: (m: string, ...rest: unknown[]) => void lines.push(`error ${m} ${rest.map(String).join(' ')}`),
	};
	const shownRecords: unknown[][] = [];
	const signIns: number[] = [];
	/** Rows of another deployment (src/views/deploymentTree.ts keeps them), with that deployment's lists and session. */
	const otherRows = new WeakMap<object, string>();
	const otherSession = { ...session, apiUrl: 'https://staging.example.test', client: { name: 'staging client' } };
	const otherProvider = { ...provider, refresh: async (listId?: unknown) => void asked.push(`staging refresh:${String(listId)}`) };
	const otherLists = {
		ctx: { client: () => otherSession.client, lookup: () => undefined, flag: () => false },
		providerOf: () => otherProvider,
		selected: () => undefined,
	};
	const views = {
		ctx: { client: () => session.client, lookup: () => undefined, flag: () => false },
		providerOf: () => provider,
		selected: () => undefined,
		deployments: {
			all: () => [],
			claim: <T extends object>(value: T, id: string): T => {
				otherRows.set(value, id);
				return value;
			},
			ownerOf: (arg: unknown) =>
				typeof arg === 'object' && arg !== null && otherRows.has(arg)
					? {
							lists: otherLists,
							scope: {
								lists: otherLists,
								session: otherSession,
								deployment: { id: 'staging-0123456789ab', name: 'Staging' },
							},
						}
					: undefined,
		},
	};
	const svc = {
		session,
		views,
		log,
		context: {
			extension: {
				packageJSON: {
					contributes: {
						commands: [
							{ command: 'cloudAgents.test.rename', title: 'Rename Thing…' },
							{ command: 'cloudAgents.test.create', title: { value: 'Create Thing', original: 'Create Thing' } },
						],
					},
				},
			},
			globalState: { get: () => undefined },
		},
		records: { show: async (...args: unknown[]) => void shownRecords.push(args) },
		signIn: async () => {
			signIns.push(1);
			session.signedIn = true;
		},
		githubApiUrl: () => undefined,
		onUnauthorized: undefined as ((err: unknown) => boolean) | undefined,
		/** The default deployment's followed run t1/r1; what was stopped. */
		follower: {
			following: [{ agentId: 't1', runId: 'r1', status: 'running' }],
			stopped: [] as string[],
			stop(agentId: string, runId: string) {
				this.stopped.push(`${agentId}/${runId}`);
				return true;
			},
		},
	};
	const list: ListDescriptor<Thing, { thing: Thing }, undefined> = {
		key: 'things',
		kind: 'thing',
		commands: { refresh: cmd('cloudAgents.test.refreshThings'), loadMore: cmd('cloudAgents.test.moreThings') },
		source: { list: async () => ({ items: things, more: false }) },
		keyOf: (t) => t.id,
		row: (t) => ({ label: t.name, contextValue: 'thing' }),
		fields: (thing) => ({ thing }),
		target: {
			idField: 'thingId',
			get: async (_ctx, id) => things.find((t) => t.id === id),
			choices: async () => things,
			pickText: (t) => ({ label: t.name }),
			placeholder: () => 'Pick a thing',
		},
	};
	return {
		svc,
		services: svc as unknown as Services,
		session,
		otherRows,
		otherSession,
		changed,
		asked,
		lines,
		shownRecords,
		signIns,
		list,
		things,
	};
}

type World = ReturnType<typeof services>;

/** A record action on `things` that records the target and kit it ran with. */
function renameAction(w: World, extra: Partial<RecordAction<Thing, { thing: Thing }>> = {}) {
	const ran: Array<{ target: { thing: Thing }; kit: ActionKit }> = [];
	const action: RecordAction<Thing, { thing: Thing }> = {
		on: w.list,
		command: cmd('cloudAgents.test.rename'),
		run: async (target, kit) => {
			ran.push({ target, kit });
			return `renamed ${target.thing.id}`;
		},
		...extra,
	};
	return { action, ran };
}

/** A resource action that hands its kit to the test. */
function kitOf(w: World, arg?: unknown, registry = new ActionRegistry(w.services, [], [])): Promise<ActionKit> {
	let kit: ActionKit | undefined;
	const action: ResourceAction = {
		command: cmd('cloudAgents.test.create'),
		run: async (k) => {
			kit = k;
			return undefined;
		},
	};
	return registry.invoke(action, arg).then(() => kit!);
}

/** src/views/actionRegistry.ts on the `vscode` fake, with recording services. */
suite('views/actionRegistry', () => {
	const disposables = disposedAfterEach();

	test("several deployments (issue 47): another deployment's row follows with that deployment's follower; an action it invokes stays in that deployment", async () => {
		const w = services();
		const followed: string[] = [];
		const stagingFollower = {
			following: [],
			follow: async (agentId: string, runId: string) => void followed.push(`staging ${agentId}/${runId}`),
		} as unknown as ActionFollower;
		const registry = new ActionRegistry(w.services, [], [], (id) => (id === 'staging-0123456789ab' ? stagingFollower : undefined));
		const row = automation({ thingId: 't1' });
		w.otherRows.set(row, 'staging-0123456789ab');
		const kit = await kitOf(w, row, registry);
		assert.equal(kit.follower, stagingFollower);
		await kit.follow('t1', 'r1');
		assert.deepEqual(followed, ['staging t1/r1']);
		assert.ok(!w.lines.some((l) => /not followed/.test(l)));
		// What it invokes with {agentId, runId} (the status bar's Open Result) runs with Staging's follower and session too.
		const ref = { agentId: 't1', runId: 'r1' };
		let inner: ActionKit | undefined;
		const probe: ResourceAction = { command: cmd('cloudAgents.test.create'), run: async (k) => void (inner = k) };
		await kit.invoke(probe, ref);
		assert.equal(inner?.follower, stagingFollower);
		assert.equal(inner?.session, w.otherSession);
		assert.ok(!w.otherRows.has(ref), "the caller's object is left as it was (a copy is Staging's)");
		// From a row of the default deployment: the services' follower, and an invoked action stays there.
		const home = await kitOf(w, automation({ thingId: 't2' }), registry);
		assert.equal(home.follower, w.svc.follower);
		await home.invoke(probe, ref);
		assert.equal(inner?.session, w.session);
	});

	test("register: each list's refresh and loadMore (with a subtree's id), and every action, as commands", async () => {
		const w = services();
		const { action } = renameAction(w);
		const create: ResourceAction = { command: cmd('cloudAgents.test.create'), run: async () => 'created' };
		const registry = new ActionRegistry(w.services, [w.list], [{ rename: action, create }]);
		disposables.push(...registry.register());
		assert.equal(disposables.length, 4);
		await fake.registeredCommand('cloudAgents.test.refreshThings')!();
		await fake.registeredCommand('cloudAgents.test.moreThings')!('things/sub');
		assert.deepEqual(w.asked, ['refresh:undefined', 'loadMore:things/sub']);
		assert.equal(await fake.registeredCommand('cloudAgents.test.create')!(), 'created');
		assert.equal(await fake.registeredCommand('cloudAgents.test.rename')!('t2'), 'renamed t2');
	});

	test('several deployments (issue 47): an action on a row of another deployment runs with its lists, session and client; follow says it is not followed', async () => {
		const w = services();
		const { action, ran } = renameAction(w);
		const registry = new ActionRegistry(w.services, [], []);
		const row = automation({ thingId: 't1' });
		w.otherRows.set(row, 'staging-0123456789ab');
		assert.equal(await registry.invoke(action, row), 'renamed t1');
		const kit = ran[0]!.kit;
		assert.equal(kit.client(), w.otherSession.client, "that deployment's client");
		assert.equal(kit.session, w.otherSession);
		await kit.refresh();
		assert.deepEqual(w.asked, ['staging refresh:undefined'], "its own deployment's list read again");
		await kit.follow('t1', 'r1');
		assert.ok(w.lines.some((l) => /Runs of Staging are not followed in this window/.test(l)));
		// The follower follows the default deployment's runs: none of these (a run of the same ids there stays followed).
		assert.deepEqual(kit.follower.following, []);
		assert.equal(kit.follower.stop('t1', 'r1'), false);
		assert.deepEqual(w.svc.follower.stopped, []);
		// Its records are that deployment's documents: the same record key of the default deployment is another URI.
		await kit.showJson('Thing t1', ['things', 't1'], { id: 't1' });
		await kit.records.show(vscode.Uri.parse('cloud-agents-record:/runs/a1/r1/Result.md'), 'text');
		// A row of the default deployment: the services' own session and client, as before.
		await registry.invoke(action, 't2');
		assert.equal(ran[1]!.kit.client(), w.session.client);
		assert.equal(ran[1]!.kit.session, w.session);
		assert.equal(ran[1]!.kit.follower, w.svc.follower);
		await ran[1]!.kit.showJson('Thing t1', ['things', 't1'], { id: 't1' });
		assert.deepEqual(
			w.shownRecords.map((args) => (args[0] as vscode.Uri).authority),
			['staging-0123456789ab', 'staging-0123456789ab', ''],
		);
	});

	test('a record action resolves its target (an id, an automation object) and runs with it', async () => {
		const w = services();
		const { action, ran } = renameAction(w);
		const registry = new ActionRegistry(w.services, [], []);
		assert.equal(await registry.invoke(action, 't1'), 'renamed t1');
		assert.equal(await registry.invoke(action, automation({ thingId: 't2' })), 'renamed t2');
		assert.deepEqual(
			ran.map((r) => r.target.thing.id),
			['t1', 't2'],
		);
		assert.equal(ran[0]!.kit.automation, false);
		assert.equal(ran[1]!.kit.automation, true);
		assert.equal(ran[0]!.kit.arg, 't1');
	});

	test('targetArg: the record is resolved from what it makes of the argument', async () => {
		const w = services();
		const { action, ran } = renameAction(w, { targetArg: (arg) => (arg as { owner: string }).owner });
		await new ActionRegistry(w.services, [], []).invoke(action, { owner: 't2' });
		assert.equal(ran[0]!.target.thing.id, 't2');
		assert.deepEqual(ran[0]!.kit.arg, { owner: 't2' }, 'the kit keeps the argument as given');
	});

	test("the pick is titled by the command's title without its trailing …, or by the action's own title", async () => {
		const w = services();
		const titles: unknown[] = [];
		fake.answer('window.createQuickPick', () => {
			const pick = new fake.FakeQuickPick();
			queueMicrotask(() => {
				titles.push(pick.title);
				pick.hide();
			});
			return pick;
		});
		const registry = new ActionRegistry(w.services, [], []);
		assert.equal(await registry.invoke(renameAction(w).action), undefined, 'dismissed: the action does not run');
		await registry.invoke(renameAction(w, { title: () => 'Rename Which Thing' }).action);
		await registry.invoke(renameAction(w, { command: cmd('cloudAgents.test.unlisted') }).action);
		assert.deepEqual(titles, ['Rename Thing', 'Rename Which Thing', 'cloudAgents.test.unlisted']);
	});

	test('a person signed out is told so and offered Sign In; dismissing it runs nothing', async () => {
		const w = services({ signedIn: false });
		const { action, ran } = renameAction(w);
		const registry = new ActionRegistry(w.services, [], []);
		assert.equal(await registry.invoke(action, 't1'), undefined);
		const [message, choice] = fake.calls('window.showInformationMessage')[0]!;
		assert.equal(message, 'You are signed out of Cloud Agents. Sign in to use Rename Thing.');
		assert.equal(choice, 'Sign In');
		assert.deepEqual(ran, []);
		assert.deepEqual(w.signIns, []);
	});

	test('a person signed out who signs in goes on to the action', async () => {
		const w = services({ signedIn: false });
		fake.answer('window.showInformationMessage', async () => 'Sign In');
		const { action } = renameAction(w);
		assert.equal(await new ActionRegistry(w.services, [], []).invoke(action, 't1'), 'renamed t1');
		assert.deepEqual(w.signIns, [1]);
	});

	test('an automation caller signed out is not asked: the action goes on (the service says what it says)', async () => {
		const w = services({ signedIn: false });
		const { action } = renameAction(w);
		assert.equal(await new ActionRegistry(w.services, [], []).invoke(action, automation({ thingId: 't1' })), 'renamed t1');
		assert.equal(fake.calls('window.showInformationMessage').length, 0);
	});

	test('run before the sign-in state is read: waits for it, then goes on signed in without asking', async () => {
		const w = services({ signedIn: false, initialized: false });
		const { action, ran } = renameAction(w);
		const invoked = new ActionRegistry(w.services, [], []).invoke(action, 't1');
		await new Promise((resolve) => setImmediate(resolve));
		assert.deepEqual(ran, []);
		w.session.signedIn = true;
		w.session.initialized = true;
		w.changed.fire();
		assert.equal(await invoked, 'renamed t1');
		assert.equal(fake.calls('window.showInformationMessage').length, 0);
	});

	test('through its command: a person sees a failure once; an automation caller gets it thrown', async () => {
		const w = services();
		const failure = new ApiError(409, 'conflict', 'thing is busy', undefined);
		const { action } = renameAction(w, {
			run: async () => {
				throw failure;
			},
		});
		disposables.push(...new ActionRegistry(w.services, [], [{ action }]).register());
		const command = fake.registeredCommand('cloudAgents.test.rename')!;
		assert.equal(await command('t1'), undefined);
		await until(() => fake.calls('window.showErrorMessage').length === 1, 'the message');
		assert.match(fake.calls('window.showErrorMessage')[0]![0] as string, /thing is busy/);
		await assert.rejects(Promise.resolve(command(automation({ thingId: 't1' }))), (err) => err === failure);
		assert.equal(fake.calls('window.showErrorMessage').length, 1, 'not shown to the automation caller');
		assert.equal(w.lines.filter((l) => l.startsWith('error cloudAgents.test.rename failed:')).length, 2);
	});

	test("several deployments (issue 47): a failure on another deployment's row names it and its 401 goes to that deployment's prompt; with one, as before", async () => {
		const w = services();
		let failure: unknown = new ApiError(409, 'conflict', 'thing is busy', undefined);
		const { action } = renameAction(w, {
			run: async () => {
				throw failure;
			},
		});
		const prompts: string[] = [];
		w.svc.onUnauthorized = () => {
			prompts.push('default');
			return true;
		};
		Object.assign(w.otherSession, {
			reportError: () => {
				prompts.push('staging');
				return true;
			},
		});
		disposables.push(...new ActionRegistry(w.services, [], [{ action }]).register());
		const command = fake.registeredCommand('cloudAgents.test.rename')!;
		const clicked = { thingId: 't1' };
		w.otherRows.set(clicked, 'staging-0123456789ab');
		// One deployment configured: the message as it always was.
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		await command('t1');
		await until(() => fake.calls('window.showErrorMessage').length === 1, 'the message');
		assert.match(fake.calls('window.showErrorMessage')[0]![0] as string, /^[^:]*thing is busy/);
		// Two: each failure says whose it is, the default deployment's too.
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: 'https://staging.example.test' }];
		await command(clicked);
		await command('t1');
		await until(() => fake.calls('window.showErrorMessage').length === 3, 'the messages');
		assert.match(fake.calls('window.showErrorMessage')[1]![0] as string, /^Staging: .*thing is busy/);
		assert.match(fake.calls('window.showErrorMessage')[2]![0] as string, /^api\.example\.test: .*thing is busy/);
		// A 401 of Staging's row: Staging's own "sign in again" prompt, not the default deployment's.
		failure = new ApiError(401, 'unauthenticated', 'token revoked', undefined);
		await command(clicked);
		await command('t1');
		await until(() => prompts.length === 2, 'the prompts');
		assert.deepEqual(prompts, ['staging', 'default']);
	});

	test('invokeShown: a failure is logged and shown, a cancellation is silent, a result is returned', async () => {
		const w = services();
		const registry = new ActionRegistry(w.services, [], []);
		const failing: ResourceAction = {
			command: cmd('cloudAgents.test.create'),
			run: async () => {
				throw new Error('could not create');
			},
		};
		assert.equal(await registry.invokeShown(failing), undefined);
		await until(() => fake.calls('window.showErrorMessage').length === 1, 'the message');
		assert.ok(w.lines.some((l) => l.startsWith('error cloudAgents.test.create failed:')));
		const cancelled: ResourceAction = {
			command: cmd('cloudAgents.test.create'),
			run: async () => {
				throw new vscode.CancellationError();
			},
		};
		assert.equal(await registry.invokeShown(cancelled), undefined);
		assert.equal(w.lines.length, 1);
		const fine: ResourceAction = { command: cmd('cloudAgents.test.create'), run: async () => 42 };
		assert.equal(await registry.invokeShown(fine), 42);
	});

	test('kit.info and kit.warn: a person sees them (made safe), an automation caller’s go to the log only', async () => {
		const w = services();
		const person = await kitOf(w, 't1');
		person.info('Done [x](command:evil)');
		person.warn('Careful');
		assert.equal(fake.calls('window.showInformationMessage')[0]![0], 'Done [x] (command: evil)');
		assert.equal(fake.calls('window.showWarningMessage')[0]![0], 'Careful');
		assert.deepEqual(w.lines, [
			'info cloudAgents.test.create: shown: Done [x] (command: evil)',
			'info cloudAgents.test.create: shown: Careful',
		]);
		const auto = await kitOf(w, automation({}));
		auto.info('Quiet');
		assert.equal(fake.calls('window.showInformationMessage').length, 1);
		assert.equal(w.lines.at(-1), 'info cloudAgents.test.create (automation): not shown: Quiet');
	});

	test('one deployment (issue 47): what an action tells names no deployment; its kit says none', async () => {
		const w = services();
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		const person = await kitOf(w, 't1');
		person.info('Deleted the thing One.');
		person.warn('Careful');
		fake.answer('window.showWarningMessage', async () => 'Delete');
		await person.confirm('Delete the thing One?', undefined, 'Delete');
		await person.progress('Deleting', async () => undefined);
		assert.equal(fake.calls('window.showInformationMessage')[0]![0], 'Deleted the thing One.');
		assert.deepEqual(
			fake.calls('window.showWarningMessage').map((c) => c[0]),
			['Careful', 'Delete the thing One?'],
		);
		assert.equal((fake.calls('window.withProgress')[0]![0] as { title: string }).title, 'Deleting');
		assert.deepEqual(person.deployment, { id: undefined, shownName: undefined });
	});

	test("two deployments (issue 47): an action's messages, confirmations and progress name its row's deployment, the default one's too", async () => {
		const w = services();
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: 'https://staging.example.test' }];
		const row = automation({ thingId: 't1' });
		// A person's click on a row of Staging: the same object without the automation marker.
		const clicked = { thingId: 't1' };
		w.otherRows.set(clicked, 'staging-0123456789ab');
		const theirs = await kitOf(w, clicked);
		theirs.info('Deleted the thing One.');
		fake.answer('window.showWarningMessage', async () => 'Delete');
		assert.equal(await theirs.confirm('Delete the thing One?', 'for ever', 'Delete'), true);
		await theirs.progress('Deleting', async () => undefined);
		assert.equal(fake.calls('window.showInformationMessage')[0]![0], 'Staging: Deleted the thing One.');
		assert.deepEqual(fake.calls('window.showWarningMessage')[0]!.slice(0, 2), [
			'Staging: Delete the thing One?',
			{ modal: true, detail: 'for ever' },
		]);
		assert.equal((fake.calls('window.withProgress')[0]![0] as { title: string }).title, 'Staging: Deleting');
		assert.deepEqual(theirs.deployment, { id: 'staging-0123456789ab', shownName: 'Staging' });
		// The default deployment's row (or the palette): its name, the host of cloudAgents.apiUrl.
		const mine = await kitOf(w, 't1');
		mine.warn('Careful');
		assert.equal(fake.calls('window.showWarningMessage').at(-1)![0], 'api.example.test: Careful');
		assert.deepEqual(mine.deployment, { id: undefined, shownName: 'api.example.test' });
		// An automation caller's message goes to the log, named too.
		(await kitOf(w, row)).info('Quiet');
		assert.match(w.lines.at(-1)!, /not shown: api\.example\.test: Quiet$/);
	});

	test("imagesIn (issue 47): another deployment's image carries its part and names it, keeping its extension; the default's with one deployment is the very object", async () => {
		const shown: vscode.Uri[] = [];
		const images = { show: async (uri: vscode.Uri, _bytes: Uint8Array) => (shown.push(uri), uri) };
		const STAGING = deploymentId('https://staging.example.test');
		assert.equal(imagesIn(images, undefined, undefined), images);
		const uri = vscode.Uri.from({ scheme: IMAGE_SCHEME, path: '/chart.png', query: 'a1/x1' });
		await imagesIn(images, STAGING, 'Staging').show(uri, new Uint8Array());
		await imagesIn(images, undefined, 'api.example.test').show(uri, new Uint8Array());
		assert.deepEqual(
			shown.map((u) => [u.authority, u.path, u.query]),
			[
				[STAGING, '/chart (Staging).png', 'a1/x1'],
				['', '/chart (api.example.test).png', 'a1/x1'],
			],
		);
	});

	test('kit.confirm: an automation caller has decided; a person is asked a modal question', async () => {
		const w = services();
		assert.equal(await (await kitOf(w, automation({}))).confirm('Delete?', undefined, 'Delete'), true);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
		const person = await kitOf(w);
		fake.answer('window.showWarningMessage', async () => 'Delete');
		assert.equal(await person.confirm('Delete?', 'for ever', 'Delete'), true);
		assert.deepEqual(fake.calls('window.showWarningMessage')[0]!.slice(1), [{ modal: true, detail: 'for ever' }, 'Delete']);
		fake.answer('window.showWarningMessage', async () => undefined);
		assert.equal(await person.confirm('Delete?', undefined, 'Delete'), false);
	});

	test('kit.title is the command title; kit.showJson opens a JSON record titled, control characters escaped', async () => {
		const w = services();
		const kit = await kitOf(w);
		assert.equal(kit.title, 'Create Thing', 'a title given as {value, original}');
		await kit.showJson('Thing One', ['things', 't1'], { name: 'a\u202Eb', n: 1 });
		const [uri, content, language, options] = w.shownRecords[0] as [vscode.Uri, string, string, unknown];
		assert.equal(uri.path, '/Thing One');
		assert.equal(uri.query, 'things/t1');
		assert.equal(language, 'json');
		assert.deepEqual(options, { forceLanguage: true });
		assert.ok(content.endsWith('}\n'));
		assert.ok(!content.includes('\u202E'));
		assert.match(content, /"n": 1/);
	});

	test('kit.copy puts the text on the clipboard and says so in the status bar, icons shown as typed', async () => {
		const kit = await kitOf(services());
		await kit.copy('req_123', 'Copied $(check)');
		assert.deepEqual(fake.calls('env.clipboard.writeText')[0], ['req_123']);
		assert.deepEqual(fake.calls('window.setStatusBarMessage')[0], ['Copied \\$(check)', 3000]);
	});

	test('kit.progress: a cancellable notification whose cancel aborts the work; messages made safe', async () => {
		const kit = await kitOf(services());
		const source = new vscode.CancellationTokenSource();
		const reports: unknown[] = [];
		fake.answer('window.withProgress', async (_options: unknown, task: (p: unknown, t: unknown) => unknown) =>
			task({ report: (r: unknown) => reports.push(r) }, source.token),
		);
		const result = await kit.progress('Uploading\nfile', async (signal, report) => {
			report('step [1](command:x)');
			source.cancel();
			return signal.aborted;
		});
		assert.equal(result, true, 'cancel aborts the signal');
		assert.deepEqual(fake.calls('window.withProgress')[0]![0], {
			location: vscode.ProgressLocation.Notification,
			title: 'Uploading file',
			cancellable: true,
		});
		assert.deepEqual(reports, [{ message: 'step [1] (command: x)' }]);
	});

	test('kit.refresh re-reads the list of the action', async () => {
		const w = services();
		const { action, ran } = renameAction(w);
		await new ActionRegistry(w.services, [], []).invoke(action, 't1');
		await ran[0]!.kit.refresh();
		assert.deepEqual(w.asked, ['refresh:undefined']);
	});

	suite('kit.pending (the timer captured, never waited for)', () => {
		const timers = captureTimeouts(PENDING_SAID_AFTER_MS);

		test('a request that ends in time says nothing', async () => {
			const kit = await kitOf(services());
			assert.equal(await kit.pending('Waiting', async () => 'quick'), 'quick');
			assert.equal(timers.length, 1);
			assert.equal(timers[0]!.cleared, true);
			assert.equal(fake.calls('window.withProgress').length, 0);
		});

		test('a request still running after the delay: a cancellable notification until it ends; cancel aborts it', async () => {
			const kit = await kitOf(services());
			const source = new vscode.CancellationTokenSource();
			let progressEnded = false;
			fake.answer('window.withProgress', async (_o: unknown, task: (p: unknown, t: unknown) => Promise<unknown>) => {
				await task({ report: () => undefined }, source.token);
				progressEnded = true;
			});
			let seen: AbortSignal | undefined;
			const running = kit.pending(
				'Waiting for the [service](command:x)',
				(signal) =>
					new Promise<string>((resolve, reject) => {
						seen = signal;
						signal.addEventListener('abort', () => reject(new Error('aborted by the person')));
					}),
			);
			assert.equal(timers.length, 1);
			assert.equal(timers[0]!.ms, PENDING_SAID_AFTER_MS);
			timers[0]!.fn();
			assert.deepEqual(fake.calls('window.withProgress')[0]![0], {
				location: vscode.ProgressLocation.Notification,
				title: 'Waiting for the [service] (command: x)',
				cancellable: true,
			});
			assert.equal(seen?.aborted, false);
			source.cancel();
			await assert.rejects(running, /aborted by the person/);
			await until(() => progressEnded, 'the notification to close');
		});

		test('an automation caller gets no notification (no timer at all)', async () => {
			const kit = await kitOf(services(), automation({}));
			assert.equal(await kit.pending('Waiting', async () => 'done'), 'done');
			assert.equal(timers.length, 0);
		});
	});

	suite('Source Control actions', () => {
		interface Link {
			id: string;
		}
		function scm(links: Link[]): ScmTargets<Link, string> {
			return {
				links: () => links,
				linkById: (id) => links.find((l) => l.id === id),
				linkOfControl: () => undefined,
				filesOfUri: (uri) => [uri.path],
				filesOf: (link, paths) => (paths ?? []).map((p) => `${link.id}:${p}`),
				linkOfFile: () => links[0]!,
				keyOf: (f) => f,
				pickText: (l) => ({ label: l.id }),
				noLinks: () => 'Nothing is linked.',
			};
		}

		test('a files action gets every file its arguments name (the clicked one and the selection)', async () => {
			const w = services();
			const got: string[][] = [];
			const action: FilesAction<Link, string> = {
				command: cmd('cloudAgents.test.apply'),
				scm: scm([{ id: 'L1' }]),
				acts: 'files',
				run: async (files) => void got.push(files),
			};
			disposables.push(...new ActionRegistry(w.services, [], [{ action }]).register());
			const a = { resourceUri: vscode.Uri.file('/w/a') };
			const b = { resourceUri: vscode.Uri.file('/w/b') };
			await fake.registeredCommand('cloudAgents.test.apply')!(a, [a, b]);
			assert.deepEqual(got, [['/w/a', '/w/b']]);
		});

		test('a link action: the link named, or (none linked) nothing runs and the person is told', async () => {
			const w = services();
			const got: Link[] = [];
			const links = [{ id: 'L1' }, { id: 'L2' }];
			const action: LinkAction<Link, string> = {
				command: cmd('cloudAgents.test.unlink'),
				scm: scm(links),
				acts: 'link',
				placeHolder: () => 'Which link?',
				run: async (link) => void got.push(link),
			};
			const registry = new ActionRegistry(w.services, [], []);
			await registry.invoke(action, { link: 'L2' });
			assert.deepEqual(got, [links[1]]);
			links.splice(0);
			assert.equal(await registry.invoke(action), undefined);
			assert.equal(got.length, 1);
			assert.equal(fake.calls('window.showInformationMessage')[0]![0], 'Nothing is linked.');
		});
	});
});
