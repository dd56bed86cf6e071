/**
 * In-memory stand-ins of VS Code's SecretStorage and Memento for suites that build a Session or a
 * RowCache of their own (start-up order, rows as last loaded), so they can time, count and swap the
 * stored token without touching the running extension's.
 */
import * as vscode from 'vscode';

/** An in-memory SecretStorage whose reads take `readDelayMs`; counts them. */
export class MemorySecrets implements vscode.SecretStorage {
	private readonly values = new Map<string, string>();
	private readonly changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
	readonly onDidChange = this.changed.event;
	reads = 0;

	constructor(private readonly readDelayMs = 0) {}

	/** Answers what was stored when the read was asked (as a round trip would), `readDelayMs` later. */
	async get(key: string): Promise<string | undefined> {
		this.reads++;
		const value = this.values.get(key);
		await new Promise((r) => setTimeout(r, this.readDelayMs));
		return value;
	}
	/** A token already stored when the window opens (no change event). */
	seed(key: string, value: string): void {
		this.values.set(key, value);
	}
	async store(key: string, value: string): Promise<void> {
		this.values.set(key, value);
		this.changed.fire({ key });
		return Promise.resolve();
	}
	async delete(key: string): Promise<void> {
		this.values.delete(key);
		this.changed.fire({ key });
		return Promise.resolve();
	}
	async keys(): Promise<string[]> {
		return Promise.resolve([...this.values.keys()]);
	}
	dispose(): void {
		this.changed.dispose();
	}
}

/** An in-memory Memento (globalState) whose values go through JSON, as VS Code's do. */
export class MemoryMemento implements vscode.Memento {
	private readonly values = new Map<string, string>();

	keys(): readonly string[] {
		return [...this.values.keys()];
	}
	get<T>(key: string, defaultValue?: T): T | undefined {
		const json = this.values.get(key);
		return json === undefined ? defaultValue : (JSON.parse(json) as T);
	}
	update(key: string, value: unknown): Thenable<void> {
		if (value === undefined) {
			this.values.delete(key);
		} else {
			this.values.set(key, JSON.stringify(value));
		}
		return Promise.resolve();
	}
	/** Everything stored, as text (to check what never gets there). */
	dump(): string {
		return JSON.stringify([...this.values]);
	}
}

/** A LogOutputChannel that drops everything. */
export const silentLog = {
	trace: () => undefined,
	debug: () => undefined,
	info: () => undefined,
	warn: () => undefined,
	error: () => undefined,
} as unknown as vscode.LogOutputChannel;
