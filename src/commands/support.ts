import type { Services } from '../views/actions';
import { formatBytes } from '../views/format';

/** What the feature commands need: the extension's services (src/views/actions.ts). */
export type FeatureDeps = Services;

export {
	argString,
	displayName,
	isAutomation,
	isStatus,
	pickItem,
	pickWhenLoaded,
	showInfo,
	showModalWarning,
	showValidation,
	showWarning,
	toAbortSignal,
	validationMessage,
} from '../views/ui';
export type { PickOptions } from '../views/ui';
export { rememberAgent, recentAgentIds } from '../resources/agents';

/** Follows a run in its output channel (the run follower; failures are logged, not shown). */
export async function followRun(deps: FeatureDeps, agentId: string, runId: string): Promise<void> {
	try {
		await deps.follower.follow(agentId, runId);
	} catch (err) {
		deps.log.warn(`following run ${runId} failed: ${err instanceof Error ? err.message : String(err)}`);
	}
}

export { formatBytes };
