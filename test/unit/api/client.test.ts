/**
 * The one client object over its endpoint groups (src/api/client.ts): every group's methods are the
 * client's, and no group keeps state of its own (a field of a group would never be set on the client,
 * whose prototype only receives the groups' methods).
 */
import assert from 'node:assert/strict';
import { CloudAgentsClient, ENDPOINT_GROUPS } from '../../../src/api/client';
import { ClientCore } from '../../../src/api/endpoints/core';
import { nodeConnect } from '../../../src/platform/node/network';

const OPTIONS = {
	connect: nodeConnect,
	baseUrl: 'http://127.0.0.1:9',
	getToken: () => undefined,
	network: { noProxy: [], strictSSL: true, systemCertificates: false },
};

suite('api/client: endpoint groups on one client', () => {
	test("every method of every group is the client's own, by the same function", () => {
		let methods = 0;
		for (const group of ENDPOINT_GROUPS) {
			for (const name of Object.getOwnPropertyNames(group.prototype)) {
				if (name === 'constructor') {
					continue;
				}
				methods++;
				assert.equal(
					(CloudAgentsClient.prototype as unknown as Record<string, unknown>)[name],
					(group.prototype as unknown as Record<string, unknown>)[name],
					`${group.name}.${name}`,
				);
			}
		}
		const own = Object.getOwnPropertyNames(CloudAgentsClient.prototype).filter((n) => n !== 'constructor');
		assert.equal(own.length, methods, 'the client has exactly the groups’ methods, each name from one group');
		assert.ok(methods > 60, `${methods} methods`);
		const client = new CloudAgentsClient(OPTIONS);
		try {
			assert.equal(typeof client.getAgent, 'function');
			assert.ok(client instanceof ClientCore);
		} finally {
			client.close();
		}
	});

	test('a group adds no instance state to what ClientCore holds', () => {
		const core = new ClientCore(OPTIONS);
		const keys = Object.keys(core).sort();
		core.close();
		for (const group of ENDPOINT_GROUPS) {
			const instance = new group(OPTIONS);
			try {
				assert.deepEqual(Object.keys(instance).sort(), keys, group.name);
			} finally {
				instance.close();
			}
		}
	});
});
