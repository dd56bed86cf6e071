/**
 * The seam between the transport (http.ts: retries, deadlines, caps, errors) and the platform's way
 * of reaching the network. The extension's entry point chooses the connection and hands it down:
 * - Node's extension host: undici over one keep-alive dispatcher per base URL and network settings
 *   (network.ts `nodeConnect`), with VS Code's proxy and certificate settings;
 * - the browser's extension host (VS Code for the Web): the page's `fetch` (fetchWire.ts
 *   `fetchConnect`), whose proxies and certificates are the browser's.
 * A wire's request and response have the shape of undici's `Dispatcher.request`, which the Node
 * wire is; the fetch wire adapts `fetch` to it. Nothing here imports a platform.
 */
import type { ApiError } from './errors';
import type { Logger } from '../base/logger';

/** The proxy variables of the environment (the lower-case spelling wins, as in curl and undici). */
export interface ProxyEnvironment {
	httpsProxy?: string;
	httpProxy?: string;
	noProxy?: string;
}

/** What decides how a request reaches the network: VS Code's `http.*` settings and the environment (Node only). */
export interface NetworkSettings {
	/** `http.proxy`: the proxy of every request (credentials may be in it); wins over the environment. */
	proxy?: string;
	/** `http.noProxy`: hosts reached directly (undici's NO_PROXY rules); when empty, NO_PROXY from the environment applies. */
	noProxy: readonly string[];
	/** `http.proxyAuthorization`: the whole Proxy-Authorization value (e.g. `Basic …`); wins over credentials in the proxy URL. */
	proxyAuthorization?: string;
	/** `http.proxyStrictSSL`: false turns certificate verification off, for the service and the proxy. */
	strictSSL: boolean;
	/** `http.systemCertificates`: trust the operating system's store too, where this Node can read it (tls.getCACertificates). */
	systemCertificates: boolean;
	/** HTTPS_PROXY / HTTP_PROXY / NO_PROXY; default: this process's environment, read when a dispatcher is made (proxyEnvironment()). */
	env?: ProxyEnvironment;
	/** Certificates (PEM) trusted besides the default store: not a VS Code setting (tests, embedders). */
	ca?: readonly string[];
}

/** Where a proxy came from, as a message names it. */
export type ProxySource = 'http.proxy' | 'HTTPS_PROXY' | 'HTTP_PROXY';

/** The proxy requests to one base URL go through (unless a no-proxy entry exempts the host). */
export interface ProxyRoute {
	/** `host:port`. */
	hostPort: string;
	source: ProxySource;
	/** Whether credentials are configured (in the URL or http.proxyAuthorization). */
	credentials: boolean;
}

/** One request on a wire: undici's `Dispatcher.request` options, as far as the transport uses them. */
export interface WireRequest {
	/** `scheme://host[:port]`. */
	origin: string;
	/** Path and query, already encoded. */
	path: string;
	method: string;
	headers: Record<string, string>;
	body?: string;
	signal?: AbortSignal;
	/** Longest wait for the response headers (ms). */
	headersTimeout: number;
	/** Longest silence between two body chunks (ms). */
	bodyTimeout: number;
}

/** A response body being read: undici's `BodyReadable`, as far as the transport uses it. */
export interface WireBody extends AsyncIterable<Uint8Array> {
	/** The whole body as UTF-8 text. */
	text(): Promise<string>;
	/** Reads the rest and throws it away. */
	dump(): Promise<unknown>;
	/** Stops reading: the connection is released (a pending read rejects with `error`). */
	destroy(error?: Error): unknown;
	readonly destroyed: boolean;
	on(event: 'error', listener: (err: Error) => void): unknown;
}

/** A response: status, headers (lower-case names) and the body to read or destroy. */
export interface WireResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: WireBody;
}

/** Sends requests; never follows a redirect (a 3xx is the response). */
export interface Wire {
	request(request: WireRequest): Promise<WireResponse>;
}

/** The wire of one base URL and the facts messages need. */
export interface WireRoute {
	wire: Wire;
	/** The proxy (unless the host is exempt by a no-proxy rule); undefined when requests go direct. */
	proxy: ProxyRoute | undefined;
	/** Proxy credentials (password, Proxy-Authorization value) to keep out of every message and log line. */
	secrets: readonly string[];
	/** One line for the log: proxy, no-proxy, trust; no credentials. */
	description: string;
	/** True when a connection of this route uses TLS without verifying certificates (http.proxyStrictSSL false). */
	insecure: boolean;
}

/** Incremental UTF-8 decoding that keeps characters split across chunks intact. */
export interface Utf8Decoder {
	write(chunk: Uint8Array): string;
}

/** How one transport reaches its base URL. */
export interface Connection {
	/** The route of the next request (a new one when the network settings changed). */
	route(): WireRoute;
	/** A decoder for one streamed body (event streams). */
	utf8(): Utf8Decoder;
	/**
	 * What a failed request on `route` stands for, when the platform reads it better than a plain
	 * network error (a proxy's refusal, a proxy that is down); otherwise undefined.
	 */
	failure(err: unknown, route: WireRoute, host: string): ApiError | undefined;
	/** Releases what the connection holds (shared dispatchers close once their requests are done). */
	close(): void;
}

/** What a connection is made for. */
export interface ConnectOptions {
	/** TCP/TLS connect time-out (ms), where the platform lets us set one. */
	connectMs: number;
	logger?: Logger;
	/**
	 * Proxies and certificates: the settings, or a function returning the current ones (read before
	 * every request). Node only: in the browser they are the browser's.
	 */
	network?: NetworkSettings | (() => NetworkSettings);
}

/** The platform's way to reach a base URL, chosen by the extension's entry point. */
export type Connect = (base: URL, options: ConnectOptions) => Connection;
