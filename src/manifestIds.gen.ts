// Generated from package.json by scripts/gen-manifest-ids.mjs (npm run ids:gen): do not edit.

/** Every command package.json contributes, in its order. */
export const MANIFEST_COMMAND_IDS = [
	'cloudAgents.signIn',
	'cloudAgents.signOut',
	'cloudAgents.refresh',
	'cloudAgents.agents.openWorkspace',
	'cloudAgents.workspace.search',
	'cloudAgents.workspace.goToFile',
	'cloudAgents.agents.refresh',
	'cloudAgents.agents.loadMore',
	'cloudAgents.agents.create',
	'cloudAgents.agents.rename',
	'cloudAgents.agents.delete',
	'cloudAgents.agents.copyId',
	'cloudAgents.runs.refresh',
	'cloudAgents.runs.loadMore',
	'cloudAgents.runs.sendPrompt',
	'cloudAgents.runs.cancel',
	'cloudAgents.runs.resume',
	'cloudAgents.runs.followUp',
	'cloudAgents.runs.openResult',
	'cloudAgents.runs.copyId',
	'cloudAgents.runtimes.refresh',
	'cloudAgents.runtimes.loadMore',
	'cloudAgents.runtimes.resume',
	'cloudAgents.runtimes.showDetails',
	'cloudAgents.runtimes.listVncCredentials',
	'cloudAgents.artifacts.refresh',
	'cloudAgents.artifacts.open',
	'cloudAgents.artifacts.save',
	'cloudAgents.artifacts.upload',
	'cloudAgents.artifacts.delete',
	'cloudAgents.runs.follow',
	'cloudAgents.runs.stopFollowing',
	'cloudAgents.runs.followedRunActions',
] as const;

/** Every view package.json contributes, in its order. */
export const MANIFEST_VIEW_IDS = [
	'cloudAgents.agents',
	'cloudAgents.runs',
	'cloudAgents.runtimes',
	'cloudAgents.artifacts',
] as const;
