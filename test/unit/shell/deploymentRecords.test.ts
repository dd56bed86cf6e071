import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DeploymentSession } from '../../../src/auth/deploymentSessions';
import { forgetRecordsAtSignOut } from '../../../src/shell/deploymentRecords';

suite('deploymentRecords: a deployment signed out takes its records with it (issue 47)', () => {
	const deployment = (id: string, isDefault = false): DeploymentSession =>
		({ deployment: { id, name: id, apiUrl: `https://${id}.example.test`, isDefault }, session: { signedIn: true } }) as never;

	test('signing out of (or removing) another deployment forgets its records only; the default and the others keep theirs', () => {
		const changed = new vscode.EventEmitter<void>();
		let signedIn = [deployment('home', true), deployment('staging-0123456789ab'), deployment('acme-0123456789ab')];
		const forgotten: Array<string | undefined> = [];
		const watch = forgetRecordsAtSignOut(
			{
				get all() {
					return signedIn;
				},
				onDidChange: changed.event,
			},
			{ forgetAll: async (part?: string) => void forgotten.push(part) },
			{ forgetAll: async (part?: string) => void forgotten.push(`images of ${String(part)}`) },
		);
		try {
			changed.fire();
			assert.deepEqual(forgotten, [], 'nothing changed: nothing forgotten');
			signedIn = signedIn.filter((d) => d.deployment.id !== 'staging-0123456789ab');
			changed.fire();
			assert.deepEqual(forgotten, ['staging-0123456789ab', 'images of staging-0123456789ab']);
			// Signing out of the default deployment is main.ts's to handle (forgetAll() without a part), not this.
			signedIn = signedIn.filter((d) => !d.deployment.isDefault);
			changed.fire();
			assert.equal(forgotten.length, 2);
			signedIn = [];
			changed.fire();
			assert.deepEqual(forgotten, [
				'staging-0123456789ab',
				'images of staging-0123456789ab',
				'acme-0123456789ab',
				'images of acme-0123456789ab',
			]);
		} finally {
			watch.dispose();
			changed.dispose();
		}
	});
});
