/**
 * The emulator over HTTPS for the network suite: a TLS front (node:tls) on this machine's
 * non-loopback address that serves a given certificate and pipes each connection, byte for byte, to
 * the emulator the harness started (plain HTTP on loopback). The service behind it is the emulator
 * every suite uses (its admin API and counters included); the front counts the connections whose
 * handshake completed (only those could carry a request, and so a token) and those refused.
 */
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { CertificateFiles } from './env';

export interface TlsFront {
	/** `https://HOST:PORT`. */
	url: string;
	/** `HOST:PORT`, as a proxy's CONNECT names it. */
	hostPort: string;
	/** Connections whose TLS handshake completed. */
	connections: number;
	/** Handshakes that failed (the client refused the certificate). */
	refused: number;
	close(): Promise<void>;
}

/** Starts a front on `host` serving `files`' certificate, in front of the emulator at `target` (`http://127.0.0.1:PORT`). */
export async function startTlsFront(host: string, files: CertificateFiles, target: string): Promise<TlsFront> {
	const [cert, key] = await Promise.all([readFile(files.cert, 'utf8'), readFile(files.key, 'utf8')]);
	const upstream = new URL(target);
	const sockets = new Set<Socket>();
	const track = (s: Socket): void => {
		sockets.add(s);
		s.once('close', () => sockets.delete(s));
	};
	const server = createServer({ cert, key }, (client: TLSSocket) => {
		front.connections++;
		const service = connect(Number(upstream.port), upstream.hostname);
		track(service);
		client.on('error', () => service.destroy());
		service.on('error', () => client.destroy());
		client.pipe(service).pipe(client);
	});
	server.on('connection', track);
	server.on('tlsClientError', () => {
		front.refused++;
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, host, () => resolve());
	});
	const port = (server.address() as { port: number }).port;
	const front: TlsFront = {
		url: `https://${host}:${port}`,
		hostPort: `${host}:${port}`,
		connections: 0,
		refused: 0,
		close: async () => {
			for (const s of sockets) s.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	return front;
}
