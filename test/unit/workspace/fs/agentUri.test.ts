import * as assert from 'node:assert/strict';
import { deploymentId, isDeploymentIdShape } from '../../../../src/auth/deployments';
import {
	AGENT_AUTHORITY_PREFIX,
	decodeAgentAuthority,
	encodeAgentAuthority,
	parseAgentAuthority,
} from '../../../../src/workspace/fs/agentUri';

/** What VS Code does to an authority when it turns a URI into text (`Uri.toString()`) and back. */
const vscodeRoundTrip = (authority: string): string => authority.toLowerCase();

suite('fs/agentUri: agent ids in cloud-agent: authorities', () => {
	const VARIANT = 'C19B1983-412F-41B5-81CC-EC71FA626645:Main';
	const STANDARD = 'c19b1983-412f-41b5-81cc-ec71fa626645.main';

	test('case survives VS Code lower-casing the authority (upper-case ids, mixed-case harness ids)', () => {
		for (const id of [
			VARIANT,
			STANDARD,
			'C19B1983-412F-41B5-81CC-EC71FA626645.MyHarness_2',
			'c19b1983-412f-41b5-81cc-ec71fa626645ReviewBot',
		]) {
			const authority = encodeAgentAuthority(id);
			assert.ok(authority.startsWith(AGENT_AUTHORITY_PREFIX), authority);
			assert.match(authority, /^[a-z2-7-]+$/, 'only characters that survive lower-casing and need no escaping');
			assert.equal(decodeAgentAuthority(vscodeRoundTrip(authority)), id);
			assert.equal(decodeAgentAuthority(authority.toUpperCase()), id, 'any case of the encoding decodes');
		}
		// Ids that differ only in case stay different URIs.
		assert.notEqual(vscodeRoundTrip(encodeAgentAuthority(VARIANT)), vscodeRoundTrip(encodeAgentAuthority(VARIANT.toLowerCase())));
	});

	test('":", ".", "_" and other separators between the UUID and the harness id round-trip', () => {
		for (const sep of [':', '.', '_', '/', '@', '#', '%', '?', '~', '']) {
			const id = `C19B1983-412F-41B5-81CC-EC71FA626645${sep}Main`;
			assert.equal(decodeAgentAuthority(vscodeRoundTrip(encodeAgentAuthority(id))), id, `separator ${JSON.stringify(sep)}`);
		}
		const long = `C19B1983-412F-41B5-81CC-EC71FA626645:${'H'.repeat(160)}`;
		assert.equal(decodeAgentAuthority(vscodeRoundTrip(encodeAgentAuthority(long))), long);
	});

	test('old links that carried the id as is still work, as the id they were', () => {
		assert.equal(decodeAgentAuthority(STANDARD), STANDARD);
		assert.equal(
			decodeAgentAuthority('c19b1983-412f-41b5-81cc-ec71fa626645.review-bot'),
			'c19b1983-412f-41b5-81cc-ec71fa626645.review-bot',
		);
		// An old link of an upper-case id was already lower-cased by VS Code: it decodes as spelled.
		assert.equal(decodeAgentAuthority(VARIANT.toLowerCase()), VARIANT.toLowerCase());
	});

	test('garbage authorities are refused', () => {
		const garbage = [
			'',
			'agent-',
			'agents',
			'localhost',
			'example.com:8080',
			'not-a-uuid.main',
			'c19b1983-412f-41b5-81cc-ec71fa626645', // no harness id
			'c19b1983-412f-41b5-81cc-ec71fa626645..main', // two separators
			`${AGENT_AUTHORITY_PREFIX}0189`, // not base32
			`${AGENT_AUTHORITY_PREFIX}mzxw6ytb`, // base32 of "fooba": not an agent id
			`${AGENT_AUTHORITY_PREFIX}${encodeAgentAuthority(VARIANT).slice(AGENT_AUTHORITY_PREFIX.length)}a`, // a stray character
			`${AGENT_AUTHORITY_PREFIX}74`, // base32 of 0xff: not UTF-8
			`${AGENT_AUTHORITY_PREFIX}${encodeAgentAuthority(`${VARIANT}\n`).slice(AGENT_AUTHORITY_PREFIX.length)}`, // a control character
		];
		for (const authority of garbage) {
			assert.equal(decodeAgentAuthority(authority), undefined, authority);
		}
	});

	test('one spelling per id: non-canonical trailing bits are refused', () => {
		const canonical = encodeAgentAuthority('C19B1983-412F-41B5-81CC-EC71FA626645:M');
		const last = canonical.slice(-1);
		const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
		const other = alphabet[(alphabet.indexOf(last) + 1) % 32] ?? 'a';
		assert.equal(decodeAgentAuthority(canonical.slice(0, -1) + other), undefined);
	});
});

suite('fs/agentUri: the deployment part (issue 47)', () => {
	const ID = 'C19B1983-412F-41B5-81CC-EC71FA626645:Main';
	const STAGING = deploymentId('https://staging.example.test');

	test('the default deployment adds nothing: the authority is the agent part alone, as before deployments', () => {
		assert.equal(encodeAgentAuthority(ID, undefined), encodeAgentAuthority(ID));
		assert.match(encodeAgentAuthority(ID), /^agent-[a-z2-7]+$/);
		assert.deepEqual(parseAgentAuthority(encodeAgentAuthority(ID), isDeploymentIdShape), { agentId: ID, deploymentPart: undefined });
		const old = 'c19b1983-412f-41b5-81cc-ec71fa626645.main';
		assert.deepEqual(parseAgentAuthority(old, isDeploymentIdShape), { agentId: old, deploymentPart: undefined });
	});

	test('another deployment: agent and deployment round-trip through VS Code lower-casing the authority', () => {
		const authority = encodeAgentAuthority(ID, STAGING);
		assert.equal(authority, `${encodeAgentAuthority(ID)}.${STAGING}`);
		assert.match(authority, /^[a-z0-9.-]+$/);
		for (const seen of [authority, authority.toLowerCase(), authority.toUpperCase()]) {
			assert.deepEqual(parseAgentAuthority(seen, isDeploymentIdShape), { agentId: ID, deploymentPart: STAGING });
		}
		// The same agent id on two services: two addresses, neither read as the other.
		assert.notEqual(authority, encodeAgentAuthority(ID, deploymentId('https://production.example.test')));
		assert.equal(decodeAgentAuthority(authority), undefined, 'never taken for the default deployment agent of that id');
	});

	test('a deployment part of another shape, or an agent part naming no agent, names nothing', () => {
		const agent = encodeAgentAuthority(ID);
		for (const authority of [`${agent}.`, `${agent}.staging`, `${agent}.${STAGING}.x`, `agent-0189.${STAGING}`, `agent-.${STAGING}`]) {
			assert.equal(parseAgentAuthority(authority, isDeploymentIdShape), undefined, authority);
		}
	});
});
