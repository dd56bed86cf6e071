import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Deployment } from '../../../src/auth/deployments';
import { KeyedHolder } from '../../../src/auth/keyedHolder';
import { type HeldDeployment, PerDeployment, type PerDeploymentItem, type PerDeploymentWhich } from '../../../src/auth/perDeployment';

/**
 * src/auth/perDeployment.ts: the one holder of a thing per deployment (issue 47) that the views,
 * the agent workspaces, the records and the run followers keep. A source shaped as
 * DeploymentSessions (its `all` and `onDidChange`), whose sessions the test signs in and out.
 */
suite('auth/perDeployment: a thing per deployment, made when it comes, disposed when it goes (issue 47)', () => {
	interface FakeSession {
		signedIn: boolean;
	}
	const deployment = (id: string, name: string, isDefault = false): Deployment => ({
		id,
		name,
		apiUrl: `https://${id}.example.test`,
		isDefault,
	});
	let changed: vscode.EventEmitter<void>;
	let all: HeldDeployment<FakeSession>[];
	/** What happened to the things, in order: `made <name>`, `gone <name>`, `disposed <name>`. */
	let log: string[];
	const home = (): HeldDeployment<FakeSession> => ({
		deployment: deployment('home-000000000000', 'home', true),
		session: { signedIn: true },
	});
	const staging = { deployment: deployment('staging-0123456789ab', 'Staging'), session: { signedIn: true } };
	const acme = { deployment: deployment('acme-0123456789ab', 'Acme'), session: { signedIn: true } };

	setup(() => {
		changed = new vscode.EventEmitter<void>();
		log = [];
		staging.session = { signedIn: true };
		acme.session = { signedIn: false };
		staging.deployment = deployment('staging-0123456789ab', 'Staging');
		all = [home(), staging, acme];
	});
	teardown(() => changed.dispose());

	const holder = (which: PerDeploymentWhich): PerDeployment<FakeSession, PerDeploymentItem & { name: string }> =>
		new PerDeployment(
			{
				get all() {
					return all;
				},
				onDidChange: changed.event,
			},
			({ deployment: d }) => {
				log.push(`made ${d.name}`);
				return { name: d.name, gone: () => void log.push(`gone ${d.name}`), dispose: () => void log.push(`disposed ${d.name}`) };
			},
			which,
		);

	test('signed in: one thing per signed-in deployment other than the default, made once, gone and disposed at sign-out', () => {
		const held = holder('signedIn');
		try {
			assert.deepEqual(log, ['made Staging'], 'none for the default deployment, none for Acme (signed out)');
			assert.equal(held.get('staging-0123456789ab')?.name, 'Staging');
			assert.equal(held.get('home-000000000000'), undefined);
			changed.fire();
			changed.fire();
			assert.deepEqual(log, ['made Staging'], 'a change that changes nothing makes nothing again');
			acme.session.signedIn = true;
			changed.fire();
			assert.deepEqual(log, ['made Staging', 'made Acme']);
			assert.deepEqual(
				[...held].map(([d, thing]) => [d.deployment.id, thing.name]),
				[
					['staging-0123456789ab', 'Staging'],
					['acme-0123456789ab', 'Acme'],
				],
			);
			staging.session.signedIn = false;
			changed.fire();
			assert.deepEqual(
				log.slice(2),
				['gone Staging', 'disposed Staging'],
				'signing out of Staging takes its thing; Acme keeps its own',
			);
			assert.equal(held.get('staging-0123456789ab'), undefined);
			assert.deepEqual(
				held.values().map((t) => t.name),
				['Acme'],
			);
			// Signing out of the default deployment is not this holder's.
			all[0]!.session.signedIn = false;
			changed.fire();
			assert.deepEqual(log.slice(4), []);
		} finally {
			held.dispose();
		}
		assert.deepEqual(log.slice(4), ['disposed Acme'], 'disposed with the holder, and not told it is gone (the window closes)');
		acme.session.signedIn = false;
		changed.fire();
		assert.deepEqual(log.slice(5), [], 'a disposed holder follows nothing');
	});

	test('configured: a thing per configured deployment whatever its sign-in; removed or renamed, it goes (renamed: a new one)', () => {
		const held = holder('configured');
		try {
			assert.deepEqual(log, ['made Staging', 'made Acme']);
			staging.session.signedIn = false;
			changed.fire();
			assert.deepEqual(log.slice(2), [], 'signing out keeps a configured deployment’s thing');
			// Renamed: DeploymentSessions makes it a new session, under the same id.
			staging.deployment = deployment('staging-0123456789ab', 'Staging EU');
			staging.session = { signedIn: false };
			changed.fire();
			assert.deepEqual(log.slice(2), ['gone Staging', 'disposed Staging', 'made Staging EU']);
			assert.equal(held.get('staging-0123456789ab')?.name, 'Staging EU');
			// Another session for the same deployment (its session made again): a new thing too.
			staging.session = { signedIn: false };
			changed.fire();
			assert.deepEqual(log.slice(5), ['gone Staging EU', 'disposed Staging EU', 'made Staging EU']);
			// Removed from the settings.
			all = all.filter((d) => d !== acme);
			changed.fire();
			assert.deepEqual(log.slice(8), ['gone Acme', 'disposed Acme']);
			assert.equal(held.size, 1);
		} finally {
			held.dispose();
		}
		assert.deepEqual(log.slice(10), ['disposed Staging EU']);
	});

	test('a thing is still found while it is disposed, and a change its disposal causes does not dispose it twice', () => {
		const seen: unknown[] = [];
		const held: PerDeployment<FakeSession, PerDeploymentItem> = new PerDeployment(
			{
				get all() {
					return all;
				},
				onDidChange: changed.event,
			},
			({ deployment: d }) => ({
				dispose: () => {
					log.push(`disposed ${d.name}`);
					seen.push(held.get(d.id) !== undefined);
					changed.fire(); // as a session's disposal may
				},
			}),
			'signedIn',
		);
		try {
			staging.session.signedIn = false;
			changed.fire();
			assert.deepEqual(log, ['disposed Staging']);
			assert.deepEqual(seen, [true]);
			assert.equal(held.get('staging-0123456789ab'), undefined);
			staging.session.signedIn = true;
			changed.fire();
			assert.ok(held.get('staging-0123456789ab'), 'signed in again: a new one');
		} finally {
			held.dispose();
		}
	});
});

/**
 * src/auth/keyedHolder.ts: the keyed sync itself, with a sameness of the caller's, as Activity keeps
 * a watching per deployment (src/activity/activity.ts): the same session and account keep it,
 * another account on the same session makes it anew, no longer wanted disposes it.
 */
suite('auth/keyedHolder: things by key, made anew when what they are wanted for changes', () => {
	test('kept while the same, gone and made again when not, disposed when no longer wanted or with the holder', () => {
		const log: string[] = [];
		const session = {};
		const held = new KeyedHolder<{ session: object; account: string }, PerDeploymentItem & { account: string }>(
			({ account }) => {
				log.push(`made ${account}`);
				return { account, gone: () => void log.push(`gone ${account}`), dispose: () => void log.push(`disposed ${account}`) };
			},
			(was, now) => was.session === now.session && was.account === now.account,
		);
		assert.equal(held.sync(new Map([['staging', { session, account: 'a' }]])), true);
		assert.equal(held.sync(new Map([['staging', { session, account: 'a' }]])), false, 'the same (another object alike): kept');
		assert.deepEqual(log, ['made a']);
		assert.equal(held.sync(new Map([['staging', { session, account: 'b' }]])), true);
		assert.deepEqual(log, ['made a', 'gone a', 'disposed a', 'made b'], 'another account: made anew under the same key');
		assert.equal(held.get('staging')?.account, 'b');
		assert.deepEqual(
			[...held.entries()].map(([key, item, wanted]) => [key, item.account, wanted.account]),
			[['staging', 'b', 'b']],
		);
		assert.equal(held.sync(new Map([['staging', { session: {}, account: 'b' }]])), true, 'another session: made anew');
		assert.equal(held.sync(new Map()), true);
		assert.deepEqual(log.slice(4), ['gone b', 'disposed b', 'made b', 'gone b', 'disposed b']);
		assert.equal(held.size, 0);
		held.sync(new Map([['acme', { session, account: 'c' }]]));
		held.dispose();
		assert.deepEqual(log.slice(9), ['made c', 'disposed c'], 'the holder disposed: not told it is gone');
		assert.equal(held.sync(new Map([['acme', { session, account: 'c' }]])), false, 'a disposed holder makes nothing');
	});
});
