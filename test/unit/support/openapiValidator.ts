/**
 * Validates HTTP exchanges against spec/openapi.yaml (the service contract) with Ajv.
 *
 * The whole OpenAPI document is registered in Ajv as one schema with id `spec`; every body schema is
 * compiled as `{$ref: "spec#<json pointer>"}`, so `#/components/schemas/...` references resolve
 * inside the document. OpenAPI 3.0 `nullable` is handled by Ajv natively; `discriminator` and
 * `x-*` extensions are ignored (`strict: false`); the `oneOf` branches are told apart by their enums.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SPEC_ID = 'spec';

type Json = Record<string, unknown>;

export interface OperationRef {
	method: string;
	pathTemplate: string;
	operationId: string;
}

export interface PathMatch extends OperationRef {
	params: Record<string, string>;
}

/** Node's IncomingHttpHeaders, a plain record, or a fetch `Headers` object. */
export type HeadersLike = Record<string, string | string[] | number | undefined> | { get(name: string): string | null };

export interface ResponseToValidate {
	method: string;
	pathTemplate: string;
	status: number;
	headers?: HeadersLike;
	/** Parsed JSON for JSON responses, the raw text for text responses; undefined/'' when empty. */
	body?: unknown;
	/** The Content-Type header value; parameters such as charset are ignored. */
	contentType?: string;
}

export interface RequestBodyToValidate {
	method: string;
	pathTemplate: string;
	body: unknown;
	contentType?: string;
}

/** Finds spec/openapi.yaml: out/test/unit/support → repo root, else the nearest ancestor holding it. */
export function specPath(): string {
	const direct = path.resolve(__dirname, '../../../../spec/openapi.yaml');
	if (fs.existsSync(direct)) {
		return direct;
	}
	for (let dir = __dirname; ; dir = path.dirname(dir)) {
		const candidate = path.join(dir, 'spec', 'openapi.yaml');
		if (fs.existsSync(candidate)) {
			return candidate;
		}
		if (path.dirname(dir) === dir) {
			throw new Error(`spec/openapi.yaml not found above ${__dirname}`);
		}
	}
}

let cachedSpec: Json | undefined;
let cachedAjv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/** The parsed OpenAPI document. */
export function loadSpec(): Json {
	cachedSpec ??= parse(fs.readFileSync(specPath(), 'utf8')) as Json;
	return cachedSpec;
}

function ajv(): Ajv {
	if (!cachedAjv) {
		const instance = new Ajv({ strict: false, allErrors: true, validateSchema: false });
		addFormats(instance);
		instance.addSchema(loadSpec(), SPEC_ID);
		cachedAjv = instance;
	}
	return cachedAjv;
}

function escapePointer(segment: string): string {
	return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointer(segments: readonly string[]): string {
	return segments.map((s) => '/' + escapePointer(s)).join('');
}

function at(pointerSegments: readonly string[]): unknown {
	let node: unknown = loadSpec();
	for (const segment of pointerSegments) {
		if (node === null || typeof node !== 'object') {
			return undefined;
		}
		node = (node as Json)[segment];
	}
	return node;
}

/** Follows a local `$ref` chain; returns the target and its pointer segments. */
function deref(value: unknown, segments: string[]): { node: Json; segments: string[] } | undefined {
	let node = value;
	let where = segments;
	for (let hops = 0; hops < 16; hops++) {
		if (node === null || typeof node !== 'object') {
			return undefined;
		}
		const ref = (node as Json)['$ref'];
		if (typeof ref !== 'string') {
			return { node: node as Json, segments: where };
		}
		if (!ref.startsWith('#/')) {
			throw new Error(`unsupported $ref ${ref}`);
		}
		where = ref
			.slice(2)
			.split('/')
			.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
		node = at(where);
	}
	throw new Error(`$ref chain too long at ${pointer(segments)}`);
}

function validatorAt(segments: readonly string[]): ValidateFunction {
	const key = pointer(segments);
	let validate = validators.get(key);
	if (!validate) {
		validate = ajv().compile({ $ref: `${SPEC_ID}#${segments.map((s) => '/' + encodeURIComponent(escapePointer(s))).join('')}` });
		validators.set(key, validate);
	}
	return validate;
}

function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
	return (errors ?? []).map((e) => {
		const extra =
			e.keyword === 'additionalProperties'
				? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
				: e.keyword === 'enum'
					? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
					: '';
		return `${where}: ${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
	});
}

function operationNode(method: string, pathTemplate: string): { node: Json; segments: string[] } | undefined {
	const segments = ['paths', pathTemplate, method.toLowerCase()];
	const node = at(segments);
	return node && typeof node === 'object' ? { node: node as Json, segments } : undefined;
}

/** Every operation of the spec, in document order. */
export function listOperations(): OperationRef[] {
	const out: OperationRef[] = [];
	const paths = (loadSpec()['paths'] ?? {}) as Record<string, Json>;
	for (const [pathTemplate, item] of Object.entries(paths)) {
		for (const method of HTTP_METHODS) {
			const operation = item[method] as Json | undefined;
			if (operation) {
				out.push({ method: method.toUpperCase(), pathTemplate, operationId: String(operation['operationId']) });
			}
		}
	}
	return out;
}

let matchers: Array<OperationRef & { regex: RegExp; names: string[]; literals: number }> | undefined;

/** The operation a concrete request path (query string allowed) belongs to, with its path parameters. */
export function matchPath(method: string, concretePath: string): PathMatch | undefined {
	matchers ??= listOperations().map((op) => {
		const names: string[] = [];
		const source = op.pathTemplate
			.split('/')
			.map((segment) =>
				segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
					if (name !== undefined) {
						names.push(name);
						return '([^/]+)';
					}
					return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
				}),
			)
			.join('/');
		const literals = op.pathTemplate.split('/').filter((s) => s !== '' && !s.includes('{')).length;
		return { ...op, regex: new RegExp(`^${source}$`), names, literals };
	});
	const pathOnly = concretePath.split(/[?#]/, 1)[0] ?? '';
	const wanted = method.toUpperCase();
	let best: PathMatch | undefined;
	let bestLiterals = -1;
	for (const m of matchers) {
		if (m.method !== wanted) {
			continue;
		}
		const hit = m.regex.exec(pathOnly);
		if (!hit || m.literals <= bestLiterals) {
			continue;
		}
		const params: Record<string, string> = {};
		m.names.forEach((name, i) => {
			params[name] = decodeURIComponent(hit[i + 1] ?? '');
		});
		best = { method: m.method, pathTemplate: m.pathTemplate, operationId: m.operationId, params };
		bestLiterals = m.literals;
	}
	return best;
}

function headerValue(headers: HeadersLike | undefined, name: string): string | undefined {
	if (!headers) {
		return undefined;
	}
	if (typeof (headers as { get?: unknown }).get === 'function') {
		return (headers as { get(name: string): string | null }).get(name) ?? undefined;
	}
	const lower = name.toLowerCase();
	for (const [key, value] of Object.entries(headers as Record<string, string | string[] | number | undefined>)) {
		if (key.toLowerCase() !== lower || value === undefined) {
			continue;
		}
		if (Array.isArray(value)) {
			return value.join(', ');
		}
		return typeof value === 'string' ? value : String(value);
	}
	return undefined;
}

function isJsonMediaType(mediaType: string): boolean {
	return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isEmpty(body: unknown): boolean {
	return body === undefined || body === null || body === '';
}

function checkContent(
	where: string,
	content: Json | undefined,
	contentSegments: string[],
	body: unknown,
	contentType: string | undefined,
): string[] {
	if (!content || Object.keys(content).length === 0) {
		return isEmpty(body) ? [] : [`${where}: no body is declared but one was sent`];
	}
	const declared = Object.keys(content);
	let mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
	if (!mediaType) {
		if (declared.length !== 1) {
			return [`${where}: Content-Type missing (declared: ${declared.join(', ')})`];
		}
		mediaType = declared[0] ?? '';
	}
	if (!declared.includes(mediaType)) {
		return [`${where}: Content-Type ${mediaType} is not declared (declared: ${declared.join(', ')})`];
	}
	if (body === undefined) {
		return [`${where}: a ${mediaType} body is declared but none was given`];
	}
	const schemaSegments = [...contentSegments, mediaType, 'schema'];
	if (!isJsonMediaType(mediaType)) {
		return typeof body === 'string' || Buffer.isBuffer(body) ? [] : [`${where}: a ${mediaType} body must be given as a string`];
	}
	if (at(schemaSegments) === undefined) {
		return [];
	}
	const validate = validatorAt(schemaSegments);
	return validate(body) ? [] : formatErrors(`${where} body`, validate.errors);
}

/**
 * Checks one response against the spec: the status is declared (an explicit code, a range such as
 * 4XX, or `default` for statuses >= 400), required headers are present and well-formed, and the
 * body matches the declared media type and schema. Returns the problems found; empty = valid.
 */
export function validateResponse(res: ResponseToValidate): string[] {
	const where = `${res.method.toUpperCase()} ${res.pathTemplate} ${res.status}`;
	const op = operationNode(res.method, res.pathTemplate);
	if (!op) {
		return [`${res.method.toUpperCase()} ${res.pathTemplate}: no such operation in the spec`];
	}
	const responses = (op.node['responses'] ?? {}) as Json;
	const code = String(res.status);
	const range = `${code[0] ?? ''}XX`;
	const key = code in responses ? code : range in responses ? range : res.status >= 400 && 'default' in responses ? 'default' : undefined;
	if (key === undefined) {
		return [`${where}: status ${code} is not declared (declared: ${Object.keys(responses).join(', ')})`];
	}
	const response = deref(responses[key], [...op.segments, 'responses', key]);
	if (!response) {
		return [`${where}: response ${key} cannot be resolved`];
	}

	const problems: string[] = [];
	const headers = (response.node['headers'] ?? {}) as Json;
	for (const name of Object.keys(headers)) {
		const header = deref(headers[name], [...response.segments, 'headers', name]);
		if (!header) {
			continue;
		}
		const value = headerValue(res.headers, name);
		if (value === undefined) {
			if (header.node['required'] === true) {
				problems.push(`${where}: required header ${name} is missing`);
			}
			continue;
		}
		const schema = header.node['schema'] as Json | undefined;
		if (!schema) {
			continue;
		}
		const schemaNode = deref(schema, [...header.segments, 'schema']);
		const type = schemaNode?.node['type'];
		const typed: unknown = type === 'integer' || type === 'number' ? (value.trim() === '' ? NaN : Number(value)) : value;
		const validate = validatorAt([...header.segments, 'schema']);
		if (!validate(typed)) {
			problems.push(...formatErrors(`${where} header ${name}`, validate.errors));
		}
	}

	const contentSegments = [...response.segments, 'content'];
	problems.push(...checkContent(where, response.node['content'] as Json | undefined, contentSegments, res.body, res.contentType));
	return problems;
}

/** Checks a request body against the operation's requestBody. Returns the problems found; empty = valid. */
export function validateRequestBody(req: RequestBodyToValidate): string[] {
	const where = `${req.method.toUpperCase()} ${req.pathTemplate} request`;
	const op = operationNode(req.method, req.pathTemplate);
	if (!op) {
		return [`${req.method.toUpperCase()} ${req.pathTemplate}: no such operation in the spec`];
	}
	const requestBody = deref(op.node['requestBody'], [...op.segments, 'requestBody']);
	if (!requestBody) {
		return isEmpty(req.body) ? [] : [`${where}: no request body is declared but one was sent`];
	}
	if (req.body === undefined) {
		return requestBody.node['required'] === true ? [`${where}: the body is required`] : [];
	}
	return checkContent(
		where,
		requestBody.node['content'] as Json | undefined,
		[...requestBody.segments, 'content'],
		req.body,
		req.contentType,
	);
}

/** Validates a value against `#/components/schemas/<name>`. Returns the problems found; empty = valid. */
export function validateSchema(name: string, value: unknown): string[] {
	const segments = ['components', 'schemas', name];
	if (at(segments) === undefined) {
		return [`schema ${name} is not in the spec`];
	}
	const validate = validatorAt(segments);
	return validate(value) ? [] : formatErrors(name, validate.errors);
}
