/**
 * The platform (src/shell/platform.ts) of the extension host the suites run in, for a test that
 * builds its own Session: Node's here; in the web lanes' bundle, hostPlatform.web.ts (an esbuild
 * alias: scripts/lib/bundle-tests.mjs), so the web runner never loads undici.
 */
export { nodePlatform as hostPlatform } from '../../../src/shell/nodePlatform';
