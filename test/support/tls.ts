/**
 * Certificates for TLS tests: a private test CA (emulator/src/tls.ts, @peculiar/x509) and the
 * server certificates a client must refuse. Pass `emulatorTls(...)` as `startEmulator({tls})`.
 *
 * What Node (20) reports for each, checked in test/unit/support/networkInfra.test.ts:
 * - `valid` without the CA trusted: SELF_SIGNED_CERT_IN_CHAIN ("self-signed certificate in
 *   certificate chain"; the emulator sends the CA after the leaf, as TLS-inspecting proxies do);
 * - `expired` with the CA trusted: CERT_HAS_EXPIRED ("certificate has expired");
 * - `wrong-host` with the CA trusted: ERR_TLS_CERT_ALTNAME_INVALID ("Hostname/IP does not match
 *   certificate's altnames").
 */
import type { TlsOptions } from '../../emulator/src/server';
import type { PemPair, TestCa } from '../../emulator/src/tls';
import { DEFAULT_HOSTS, createTestCa } from '../../emulator/src/tls';

export { createTestCa };
export type { PemPair, TestCa };

export type ServerCertKind = 'valid' | 'expired' | 'wrong-host';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A server certificate of `kind` signed by `ca`: valid for localhost/127.0.0.1/::1 (and `extraHosts`,
 * e.g. the machine's own address), expired yesterday, or valid only for another host.
 */
export async function serverCert(ca: TestCa, kind: ServerCertKind, extraHosts: readonly string[] = []): Promise<PemPair> {
	const hosts = [...DEFAULT_HOSTS, ...extraHosts];
	switch (kind) {
		case 'valid':
			return ca.issue({ hosts });
		case 'expired':
			return ca.issue({ hosts, notBefore: new Date(Date.now() - 30 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
		case 'wrong-host':
			return ca.issue({ hosts: ['service.other.example'] });
	}
}

/**
 * `startEmulator({tls: await emulatorTls(ca, 'expired')})`: the emulator serves that certificate; `caPath` is where the CA's PEM
 * goes; `extraHosts` are names the certificate holds besides the loopback ones (serverCert).
 */
export async function emulatorTls(
	ca: TestCa,
	kind: ServerCertKind,
	caPath?: string,
	extraHosts: readonly string[] = [],
): Promise<TlsOptions> {
	const pair = await serverCert(ca, kind, extraHosts);
	return { cert: pair.cert, key: pair.key, ca: ca.cert, caPath };
}
