/**
 * The platform (src/platform/types.ts) of the extension host the suites run in, for a test that
 * builds its own Session: Node's here; in the web lanes' bundle, hostPlatform.web.ts (an esbuild
 * alias: scripts/lib/bundle-tests.mjs), so the web runner never loads undici.
 */
import { NodeLocalFiles } from '../../../src/platform/node/nodeLocalFiles';
import { nodePlatform } from '../../../src/platform/node/nodePlatform';

export const hostPlatform = nodePlatform((folder) => new NodeLocalFiles(folder));
