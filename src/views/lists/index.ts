import type { AnyListDescriptor } from '../descriptor';
import { agentsList } from './agents';
import { artifactsList } from './artifacts';
import { runsList } from './runs';
import { runtimesList } from './runtimes';

export { agentsList, RECENT_AGENTS_KEY } from './agents';
export type { AgentTarget } from './agents';
export { artifactsList, ARTIFACT_READ_CAP_BYTES, artifactKind } from './artifacts';
export type { ArtifactTarget } from './artifacts';
export { runsList } from './runs';
export type { RunTarget } from './runs';
export { runtimesList, runtimeInTransition } from './runtimes';
export type { RuntimeTarget } from './runtimes';

/**
 * Every list of the extension: `CloudAgentViews` creates a tree view for each one with a `viewId`
 * (in this order), nests each one whose parent is `children` under the rows of its parent, and
 * registers each one's refresh and load-more commands. A new list is a module in this folder, one
 * line here, and its package.json entries (`test/unit/views/registry.test.ts` checks the folder
 * and this list agree).
 */
export const LIST_DESCRIPTORS: readonly AnyListDescriptor[] = [
	agentsList,
	runsList,
	runtimesList,
	artifactsList,
];
