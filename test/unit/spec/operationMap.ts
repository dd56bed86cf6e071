/**
 * Where each operation of spec/openapi.yaml is reached in the UI: a contributed command id, a
 * contributed view id, or a flow (`flow:<name>`, listed in FLOWS) that is neither. One line per
 * operation, keyed by its operationId; `operationMap.test.ts` fails when an operation of the spec
 * has no line here or in PENDING_OPERATIONS, when a line names an operation the spec lacks, or a
 * command or view package.json does not contribute.
 *
 * Adding a surface: add (or change) its operation's line in OPERATION_MAP and delete it from
 * PENDING_OPERATIONS.
 */

/** A place in the UI: a command id, a view id (both `cloudAgents.*`), or a flow of FLOWS. */
export type Surface = `cloudAgents.${string}` | `flow:${string}`;

/** Flows that reach operations without a command or view of their own. */
export const FLOWS: Readonly<Record<`flow:${string}`, string>> = {
	'flow:workspaceFs': 'the cloud-agent: file system (Explorer, editors, search) over an agent workspace',
	'flow:commandTarget': 'a command run with an id (a link, another command, automation): the resolver reads the record',
	'flow:accountLabel': 'the Accounts menu entry, labelled from the profile',
};

/** operationId → where it is reached (more than one place: the first is the main one). */
export const OPERATION_MAP: Readonly<Record<string, Surface | readonly Surface[]>> = {
	getMe: ['cloudAgents.signIn', 'flow:accountLabel'], // GET /v2/me
	startDeviceAuthorization: 'cloudAgents.signIn', // POST /v2/auth/device/authorization
	exchangeDeviceToken: 'cloudAgents.signIn', // POST /v2/auth/device/token
	revokeToken: 'cloudAgents.signOut', // DELETE /v2/auth/token
	listAgents: 'cloudAgents.agents', // GET /v2/agents
	createAgent: 'cloudAgents.agents.create', // POST /v2/agents
	getAgent: 'flow:commandTarget', // GET /v2/agents/{agent_id}
	updateAgent: 'cloudAgents.agents.rename', // PATCH /v2/agents/{agent_id}
	deleteAgent: 'cloudAgents.agents.delete', // DELETE /v2/agents/{agent_id}
	listRuns: 'cloudAgents.runs', // GET /v2/agents/{agent_id}/runs
	createRun: 'cloudAgents.runs.sendPrompt', // POST /v2/agents/{agent_id}/runs
	getRun: 'cloudAgents.runs.openResult', // GET /v2/agents/{agent_id}/runs/{run_id}
	cancelRun: 'cloudAgents.runs.cancel', // DELETE /v2/agents/{agent_id}/runs/{run_id}
	resumeRun: 'cloudAgents.runs.resume', // POST /v2/agents/{agent_id}/runs/{run_id}/resume
	createFollowUp: 'cloudAgents.runs.followUp', // POST /v2/agents/{agent_id}/runs/{run_id}/follow-ups
	streamRunEvents: 'cloudAgents.runs.follow', // GET /v2/agents/{agent_id}/runs/{run_id}/events
	listArtifacts: 'cloudAgents.artifacts', // GET /v2/agents/{agent_id}/artifacts
	createArtifact: 'cloudAgents.artifacts.upload', // POST /v2/agents/{agent_id}/artifacts
	getArtifact: 'cloudAgents.artifacts.open', // GET /v2/agents/{agent_id}/artifacts/{artifact_id}
	deleteArtifact: 'cloudAgents.artifacts.delete', // DELETE /v2/agents/{agent_id}/artifacts/{artifact_id}
	queryWorkspace: ['flow:workspaceFs', 'cloudAgents.workspace.search', 'cloudAgents.workspace.goToFile'], // POST /v2/agents/{agent_id}/workspace
	writeWorkspaceFile: 'flow:workspaceFs', // PUT /v2/agents/{agent_id}/workspace/files
	deleteWorkspaceFile: 'flow:workspaceFs', // DELETE /v2/agents/{agent_id}/workspace/files
	listRuntimes: 'cloudAgents.runtimes', // GET /v2/runtimes
	resumeRuntime: 'cloudAgents.runtimes.resume', // POST /v2/runtimes/{runtime_id}/resume
	listVncCredentials: 'cloudAgents.runtimes.listVncCredentials', // GET /v2/runtimes/{runtime_id}/vnc-credentials
	healthz: 'cloudAgents.checkConnection', // GET /healthz
	healthzHead: ['cloudAgents.checkConnection', 'cloudAgents.agents'], // HEAD /healthz — also the signed-out welcome's probe
	getSshHostKey: ['cloudAgents.ssh.showGatewayHostKey', 'cloudAgents.ssh.copyGatewayHostKey', 'cloudAgents.ssh.addGatewayHostKeyToKnownHosts'], // GET /v2/ssh-host-key
	createComputerSession: 'cloudAgents.agents.openComputer', // POST /v2/agents/{agent_id}/computer-sessions
	listTokenSavings: ['cloudAgents.savings.open', 'cloudAgents.savings.showSummary'], // GET /v2/token-savings
	listRuntimeTokenSavings: ['cloudAgents.savings.open', 'cloudAgents.savings.showSummary'], // GET /v1/runtimes/{runtime_id}/tokensaver/savings
	getSecret: ['cloudAgents.secrets.open', 'cloudAgents.account'], // GET /v2/secrets/{secret_id}
	deleteSecret: 'cloudAgents.secrets.delete', // DELETE /v2/secrets/{secret_id}
	createSecretStub: 'cloudAgents.secretStubs.create', // POST /v1/runtimes/{runtime_id}/secret-stubs
	deleteRuntimeSecretStub: 'cloudAgents.secretStubs.delete', // DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}
	listSecretStubs: ['cloudAgents.account', 'cloudAgents.runtimes'], // GET /v1/secret-stubs
	deleteSecretStub: 'cloudAgents.secretStubs.delete', // DELETE /v1/secret-stubs/{stub_id}
	detachRuntimeSshKey: 'cloudAgents.sshKeys.detach', // DELETE /v2/runtimes/{runtime_id}/ssh-keys/{ssh_key_id}
	deleteSshKey: 'cloudAgents.sshKeys.delete', // DELETE /v2/ssh-keys/{ssh_key_id}
	listGithubAuthorizationRequests: ['cloudAgents.account', 'cloudAgents.github.authorize'], // GET /v2/github/authorization-requests
	putGithubRuntimeBindings: 'cloudAgents.github.editBindings', // PUT /v2/github/runtime-bindings/{runtime_id}
	getAgentEvents: 'cloudAgents.agents.showSessionHistory', // GET /v2/agents/{agent_id}/events
	listImages: 'cloudAgents.account', // GET /v2/images — the Images group
	deleteImage: 'cloudAgents.images.delete', // DELETE /v2/images/{image_id}
	listImageBuilds: 'cloudAgents.account', // GET /v2/images/builds — the Image builds group
	createImageBuild: ['cloudAgents.imageBuilds.startFromEditor', 'cloudAgents.imageBuilds.start'], // POST /v2/images/builds
	getImageBuild: ['cloudAgents.imageBuilds.follow', 'cloudAgents.imageBuilds.showDetails'], // GET /v2/images/builds/{build_id}
	listCheckpoints: 'cloudAgents.account', // GET /v2/checkpoints — the Checkpoints group
	listModelProviders: ['cloudAgents.account', 'cloudAgents.modelProviders.edit'], // GET /v2/model-providers — the Model providers group
	updateModelProvider: 'cloudAgents.modelProviders.save', // PATCH /v2/model-providers/{provider_id} (also on saving the document)
};

/**
 * Operations with no surface yet: the surfaces of issue 13 being built in parallel (images, image
 * builds, checkpoints, secrets, secret stubs, SSH, GitHub, model providers, agent events, health,
 * token savings, computer sessions). The test passes while they are listed here; when a surface
 * lands, its operations move to OPERATION_MAP (an operation in both fails the test). Nothing is
 * added here except by the lead.
 */
export const PENDING_OPERATIONS: readonly string[] = [
];
