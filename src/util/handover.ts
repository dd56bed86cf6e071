/** What handing local work to an agent answers: Continue in Cloud (src/changes/continueInCloud.ts) and the chat tool that asks it (src/chat/chatTools.ts). */
export interface HandoverAnswer {
	agentId: string;
	/** The run that received the prompt; undefined when none did. */
	runId?: string;
	/** The prompt sent (or that would have been). */
	prompt?: string;
	/** Written to the agent's workspace. */
	written: string[];
	/** Handed over without a write: the agent's copy was already the same. */
	same: string[];
	/** Left out: the agent's copy differs and was kept. */
	kept: string[];
	/** Not written: the agent's copy changed after it was checked. */
	conflicts: string[];
	/** Not handed over: deleted locally (nothing is deleted on the agent's side). */
	deleted: string[];
	/** Not handed over: an unsafe name (each with why). */
	refused: string[];
	/** Why nothing (more) was done, when that is the answer. */
	stopped?: string;
}
