import * as assert from 'node:assert/strict';
import { listOperations, loadSpec, matchPath, validateRequestBody, validateResponse, validateSchema } from './openapiValidator';

const REQUEST_ID = '01890a5d-ac96-774b-bcce-b302099a8057';
const RUNTIME_ID = '3f6c1d2e-8a4b-4c5d-9e0f-112233445566';
const AGENT_ID = `${RUNTIME_ID}.main`;
const JSON_HEADERS = { 'x-request-id': REQUEST_ID, 'content-type': 'application/json' };

function agent(): Record<string, unknown> {
	return {
		id: AGENT_ID,
		runtime_id: RUNTIME_ID,
		harness_id: 'main',
		name: 'Docs bot',
		status: 'idle',
		created_at_unix_seconds: 1_700_000_000,
		updated_at_unix_seconds: 1_700_000_100,
		latest_reply: null,
	};
}

function getAgent(status: number, body: unknown, headers: Record<string, string> = JSON_HEADERS): string[] {
	return validateResponse({
		method: 'GET',
		pathTemplate: '/v2/agents/{agent_id}',
		status,
		headers,
		body,
		contentType: 'application/json; charset=utf-8',
	});
}

suite('openapi validator', () => {
	test('a valid Agent passes', () => {
		assert.deepEqual(getAgent(200, agent()), []);
	});

	test('a record with an extra unknown field passes', () => {
		assert.deepEqual(getAgent(200, { ...agent(), future_field: { nested: true } }), []);
	});

	test('an unknown value of an open enum (x-known-values) passes', () => {
		assert.deepEqual(getAgent(200, { ...agent(), status: 'hibernating' }), []);
	});

	test('a missing required field fails', () => {
		const { name: _name, ...withoutName } = agent();
		const problems = getAgent(200, withoutName);
		assert.equal(problems.length, 1, problems.join('\n'));
		assert.match(problems[0] ?? '', /must have required property 'name'/);
	});

	test('a wrong type and a bad agent id fail', () => {
		assert.notDeepEqual(getAgent(200, { ...agent(), created_at_unix_seconds: 'yesterday' }), []);
		assert.notDeepEqual(getAgent(200, { ...agent(), id: 'not-an-agent-id' }), []);
	});

	test('an undeclared success status fails', () => {
		const problems = getAgent(201, agent());
		assert.equal(problems.length, 1);
		assert.match(problems[0] ?? '', /status 201 is not declared/);
	});

	test('an undeclared error status falls back to default with the error envelope', () => {
		const envelope = { error: { code: 'unimplemented', message: 'nope' }, request_id: REQUEST_ID };
		assert.deepEqual(getAgent(501, envelope), []);
		assert.notDeepEqual(getAgent(501, agent()), []);
	});

	test('the error envelope needs a known code; /v1 errors need no request_id', () => {
		assert.deepEqual(getAgent(404, { error: { code: 'not_found', message: 'no agent' }, request_id: REQUEST_ID }), []);
		assert.notDeepEqual(getAgent(404, { error: { code: 'gone', message: 'no agent' }, request_id: REQUEST_ID }), []);
		assert.notDeepEqual(getAgent(404, { error: { code: 'not_found', message: 'no agent' } }), []);
		const v1 = validateResponse({
			method: 'DELETE',
			pathTemplate: '/v1/secret-stubs/{stub_id}',
			status: 404,
			headers: JSON_HEADERS,
			body: { error: { code: 'not_found', message: 'no stub' } },
			contentType: 'application/json',
		});
		assert.deepEqual(v1, []);
	});

	test('X-Request-Id is required and must be a UUID; Retry-After must be an integer', () => {
		assert.match(getAgent(200, agent(), { 'content-type': 'application/json' }).join('\n'), /X-Request-Id is missing/);
		assert.notDeepEqual(getAgent(200, agent(), { 'x-request-id': 'abc' }), []);
		const rateLimited = (retryAfter: string) =>
			getAgent(
				429,
				{ error: { code: 'rate_limited', message: 'slow down' }, request_id: REQUEST_ID },
				{
					'x-request-id': REQUEST_ID,
					'retry-after': retryAfter,
				},
			);
		assert.deepEqual(rateLimited('1'), []);
		assert.notDeepEqual(rateLimited('soon'), []);
	});

	test('bodiless and non-JSON responses', () => {
		const headers = { 'x-request-id': REQUEST_ID };
		assert.deepEqual(validateResponse({ method: 'GET', pathTemplate: '/healthz', status: 200, headers }), []);
		assert.deepEqual(validateResponse({ method: 'HEAD', pathTemplate: '/healthz', status: 503, headers }), []);
		assert.notDeepEqual(
			validateResponse({ method: 'DELETE', pathTemplate: '/v2/auth/token', status: 204, headers, body: { x: 1 } }),
			[],
		);
		const sse = validateResponse({
			method: 'GET',
			pathTemplate: '/v2/agents/{agent_id}/runs/{run_id}/events',
			status: 200,
			headers,
			body: 'retry: 3000\n\n',
			contentType: 'text/event-stream',
		});
		assert.deepEqual(sse, []);
	});

	test('oneOf with op and mode discriminators', () => {
		const list = { op: 'list', path: '', entries: [{ name: 'a.md', type: 'file', size: 3, mtime_unix_ms: 1 }], next_cursor: null };
		assert.deepEqual(validateSchema('WorkspaceResult', list), []);
		assert.notDeepEqual(validateSchema('WorkspaceResult', { ...list, op: 'stat' }), []);
		assert.deepEqual(validateSchema('EgressPolicy', { mode: 'denylist', denied_hosts: ['*.example.org'] }), []);
		assert.notDeepEqual(validateSchema('EgressPolicy', { mode: 'denylist', denied_hosts: new Array(129).fill('h') }), []);
		assert.deepEqual(
			validateRequestBody({
				method: 'POST',
				pathTemplate: '/v2/agents/{agent_id}/workspace',
				body: { op: 'read', path: 'a/b.txt', length: 10 },
			}),
			[],
		);
		assert.notDeepEqual(
			validateRequestBody({
				method: 'POST',
				pathTemplate: '/v2/agents/{agent_id}/workspace',
				body: { op: 'read', path: '../etc/passwd' },
			}),
			[],
		);
	});

	test('request limits are schema bounds', () => {
		const run = (body: unknown) => validateRequestBody({ method: 'POST', pathTemplate: '/v2/agents/{agent_id}/runs', body });
		assert.deepEqual(run({ prompt: 'hello' }), []);
		assert.notDeepEqual(run({ prompt: 'x'.repeat(65537) }), []);
		assert.notDeepEqual(run({ prompt: '', images: new Array(9).fill({ data: 'AAAA' }) }), []);
		assert.notDeepEqual(run({ prompt: 'hi', parent_run_id: 'bad id!' }), []);
		const artifact = (name: string) =>
			validateRequestBody({
				method: 'POST',
				pathTemplate: '/v2/agents/{agent_id}/artifacts',
				body: { run_id: 'run_1', name, content_base64: 'aGk=' },
			});
		assert.deepEqual(artifact('report.md'), []);
		assert.notDeepEqual(artifact('.hidden'), []);
	});

	test('listOperations returns the 51 operations with unique operationIds', () => {
		const ops = listOperations();
		assert.equal(ops.length, 51);
		assert.equal(new Set(ops.map((o) => o.operationId)).size, 51);
		assert.ok(ops.some((o) => o.method === 'HEAD' && o.pathTemplate === '/healthz' && o.operationId === 'healthzHead'));
	});

	test('every component schema compiles', () => {
		const schemas = Object.keys((loadSpec()['components'] as { schemas: Record<string, unknown> }).schemas);
		for (const name of schemas) {
			validateSchema(name, {});
		}
	});

	test('matchPath prefers literal segments and decodes parameters', () => {
		assert.equal(matchPath('GET', '/v2/images/builds?limit=5')?.operationId, 'listImageBuilds');
		assert.equal(matchPath('DELETE', '/v2/images/custom-1')?.operationId, 'deleteImage');
		const run = matchPath('get', `/v2/agents/${AGENT_ID}/runs/run_01`);
		assert.equal(run?.operationId, 'getRun');
		assert.deepEqual(run?.params, { agent_id: AGENT_ID, run_id: 'run_01' });
		assert.equal(matchPath('GET', '/v2/runtimes/My%20box/vnc-credentials')?.params['runtime_id'], 'My box');
		assert.equal(matchPath('POST', '/v2/me'), undefined);
	});
});
