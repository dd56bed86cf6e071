/** `node:assert/strict` in the web runner's bundle (scripts/lib/bundle-tests.mjs): the `assert` package's strict mode, Node's own API. */
import type * as NodeAssert from 'node:assert';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the package has no types of its own; Node's are the same API
const assert = (require('assert') as typeof NodeAssert).strict;
export = assert;
