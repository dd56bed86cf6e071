/**
 * Asks GitHub's REST API for repositories (see github.ts for the parsing and the decoder): over its
 * own Transport (the service's connection, so this module goes to dist/client.js), anonymously first, a GitHub token
 * only when GitHub does not show the repository anonymously.
 */
import { ApiError } from './errors';
import {
	GITHUB_API_URL,
	GitHubLookupError,
	type GitHubRepository,
	type RepositoryEntry,
	type ResolvedRepository,
	decodeGitHubRepository,
	redirectedId,
} from './github';
import { NetworkError, type Timeouts, Transport, type TransportOptions } from './http';
import { membersOf } from './validation';

export interface GitHubResolverOptions {
	/** The REST API base (default https://api.github.com); https:, or http: for loopback hosts only. */
	baseUrl?: string;
	/**
	 * A GitHub token for a repository GitHub does not show anonymously; undefined when there is none
	 * (the user declined). Called at most once per resolver.
	 */
	getToken?: () => Promise<string | undefined>;
	userAgent?: string;
	/** How requests reach GitHub, as for the service (TransportOptions.connect). */
	connect: TransportOptions['connect'];
	/** Proxies and certificates, as for the service (TransportOptions.network). */
	network?: TransportOptions['network'];
	/** Time-outs (default: 10 s to connect and for headers, a 20 s overall deadline per request). */
	timeouts?: Timeouts;
}

/** Largest repository answer read (GitHub's is a few KiB). */
export const GITHUB_BODY_MAX_BYTES = 256 * 1024;

const ASK_WITH_TOKEN = new Set([401, 403, 404, 429]);
const REDIRECTS = [301, 302, 307, 308];

/** Resolves typed repositories to the service's `{repository_id, branch}`. Close it when done. */
export class GitHubResolver {
	private readonly transport: Transport;
	private token: string | undefined;
	private tokenAsked = false;

	constructor(private readonly options: GitHubResolverOptions) {
		this.transport = new Transport({
			baseUrl: options.baseUrl ?? GITHUB_API_URL,
			getToken: () => this.token,
			userAgent: options.userAgent ?? 'cloud-agents-vscode',
			connect: options.connect,
			network: options.network,
			timeouts: { connectMs: 10_000, headersMs: 10_000, bodyMs: 10_000, deadlineMs: 20_000, ...options.timeouts },
			retry: { maxAttempts: 1 },
		});
	}

	close(): void {
		this.transport.close();
	}

	/** Resolves every entry in order (GitHub is asked only for names and ids without a branch). */
	async resolveAll(refs: readonly RepositoryEntry[], signal?: AbortSignal): Promise<ResolvedRepository[]> {
		const out: ResolvedRepository[] = [];
		for (const ref of refs) {
			out.push(await this.resolve(ref, signal));
		}
		return out;
	}

	async resolve(ref: RepositoryEntry, signal?: AbortSignal): Promise<ResolvedRepository> {
		if ('id' in ref && ref.branch !== undefined) {
			return { repository_id: ref.id, branch: ref.branch };
		}
		const path = 'id' in ref ? `/repositories/${ref.id}` : `/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}`;
		let found = await this.get(ref, path, signal);
		if (typeof found === 'number') {
			found = await this.get(ref, `/repositories/${found}`, signal);
		}
		if (typeof found === 'number') {
			throw new GitHubLookupError('invalid_response', ref.text, this.token !== undefined, 'GitHub answered with a redirect twice');
		}
		return { repository_id: found.id, branch: ref.branch ?? found.default_branch };
	}

	/** One GET: the repository, or the id a redirect names; asks for a token once when GitHub does not show it anonymously. */
	private async get(ref: RepositoryEntry, path: string, signal: AbortSignal | undefined): Promise<GitHubRepository | number> {
		for (;;) {
			const signedIn = this.token !== undefined;
			let result: { status: number; body: unknown };
			try {
				result = await this.transport.send<unknown>({
					method: 'GET',
					path,
					route: `GET ${path}`,
					auth: signedIn,
					idempotent: true,
					headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
					acceptStatuses: [...ASK_WITH_TOKEN, ...REDIRECTS],
					maxBodyBytes: GITHUB_BODY_MAX_BYTES,
					signal,
				});
			} catch (err) {
				if (signal?.aborted || !(err instanceof ApiError)) {
					throw err;
				}
				if (err instanceof NetworkError || err.status === 0) {
					// The failure says GitHub could not be reached; the message is only why (the caller words it).
					throw new GitHubLookupError('unreachable', ref.text, signedIn, err.message, {
						cause: err,
					});
				}
				if (err.code === 'invalid_response' || err.code === 'response_too_large') {
					throw new GitHubLookupError('invalid_response', ref.text, signedIn, err.message, { cause: err });
				}
				throw new GitHubLookupError('refused', ref.text, signedIn, `GitHub answered HTTP ${err.status}`, { cause: err });
			}
			const { status, body } = result;
			if (status >= 200 && status < 300) {
				try {
					return decodeGitHubRepository(body);
				} catch (err) {
					throw new GitHubLookupError(
						'invalid_response',
						ref.text,
						signedIn,
						`GitHub sent an invalid repository: ${(err as Error).message}`,
						{
							cause: err,
						},
					);
				}
			}
			if (REDIRECTS.includes(status)) {
				const id = redirectedId(body, this.transport.base);
				if (id === undefined) {
					throw new GitHubLookupError(
						'invalid_response',
						ref.text,
						signedIn,
						`GitHub answered with a redirect (HTTP ${status}) that was not followed`,
					);
				}
				return id;
			}
			if (!signedIn && !this.tokenAsked && this.options.getToken) {
				this.tokenAsked = true;
				this.token = (await this.options.getToken()) || undefined;
				if (this.token !== undefined) {
					continue;
				}
			}
			if (status === 404 || (status === 401 && !signedIn)) {
				throw new GitHubLookupError('not_found', ref.text, signedIn, `GitHub answered HTTP ${status}`);
			}
			if (status === 429 || (status === 403 && /rate limit/i.test(messageOf(body)))) {
				throw new GitHubLookupError('rate_limited', ref.text, signedIn, `GitHub's rate limit was reached (HTTP ${status})`);
			}
			throw new GitHubLookupError('refused', ref.text, signedIn, `GitHub refused the request (HTTP ${status})`);
		}
	}
}

function messageOf(body: unknown): string {
	const message = membersOf(body).message;
	return typeof message === 'string' ? message.slice(0, 500) : '';
}
