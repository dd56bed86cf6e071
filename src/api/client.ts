/**
 * CloudAgentsClient: one method per operation of the Cloud Agents API (51), plus page iterators,
 * workspace helpers for the FileSystemProvider and the run-event stream. Validates every documented
 * limit before sending; decodes answers tolerantly.
 *
 * The methods live in one module per resource group under src/api/endpoints/ (as Octokit groups its
 * endpoints), on one client object: each group is a class over ClientCore (the transport, the
 * state kept per server, the shared steps), and its methods are put on CloudAgentsClient's
 * prototype below, so callers keep calling `client.getAgent(…)` and a group reads on its own.
 */
import { AccountEndpoints } from './endpoints/account';
import { AgentEndpoints } from './endpoints/agents';
import { ArtifactEndpoints } from './endpoints/artifacts';
import { ConfigurationEndpoints } from './endpoints/configuration';
import { ClientCore } from './endpoints/core';
import { ImageEndpoints } from './endpoints/images';
import { RunEndpoints } from './endpoints/runs';
import { RuntimeEndpoints } from './endpoints/runtimes';
import { TokenSavingsEndpoints } from './endpoints/tokenSavings';
import { WorkspaceEndpoints } from './endpoints/workspace';

export type { CloudAgentsClientOptions, ListWorkspaceOptions, ReadChunkOptions, StreamRunEventsOptions } from './endpoints/core';
export { CURSOR_PARAMETER_NAMES, RUNTIME_FILTER_PARAMETER_NAMES } from './endpoints/core';

/** The endpoint groups whose methods make up the client, in the order the API description lists them. */
export const ENDPOINT_GROUPS = [
	AccountEndpoints,
	AgentEndpoints,
	RunEndpoints,
	ArtifactEndpoints,
	WorkspaceEndpoints,
	RuntimeEndpoints,
	ImageEndpoints,
	ConfigurationEndpoints,
	TokenSavingsEndpoints,
] as const;

// The class and the interface merge: the groups' methods are put on CloudAgentsClient.prototype just
// below (every name once, or the module throws on load), so the merged declaration is what the
// object has. TypeScript's documented mixin pattern; unit test: api/client.test.ts.

/** Client of the Cloud Agents API. Create one per base URL; `close()` when done. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class CloudAgentsClient extends ClientCore {}

/** Every group's methods in one type: the intersection of the groups' instance types. */
type Endpoints = UnionToIntersection<InstanceType<(typeof ENDPOINT_GROUPS)[number]>>;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface CloudAgentsClient extends ClientCore, Endpoints {}

for (const group of ENDPOINT_GROUPS) {
	for (const name of Object.getOwnPropertyNames(group.prototype)) {
		if (name === 'constructor') {
			continue;
		}
		if (Object.prototype.hasOwnProperty.call(CloudAgentsClient.prototype, name)) {
			throw new Error(`CloudAgentsClient: two endpoint groups define ${name}`);
		}
		Object.defineProperty(
			CloudAgentsClient.prototype,
			name,
			Object.getOwnPropertyDescriptor(group.prototype, name) as PropertyDescriptor,
		);
	}
}
