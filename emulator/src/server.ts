import cors from '@fastify/cors';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import Fastify from 'fastify';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { registerAdmin } from './admin';
import type { Caller, EmulatorConfig } from './emulator';
import { DEFAULT_TOKEN, Emulator } from './emulator';
import type { FieldDetail } from './errors';
import { ApiError, codeForStatus, envelope } from './errors';
import type { FaultDecision } from './faults';
import { loadProfile, waitOutHold } from './faults';
import { uuidv7 } from './ids';
import type { ProfileName } from './profile';
import type { OutageMode } from './outage';
import { MAX_OUTAGE_SECONDS, Outage, OUTAGE_MODES } from './outage';
import { registerApi } from './routes';
import { createTestCa } from './tls';
import { sleep } from './util';
import { attachVncUpgrade } from './vnc';

export const MiB = 1024 * 1024;
export const ORDINARY_BODY_LIMIT = 1 * MiB;
export const RUN_BODY_LIMIT = 72 * MiB;
/** Artifact and workspace writes: 32 MiB decoded fits in base64 (≈ 42.7 MiB) plus JSON. */
export const FILE_BODY_LIMIT = 48 * MiB;

declare module 'fastify' {
	interface FastifyContextConfig {
		/** `none`: no bearer needed; `read`/`write`: bearer needed, `write` refused for read-only tokens. */
		auth?: 'none' | 'read' | 'write';
		/** A JSON body may be omitted (it becomes `{}`). */
		optionalBody?: boolean;
		/** /_emulator/… and the device page: loopback only, no counters, no faults. */
		admin?: boolean;
	}
	interface FastifyRequest {
		caller: Caller;
		fault: FaultDecision | undefined;
		routeTemplate: string;
	}
}

export interface StartOptions {
	port?: number;
	/** The admin listener's port (default 0: any free port). */
	adminPort?: number;
	host?: string;
	token?: string;
	seed?: 'demo' | 'empty';
	/** `standard` (default), `variant` or `variant-strict`: the choices where the service description says "not shown". */
	profile?: ProfileName;
	stateFile?: string;
	faults?: string;
	quiet?: boolean;
	/** The computer-session desktop's size (default 1280×800). */
	desktop?: { width: number; height: number };
	/**
	 * Origins a browser may call the service from (CORS), e.g. a workbench's `http://127.0.0.1:8080`;
	 * `*` allows any origin. None (the default): no CORS headers, as a service that allows no browser.
	 */
	corsOrigins?: readonly string[];
	/**
	 * Serve HTTPS. `true`: a test CA generated at start signs a certificate for localhost, 127.0.0.1
	 * and ::1. An object may give the server certificate (PEM, the chain after the leaf), its key and
	 * the CA certificate that signed it (all three, or none), and `caPath`, where the CA certificate is
	 * written (default: a temporary folder removed on close).
	 */
	tls?: boolean | TlsOptions;
	/** Test hooks. */
	keepAliveMs?: number;
	deviceInterval?: number;
	maxRunsPerAgent?: number;
	maxTotalEventBytes?: number;
	maxStoredBytes?: number;
}

export interface TlsOptions {
	cert?: string;
	key?: string;
	ca?: string;
	caPath?: string;
}

export interface RunningEmulator {
	/** `http://…` or, with `tls`, `https://…`. */
	url: string;
	port: number;
	/** A plain-HTTP listener that serves only the admin API (`/_emulator/…`); it stays up through every outage. */
	adminUrl: string;
	/** With `tls`: the CA certificate (PEM) and the file it was written to (for NODE_EXTRA_CA_CERTS or an undici `ca`). */
	tls?: { ca: string; caPath: string };
	/** The outage switch (also `POST|GET|DELETE /_emulator/outage`). */
	outage: Outage;
	close(): Promise<void>;
	app: FastifyInstance;
	emulator: Emulator;
}

interface TlsMaterial {
	cert: string;
	key: string;
	ca: string;
	caPath: string;
	tmpDir?: string;
}

async function tlsMaterial(opt: true | TlsOptions): Promise<TlsMaterial> {
	const o: TlsOptions = opt === true ? {} : opt;
	const given = [o.cert, o.key, o.ca].filter((x) => x !== undefined).length;
	if (given !== 0 && given !== 3) throw new Error('tls: give the certificate, its key and the CA certificate together, or none');
	let pair: { cert: string; key: string; ca: string };
	if (o.cert !== undefined && o.key !== undefined && o.ca !== undefined) {
		pair = { cert: o.cert, key: o.key, ca: o.ca };
	} else {
		const ca = await createTestCa();
		pair = { ...(await ca.issue()), ca: ca.cert };
	}
	let tmpDir: string | undefined;
	let caPath = o.caPath;
	if (caPath === undefined) {
		tmpDir = mkdtempSync(join(tmpdir(), 'cloud-agents-emulator-ca-'));
		caPath = join(tmpDir, 'ca.pem');
	}
	if (!existsSync(caPath) || readFileSync(caPath, 'utf8') !== pair.ca) writeFileSync(caPath, pair.ca);
	return { ...pair, caPath, tmpDir };
}

/** `/v2/agents/:agent_id` → `/v2/agents/{agent_id}` (the OpenAPI path template). */
export const toTemplate = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function fieldOf(instancePath: string, missing?: string): string {
	const parts = instancePath.split('/').filter(Boolean);
	if (missing) parts.push(missing);
	let out = '';
	for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
	return out;
}

interface AjvLikeError {
	instancePath: string;
	keyword: string;
	message?: string;
	params: Record<string, unknown>;
}

/** Turns an ajv error into a message naming the field and the limit. */
export function validationMessage(context: string, err: AjvLikeError): string {
	const missing = err.keyword === 'required' ? String(err.params.missingProperty) : undefined;
	const field = fieldOf(err.instancePath, missing) || (context === 'body' ? 'body' : context);
	const where =
		context === 'querystring'
			? ' (query parameter)'
			: context === 'params'
				? ' (path parameter)'
				: context === 'headers'
					? ' (header)'
					: '';
	if (missing) return `${field}${where}: is required`;
	let msg = err.message ?? 'is invalid';
	if (err.keyword === 'enum' && Array.isArray(err.params.allowedValues)) {
		msg = `must be one of ${(err.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
	}
	if (err.keyword === 'additionalProperties') msg = `unknown member ${JSON.stringify(err.params.additionalProperty)}`;
	return `${field}${where}: ${msg}`;
}

/** The field-level detail of an ajv error: `{field, message}` (the field as in validationMessage). */
export function validationDetail(context: string, err: AjvLikeError): FieldDetail {
	const text = validationMessage(context, err);
	const i = text.indexOf(': ');
	return i < 0
		? { field: context, message: text }
		: { field: text.slice(0, i).replace(/ \((query|path) parameter\)$| \(header\)$/, ''), message: text.slice(i + 2) };
}

function isLoopback(ip: string): boolean {
	return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1' || ip.startsWith('127.');
}

export async function startEmulator(opts: StartOptions = {}): Promise<RunningEmulator> {
	const config: EmulatorConfig = {
		token: opts.token ?? DEFAULT_TOKEN,
		seed: opts.seed ?? 'demo',
		profile: opts.profile ?? 'standard',
		stateFile: opts.stateFile,
		deviceInterval: opts.deviceInterval ?? 2,
		keepAliveMs: opts.keepAliveMs ?? 15_000,
		maxRunsPerAgent: opts.maxRunsPerAgent ?? 500,
		maxTotalEventBytes: opts.maxTotalEventBytes ?? 256 * MiB,
		maxStoredBytes: opts.maxStoredBytes ?? 1024 * MiB,
	};
	const rules = opts.faults ? loadProfile(opts.faults) : [];
	const emu = new Emulator(config, rules);
	const quiet = opts.quiet ?? false;
	const tls = opts.tls ? await tlsMaterial(opts.tls) : undefined;

	const app = (Fastify as unknown as (o: FastifyServerOptions & { https?: { cert: string; key: string } }) => FastifyInstance)({
		https: tls ? { cert: tls.cert, key: tls.key } : undefined,
		logger: false,
		bodyLimit: ORDINARY_BODY_LIMIT,
		genReqId: () => uuidv7(),
		requestIdHeader: false,
		forceCloseConnections: true,
		return503OnClosing: true,
		routerOptions: { maxParamLength: 8192 },
		exposeHeadRoutes: true,
		// Errors raised before routing (bad percent-encoding, over-long path parameters) get the envelope too.
		frameworkErrors: (error, request, reply) => {
			const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
			const path = request.url.split('?')[0] ?? '';
			void (reply as unknown as FastifyReply)
				.code(tooLong ? 414 : 400)
				.header('X-Request-Id', request.id)
				.type('application/json; charset=utf-8')
				.send(
					envelope(
						'invalid_argument',
						tooLong
							? 'path: a path parameter is longer than 8192 characters'
							: `path: malformed URL (bad percent-encoding) in ${JSON.stringify(path.slice(0, 200))}`,
						request.id,
						path,
					),
				);
		},
	});

	// Two validators: bodies are never coerced (a number is not a string); query, params and headers are.
	const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
	const paramAjv = new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
	addFormats(bodyAjv);
	addFormats(paramAjv);
	app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv.compile(schema) : paramAjv.compile(schema)));

	// JSON bodies: an empty body counts as "no body" (routes with optional bodies accept it).
	const defaultJson = app.getDefaultJsonParser('error', 'error');
	app.removeContentTypeParser(['application/json', 'text/plain']);
	app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
		if (body === '' || (typeof body === 'string' && body.trim() === '')) {
			done(null, undefined);
			return;
		}
		void defaultJson(req, body as string, done);
	});
	// The device page posts an HTML form.
	app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
		done(null, Object.fromEntries(new URLSearchParams(body as string)));
	});

	if (opts.corsOrigins && opts.corsOrigins.length > 0) {
		// What a browser's extension host needs (VS Code for the Web): a preflight for the
		// Authorization and Content-Type headers (Last-Event-ID, and the idempotency keys image builds send), the request id and Retry-After
		// readable by the page, on every route, the event stream's included.
		await app.register(cors, {
			origin: opts.corsOrigins.includes('*') ? true : [...opts.corsOrigins],
			methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
			allowedHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Idempotency-Key', 'X-Idempotency-Key'],
			exposedHeaders: ['X-Request-Id', 'Retry-After'],
			maxAge: 600,
		});
	}
	app.decorateRequest('caller', null as unknown as Caller);
	app.decorateRequest('fault', undefined);
	app.decorateRequest('routeTemplate', '');

	// Route templates per method, for 405 answers.
	const routeTable: { re: RegExp; methods: Set<string> }[] = [];
	app.addHook('onRoute', (r) => {
		if (r.url === '*' || r.url.startsWith('/*')) return;
		const re = new RegExp(`^${r.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`);
		const methods = Array.isArray(r.method) ? r.method : [r.method];
		const existing = routeTable.find((x) => x.re.source === re.source);
		if (existing) for (const m of methods) existing.methods.add(String(m));
		else routeTable.push({ re, methods: new Set(methods.map(String)) });
	});

	// The admin listener (plain HTTP, admin routes only), and the outage switch.
	const adminSockets = new WeakSet<Socket>();
	const adminServer = createServer((req, res) => app.routing(req, res));
	adminServer.on('connection', (s: Socket) => adminSockets.add(s));
	const listenHost = opts.host ?? '127.0.0.1';
	let listenPort = 0;
	const outage = new Outage({
		now: () => emu.now(),
		stopListening: () => {
			app.server.close();
		},
		listen: () =>
			new Promise<void>((resolve, reject) => {
				const server = app.server;
				const onError = (e: Error): void => reject(e);
				server.once('error', onError);
				server.listen(listenPort, listenHost, () => {
					server.off('error', onError);
					resolve();
				});
			}),
	});
	emu.tickHooks.push(() => outage.check());

	app.addHook('onRequest', async (request, reply) => {
		reply.header('X-Request-Id', request.id);
		emu.tick();
		const cfg = request.routeOptions.config;
		const matched = request.routeOptions.url !== undefined;
		request.routeTemplate = matched ? toTemplate(request.routeOptions.url) : '<unmatched>';
		if (cfg.admin) {
			if (request.url.startsWith('/_emulator/') && !isLoopback(request.ip)) {
				throw new ApiError('permission_denied', 'the emulator admin API only answers loopback clients');
			}
			return;
		}
		if (adminSockets.has(request.raw.socket)) {
			throw new ApiError('not_found', `the admin listener serves /_emulator/ only, not ${request.method} ${request.routeTemplate}`);
		}
		if (!outage.admit(request.raw.socket, reply.raw)) {
			reply.hijack();
			return;
		}
		emu.countRequest(request.method, request.routeTemplate);
		const fault = emu.faults.decide(request.method, request.routeTemplate);
		request.fault = fault;
		if (fault) {
			if (fault.hold) await waitOutHold(fault.hold);
			if (fault.latencyMs > 0) await sleep(fault.latencyMs);
			if (fault.status !== undefined) {
				const code = codeForStatus(fault.status);
				const headers: Record<string, string> = {};
				if (fault.retryAfter !== undefined) headers['Retry-After'] = String(fault.retryAfter);
				throw new ApiError(code, `injected fault: ${fault.status} for ${request.method} ${request.routeTemplate}`, {
					status: fault.status,
					headers,
				});
			}
		}
		if (cfg.auth === 'read' || cfg.auth === 'write') {
			request.caller = emu.authenticate(request.headers.authorization);
			if (cfg.auth === 'write' && !request.caller.canWrite) {
				throw new ApiError(
					'permission_denied',
					`this token is read-only: ${request.method} ${request.routeTemplate} needs write permission`,
				);
			}
		}
	});

	app.addHook('preValidation', async (request) => {
		if (request.routeOptions.config.optionalBody && (request.body === undefined || request.body === null)) request.body = {};
	});

	// A profile other than standard translates requests and answers at the edge (emulator/src/profile.ts).
	const profile = emu.profile;
	if (profile.request) {
		const translate = profile.request.bind(profile);
		app.addHook('preValidation', async (request) => {
			if (request.routeOptions.config.admin || request.routeOptions.url === undefined) return;
			const edge = {
				method: request.method,
				route: request.routeTemplate,
				query: (request.query ?? {}) as Record<string, unknown>,
				headers: request.headers,
				body: request.body,
			};
			translate(edge, emu);
			request.body = edge.body;
		});
	}
	if (profile.response) {
		const translate = profile.response.bind(profile);
		app.addHook('preSerialization', async (request, reply, payload) => {
			if (request.routeOptions.config.admin) return payload;
			const edge = { method: request.method, route: request.routeTemplate, status: reply.statusCode, payload };
			const out = translate(edge, emu);
			if (edge.status !== reply.statusCode) reply.code(edge.status);
			return out;
		});
	}

	app.addHook('onSend', async (request, reply, payload) => {
		const fault = request.fault;
		if (!fault) return payload;
		if (fault.ambiguousTimeout && reply.statusCode < 400) {
			// The handler ran (the mutation happened); the answer never comes.
			request.raw.socket.destroy();
			return payload;
		}
		if (fault.closeConnection) {
			const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
			reply.header('content-length', Buffer.byteLength(text));
			const half = text.slice(0, Math.floor(text.length / 2));
			let sent = false;
			return new Readable({
				read() {
					if (!sent) {
						sent = true;
						this.push(half);
						setTimeout(() => this.destroy(new Error('injected fault: connection closed mid-response')), 5);
					}
				},
			});
		}
		return payload;
	});

	if (!quiet) {
		app.addHook('onResponse', async (request, reply) => {
			// Never log headers or bodies: tokens and device codes stay out of the log.
			const path = request.url.split('?')[0];
			process.stdout.write(
				`${new Date().toISOString()} ${request.method} ${path} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms\n`,
			);
		});
	}

	app.setErrorHandler((error: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) => {
		let status = 500;
		let code: string = 'internal';
		let message = 'internal error';
		let details: FieldDetail[] | undefined;
		if (error instanceof ApiError) {
			status = error.status;
			code = error.code;
			message = error.message;
			details = error.details;
			for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
		} else {
			const fe = error as FastifyError & { validation?: AjvLikeError[]; validationContext?: string };
			if (fe.validation && fe.validation.length > 0) {
				status = 422;
				code = 'invalid_argument';
				message = validationMessage(fe.validationContext ?? 'body', fe.validation[0]!);
				details = fe.validation.slice(0, 20).map((v) => validationDetail(fe.validationContext ?? 'body', v));
			} else if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
				status = 413;
				code = 'invalid_argument';
				const limit = request.routeOptions.bodyLimit ?? ORDINARY_BODY_LIMIT;
				message = `request body: larger than the ${limit} byte (${(limit / MiB).toFixed(0)} MiB) limit of ${request.method} ${request.routeTemplate}`;
			} else if (
				fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
				fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
				error instanceof SyntaxError
			) {
				status = 400;
				code = 'invalid_argument';
				message = 'request body: malformed JSON';
			} else if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
				status = 415;
				code = 'invalid_argument';
				message = `request body: unsupported Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')}; send application/json`;
			} else if (fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
				status = 400;
				code = 'invalid_argument';
				message = 'request body: length does not match Content-Length';
			} else if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
				status = fe.statusCode;
				code = codeForStatus(status);
				message = fe.message;
			} else if (!quiet) {
				process.stderr.write(
					`emulator: internal error on ${request.method} ${request.routeTemplate}: ${error.stack ?? error.message}\n`,
				);
			}
		}
		if (status === 429 && !reply.getHeader('retry-after')) reply.header('Retry-After', '1');
		reply
			.code(status)
			.type('application/json; charset=utf-8')
			.send(envelope(code, message, request.id, request.url, details));
	});

	app.setNotFoundHandler((request, reply) => {
		const path = request.url.split('?')[0] ?? '';
		const allowed = new Set<string>();
		for (const r of routeTable) if (r.re.test(path)) for (const m of r.methods) allowed.add(m);
		if (allowed.size > 0) {
			reply.header('Allow', [...allowed].sort().join(', '));
			reply
				.code(405)
				.send(
					envelope(
						'unimplemented',
						`method ${request.method} is not allowed on ${path}; allowed: ${[...allowed].sort().join(', ')}`,
						request.id,
						path,
					),
				);
			return;
		}
		reply.code(404).send(envelope('not_found', `no route ${request.method} ${path}`, request.id, path));
	});

	registerApi(app, emu);
	registerAdmin(app, emu);
	const outageBody = {
		type: 'object',
		required: ['mode', 'seconds'],
		additionalProperties: false,
		properties: {
			mode: { type: 'string', enum: [...OUTAGE_MODES] },
			seconds: { type: 'number', exclusiveMinimum: 0, maximum: MAX_OUTAGE_SECONDS },
		},
	} as const;
	const adminCfg = { auth: 'none' as const, admin: true };
	const withAdminUrl = <T extends object>(state: T): T & { admin_url: string } => ({ ...state, admin_url: adminUrl });
	app.get('/_emulator/outage', { config: adminCfg }, async () => withAdminUrl(outage.state()));
	app.post('/_emulator/outage', { config: adminCfg, schema: { body: outageBody } }, async (req) => {
		const b = req.body as { mode: OutageMode; seconds: number };
		return withAdminUrl(await outage.start(b.mode, b.seconds, req.raw.socket));
	});
	app.delete('/_emulator/outage', { config: adminCfg }, async () => {
		await outage.end();
		return withAdminUrl(outage.state());
	});
	attachVncUpgrade(app, emu, opts.desktop);

	let adminUrl = '';
	const address = await app.listen({ port: opts.port ?? 8787, host: listenHost });
	const port = (app.server.address() as { port: number }).port;
	listenPort = port;
	const host = listenHost;
	const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
	const url = `${tls ? 'https' : 'http'}://${urlHost}:${port}`;
	emu.baseUrl = url;
	void address;
	const adminHost = isLoopback(host) ? host : '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		adminServer.once('error', reject);
		adminServer.listen(opts.adminPort ?? 0, adminHost, () => {
			adminServer.off('error', reject);
			resolve();
		});
	});
	adminUrl = `http://${adminHost.includes(':') ? `[${adminHost}]` : adminHost}:${(adminServer.address() as { port: number }).port}`;
	return {
		url,
		port,
		adminUrl,
		tls: tls ? { ca: tls.ca, caPath: tls.caPath } : undefined,
		outage,
		app,
		emulator: emu,
		async close() {
			outage.dispose();
			await emu.close();
			adminServer.closeAllConnections();
			await new Promise<void>((resolve) => adminServer.close(() => resolve()));
			await app.close();
			if (tls?.tmpDir) rmSync(tls.tmpDir, { recursive: true, force: true });
		},
	};
}
