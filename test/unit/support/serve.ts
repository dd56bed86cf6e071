/** A loopback HTTP server for transport-fault and parser tests. */
import { type RequestListener, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Served {
	server: Server;
	baseUrl: string;
	close(): Promise<void>;
}

export async function serve(handler: RequestListener): Promise<Served> {
	const server = createServer(handler);
	server.keepAliveTimeout = 5_000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		server,
		baseUrl: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
