/**
 * How requests reach the network: VS Code's proxy and certificate settings (`http.proxy`,
 * `http.noProxy`, `http.proxyAuthorization`, `http.proxyStrictSSL`, `http.systemCertificates`) and
 * the environment (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, either case) turned into one undici
 * dispatcher per base URL. undici's own pieces do the work: EnvHttpProxyAgent chooses between the
 * proxy and a direct connection (its NO_PROXY matching), ProxyAgent tunnels with CONNECT and sends
 * Proxy-Authorization, and the `connect` / `requestTls` / `proxyTls` options carry the trust.
 * Plain Node: the extension reads the settings (src/auth/networkSettings.ts) and passes them in.
 */
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import * as tls from 'node:tls';
import { Agent, type Dispatcher, EnvHttpProxyAgent, Pool, type buildConnector } from 'undici';
import { ApiError, NetworkError, ProxyError } from '../../api/errors';
import { toNetworkError, tlsFailure } from '../../api/netErrors';
import type { Logger } from '../../base/logger';
import { isLoopbackHost } from '../../api/loopback';
import type {
	Connect,
	Connection,
	NetworkSettings,
	ProxyEnvironment,
	ProxyRoute,
	ProxySource,
	Utf8Decoder,
	WireRoute,
} from '../../api/wire';

export type { NetworkSettings, ProxyEnvironment, ProxyRoute, ProxySource } from '../../api/wire';

/** The proxy variables of `env`, either case (lower case first), empty values as unset. */
export function proxyEnvironment(env: NodeJS.ProcessEnv = process.env): ProxyEnvironment {
	const read = (name: string): string | undefined => env[name.toLowerCase()]?.trim() || env[name]?.trim() || undefined;
	return { httpsProxy: read('HTTPS_PROXY'), httpProxy: read('HTTP_PROXY'), noProxy: read('NO_PROXY') };
}

/**
 * Plain Node's behaviour, for a client created without settings: the environment's proxy, Node's own
 * certificate store (which holds NODE_EXTRA_CA_CERTS), verification on.
 */
export function networkSettingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): NetworkSettings {
	return { noProxy: [], strictSSL: true, systemCertificates: false, env: proxyEnvironment(env) };
}

/** A proxy as messages name it: `host:port`, never its credentials. */
export function proxyHostPort(url: URL): string {
	return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** A proxy setting that cannot be used (not a URL, an unsupported scheme): every request says so. */
export class ProxyConfigError extends ApiError {
	constructor(message: string) {
		super(0, 'proxy_invalid', message, undefined);
	}
}

/** Parses a proxy setting; `host:port` without a scheme is read as `http://host:port` (as curl does). */
function parseProxyUrl(raw: string, source: ProxySource): URL {
	const text = raw.trim();
	let url: URL;
	try {
		url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
	} catch {
		// The value may hold a password: it is not repeated.
		throw new ProxyConfigError(`${source} is not a valid proxy URL (expected http://host:port or https://host:port)`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new ProxyConfigError(
			`${source}: ${url.protocol.slice(0, 20)} proxies are not supported (http: or https: only; the proxy ${proxyHostPort(url)})`,
		);
	}
	if (!url.hostname) {
		throw new ProxyConfigError(`${source} names no proxy host`);
	}
	return url;
}

/** The proxy for `base` before no-proxy rules: http.proxy, else HTTPS_PROXY (https:) or HTTP_PROXY. Undefined for loopback hosts. */
function proxyFor(base: URL, s: NetworkSettings): { url: URL; source: ProxySource } | undefined {
	if (isLoopbackHost(base.hostname)) {
		return undefined;
	}
	if (s.proxy?.trim()) {
		return { url: parseProxyUrl(s.proxy, 'http.proxy'), source: 'http.proxy' };
	}
	const env = s.env ?? proxyEnvironment();
	if (base.protocol === 'https:' && env.httpsProxy) {
		return { url: parseProxyUrl(env.httpsProxy, 'HTTPS_PROXY'), source: 'HTTPS_PROXY' };
	}
	if (env.httpProxy) {
		return { url: parseProxyUrl(env.httpProxy, 'HTTP_PROXY'), source: 'HTTP_PROXY' };
	}
	return undefined;
}

/** The no-proxy list undici matches: http.noProxy when it has entries, else NO_PROXY. */
function noProxyList(s: NetworkSettings): string {
	const fromSettings = s.noProxy.map((h) => h.trim()).filter(Boolean);
	return fromSettings.length > 0 ? fromSettings.join(',') : ((s.env ?? proxyEnvironment()).noProxy ?? '');
}

type CaReader = (type: 'default' | 'system') => string[];

/** tls.getCACertificates (Node ≥ 22.15 / 23.5), when this Node has it. */
function caReader(): CaReader | undefined {
	const f = (tls as { getCACertificates?: unknown }).getCACertificates;
	return typeof f === 'function' ? (f as CaReader) : undefined;
}

/** Whether this Node can read the operating system's certificate store (tls.getCACertificates('system')). */
export function systemCertificatesSupported(): boolean {
	return caReader() !== undefined;
}

/** What the trust of a connection is made of, for the log. */
interface Trust {
	/** A context with the certificates besides Node's default store; undefined: Node's default store as it is. */
	secureContext: tls.SecureContext | undefined;
	description: string;
}

const trustCache = new Map<string, Trust>();

const noSystemStore = (): string => ` (the system store needs Node ≥ 22.15; this is ${process.version})`;

/**
 * The certificates a connection trusts: Node's default store (bundled roots and NODE_EXTRA_CA_CERTS)
 * as it is when nothing is added; with the system store (http.systemCertificates, where this Node
 * reads it) or extra certificates, one secure context holding default ∪ system ∪ extra, made once
 * per process (reading the system store and parsing the certificates is not done per connection).
 */
function trustFor(s: NetworkSettings, logger: Logger | undefined): Trust {
	const read = caReader();
	const useSystem = s.systemCertificates && read !== undefined;
	const extra = s.ca ?? [];
	const key = `${s.systemCertificates}|${useSystem}|${extra.length > 0 ? createHash('sha256').update(extra.join('\n')).digest('hex') : ''}`;
	const cached = trustCache.get(key);
	if (cached) {
		return cached;
	}
	let trust: Trust;
	if (!useSystem && extra.length === 0) {
		trust = {
			secureContext: undefined,
			description: `Node's default store${s.systemCertificates ? noSystemStore() : ''}`,
		};
	} else {
		let system: string[] = [];
		if (useSystem) {
			try {
				system = read('system');
			} catch (err) {
				logger?.debug(
					`Network: the system certificate store could not be read (${err instanceof Error ? err.message : String(err)})`,
				);
			}
		}
		// Without tls.getCACertificates (Node < 22.15) the bundled roots stand for the default store.
		const base = read ? read('default') : tls.rootCertificates;
		const ca = [...new Set([...base, ...system, ...extra])];
		trust = {
			secureContext: tls.createSecureContext({ ca }),
			description: `Node's default store${useSystem ? ` + ${system.length} system certificates` : ''}${extra.length > 0 ? ` + ${extra.length} given` : ''}${s.systemCertificates && !useSystem ? noSystemStore() : ''}`,
		};
	}
	trustCache.set(key, trust);
	return trust;
}

/** The log sinks that were told verification is off (one warning each). */
const warnedInsecure = new WeakSet<object>();

/**
 * Tells `logger`, once, that certificates are not verified on `route`. Called by every client that
 * takes the route, not only by the one that built it: a client without a log (the sign-in's key
 * check) may build a route the session's client then shares.
 */
export function warnIfInsecure(route: NetworkRoute, logger: Logger | undefined): void {
	if (!route.insecure || !logger || warnedInsecure.has(logger)) {
		return;
	}
	warnedInsecure.add(logger);
	(logger.warn ?? logger.debug).call(
		logger,
		'http.proxyStrictSSL is false: certificates are NOT verified, for the service and the proxy. Anyone on the network path can read and change the traffic, the token included.',
	);
}

/** The TLS options of every connection (to the service and to an https proxy). */
function tlsOptions(s: NetworkSettings, logger: Logger | undefined): { options: tls.ConnectionOptions; description: string } {
	const trust = trustFor(s, logger);
	const options: tls.ConnectionOptions = {};
	if (trust.secureContext) {
		options.secureContext = trust.secureContext;
	}
	if (!s.strictSSL) {
		options.rejectUnauthorized = false;
	}
	return {
		options,
		description: s.strictSSL ? trust.description : `${trust.description}; verification OFF (http.proxyStrictSSL: false)`,
	};
}

/** Errors of connections to a proxy (refused, unknown host, time-out, its TLS), with the proxy's host:port. */
const proxyConnectFailures = new WeakMap<object, string>();

/** The proxy (host:port) a connection error came from, when it was the connection to a proxy that failed. */
export function proxyConnectFailure(err: unknown): string | undefined {
	for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
		const host = proxyConnectFailures.get(e);
		if (host !== undefined) {
			return host;
		}
	}
	return undefined;
}

/**
 * The pool of connections to a proxy, whose connector marks its failures (proxyConnectFailure), so
 * a refused proxy reads as the proxy being down rather than the service.
 */
function proxyClientFactory(origin: URL, options: { connect?: buildConnector.connector }): Dispatcher {
	const connect = options.connect;
	const hostPort = proxyHostPort(origin);
	return new Pool(origin, {
		...options,
		connect: connect
			? (opts, callback) => {
					connect(opts, (err, socket) => {
						if (err) {
							proxyConnectFailures.set(err, hostPort);
						}
						(callback as (e: Error | null, s: typeof socket) => void)(err, socket);
					});
				}
			: undefined,
	});
}

/** An undici dispatcher for one base URL (the wire) and the facts messages need. */
export interface NetworkRoute extends WireRoute {
	wire: Dispatcher;
	secrets: string[];
}

/** What to check when a proxy fails, by where it came from. */
function proxySetting(source: ProxyRoute['source'] | undefined): string {
	return source === undefined || source === 'http.proxy' ? 'http.proxy' : `the ${source} environment variable`;
}

/** undici's error when a proxy answers CONNECT with another status than 200 (and its 407 without a tunnel). */
const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/;
const PROXY_407 = 'Proxy Authentication Required (407)';

/**
 * The error a failure through a proxy stands for, or undefined when the proxy had no part in it:
 * - the connection to the proxy failed (refused, unknown host, time-out, its certificate): a
 *   NetworkError naming the proxy (host:port), as unreachable as a service that is down;
 * - the proxy answered the tunnel with 407: a ProxyError (credentials missing or refused), not retried;
 * - with a 5xx (it could not reach the service: 502, 503, or 500 from simpler proxies): a
 *   NetworkError, retried like any outage;
 * - with another status (403 by its policy, …): a ProxyError (refused).
 * `host` names the service; `secrets` (the proxy's credentials) are scrubbed from every message.
 */
export function proxyFailure(
	err: unknown,
	host: string,
	proxy: ProxyRoute | undefined,
	secrets: ReadonlyArray<string> = [],
): ApiError | undefined {
	const setting = proxySetting(proxy?.source);
	const refusedBy = proxyConnectFailure(err);
	if (refusedBy !== undefined) {
		if (tlsFailure(err)) {
			const tls = toNetworkError(err, `the proxy ${refusedBy}`);
			return new NetworkError('tls_error', tls.message, false, { cause: err, secrets });
		}
		const rawCode = (err as { code?: unknown }).code;
		const code = typeof rawCode === 'string' ? rawCode : '';
		const detail = (err instanceof Error ? err.message : String(err)) + (code ? ` [${code}]` : '');
		if (code === 'ECONNREFUSED') {
			return new NetworkError(
				'connection_refused',
				`The proxy ${refusedBy} refused the connection (${detail}): is it running? Check ${setting}.`,
				false,
				{ cause: err, secrets },
			);
		}
		if (code === 'UND_ERR_CONNECT_TIMEOUT') {
			return new NetworkError(
				'connect_timeout',
				`The proxy ${refusedBy} did not answer in time (${detail}). Check ${setting}.`,
				false,
				{
					cause: err,
					secrets,
				},
			);
		}
		if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
			return new NetworkError('network_error', `The proxy's host name is not known (${detail}). Check ${setting}.`, false, {
				cause: err,
				secrets,
			});
		}
		return new NetworkError('network_error', `The proxy ${refusedBy} could not be reached (${detail}). Check ${setting}.`, false, {
			cause: err,
			secrets,
		});
	}
	if (!proxy || !(err instanceof Error)) {
		return undefined;
	}
	const status = err.message === PROXY_407 ? 407 : Number(TUNNEL_REFUSED.exec(err.message)?.[1] ?? NaN);
	if (!Number.isInteger(status)) {
		return undefined;
	}
	const where = proxy.hostPort;
	if (status === 407) {
		return new ProxyError(
			407,
			'proxy_auth_required',
			proxy.credentials
				? `The proxy ${where} refused the credentials (407 Proxy Authentication Required). Check ${setting} / http.proxyAuthorization.`
				: `The proxy ${where} asks for credentials (407 Proxy Authentication Required). Put them in ${setting} (http://user:password@host:port) or set http.proxyAuthorization.`,
			where,
		);
	}
	if (status >= 500) {
		return new NetworkError('network_error', `The proxy ${where} could not reach ${host} (HTTP ${status} from the proxy)`, false, {
			cause: err,
			secrets,
		});
	}
	return new ProxyError(
		status,
		'proxy_refused',
		`The proxy ${where} refused the connection to ${host} (HTTP ${status} from the proxy). Check ${setting} and http.noProxy.`,
		where,
	);
}

/**
 * A key that changes when anything the dispatcher of `base` depends on changes (hashed: the settings
 * hold credentials).
 */
export function routeKey(base: URL, s: NetworkSettings, connectMs: number): string {
	const proxied = !isLoopbackHost(base.hostname);
	const parts = [
		base.origin,
		connectMs,
		s.strictSSL,
		s.systemCertificates,
		s.ca ?? [],
		proxied ? [s.proxy ?? '', s.noProxy, s.proxyAuthorization ?? '', s.env ?? proxyEnvironment()] : [],
	];
	return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * Builds the dispatcher requests to `base` use: a keep-alive Agent, or an EnvHttpProxyAgent when a
 * proxy applies (it goes direct for hosts in the no-proxy list). Loopback hosts are never proxied.
 * Throws a ProxyConfigError for a proxy setting that is not usable.
 */
export function createRoute(base: URL, s: NetworkSettings, connectMs: number, logger?: Logger): NetworkRoute {
	const proxy = proxyFor(base, s);
	const { options: tlsOpts, description: trust } =
		base.protocol === 'https:' || proxy?.url.protocol === 'https:' ? tlsOptions(s, logger) : { options: {}, description: 'no TLS' };
	const common = { keepAliveTimeout: 4_000, connect: { timeout: connectMs, ...(base.protocol === 'https:' ? tlsOpts : {}) } };
	const insecure = tlsOpts.rejectUnauthorized === false;
	if (!proxy) {
		return {
			wire: new Agent(common),
			proxy: undefined,
			secrets: [],
			insecure,
			description: `${base.host}: direct${isLoopbackHost(base.hostname) ? ' (loopback)' : ''}; certificates: ${trust}`,
		};
	}
	const { url, source } = proxy;
	const authorization = s.proxyAuthorization?.trim() || undefined;
	const secrets: string[] = [];
	if (url.password) {
		secrets.push(url.password);
		try {
			secrets.push(decodeURIComponent(url.password));
		} catch {
			// Not valid percent-encoding: the raw form is all there is.
		}
	}
	if (authorization) {
		secrets.push(authorization);
		const credential = authorization.split(/\s+/)[1];
		if (credential) {
			secrets.push(credential);
		}
	}
	const noProxy = noProxyList(s);
	const uri = url.href;
	const dispatcher = new EnvHttpProxyAgent({
		...common,
		httpProxy: uri,
		httpsProxy: uri,
		noProxy,
		...(authorization ? { token: authorization } : {}),
		requestTls: { timeout: connectMs, ...tlsOpts },
		proxyTls: { timeout: connectMs, ...(url.protocol === 'https:' ? tlsOpts : {}) },
		clientFactory: proxyClientFactory,
	});
	const hostPort = proxyHostPort(url);
	const credentials = Boolean(authorization || url.username || url.password);
	return {
		wire: dispatcher,
		proxy: { hostPort, source, credentials },
		secrets: [...new Set(secrets)].filter((x) => x.length >= 4),
		insecure,
		description: `${base.host}: through the proxy ${hostPort} (${source}${credentials ? ', with credentials' : ''})${noProxy ? `, except ${noProxy.split(/[,\s]+/).filter(Boolean).length} no-proxy entries` : ''}; certificates: ${trust}`,
	};
}

interface SharedRoute {
	route: NetworkRoute;
	refs: number;
}
const routes = new Map<string, SharedRoute>();

/**
 * One keep-alive dispatcher per base URL, network settings and connect time-out, shared by every
 * client of that URL and closed (once its requests are done) when the last one releases it.
 */
function acquireRoute(
	base: URL,
	settings: NetworkSettings,
	connectMs: number,
	logger: Logger | undefined,
): { route: NetworkRoute; release: () => void } {
	const key = routeKey(base, settings, connectMs);
	let shared = routes.get(key);
	if (!shared) {
		const route = createRoute(base, settings, connectMs, logger);
		logger?.debug(`Network: ${route.description}`);
		shared = { route, refs: 0 };
		routes.set(key, shared);
	}
	shared.refs++;
	warnIfInsecure(shared.route, logger);
	const entry = shared;
	let released = false;
	return {
		route: entry.route,
		release: () => {
			if (released) {
				return;
			}
			released = true;
			if (--entry.refs === 0) {
				routes.delete(key);
				void entry.route.wire.close().catch(() => undefined);
			}
		},
	};
}

/**
 * Node's connection (the extension's Node entry, tests, the bench): undici dispatchers made for the
 * current network settings (`options.network`; default: the environment, read once), shared with
 * every client of the same URL and settings. When the settings changed since the last request, the
 * next one uses a new dispatcher and the old one closes once its requests (an open event stream
 * among them) are done. `route()` throws a ProxyConfigError for an unusable proxy setting.
 */
export const nodeConnect: Connect = (base, options) => new NodeConnection(base, options);

/** Node's streaming UTF-8 decoder (several times faster than TextDecoder in streaming mode). */
const nodeUtf8 = (): Utf8Decoder => new StringDecoder('utf8');

class NodeConnection implements Connection {
	/** The network settings when the options give none (the environment, read once). */
	private readonly defaultNetwork: NetworkSettings | undefined;
	/** The route of the latest request, for the settings it was made for. */
	private current: { settings: NetworkSettings; route: NetworkRoute; release: () => void } | undefined;
	private closed = false;

	constructor(
		private readonly base: URL,
		private readonly options: Parameters<Connect>[1],
	) {
		this.defaultNetwork = options.network === undefined ? networkSettingsFromEnvironment() : undefined;
	}

	route(): NetworkRoute {
		const network = this.options.network;
		const settings = typeof network === 'function' ? network() : (network ?? this.defaultNetwork ?? networkSettingsFromEnvironment());
		const current = this.current;
		if (current && (current.settings === settings || this.closed)) {
			return current.route;
		}
		if (this.closed) {
			throw new NetworkError('network_error', 'The client was closed before its first request', false);
		}
		const next = acquireRoute(this.base, settings, this.options.connectMs, this.options.logger);
		current?.release();
		this.current = { settings, ...next };
		return next.route;
	}

	utf8(): Utf8Decoder {
		return nodeUtf8();
	}

	failure(err: unknown, route: WireRoute, host: string): ApiError | undefined {
		return proxyFailure(err, host, route.proxy, route.secrets);
	}

	close(): void {
		this.closed = true;
		this.current?.release();
	}
}
