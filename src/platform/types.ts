/**
 * What differs between the extension hosts the extension runs in, chosen once by the entry point
 * (Node's: src/extension.ts with nodePlatform.ts; the browser's, VS Code for the Web:
 * src/extension.web.ts with webPlatform.ts) and handed down to the services. No feature tests for a
 * platform itself.
 */
import type * as vscode from 'vscode';
import type { Connect } from '../api';
import type { UserFiles } from '../views/actions';
import type { LocalFiles } from '../compare/localFiles';
import type { ClaimStore } from '../activity/announce';

export interface Platform {
	/** Which extension host: what messages and the activation report name. */
	readonly name: 'node' | 'web';
	/** How every client reaches the network (src/api/wire.ts). */
	readonly connect: Connect;
	/** The user's own files: Node's home folder and ~/.ssh/known_hosts; the browser reaches neither. */
	readonly userFiles: UserFiles;
	/**
	 * The local folder `root` as a comparison reaches it (src/compare/localFiles.ts), or undefined
	 * when this host cannot compare with it (Node's: `file:` folders only).
	 */
	localFiles(this: void, root: vscode.Uri): LocalFiles | undefined;
	/**
	 * The claims that make one window of a profile announce an Activity event (src/activity/announce.ts),
	 * kept in `folder` (under globalStorageUri): Node's exclusive file creation, the browser's Web Lock.
	 */
	claims(this: void, folder: vscode.Uri): ClaimStore;
}
