import type { AnyListDescriptor } from '../descriptor';
import { accountList } from './account';
import { agentsList } from './agents';
import { githubRequestsList } from './github';
import { artifactsList } from './artifacts';
import { checkpointsList } from './checkpoints';
import { buildAttemptsList, imageBuildsList } from './imageBuilds';
import { imagesList } from './images';
import { modelProvidersList } from './modelProviders';
import { runsList } from './runs';
import { runtimesList } from './runtimes';
import { runtimeSecretStubsList, secretStubsList, secretsList } from './secretStubs';
import { runtimeSshKeysList } from './sshKeys';

export { agentsList, RECENT_AGENTS_KEY } from './agents';
export type { AgentTarget } from './agents';
export { artifactsList, ARTIFACT_READ_CAP_BYTES, artifactKind } from './artifacts';
export type { ArtifactTarget } from './artifacts';
export { runsList } from './runs';
export type { RunTarget } from './runs';
export { runtimesList, runtimeInTransition } from './runtimes';
export type { RuntimeTarget } from './runtimes';
export { ACCOUNT_GROUPS, accountList } from './account';
export { runtimeSecretStubsList, secretStubsList, secretsList, stubShape, stubsOfRuntime } from './secretStubs';
export type { SecretRef, SecretRefTarget, SecretStubTarget, StubShape } from './secretStubs';
export { attachedSshKeys, runtimeSshKeysList } from './sshKeys';
export type { SshKeyTarget } from './sshKeys';
export { authorizationUrl, githubRequestsList, isOpenRequest, requestExpiry } from './github';
export type { GitHubRequestTarget } from './github';
export type { AccountGroup } from './account';
export { imagesList } from './images';
export type { DeleteImageResult, ImageTarget } from './images';
export { buildAttemptsList, buildIcon, imageBuildsList } from './imageBuilds';
export type { BuildAttemptTarget, ImageBuildTarget } from './imageBuilds';
export { checkpointsList, sourceRuntimeText } from './checkpoints';
export type { CheckpointTarget } from './checkpoints';
export { modelProvidersList, readProviders } from './modelProviders';
export type { ModelProviderTarget } from './modelProviders';

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
	accountList,
	runtimeSecretStubsList,
	secretStubsList,
	secretsList,
	runtimeSshKeysList,
	githubRequestsList,
	imagesList,
	imageBuildsList,
	buildAttemptsList,
	checkpointsList,
	modelProvidersList,
];
