/**
 * Each platform's half of the wire (Node's undici, the browser's fetch): the client's code kept in
 * the platforms' rooms, without vscode. One list for the tests that treat them as the client's
 * (test/unit/build/layers.test.ts, test/unit/l10n.test.ts); ESLint's config names them too.
 */
export const WIRE_HALVES: readonly string[] = ['src/platform/node/network.ts', 'src/platform/web/fetchWire.ts'];
