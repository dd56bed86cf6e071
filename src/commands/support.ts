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

export { formatBytes };
