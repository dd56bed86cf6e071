/**
 * What a deployment's sign-out takes with it beside its lists (issue 47): its record documents.
 * Loaded with the features (src/shell/featureEntry.ts), where the deployments' sessions are.
 */
import type * as vscode from 'vscode';
import type { DeploymentSessions } from '../auth/deploymentSessions';
import { addressPart } from '../auth/deployments';
import type { ImageDocuments } from '../views/imageDocuments';
import type { RecordDocuments } from '../views/recordDocuments';

/**
 * Signed out of a deployment other than the default one, or it was removed: its record documents
 * and image artifacts go (their tabs close), as the default deployment's do at its sign-out (src/shell/main.ts).
 */
export function forgetRecordsAtSignOut(
	deployments: Pick<DeploymentSessions, 'signedIn' | 'onDidChange'>,
	records: Pick<RecordDocuments, 'forgetAll'>,
	images?: Pick<ImageDocuments, 'forgetAll'>,
): vscode.Disposable {
	const signedInIds = (): Set<string> =>
		new Set(deployments.signedIn.filter((d) => !d.deployment.isDefault).map((d) => addressPart(d.deployment)!));
	let before = signedInIds();
	return deployments.onDidChange(() => {
		const now = signedInIds();
		for (const part of before) {
			if (!now.has(part)) {
				void records.forgetAll(part);
				void images?.forgetAll(part);
			}
		}
		before = now;
	});
}
