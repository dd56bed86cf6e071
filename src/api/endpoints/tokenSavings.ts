/**
 * Token savings: account-wide pages (with the runtime filter found per server) and a runtime's own.
 * One group of CloudAgentsClient's methods (src/api/client.ts puts them on the one client object).
 */
import { checkPageSize, dataPage, paginate } from '../pagination';
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { ClientCore, e, obj, rawArrayOf, RUNTIME_FILTER_PARAMETER_NAMES } from './core';

/** Endpoint methods of CloudAgentsClient: token savings. */
export class TokenSavingsEndpoints extends ClientCore {
	// ------------------------------------------------------------------ token savings

	/**
	 * GET /v2/token-savings: one account-wide page with totals over the whole filter, events decoded
	 * (decodeTokenSavingEvent). The runtime filter's parameter name is not shown: `runtime_id` is
	 * sent; a page holding another runtime's events means the server ignored it, and the other
	 * RUNTIME_FILTER_PARAMETER_NAMES are tried (one request each) and the one that works remembered.
	 * When none works the page says so (`runtimeFilterIgnored`).
	 */
	async listTokenSavings(options: T.TokenSavingsQuery = {}): Promise<T.AccountTokenSavingsPage> {
		V.checkRange('limit', options.limit, V.LIMITS.tokenSavingsPageSize);
		const runtimeId = options.runtimeId;
		if (runtimeId !== undefined) {
			V.checkOpaqueId('runtimeId', runtimeId);
		}
		return this.pageWithCursor('token-savings', options.cursor, async (param, cursor) => {
			const fetch = async (runtimeParam: string): Promise<T.AccountTokenSavingsPage> => {
				const res = await this.send<unknown>({
					method: 'GET',
					path: '/v2/token-savings',
					route: 'GET /v2/token-savings',
					query: { page_size: options.limit, [param]: cursor, [runtimeParam]: runtimeId, method: options.method },
					idempotent: true,
					signal: options.signal,
				});
				const data = obj(obj(res.body).data);
				const raw = rawArrayOf(res.body, ['events']);
				checkPageSize(raw, res.requestId);
				let dropped = 0;
				const items = D.decodeList(raw, D.decodeTokenSavingEvent, { requestId: res.requestId }, (count, first) => {
					dropped = count;
					this.transport.debug(`dropped ${count} invalid token-saving event(s): ${first.message}`);
				});
				const totals = data.totals;
				const page = dataPage<unknown>(res.body, 'events');
				return {
					items,
					nextCursor: page.nextCursor,
					totals: totals ? D.decodeTokenSavingTotals(totals) : undefined,
					dropped,
					runtimeFilterIgnored: false,
				};
			};
			const known = this.runtimeFilterParam;
			const first = await fetch(known);
			if (runtimeId === undefined || !first.items.some((ev) => ev.runtime_id !== undefined && ev.runtime_id !== runtimeId)) {
				return first;
			}
			for (const name of RUNTIME_FILTER_PARAMETER_NAMES) {
				if (name === known) {
					continue;
				}
				const candidate = await fetch(name);
				if (!candidate.items.some((ev) => ev.runtime_id !== undefined && ev.runtime_id !== runtimeId)) {
					this.transport.debug(`token-savings: the server ignores "${known}"; its runtime filter parameter is "${name}"`);
					this.runtimeFilterParam = name;
					return candidate;
				}
			}
			return { ...first, runtimeFilterIgnored: true };
		});
	}

	/** Every account-wide token-saving record, page by page. */
	iterateTokenSavings(options: Omit<T.TokenSavingsQuery, 'cursor'> = {}): AsyncGenerator<T.TokenSavingEventRecord, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.tokenSavingsPageSize);
		return paginate((cursor) => this.listTokenSavings({ ...options, cursor }));
	}

	// ------------------------------------------------------------------ runtime token savings

	/** GET /v1/runtimes/{runtime_id}/tokensaver/savings: one page with the summary. */
	async listRuntimeTokenSavings(runtimeId: string, options: T.PageOptions = {}): Promise<T.TokenSavingsPage> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkRange('limit', options.limit, V.LIMITS.runtimeTokenSavingsLimit);
		const body = await this.call({
			method: 'GET',
			path: `/v1/runtimes/${e(runtimeId)}/tokensaver/savings`,
			route: 'GET /v1/runtimes/{runtime_id}/tokensaver/savings',
			query: { limit: options.limit, after: options.cursor },
			idempotent: true,
			signal: options.signal,
		});
		const summary = obj(body).summary;
		return { ...dataPage<T.TokenSavingRecord>(body), summary: summary ? D.decodeTokenSavingSummary(summary) : undefined };
	}

	/** Every runtime token-saving record, page by page. */
	iterateRuntimeTokenSavings(
		runtimeId: string,
		options: Omit<T.PageOptions, 'cursor'> = {},
	): AsyncGenerator<T.TokenSavingRecord, void, undefined> {
		return paginate((cursor) => this.listRuntimeTokenSavings(runtimeId, { ...options, cursor }));
	}
}
