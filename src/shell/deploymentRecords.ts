/**
 * What a deployment's sign-out takes with it beside its lists (issue 47): its record documents.
 * Loaded with the features (src/shell/featureEntry.ts), where the deployments' sessions are.
 */
import type * as vscode from 'vscode';
import { PerDeployment, type PerDeploymentSource } from '../auth/perDeployment';
import type { ImageDocuments } from '../views/imageDocuments';
import type { RecordDocuments } from '../views/recordDocuments';

/**
 * Signed out of a deployment other than the default one, or it was removed: its record documents
 * and image artifacts go (their tabs close), as the default deployment's do at its sign-out
 * (src/shell/main.ts). Each signed-in deployment's records are a thing of its own
 * (src/auth/perDeployment.ts) whose end is that forgetting; the window closing forgets nothing.
 */
export function forgetRecordsAtSignOut(
	deployments: PerDeploymentSource<{ readonly signedIn: boolean }>,
	records: Pick<RecordDocuments, 'forgetAll'>,
	images?: Pick<ImageDocuments, 'forgetAll'>,
): vscode.Disposable {
	return new PerDeployment(
		deployments,
		({ deployment }) => ({
			gone: () => {
				void records.forgetAll(deployment.id);
				void images?.forgetAll(deployment.id);
			},
			dispose: () => undefined,
		}),
		'signedIn',
	);
}
