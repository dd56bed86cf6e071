/**
 * The emulator in a process of its own (out/emulator/src/main.js, built with the bench): a real
 * service runs elsewhere, so what a section measures in this process (time, heap, resident set)
 * is the client's alone, without the server's work sharing its thread and heap.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface EmulatorProcess {
	/** The service's base URL. */
	url: string;
	/** The admin listener's base URL (plain HTTP; it answers through outages). */
	adminUrl: string;
	child: ChildProcess;
	/** Stops the process (SIGTERM) and waits for it to exit. */
	stop(): Promise<void>;
}

export async function emulatorProcess(args: readonly string[] = []): Promise<EmulatorProcess> {
	const main = join(__dirname, '..', 'emulator', 'src', 'main.js');
	const child = spawn(process.execPath, [main, '--port', '0', '--seed', 'demo', '--quiet', ...args], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const { url, adminUrl } = await new Promise<{ url: string; adminUrl: string }>((resolve, reject) => {
		let out = '';
		const timer = setTimeout(() => reject(new Error('the emulator did not start within 30 s')), 30_000);
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString('utf8');
			const m = /listening on (http:\/\/\S+)/.exec(out);
			const a = /admin API[^:]*: (http:\/\/\S+?)\/_emulator\//.exec(out);
			if (m && a) {
				clearTimeout(timer);
				resolve({ url: m[1]!, adminUrl: a[1]! });
			}
		});
		child.once('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
	});
	return {
		url,
		adminUrl,
		child,
		stop: () =>
			new Promise<void>((resolve) => {
				if (child.exitCode !== null || child.signalCode !== null) {
					resolve();
					return;
				}
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			}),
	};
}
