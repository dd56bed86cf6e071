/**
 * GitHub repositories as people name them: `owner/name[@branch]` or a numeric repository id
 * `123456789[@branch]` (what the service takes). A name is resolved to its id through GitHub's REST
 * API (`GET /repos/{owner}/{repo}`; `GET /repositories/{id}` for an id without a branch, to learn
 * its default branch). GitHub's answers are untrusted: bounded, under a deadline, decoded here.
 *
 * Asked without credentials first (a public repository needs none, and nobody is asked to sign in
 * for one); when GitHub answers 401, 403, 404 or 429 (private, or the anonymous rate limit), the
 * caller's `getToken` is asked for a GitHub token (VS Code's GitHub account, never the Cloud Agents
 * token) and the request is sent once more with it. Redirects (a renamed repository) are not
 * followed: the id is read from the redirect's body when it names this API's `/repositories/{id}`.
 *
 * This module parses and decodes (no HTTP: it is in dist/core.js); githubResolver.ts asks GitHub.
 */
import { isJsonObject, membersOf } from './validation';

/** GitHub's public REST API. */
export const GITHUB_API_URL = 'https://api.github.com';

/** A repository as typed: by id or by owner and name; `branch` when one was given. */
export type RepositoryEntry = { text: string; branch?: string } & ({ id: number } | { owner: string; repo: string });

/** A repository the service checks out: its GitHub id and a branch. */
export interface ResolvedRepository {
	repository_id: number;
	branch: string;
}

/** Why an entry is not a repository (the resources layer words it). */
export type RepositoryRefProblem = 'shape' | 'owner' | 'name' | 'id' | 'branch';

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const BRANCH_MAX = 255;
/** What git refuses in a branch name (git check-ref-format), plus whitespace and control characters. */
// eslint-disable-next-line no-control-regex
const BAD_BRANCH = /[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.$|\.lock$|^-|^@$/;

/** True for a branch name git and the service accept (1–255 characters, git's ref rules). */
export function isBranchName(branch: string): boolean {
	return branch.length >= 1 && branch.length <= BRANCH_MAX && !BAD_BRANCH.test(branch);
}

/** Parses one entry: `owner/name[@branch]` or `id[@branch]` (a positive integer id). */
export function parseRepositoryRef(entry: string): RepositoryEntry | { problem: RepositoryRefProblem } {
	const at = entry.indexOf('@');
	const subject = at < 0 ? entry : entry.slice(0, at);
	const branch = at < 0 ? undefined : entry.slice(at + 1);
	if (branch !== undefined && !isBranchName(branch)) {
		return { problem: 'branch' };
	}
	const withBranch = branch !== undefined ? { branch } : {};
	if (/^\d+$/.test(subject)) {
		const id = Number(subject);
		if (subject.length > 16 || !Number.isSafeInteger(id) || id < 1) {
			return { problem: 'id' };
		}
		return { text: entry, id, ...withBranch };
	}
	const parts = subject.split('/');
	if (parts.length !== 2) {
		return { problem: 'shape' };
	}
	const [owner, repo] = parts as [string, string];
	if (!OWNER.test(owner)) {
		return { problem: 'owner' };
	}
	const name = repo.endsWith('.git') && repo.length > 4 ? repo.slice(0, -4) : repo;
	if (!REPO.test(name) || name === '.' || name === '..') {
		return { problem: 'name' };
	}
	return { text: entry, owner, repo: name, ...withBranch };
}

/**
 * Parses entries separated by commas or white space: the list, or the first entry that is not a
 * repository (cut to 60 characters) with the reason.
 */
export function parseRepositoryRefs(text: string): { refs: RepositoryEntry[] } | { entry: string; problem: RepositoryRefProblem } {
	const refs: RepositoryEntry[] = [];
	for (const entry of text.split(/[\s,]+/).filter((e) => e !== '')) {
		const parsed = parseRepositoryRef(entry);
		if ('problem' in parsed) {
			return { entry: entry.slice(0, 60), problem: parsed.problem };
		}
		refs.push(parsed);
	}
	return { refs };
}

/** True when resolving the entry asks GitHub (a name, or an id without a branch). */
export function needsLookup(ref: RepositoryEntry): boolean {
	return !('id' in ref && ref.branch !== undefined);
}

/** What GitHub's answer about one repository holds that is used. */
export interface GitHubRepository {
	id: number;
	default_branch: string;
}

/** Decodes GitHub's repository record: a positive safe integer id and a valid default branch. */
export function decodeGitHubRepository(value: unknown): GitHubRepository {
	if (!isJsonObject(value)) {
		throw new Error('not an object');
	}
	const o = value as { id?: unknown; default_branch?: unknown };
	if (typeof o.id !== 'number' || !Number.isSafeInteger(o.id) || o.id < 1) {
		throw new Error('id is not a positive integer');
	}
	if (typeof o.default_branch !== 'string' || !isBranchName(o.default_branch)) {
		throw new Error('default_branch is not a branch name');
	}
	return { id: o.id, default_branch: o.default_branch };
}

/** The id a redirect body names (`{"url": "<base>/repositories/<id>"}`, what GitHub sends for a renamed repository). */
export function redirectedId(value: unknown, base: URL): number | undefined {
	const url = membersOf(value).url;
	if (typeof url !== 'string' || url.length > 2048) {
		return undefined;
	}
	let target: URL;
	try {
		target = new URL(url);
	} catch {
		return undefined;
	}
	const prefix = `${base.pathname.replace(/\/+$/, '')}/repositories/`;
	const rest = target.origin === base.origin && target.pathname.startsWith(prefix) ? target.pathname.slice(prefix.length) : '';
	const id = /^\d{1,16}$/.test(rest) ? Number(rest) : NaN;
	return Number.isSafeInteger(id) && id >= 1 ? id : undefined;
}

/** Why a repository could not be resolved. */
export type GitHubLookupFailure =
	/** GitHub has no such repository, or none this account (or no account) may see. */
	| 'not_found'
	/** GitHub's rate limit. */
	| 'rate_limited'
	/** Access refused (HTTP 401 or 403 other than the rate limit, or any other status). */
	| 'refused'
	/** An answer that is not a repository. */
	| 'invalid_response'
	/** No answer in time, or none at all. */
	| 'unreachable';

/** A repository GitHub did not resolve; `entry` is what the user typed, `signedIn` whether a GitHub token was sent. */
export class GitHubLookupError extends Error {
	constructor(
		readonly failure: GitHubLookupFailure,
		readonly entry: string,
		readonly signedIn: boolean,
		message: string,
		options?: { cause?: unknown },
	) {
		super(message, options);
		this.name = 'GitHubLookupError';
	}
}
