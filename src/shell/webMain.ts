/**
 * The body in the browser's extension host, VS Code for the Web (src/extension.web.ts requires it):
 * src/shell/main.ts on the browser's platform. A file of its own so that Node's body (dist/main.js)
 * holds nothing of the browser's platform.
 */
import { start } from './main';
import type { StartBody } from './standIns';
import { webPlatform } from '../platform/web/webPlatform';

/** Starts the body on the browser's platform (src/platform/web/webPlatform.ts). */
export const startWeb: StartBody = (context, shell) => start(context, webPlatform, shell);
