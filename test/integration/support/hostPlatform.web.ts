/** hostPlatform.ts in the web lanes (VS Code for the Web's extension host): the browser's platform. */
export { webPlatform as hostPlatform } from '../../../src/platform/web/webPlatform';
