/**
 * Run following: streams a run's events into an output channel and onto disk, and publishes every
 * event it receives through `RunFollower.onDidReceiveEvent` (the file system uses it to invalidate
 * caches on `file.changed`).
 */
export { RunFollower, toRunRef } from './runFollower';
export type {
	FollowOptions,
	FollowOutcome,
	FollowerSession,
	RunEventNotice,
	RunFollowerOptions,
	RunNameHint,
	RunRef,
	StatusRunInfo,
} from './runFollower';
export { endNotificationActions, followedRunActions, formatEvent, runChannelName, runTitle, shortRunId, stripAnsi } from './format';
export type { FollowedRunAction } from './format';
