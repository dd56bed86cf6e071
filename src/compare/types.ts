/**
 * Comparing an agent's workspace folder with a local folder (issue 21): the values the engine
 * (`src/compare/engine.ts`, no `vscode`, no Node) hands to the Source Control layer
 * (`src/changes/`), and the baseline it keeps per link. Paths are relative to the linked folders,
 * `/`-separated, each segment checked by `checkRelativePath` (src/util/paths.ts) before use.
 */

/**
 * How a file differs, seen from the agent's side: `added` (the agent has it, the local folder does
 * not), `modified` (both have it, contents differ), `deleted` (the local folder has it, the agent's
 * does not).
 */
export type ChangeKind = 'added' | 'modified' | 'deleted';

/**
 * `agent`: changed by the agent (its copy modified at or after the start of the agent's first run,
 * or since the last baseline; deleted: in the baseline, gone on the agent side). `other`: what only
 * a full comparison finds (an older agent-side checkout, the user's own local edits).
 */
export type ChangeGroup = 'agent' | 'other';

/** Size and modification time of one side's copy. */
export interface FileFacts {
	size: number;
	/** Milliseconds since the epoch (the agent side: the service's `mtime_unix_ms`; local: `mtimeMs`). */
	mtime: number;
}

/** One differing file. */
export interface Difference {
	/** Relative to both linked folders, `/`-separated, checked. */
	path: string;
	kind: ChangeKind;
	group: ChangeGroup;
	/** The agent's copy as listed (absent for `deleted`). */
	agent?: FileFacts;
	/** The local copy (absent for `added`). */
	local?: FileFacts;
}

/** One agent-side file as last listed (and hashed, when it was read). */
export interface BaselineEntry {
	size: number;
	mtime: number;
	/** SHA-256 (hex) of the content, when it was read at this size and mtime. */
	sha256?: string;
	/**
	 * True when the last comparison listed this file in the `agent` group: it stays a candidate of the
	 * next refresh (its hash reused) until the local copy matches, even when the agent had no run at
	 * the link (`since` undefined) and the file is unchanged since.
	 */
	agentChanged?: boolean;
}

/**
 * What a link remembers between comparisons (persisted; JSON-safe). Bounded by the comparison's
 * file cap.
 */
export interface Baseline {
	version: 1;
	/** Start of the agent's first run (ms), or undefined when the agent had no run when linked. */
	since: number | undefined;
	/** When this baseline was taken (client clock, ms). */
	taken: number;
	/** Agent-side files by relative path. */
	entries: Record<string, BaselineEntry>;
	/** Files the agent deleted (in an earlier baseline, gone since) while the local folder still has them. */
	deleted: string[];
}

/** Bounds of one comparison; past one, the result says what was not compared. */
export interface CompareLimits {
	/** Agent-side files considered (listing stops there). */
	maxFiles: number;
	/** Agent-side folders listed. */
	maxFolders: number;
	/** Bytes read (agent side) and hashed (local side) together. */
	maxBytes: number;
	/** Agent-side reads at once. */
	concurrency: number;
}

/** Progress of a comparison (for a progress notification). */
export interface CompareProgress {
	/** What is happening now, in plain words ("Listing src/…", "Comparing 12 files…"). */
	message: string;
	/** Files compared so far and, when known, in all. */
	done: number;
	total?: number;
}

/** What one comparison found. */
export interface CompareResult {
	/** Differences, in path order (both groups). */
	differences: Difference[];
	/** The baseline to keep for the next refresh. */
	baseline: Baseline;
	/** Set when a cap was reached: what was compared and what was not, in plain words. */
	incomplete?: string;
	/** What it cost (the bench divides `requests` by a floor). */
	stats: {
		foldersListed: number;
		runListsRead: number;
		runEventsRead: number;
		filesRead: number;
		bytesRead: number;
		localFilesHashed: number;
		/** The peak V8 heap in use of the worker thread that read the local side (bytes; 0 when none ran). */
		workerHeapPeak: number;
	};
}

/**
 * `link`: the first comparison of a link (reads the agent's runs for `since`, compares candidates
 * only). `refresh`: re-lists, reads only entries whose size or mtime changed since `baseline`.
 * `everything`: every file on both sides, the rest going to the `other` group.
 */
export type CompareMode = 'link' | 'refresh' | 'everything';
