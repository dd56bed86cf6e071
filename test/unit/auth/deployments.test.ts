import * as assert from 'node:assert/strict';
import {
	DEFAULT_API_URL,
	DEPLOYMENT_NAME_MAX_CHARS,
	MAX_DEPLOYMENTS,
	deploymentId,
	isDeploymentIdShape,
	normaliseApiUrl,
	parseDeployments,
	readDeployments,
} from '../../../src/auth/deployments';
import { ValidationError } from '../../../src/api';
import * as fake from '../support/vscodeFake';

/** src/auth/deployments.ts: `cloudAgents.apiUrl` as the default deployment, `cloudAgents.deployments` beside it. */
suite('auth/deployments', () => {
	test('with no deployments setting there is one deployment: the default, its URL exactly as the session reads cloudAgents.apiUrl', () => {
		for (const entries of [undefined, null, []]) {
			const { deployments, problems } = parseDeployments('  https://api.example.test/v2///  ', entries);
			assert.deepEqual(problems, []);
			assert.equal(deployments.length, 1);
			const [only] = deployments;
			assert.equal(only?.apiUrl, 'https://api.example.test/v2');
			assert.equal(only?.isDefault, true);
			assert.equal(only?.name, 'api.example.test');
			assert.equal(only?.id, deploymentId('https://api.example.test/v2'));
		}
		assert.equal(parseDeployments('', undefined).deployments[0]?.apiUrl, DEFAULT_API_URL);
		assert.equal(parseDeployments('   ', undefined).deployments[0]?.name, '127.0.0.1:8787');
	});

	test('a default URL the client would refuse stays the default as today (the client refuses it), with a fixed id', () => {
		const { deployments, problems } = parseDeployments('http://api.example.test', []);
		assert.deepEqual(problems, []);
		assert.equal(deployments[0]?.apiUrl, 'http://api.example.test');
		assert.equal(parseDeployments('not a url', []).deployments[0]?.id, 'default');
	});

	test('normalises: host lower-cased, default port, query, fragment and trailing slashes dropped; path case kept', () => {
		assert.equal(normaliseApiUrl(' HTTPS://API.Example.TEST:443/Base/?x=1#f '), 'https://api.example.test/Base');
		assert.equal(normaliseApiUrl('http://127.0.0.1:8787/'), 'http://127.0.0.1:8787');
		assert.equal(normaliseApiUrl('http://[::1]:9/v2//'), 'http://[::1]:9/v2');
	});

	test('normalising checks the URL as the client does: https, http only on loopback, no credentials', () => {
		for (const bad of ['http://api.example.test', 'ftp://api.example.test', 'https://u:p@api.example.test', 'api.example.test', '']) {
			assert.throws(() => normaliseApiUrl(bad), ValidationError, bad);
		}
	});

	test('ids: stable, [a-z0-9-] only, the host readable, different for another path or protocol of one host', () => {
		const a = deploymentId('https://api.example.test');
		assert.equal(deploymentId('https://api.example.test'), a);
		assert.match(a, /^api-example-test-[0-9a-f]{12}$/);
		assert.notEqual(deploymentId('https://api.example.test/staging'), a);
		assert.notEqual(deploymentId('http://localhost'), deploymentId('https://localhost'));
		assert.match(deploymentId('http://[::1]:9'), /^1-9-[0-9a-f]{12}$/);
		const long = deploymentId(`https://${'a'.repeat(60)}.example.test`);
		assert.ok(long.length <= 53 && isDeploymentIdShape(long), long);
		assert.equal(isDeploymentIdShape(a), true);
		assert.equal(isDeploymentIdShape(a.toUpperCase()), true);
		for (const bad of [
			'',
			'default',
			'api-example-test',
			'api.example-0123456789ab',
			'-0123456789ab',
			`api-example-test-${'0'.repeat(11)}`,
		]) {
			assert.equal(isDeploymentIdShape(bad), false, bad);
		}
	});

	test('entries become named deployments after the default, in order, their URLs normalised', () => {
		const { deployments, problems } = parseDeployments('https://api.example.test', [
			{ name: ' Staging ', apiUrl: 'https://STAGING.example.test/' },
			{ name: 'Emulator', apiUrl: 'http://127.0.0.1:8788' },
		]);
		assert.deepEqual(problems, []);
		assert.deepEqual(
			deployments.map((d) => [d.name, d.apiUrl, d.isDefault]),
			[
				['api.example.test', 'https://api.example.test', true],
				['Staging', 'https://staging.example.test', false],
				['Emulator', 'http://127.0.0.1:8788', false],
			],
		);
		assert.equal(deployments[1]?.id, deploymentId('https://staging.example.test'));
		assert.equal(new Set(deployments.map((d) => d.id)).size, 3);
	});

	test('a second entry for a listed service is refused with a message naming both; the first stays', () => {
		const { deployments, problems } = parseDeployments('https://api.example.test/', [
			{ name: 'Production', apiUrl: 'HTTPS://api.example.test:443' },
			{ name: 'Staging', apiUrl: 'https://staging.example.test' },
			{ name: 'Staging again', apiUrl: 'https://staging.example.test/?x' },
		]);
		assert.deepEqual(
			deployments.map((d) => d.name),
			['api.example.test', 'Staging'],
		);
		assert.equal(problems.length, 2);
		assert.match(problems[0] ?? '', /"Production" is ignored: https:\/\/api\.example\.test is already listed as "api\.example\.test"/);
		assert.match(problems[1] ?? '', /"Staging again".*already listed as "Staging"/);
	});

	test('another path of a listed origin is refused (tokens are kept per origin: it would share the token)', () => {
		const { deployments, problems } = parseDeployments('https://gw.example.test/prod', [
			{ name: 'Staging', apiUrl: 'https://gw.example.test/staging' },
		]);
		assert.equal(deployments.length, 1);
		assert.match(problems[0] ?? '', /"Staging".*origin of "gw\.example\.test".*per origin/);
	});

	test('a URL the client would refuse is refused with its reason, before any request', () => {
		const { deployments, problems } = parseDeployments('', [
			{ name: 'Plain', apiUrl: 'http://api.example.test' },
			{ name: 'Creds', apiUrl: 'https://user:pw@api.example.test' },
			{ name: 'Nonsense', apiUrl: 'not a url' },
		]);
		assert.equal(deployments.length, 1);
		assert.match(problems[0] ?? '', /"Plain".*http: is refused for the non-loopback host api\.example\.test; use https:/);
		assert.match(problems[1] ?? '', /"Creds".*must not carry credentials/);
		assert.match(problems[2] ?? '', /"Nonsense".*not a valid URL/);
		assert.ok(problems.every((p) => !p.includes('baseUrl') && !p.includes('pw')));
	});

	test('bad input: not a list, entries that are not objects, missing or blank or too long or duplicate names', () => {
		assert.match(parseDeployments('', { name: 'x', apiUrl: 'https://x.test' }).problems[0] ?? '', /is ignored: it must be a list/);
		assert.match(parseDeployments('', 'https://x.test').problems[0] ?? '', /is ignored: it must be a list/);
		const { deployments, problems } = parseDeployments('', [
			'https://a.test',
			null,
			[],
			{ name: 'A' },
			{ apiUrl: 'https://a.test' },
			{ name: 7, apiUrl: 'https://a.test' },
			{ name: ' \u202e\u0000 ', apiUrl: 'https://a.test' },
			{ name: 'x'.repeat(DEPLOYMENT_NAME_MAX_CHARS + 1), apiUrl: 'https://a.test' },
			{ name: 'Team\u202e', apiUrl: 'https://a.test' },
			{ name: 'TEAM', apiUrl: 'https://b.test' },
		]);
		assert.deepEqual(
			deployments.map((d) => d.name),
			['127.0.0.1:8787', 'Team'],
		);
		assert.equal(problems.length, 9);
		for (const [i, p] of problems.slice(0, 6).entries()) {
			assert.match(p, new RegExp(`^Deployment ${i + 1} of cloudAgents.deployments is ignored: it needs a name and an apiUrl`));
		}
		assert.match(problems[6] ?? '', /Deployment 7 .*its name needs 1 to 64 characters/);
		assert.match(problems[7] ?? '', /Deployment 8 .*its name needs 1 to 64 characters/);
		assert.match(problems[8] ?? '', /"TEAM" is ignored: another deployment has this name/);
	});

	test('reads at most MAX_DEPLOYMENTS entries and says so', () => {
		const entries = Array.from({ length: MAX_DEPLOYMENTS + 3 }, (_, i) => ({ name: `D${i}`, apiUrl: `https://d${i}.example.test` }));
		const { deployments, problems } = parseDeployments('', entries);
		assert.equal(deployments.length, MAX_DEPLOYMENTS + 1);
		assert.deepEqual(problems, [`cloudAgents.deployments: only the first ${MAX_DEPLOYMENTS} deployments are used.`]);
	});

	test('readDeployments reads both settings', () => {
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: 'https://staging.example.test' }];
		assert.deepEqual(
			readDeployments().deployments.map((d) => d.apiUrl),
			['https://api.example.test', 'https://staging.example.test'],
		);
		delete fake.settings['cloudAgents.apiUrl'];
		delete fake.settings['cloudAgents.deployments'];
		assert.deepEqual(
			readDeployments().deployments.map((d) => d.apiUrl),
			[DEFAULT_API_URL],
		);
	});
});
