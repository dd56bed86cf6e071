/**
 * Test certificates for the HTTPS emulator: a private certificate authority and server
 * certificates it signs, made with @peculiar/x509 (ECDSA P-256, SHA-256) on Node's WebCrypto.
 * Loaded only when TLS is asked for (`--tls`, `startEmulator({tls})`, test/support/tls.ts):
 * @peculiar/x509 2.x needs the `reflect-metadata` polyfill, which patches the global `Reflect`.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A certificate (PEM; a server certificate may be followed by its issuer) and its private key (PKCS#8 PEM). */
export interface PemPair {
	cert: string;
	key: string;
}

export interface LeafOptions {
	/** Names the certificate is valid for: DNS names and IP addresses (default `localhost`, `127.0.0.1`, `::1`). */
	hosts?: readonly string[];
	/** Validity (default: from a day ago to 30 days ahead). A `notAfter` in the past makes an expired certificate. */
	notBefore?: Date;
	notAfter?: Date;
	commonName?: string;
}

export interface TestCa extends PemPair {
	/** Issues a server certificate; its `cert` is the leaf followed by this CA's certificate (the chain a server sends). */
	issue(opts?: LeafOptions): Promise<PemPair>;
}

export const DEFAULT_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

function serial(): string {
	// A positive 16-byte serial (first byte below 0x80).
	const bytes = webcrypto.getRandomValues(new Uint8Array(16));
	bytes[0] = (bytes[0] ?? 0) & 0x7f;
	return Buffer.from(bytes).toString('hex');
}

async function keyPem(key: CryptoKey): Promise<string> {
	const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
	return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

const isIp = (h: string): boolean => /^[0-9.]+$/.test(h) || h.includes(':');

/** A new certificate authority (self-signed, CA:true, keyCertSign) valid from a day ago for `days` (default 30). */
export async function createTestCa(opts: { commonName?: string; days?: number } = {}): Promise<TestCa> {
	const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
	const now = Date.now();
	const caCert = await x509.X509CertificateGenerator.createSelfSigned({
		serialNumber: serial(),
		name: `CN=${opts.commonName ?? 'Cloud Agents Test CA'}, O=Cloud Agents tests`,
		notBefore: new Date(now - DAY_MS),
		notAfter: new Date(now + (opts.days ?? 30) * DAY_MS),
		signingAlgorithm: ALG,
		keys,
		extensions: [
			new x509.BasicConstraintsExtension(true, 0, true),
			new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
			await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
		],
	});
	const caPem = caCert.toString('pem');
	return {
		cert: caPem,
		key: await keyPem(keys.privateKey),
		async issue(leaf: LeafOptions = {}): Promise<PemPair> {
			const hosts = leaf.hosts ?? DEFAULT_HOSTS;
			const leafKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
			const t = Date.now();
			const cert = await x509.X509CertificateGenerator.create({
				serialNumber: serial(),
				issuer: caCert.subject,
				subject: `CN=${leaf.commonName ?? hosts[0] ?? 'localhost'}`,
				notBefore: leaf.notBefore ?? new Date(t - DAY_MS),
				notAfter: leaf.notAfter ?? new Date(t + 30 * DAY_MS),
				signingAlgorithm: ALG,
				publicKey: leafKeys.publicKey,
				signingKey: keys.privateKey,
				extensions: [
					new x509.BasicConstraintsExtension(false, undefined, true),
					new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
					new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
					new x509.SubjectAlternativeNameExtension(hosts.map((h) => ({ type: isIp(h) ? 'ip' : 'dns', value: h }))),
					await x509.AuthorityKeyIdentifierExtension.create(caCert),
					await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
				],
			});
			return { cert: `${cert.toString('pem')}\n${caPem}`, key: await keyPem(leafKeys.privateKey) };
		},
	};
}
