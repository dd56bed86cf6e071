// The certificates of the in-VS-Code network tests (test/integration/suite/networks.test.ts), made
// before code-server starts because Node reads NODE_EXTRA_CA_CERTS (and the system store's file) at
// process start. Three private certificate authorities (emulator/src/tls.ts, @peculiar/x509), each
// with a server certificate for this machine's non-loopback address and the loopback names:
//   extra     trusted through NODE_EXTRA_CA_CERTS;
//   system    trusted through the operating system's store: SSL_CERT_FILE, the file OpenSSL (and so
//             Node's tls.getCACertificates('system') on Linux) reads; the store's folder still applies;
//   untrusted trusted nowhere.
// The suite serves them itself (a TLS front on the emulator) and learns the files from the JSON file
// CLOUD_AGENTS_TEST_NETWORK names.
import { mkdirSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { loadEmulatorModule } from './emulatorModule.mjs';

/** A non-internal IPv4 address of this machine (a proxied target must not be loopback), or undefined. */
export function nonLoopbackIPv4() {
	for (const addresses of Object.values(networkInterfaces())) {
		for (const a of addresses ?? []) {
			if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) {
				return a.address;
			}
		}
	}
	return undefined;
}

/**
 * Writes the authorities and certificates into `dir`; returns the environment code-server needs
 * (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, CLOUD_AGENTS_TEST_NETWORK).
 */
export async function writeNetworkFixtures(dir) {
	mkdirSync(dir, { recursive: true });
	const { createTestCa, DEFAULT_HOSTS } = await loadEmulatorModule('tls');
	const host = nonLoopbackIPv4();
	const hosts = [...DEFAULT_HOSTS, ...(host ? [host] : [])];
	const fixtures = { host: host ?? null };
	for (const name of ['extra', 'system', 'untrusted']) {
		const ca = await createTestCa({ commonName: `Cloud Agents ${name} test CA` });
		const server = await ca.issue({ hosts });
		const files = { ca: join(dir, `${name}-ca.pem`), cert: join(dir, `${name}-server.pem`), key: join(dir, `${name}-server-key.pem`) };
		writeFileSync(files.ca, ca.cert);
		writeFileSync(files.cert, server.cert);
		writeFileSync(files.key, server.key, { mode: 0o600 });
		fixtures[name] = files;
	}
	const file = join(dir, 'network.json');
	writeFileSync(file, JSON.stringify(fixtures, null, '\t'));
	return {
		NODE_EXTRA_CA_CERTS: fixtures.extra.ca,
		SSL_CERT_FILE: fixtures.system.ca,
		CLOUD_AGENTS_TEST_NETWORK: file,
	};
}
