import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, NetworkError } from '../../../src/api';
import {
	describeError,
	isCancellation,
	requestIdInfo,
	requestIdNote,
	requestIdOf,
	showApiError,
	showUnreachable,
} from '../../../src/messages/errors';
import { answer, calls } from '../support/vscodeFake';

/** src/messages/errors.ts on the vscode fake: what people are told about a failure, and what its actions do. */
const REQUEST_ID = '01a24aa7-fc60-7546-aa5e-020e3ad7ba70';
const refused = (): NetworkError => new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:8787', false);
const apiError = (status: number, requestId?: string): ApiError => new ApiError(status, 'bad', `refused with ${status}`, requestId);

suite('messages/errors', () => {
	test('request ids: none, plausible (shown and copied exactly) or implausible (never shown)', () => {
		assert.deepEqual(requestIdInfo(new Error('x')), { kind: 'none' });
		assert.deepEqual(requestIdInfo(apiError(400, REQUEST_ID)), { kind: 'plausible', id: REQUEST_ID });
		assert.deepEqual(requestIdInfo({ requestId: 'id with spaces\u202E and bidi' }), { kind: 'implausible' });
		assert.deepEqual(requestIdInfo({ requestId: 42 }), { kind: 'implausible' });
		assert.equal(requestIdOf({ requestId: '<script>' }), undefined);
		assert.equal(requestIdNote(apiError(400, REQUEST_ID)), `(request ${REQUEST_ID})`);
		assert.equal(requestIdNote(new Error('x')), '');
	});

	test('describeError: the message on one line, neutralised, with the request id or a note that it was not shown', () => {
		assert.equal(describeError(apiError(400, REQUEST_ID)), `refused with 400 (request ${REQUEST_ID})`);
		const evil = describeError(Object.assign(new Error('line one\nline\u202Etwo'), { requestId: 'no good id' }));
		assert.ok(!evil.includes('\n') && !evil.includes('\u202E'), evil);
		assert.match(evil, /request id not shown: implausible value/);
		assert.equal(describeError('a plain string'), 'a plain string');
	});

	test('cancellations are told apart: VS Code’s, an abort', () => {
		assert.equal(isCancellation(new vscode.CancellationError()), true);
		assert.equal(isCancellation(Object.assign(new Error('aborted'), { name: 'AbortError' })), true);
		assert.equal(isCancellation(new Error('boom')), false);
	});

	test('showApiError: a cancellation shows and logs nothing', async () => {
		const logged: unknown[] = [];
		await showApiError(new vscode.CancellationError(), { error: (...a: unknown[]) => logged.push(a) });
		assert.deepEqual(calls('window.showErrorMessage'), []);
		assert.deepEqual(logged, []);
	});

	test('showApiError: the prefix, the reason and the request id; "Copy Request ID" copies exactly the id', async () => {
		answer('window.showErrorMessage', async (_text: string, ...actions: string[]) => actions.find((a) => a === 'Copy Request ID'));
		const logged: unknown[][] = [];
		await showApiError(apiError(409, REQUEST_ID), { error: (...a: unknown[]) => logged.push(a) }, 'Could not save');
		const [text = '', ...actions] = calls('window.showErrorMessage')[0] as string[];
		assert.equal(text, `Could not save: refused with 409 (request ${REQUEST_ID})`);
		assert.deepEqual(actions, ['Copy Request ID']);
		assert.deepEqual(calls('env.clipboard.writeText'), [[REQUEST_ID]]);
		assert.equal(logged.length, 1);
	});

	test('showApiError: a 401 goes to the session’s handler when it takes it, and nothing else is shown', async () => {
		const seen: unknown[] = [];
		await showApiError(apiError(401), undefined, undefined, (err) => seen.push(err) > 0);
		assert.equal(seen.length, 1);
		assert.deepEqual(calls('window.showErrorMessage'), []);
	});

	test('showApiError: a 401 nobody handles offers Sign In, which runs the sign-in flow', async () => {
		let signedIn = 0;
		answer('window.showErrorMessage', async () => 'Sign In');
		await showApiError(apiError(401), undefined, undefined, undefined, async () => {
			signedIn++;
		});
		assert.deepEqual((calls('window.showErrorMessage')[0] as string[]).slice(1), ['Sign In']);
		assert.equal(signedIn, 1);
	});

	test('showApiError: no answer from the service offers Retry (runs it) and Configure API URL', async () => {
		let retried = 0;
		answer('window.showErrorMessage', async () => 'Retry');
		await showApiError(refused(), undefined, 'Could not load agents', undefined, undefined, () => retried++);
		const [text = '', ...actions] = calls('window.showErrorMessage')[0] as string[];
		assert.match(text, /^Could not load agents: Cannot reach the Cloud Agents service: /);
		assert.deepEqual(actions, ['Retry', 'Configure API URL']);
		assert.equal(retried, 1);
		// A 503 is "not there now" too; a 500 is an answer.
		await showApiError(apiError(503), undefined);
		assert.deepEqual((calls('window.showErrorMessage')[1] as string[]).slice(1), ['Configure API URL']);
		await showApiError(apiError(500), undefined);
		assert.deepEqual((calls('window.showErrorMessage')[2] as string[]).slice(1), []);
	});

	test('showUnreachable: Configure API URL opens the setting; the text is neutralised for a notification', async () => {
		answer('window.showErrorMessage', async () => 'Configure API URL');
		await showUnreachable('no [link](command:x) here\u0007');
		const [text = '', ...actions] = calls('window.showErrorMessage')[0] as string[];
		assert.deepEqual(actions, ['Configure API URL']);
		assert.ok(!text.includes('\u0007'), text);
		assert.ok(!/\]\(command:/.test(text), text);
		assert.deepEqual(calls('commands.executeCommand')[0], ['workbench.action.openSettings', 'cloudAgents.apiUrl']);
	});
});
