// What `npm start` does once VS Code (code-server) is up (issue 33, item 13): the workbench stays up
// whatever the emulator does (an emulator that exits or is restarted is the service going away and
// coming back, which the extension is built to ride out), the emulator can be started again, and
// the emulator's outage switch (`/_emulator/outage`, emulator/src/outage.ts) is one key away, so a
// person can try the offline behaviour the README describes. Only the workbench's exit, `q` or
// Ctrl-C end the session.

/** How long an outage started from the keyboard lasts at most (the same key ends it earlier). */
export const OUTAGE_SECONDS = 3600;
/** Every request to the emulator's admin API has this deadline. */
const ADMIN_TIMEOUT_MS = 5000;

/** What a key does: an outage mode to toggle, or a session action. */
export function keyAction(key) {
	switch (key) {
		case 'o':
			return 'refuse';
		case 's':
			return 'stall';
		case 'r':
			return 'restart';
		case 'h':
		case '?':
			return 'help';
		case 'q':
		case '\u0003': // Ctrl-C (the terminal sends it as a byte in raw mode)
		case '\u0004': // Ctrl-D
			return 'quit';
		default:
			return undefined;
	}
}

/** The keys, as `npm start` lists them. */
export function keysHelp() {
	return [
		'Keys: o  cut the service (connection refused) / restore it',
		'      s  stall the service (requests never answered) / restore it',
		'      r  restart the emulator (fresh demo data, same port)',
		'      h  this help      q or Ctrl-C  stop everything',
	].join('\n');
}

/** How to cut and restore the service by hand (the emulator's admin API), as `npm start` prints it. */
export function outageHelp(adminUrl) {
	const at = `${adminUrl}/_emulator/outage`;
	return [
		'Try the service going away (the views say "Offline", the status bar "reconnecting"):',
		`  cut it:     curl -X POST -H 'content-type: application/json' -d '{"mode":"refuse","seconds":600}' ${at}`,
		'              (mode: refuse = connection refused, reset = connections reset, stall = never answered)',
		`  restore it: curl -X DELETE ${at}`,
	].join('\n');
}

async function adminJson(url, init, fetchFn) {
	const res = await fetchFn(url, { ...init, signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS) });
	const text = await res.text();
	if (!res.ok) {
		throw new Error(`${init?.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 200)}`);
	}
	const body = JSON.parse(text);
	if (typeof body !== 'object' || body === null || typeof body.active !== 'boolean') {
		throw new Error(`${init?.method ?? 'GET'} ${url} answered something other than an outage state`);
	}
	return body;
}

/**
 * The emulator's admin URL (plain HTTP, up through every outage), read from `GET /_emulator/outage`
 * on the service; undefined when the service has no such API (a real service) or gives no loopback URL.
 */
export async function emulatorAdminUrl(serviceUrl, fetchFn = fetch) {
	try {
		const state = await adminJson(`${serviceUrl}/_emulator/outage`, { method: 'GET' }, fetchFn);
		const url = typeof state.admin_url === 'string' ? new URL(state.admin_url) : undefined;
		const loopback = url && url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
		return loopback ? url.origin : undefined;
	} catch {
		return undefined;
	}
}

const MODE_TEXT = { refuse: 'refusing connections', reset: 'resetting connections', stall: 'not answering' };

/**
 * Ends the emulator's outage when one is under way, otherwise starts one in `mode` for at most
 * `seconds`; returns the sentence to print.
 */
export async function toggleOutage(adminUrl, mode, { fetchFn = fetch, seconds = OUTAGE_SECONDS, key = '' } = {}) {
	const at = `${adminUrl}/_emulator/outage`;
	const state = await adminJson(at, { method: 'GET' }, fetchFn);
	if (state.active) {
		await adminJson(at, { method: 'DELETE' }, fetchFn);
		return 'service restored: the views and followed runs reconnect by themselves';
	}
	await adminJson(
		at,
		{ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode, seconds }) },
		fetchFn,
	);
	const again = key ? `press ${key} again to restore it` : 'toggle again to restore it';
	return `service cut: ${MODE_TEXT[mode] ?? mode} for up to ${Math.round(seconds / 60)} min (${again})`;
}

function exitText(child) {
	const info = child.exitInfo ?? {};
	return info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
}

/**
 * The running session of `npm start`. `done` resolves with `{ reason: 'workbench' | 'quit' }`:
 * when the workbench (code-server) exits or a person asks to stop, never because the emulator exited.
 */
export class StartSession {
	/**
	 * @param {{
	 *   workbench: import('node:child_process').ChildProcess & { exited?: boolean },
	 *   emulator?: import('node:child_process').ChildProcess & { exited?: boolean },
	 *   serviceUrl: string,
	 *   adminUrl?: string,
	 *   startEmulator?: (opts: { adminPort?: number }) => Promise<import('node:child_process').ChildProcess>,
	 *   stopEmulator?: (child: import('node:child_process').ChildProcess) => Promise<void>,
	 *   startByHand?: string,
	 *   interactive?: boolean,
	 *   print: (text: string) => void,
	 *   fetchFn?: typeof fetch,
	 * }} opts
	 */
	constructor(opts) {
		this.opts = opts;
		this.adminUrl = opts.adminUrl;
		this.emulator = undefined;
		/** Set by `close`: what exits afterwards is being stopped on purpose. */
		this.closed = false;
		/** Key actions run one after the other, in the order pressed. */
		this.queue = Promise.resolve();
		this.done = new Promise((resolve) => {
			this.finish = resolve;
		});
		if (opts.workbench.exited) {
			this.finish({ reason: 'workbench' });
		}
		opts.workbench.once('exit', () => {
			if (this.closed) {
				return;
			}
			opts.print(`VS Code (code-server) exited (${exitText(opts.workbench)}); stopping`);
			this.finish({ reason: 'workbench' });
		});
		if (opts.emulator) {
			this.watch(opts.emulator);
		}
	}

	/** Follows an emulator process: its exit is told, and ends nothing. */
	watch(child) {
		this.emulator = child;
		const onExit = () => {
			if (this.emulator !== child || this.closed) {
				return; // stopped on purpose: by a restart, or at the end
			}
			this.emulator = undefined;
			const again = this.opts.interactive ? ' Press r to start it again (fresh demo data, same port).' : '';
			const byHand = this.opts.startByHand ? ` Or start one yourself: ${this.opts.startByHand}` : '';
			this.opts.print(
				`the emulator exited (${exitText(child)}). VS Code keeps running and shows the service as offline until one answers again.${again}${byHand}`,
			);
		};
		if (child.exited) {
			onExit();
		} else {
			child.once('exit', onExit);
		}
	}

	/** Ends the session: the processes that exit from now on are being stopped on purpose. */
	close() {
		this.closed = true;
		this.finish({ reason: 'quit' });
	}

	/** Runs what `key` does after the actions of the keys pressed before it. */
	press(key) {
		const action = keyAction(key);
		if (action === 'quit') {
			this.finish({ reason: 'quit' });
			return this.queue;
		}
		if (action === undefined) {
			return this.queue;
		}
		this.queue = this.queue.then(() => this.run(action, key)).catch((err) => this.opts.print(`${key}: ${err.message}`));
		return this.queue;
	}

	async run(action, key) {
		const { print } = this.opts;
		if (action === 'help') {
			print(this.adminUrl ? `${keysHelp()}\n${outageHelp(this.adminUrl)}` : keysHelp());
			return;
		}
		if (action === 'restart') {
			await this.restart();
			return;
		}
		const fetchFn = this.opts.fetchFn ?? fetch;
		// Not ours, or ours stopped (one started by hand may answer): ask the service where its switch is.
		const adminUrl = this.emulator ? this.adminUrl : await emulatorAdminUrl(this.opts.serviceUrl, fetchFn);
		if (!adminUrl) {
			print(
				this.opts.startEmulator
					? 'the emulator is not running: press r to start it'
					: 'the service has no outage switch (it is not an emulator npm start can reach)',
			);
			return;
		}
		print(await toggleOutage(adminUrl, action, { fetchFn, key }));
	}

	async restart() {
		const { print, startEmulator, stopEmulator } = this.opts;
		if (!startEmulator) {
			print('npm start did not start this service (CLOUD_AGENTS_EMULATOR_URL): restart it where it runs');
			return;
		}
		const old = this.emulator;
		this.emulator = undefined;
		if (old && stopEmulator) {
			print('stopping the emulator');
			await stopEmulator(old);
		}
		print('starting the emulator');
		// On the admin port it had: the outage lines printed at start keep working.
		const before = this.adminUrl;
		const child = await startEmulator({ adminPort: before ? Number(new URL(before).port) || undefined : undefined });
		this.watch(child);
		this.adminUrl = (await emulatorAdminUrl(this.opts.serviceUrl, this.opts.fetchFn ?? fetch)) ?? this.adminUrl;
		print(`the emulator answers again on ${this.opts.serviceUrl} (fresh demo data)`);
		if (this.adminUrl && this.adminUrl !== before) {
			print(`${before ? 'its outage switch moved (its admin port was taken): ' : ''}${outageHelp(this.adminUrl)}`);
		}
	}

	/**
	 * Reads single keys from a terminal (raw mode) and presses them; returns a function that puts
	 * the terminal back. Does nothing (returns a no-op) when `input` is not a terminal.
	 * @param {NodeJS.ReadStream} input
	 */
	listen(input) {
		if (!input.isTTY || typeof input.setRawMode !== 'function') {
			return () => {};
		}
		const onData = (data) => {
			for (const key of String(data)) {
				void this.press(key);
			}
		};
		input.setRawMode(true);
		input.setEncoding('utf8');
		input.on('data', onData);
		input.resume();
		let restored = false;
		return () => {
			if (restored) {
				return;
			}
			restored = true;
			input.off('data', onData);
			input.setRawMode(false);
			input.pause();
		};
	}
}
