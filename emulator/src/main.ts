import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_TOKEN } from './emulator';
import { PROFILES } from './faults';
import { isProfileName, PROFILE_NAMES } from './profile';
import { startEmulator } from './server';

const HELP = `Cloud Agents emulator: a local stand-in of the service over real HTTP.

Usage: npm run emulator -- [options]

  --port N          port to listen on (default 8787; 0 = any free port)
  --admin-port N    the admin API's port (default 0 = any free port; printed at start)
  --host H          interface to bind (default 127.0.0.1)
  --token T         the accepted API key (default: the public dev key ${DEFAULT_TOKEN});
                    the read-only key ca_readonly_0123456789abcdef is always accepted too
  --seed demo|empty initial data (default demo)
  --profile NAME    ${PROFILE_NAMES.join('|')} (default standard): the choices where the
                    service description says "not shown"; variant makes other ones, and
                    variant-strict also refuses the standard request bodies (emulator/README.md)
  --state FILE      load state from FILE if present and persist it there across restarts
  --faults PROFILE  ${Object.keys(PROFILES).join(', ')}, or a JSON file {rules:[...]}
  --desktop WxH     the computer-session desktop's size (default 1280x800; 1024x768 to 4096x4096)
  --tls             serve HTTPS with a certificate for localhost/127.0.0.1/::1 signed by a test CA
                    generated at start; the CA certificate's file is printed (point
                    NODE_EXTRA_CA_CERTS at it); the admin API stays on a plain-HTTP admin URL too
  --tls-cert FILE   with --tls-key and --tls-ca: serve this certificate (PEM, chain after the leaf)
  --tls-key FILE    its private key (PEM)
  --tls-ca FILE     the CA certificate that signed it (PEM)
  --cors-origin O   let a browser page at origin O (e.g. http://127.0.0.1:8080, or * for any)
                    call the service: CORS preflights and headers on every route, the request
                    id and Retry-After exposed (VS Code for the Web); repeat for more origins
  --quiet           no request log
  -h, --help        this help
`;

/** `scheme://host[:port]` as a browser sends it in Origin: http or https, no path, query or credentials. */
function isOrigin(value: string): boolean {
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
	} catch {
		return false;
	}
}

async function main(): Promise<void> {
	let values;
	try {
		({ values } = parseArgs({
			options: {
				port: { type: 'string', default: '8787' },
				'admin-port': { type: 'string', default: '0' },
				host: { type: 'string', default: '127.0.0.1' },
				token: { type: 'string' },
				seed: { type: 'string', default: 'demo' },
				profile: { type: 'string', default: 'standard' },
				state: { type: 'string' },
				faults: { type: 'string' },
				desktop: { type: 'string', default: '1280x800' },
				quiet: { type: 'boolean', default: false },
				'cors-origin': { type: 'string', multiple: true },
				tls: { type: 'boolean', default: false },
				'tls-cert': { type: 'string' },
				'tls-key': { type: 'string' },
				'tls-ca': { type: 'string' },
				help: { type: 'boolean', short: 'h', default: false },
			},
			strict: true,
		}));
	} catch (e) {
		process.stderr.write(`${(e as Error).message}\n\n${HELP}`);
		process.exit(2);
	}
	if (values.help) {
		process.stdout.write(HELP);
		return;
	}
	const port = Number(values.port);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		process.stderr.write(`--port: must be an integer from 0 to 65535 (got ${JSON.stringify(values.port)})\n`);
		process.exit(2);
	}
	const adminPort = Number(values['admin-port']);
	if (!/^\d+$/.test(values['admin-port']) || adminPort > 65535) {
		process.stderr.write(`--admin-port: must be an integer from 0 to 65535 (got ${JSON.stringify(values['admin-port'])})\n`);
		process.exit(2);
	}
	if (values.seed !== 'demo' && values.seed !== 'empty') {
		process.stderr.write(`--seed: must be demo or empty (got ${JSON.stringify(values.seed)})\n`);
		process.exit(2);
	}
	const profile = values.profile;
	if (!isProfileName(profile)) {
		process.stderr.write(`--profile: must be one of ${PROFILE_NAMES.join(', ')} (got ${JSON.stringify(values.profile)})\n`);
		process.exit(2);
	}
	if (values.token !== undefined && !/^[\x21-\x7e]{8,}$/.test(values.token)) {
		process.stderr.write('--token: must be at least 8 printable ASCII characters without spaces\n');
		process.exit(2);
	}
	const size = /^(\d{4})x(\d{3,4})$/.exec(values.desktop);
	const desktop = size ? { width: Number(size[1]), height: Number(size[2]) } : undefined;
	if (!desktop || desktop.width < 1024 || desktop.height < 768 || desktop.width > 4096 || desktop.height > 4096) {
		process.stderr.write(`--desktop: must be WIDTHxHEIGHT from 1024x768 to 4096x4096 (got ${JSON.stringify(values.desktop)})\n`);
		process.exit(2);
	}
	const corsOrigins = values['cors-origin'] ?? [];
	for (const origin of corsOrigins) {
		if (origin !== '*' && !isOrigin(origin)) {
			process.stderr.write(
				`--cors-origin: must be * or an origin such as http://127.0.0.1:8080, with no path (got ${JSON.stringify(origin)})\n`,
			);
			process.exit(2);
		}
	}
	const tlsFiles = [values['tls-cert'], values['tls-key'], values['tls-ca']];
	const tlsGiven = tlsFiles.filter((f) => f !== undefined).length;
	if (tlsGiven !== 0 && tlsGiven !== 3) {
		process.stderr.write('--tls-cert, --tls-key and --tls-ca: give all three (or none, and --tls alone generates them)\n');
		process.exit(2);
	}
	let tls: boolean | { cert: string; key: string; ca: string; caPath: string } = values.tls;
	if (tlsGiven === 3) {
		try {
			const [cert, key, ca] = tlsFiles.map((f) => readFileSync(f as string, 'utf8')) as [string, string, string];
			tls = { cert, key, ca, caPath: values['tls-ca'] as string };
		} catch (e) {
			process.stderr.write(`--tls-cert/--tls-key/--tls-ca: ${(e as Error).message}\n`);
			process.exit(2);
		}
	}
	const em = await startEmulator({
		tls,
		port,
		adminPort,
		host: values.host,
		token: values.token,
		seed: values.seed,
		profile,
		stateFile: values.state,
		faults: values.faults,
		quiet: values.quiet,
		desktop,
		corsOrigins,
	});
	// Never print a user-supplied token; the default dev key is public.
	const tokenNote = values.token !== undefined ? 'token: the value given with --token' : `token: ${DEFAULT_TOKEN} (default dev key)`;
	process.stdout.write(
		`Cloud Agents emulator listening on ${em.url} (${tokenNote}; seed: ${values.seed}${profile !== 'standard' ? `; profile: ${profile}` : ''}${values.state ? `; state: ${values.state}` : ''}${values.faults ? `; faults: ${values.faults}` : ''})\n`,
	);
	process.stdout.write(`admin API (plain HTTP, up through outages): ${em.adminUrl}/_emulator/\n`);
	if (corsOrigins.length > 0) process.stdout.write(`CORS: requests from ${corsOrigins.join(', ')} are allowed\n`);
	if (em.tls) process.stdout.write(`TLS: test CA certificate at ${em.tls.caPath} (e.g. NODE_EXTRA_CA_CERTS=${em.tls.caPath})\n`);
	let closing = false;
	const stop = (): void => {
		if (closing) return;
		closing = true;
		em.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
	process.stderr.write(`emulator: ${(e as Error).message}\n`);
	process.exit(1);
});
