/**
 * The limits module (src/base/limits.ts) is data, so what can go wrong is its consistency: ranges
 * whose minimum passes their maximum, bounds that contradict each other, the request-id pattern, and
 * the README's "Limits and safety" table drifting from the values (the module says to keep the two in step).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS, SAFETY } from '../../../src/base/limits';

const root = join(__dirname, '..', '..', '..', '..');
const KIB = 1024;
const MIB = 1024 * 1024;

/** The README's "Limits and safety" section, white space folded. */
function limitsSection(): string {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	const start = readme.indexOf('## Limits and safety');
	assert.ok(start >= 0, 'README has a "Limits and safety" section');
	const end = readme.indexOf('\n## ', start + 1);
	return readme.slice(start, end < 0 ? undefined : end).replace(/\s+/g, ' ');
}

const n = (v: number): string => v.toLocaleString('en-US');
const s = (ms: number): string => `${ms / 1000} s`;

suite('base/limits: the values agree with each other', () => {
	test("every {min, max} range of the service's limits is a non-empty range of positive integers", () => {
		let ranges = 0;
		for (const [name, value] of Object.entries(LIMITS)) {
			if (typeof value === 'object' && value !== null && 'min' in value && 'max' in value) {
				ranges++;
				assert.ok(Number.isSafeInteger(value.min) && value.min >= 1, `${name}.min`);
				assert.ok(Number.isSafeInteger(value.max) && value.max >= value.min, `${name}.max ≥ min`);
			}
		}
		assert.ok(ranges >= 10, 'the ranges were found');
	});

	test('body and transfer bounds: what may be sent or stored fits in what is read back', () => {
		assert.ok(SAFETY.jsonBodyMaxBytes > LIMITS.outputCapBytes, "a JSON answer holds the service's output cap");
		assert.ok(SAFETY.errorBodyMaxBytes < SAFETY.jsonBodyMaxBytes);
		assert.ok(SAFETY.readMaxBytes >= LIMITS.writeBytes, 'a file that could be written can be read');
		assert.ok(LIMITS.runBodyBytes > LIMITS.imagesEncodedBytesTotal + LIMITS.promptBytes, 'a run body holds its images and prompt');
		assert.ok(LIMITS.imageEncodedBytes <= LIMITS.imagesEncodedBytesTotal);
		assert.ok(SAFETY.readChunkMinBytes < LIMITS.workspaceReadLength.max, 'a chunk can meet its minimum');
	});

	test('time bounds: minimums below maximums, defaults between them, the transfer deadline longer than the ordinary one', () => {
		assert.ok(SAFETY.retryMinDelayMs < SAFETY.retryMaxDelayMs);
		assert.ok(SAFETY.retryMaxDelayMs <= SAFETY.retryAfterMaxMs);
		assert.ok(SAFETY.retryAfterMaxMs < SAFETY.requestDeadlineMs, 'an honoured Retry-After can still be retried in time');
		assert.ok(SAFETY.requestDeadlineMs < SAFETY.transferDeadlineMs);
		assert.ok(SAFETY.devicePollMinMs <= SAFETY.devicePollDefaultMs && SAFETY.devicePollDefaultMs <= SAFETY.devicePollMaxMs);
		assert.ok(SAFETY.devicePollMaxMs < SAFETY.deviceExpiryMaxMs);
		assert.ok(SAFETY.buildPollMinMs < SAFETY.buildPollMaxMs);
		assert.ok(SAFETY.streamReconnectMinMs * SAFETY.streamReconnectsPerMinute <= 60_000, 'the paced reconnects fit in the minute');
		assert.ok(SAFETY.streamIdleMs > 15_000, "longer than the server's 15 s keep-alive");
		assert.ok(SAFETY.savingsEarliestMs === Date.UTC(2000, 0, 1), 'the earliest savings time is 2000-01-01');
	});

	test('count bounds: a page fits in a listing, shown subsets in what is kept', () => {
		assert.ok(SAFETY.pageMaxItems <= SAFETY.listingMaxItems);
		assert.ok(LIMITS.runListLimit.max <= SAFETY.pageMaxItems && LIMITS.workspaceListLimit.max <= SAFETY.pageMaxItems);
		assert.ok(SAFETY.sessionHistoryShownEvents <= SAFETY.sessionHistoryMaxEvents);
		assert.ok(SAFETY.sessionHistoryBatch <= SAFETY.sessionHistoryShownEvents);
		assert.ok(SAFETY.secretReadConcurrency <= SAFETY.secretsFromStubsMax);
		assert.ok(SAFETY.savingsRecentRows <= SAFETY.savingsMaxEvents);
		assert.ok(SAFETY.labelMaxChars <= SAFETY.descriptionMaxChars && SAFETY.descriptionMaxChars <= SAFETY.tooltipMaxChars);
		assert.ok(SAFETY.idMaxChars >= LIMITS.identifierLength.max);
		assert.ok(LIMITS.imageMediaTypes.every((t) => /^image\/[a-z]+$/.test(t)));
	});

	test('the request-id pattern admits UUIDs and similar tokens up to 128 characters, nothing with spaces or markup', () => {
		const ok = ['0190f1c2-aaaa-7bbb-8ccc-000000000000', 'req_01HZ.abc:42', 'a', `a${'b'.repeat(127)}`];
		for (const id of ok) {
			assert.match(id, SAFETY.requestIdPattern);
		}
		const bad = ['', `a${'b'.repeat(128)}`, '-leading-dash', 'Bearer abc', 'id\n2', '<script>', 'ü-id', 'a/b'];
		for (const id of bad) {
			assert.doesNotMatch(id, SAFETY.requestIdPattern, JSON.stringify(id));
		}
	});
});

suite('base/limits: the README states the values', () => {
	test('bodies, deadlines and retries', () => {
		const text = limitsSection();
		const expected = [
			`at most ${SAFETY.jsonBodyMaxBytes / MIB} MiB`,
			`error bodies: ${SAFETY.errorBodyMaxBytes / KIB} KiB read`,
			`${s(SAFETY.requestDeadlineMs)} overall deadline (${s(SAFETY.transferDeadlineMs)} for file content)`,
			`never sooner than ${SAFETY.retryMinDelayMs} ms apart`,
			`\`Retry-After\` over ${s(SAFETY.retryAfterMaxMs)} is reported`,
			`at most ${s(SAFETY.sessionReadMaxMs)}`,
			`clamped to ${SAFETY.devicePollMinMs / 1000}–${SAFETY.devicePollMaxMs / 1000} s (default ${s(SAFETY.devicePollDefaultMs)}); its lifetime to at most ${SAFETY.deviceExpiryMaxMs / 3_600_000} hour`,
		];
		for (const phrase of expected) {
			assert.ok(text.includes(phrase), `README: "${phrase}"`);
		}
	});

	test('listings, streams, reads and walks', () => {
		const text = limitsSection();
		const expected = [
			`at most ${n(SAFETY.pageMaxItems)} items a page; a walk stops after ${n(SAFETY.listingMaxPages)} pages or ${n(SAFETY.listingMaxItems)} items`,
			`one event at most ${SAFETY.sseEventMaxChars / MIB} M characters`,
			`no whole event or keep-alive for ${s(SAFETY.streamIdleMs)} counts as a drop`,
			`reconnects wait at least ${SAFETY.streamReconnectMinMs} ms`,
			`at most ${SAFETY.streamReconnectsPerMinute} a minute`,
			`at least ${SAFETY.readChunkMinBytes / KIB} KiB`,
			`sizes over ${SAFETY.readMaxBytes / MIB} MiB`,
			`at most ${SAFETY.walkMaxDepth} folder levels and ${n(SAFETY.walkMaxEntries)} entries`,
			`search shows at most ${n(LIMITS.searchMaxResults.max)} matches`,
			`over ${SAFETY.entryNameMaxChars} characters`,
			`at most ${SAFETY.localNameMaxChars} characters`,
		];
		for (const phrase of expected) {
			assert.ok(text.includes(phrase), `README: "${phrase}"`);
		}
	});

	test('text from the server in the UI', () => {
		const phrase =
			`labels ${SAFETY.labelMaxChars}, descriptions ${SAFETY.descriptionMaxChars}, tooltips ${n(SAFETY.tooltipMaxChars)}, ` +
			`notifications ${n(SAFETY.notificationMaxChars)}, output lines ${n(SAFETY.outputLineMaxChars)}, ` +
			`event types ${SAFETY.eventTypeMaxChars} characters, documents ${SAFETY.documentMaxChars / MIB} MiB`;
		assert.ok(limitsSection().includes(phrase), `README: "${phrase}"`);
	});
});
