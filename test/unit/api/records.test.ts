import assert from 'node:assert/strict';
import {
	buildStatusClass,
	providerConfiguration,
	readBuild,
	readCheckpoint,
	readImage,
	readProvider,
	redactSecrets,
} from '../../../src/api';
import { errorFromBody } from '../../../src/api/http';

suite('records whose member names are not shown (src/api/records.ts)', () => {
	test("a build reads in our spelling and the variant's; a record without a usable id is dropped", () => {
		const ours = readBuild({
			id: 'b1',
			display_name: 'Go',
			status: 'running',
			image_id: null,
			attempts: [{ number: 1, outcome: 'failed', started_at: '2026-01-01T00:00:00Z', finished_at: '2026-01-01T00:01:00Z' }],
		});
		assert.equal(ours?.id, 'b1');
		assert.equal(ours?.name, 'Go');
		assert.equal(ours?.attempts[0]?.outcome, 'failed');
		assert.equal(ours?.attempts[0]?.finishedAt, Date.parse('2026-01-01T00:01:00Z'));
		const theirs = readBuild({
			build_id: 'b2',
			name: 'Rust',
			status: 'ready',
			image: { id: 'img_1' },
			attempts: [{ attempt: 2, outcome: 'succeeded', began_at: '2026-01-01T00:00:00Z' }],
		});
		assert.equal(theirs?.id, 'b2');
		assert.equal(theirs?.imageId, 'img_1');
		assert.equal(theirs?.attempts[0]?.number, 2);
		assert.equal(readBuild({ name: 'no id' }), undefined);
		assert.equal(readBuild({ id: '..' }), undefined);
		assert.equal(readBuild([1, 2]), undefined);
	});

	test('build statuses: pending/running/unknown words are active; ready and succeeded succeed; error and failed fail', () => {
		assert.equal(buildStatusClass('pending'), 'active');
		assert.equal(buildStatusClass('building'), 'active');
		assert.equal(buildStatusClass(undefined), 'active');
		assert.equal(buildStatusClass('READY'), 'succeeded');
		assert.equal(buildStatusClass('succeeded'), 'succeeded');
		assert.equal(buildStatusClass('error'), 'failed');
		assert.equal(buildStatusClass('failed'), 'failed');
	});

	test('a checkpoint: state, failure reason and source runtime in either spelling; a null source id means deleted', () => {
		const ours = readCheckpoint({
			id: 'c1',
			display_name: 'snap',
			state: { status: 'failed', failure_reason: 'disk_snapshot_timeout' },
			source_runtime: { id: null, display_name: 'harbor' },
		});
		assert.equal(ours?.state, 'failed');
		assert.equal(ours?.failureReason, 'disk_snapshot_timeout');
		assert.equal(ours?.sourceRuntimeId, undefined);
		assert.equal(ours?.sourceRuntimeName, 'harbor');
		const theirs = readCheckpoint({
			id: 'c2',
			lifecycle: 'CREATING',
			failure: 'x',
			source: { runtime_id: 'rt-1', runtime_name: 'ember' },
		});
		assert.equal(theirs?.state, 'CREATING');
		assert.equal(theirs?.failureReason, 'x');
		assert.equal(theirs?.sourceRuntimeId, 'rt-1');
		assert.equal(theirs?.sourceRuntimeName, 'ember');
	});

	test("an image shows what is there; a provider's configuration leaves out the read-only and extension members", () => {
		const image = readImage({ id: 'img', name: 'Python', type: 'custom', in_use: false, tags: ['ml', 3], x_extra: 1 });
		assert.deepEqual([image?.name, image?.kind, image?.inUse, image?.tags], ['Python', 'custom', false, ['ml']]);
		const provider = readProvider({
			provider_id: 'mp',
			name: 'OpenAI',
			type: 'openai',
			base_url: 'https://x',
			default_model: 'm',
			is_enabled: true,
			modified_at: '2026-01-01T00:00:00Z',
			x_extra: 7,
		});
		assert.deepEqual(
			[provider?.id, provider?.name, provider?.endpoint, provider?.model, provider?.enabled],
			['mp', 'OpenAI', 'https://x', 'm', true],
		);
		assert.deepEqual(providerConfiguration(provider!.raw), {
			name: 'OpenAI',
			base_url: 'https://x',
			default_model: 'm',
			is_enabled: true,
		});
	});

	test('secret-named members are masked before a record is shown; masked previews stay', () => {
		const shown = redactSecrets({ api_key: 'sk-live-123', nested: [{ token: 'abc' }], value_preview: 'sk-…123', name: 'x' }) as Record<
			string,
			unknown
		>;
		assert.equal(shown.api_key, '••••');
		assert.deepEqual(shown.nested, [{ token: '••••' }]);
		assert.equal(shown.value_preview, 'sk-…123');
		assert.equal(shown.name, 'x');
	});

	test('field-level errors are read from error.details and from error.field_violations, secrets scrubbed', () => {
		const a = errorFromBody(
			422,
			JSON.stringify({
				error: {
					code: 'invalid_argument',
					message: 'bad',
					details: [{ field: 'endpoint', message: 'must be https' }, { nope: 1 }],
				},
				request_id: 'req-1',
			}),
			undefined,
			undefined,
		);
		assert.deepEqual(a.fieldErrors, [{ field: 'endpoint', message: 'must be https' }]);
		assert.equal(a.requestId, 'req-1');
		const b = errorFromBody(
			400,
			JSON.stringify({
				error: {
					code: 'invalid_argument',
					message: 'bad',
					field_violations: [{ field_path: 'base_url', description: 'token sekrit-token-1 leaked' }],
				},
			}),
			undefined,
			undefined,
			['sekrit-token-1'],
		);
		assert.equal(b.fieldErrors[0]?.field, 'base_url');
		assert.ok(!b.fieldErrors[0]?.message.includes('sekrit-token-1'), b.fieldErrors[0]?.message);
		assert.deepEqual(errorFromBody(500, 'oops', undefined, undefined).fieldErrors, []);
	});
});
