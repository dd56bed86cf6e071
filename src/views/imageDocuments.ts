import * as vscode from 'vscode';
import { SAFETY } from '../api';
import { FILE_SYSTEM_SCHEMES, IMAGE_SCHEME } from '../ids';
import { type Registrations, directRegistrations } from '../util/registrations';
import { singleLine } from '../util/text';
import { Disposable } from '../util/lifecycle';
import { closeTabsOf } from './recordDocuments';

/** At most this many images are held for open previews (the oldest goes first). */
const MAX_IMAGES = 16;
/** At most this many bytes of images are held in memory in all. */
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/** One path segment that names the image: the artifact's name, neutralised; never `/`, `\`, `.` or `..`. */
function segment(part: string): string {
	const cleaned = singleLine(part, SAFETY.idMaxChars).replace(/[/\\]/g, '_');
	return cleaned === '' || cleaned === '.' || cleaned === '..' ? '_' : cleaned;
}

/**
 * Image artifacts for VS Code's image preview, from memory: a read-only file system under the
 * `cloud-agents-image:` scheme whose path is only the artifact's name (so the tab and breadcrumbs
 * show "coverage-chart.png", not an id or a folder in the extension's storage) and whose query holds
 * the identity (agent and artifact id), so two images with one name stay apart. Nothing is written to
 * disk. Bounded: the newest `MAX_IMAGES` images, `MAX_IMAGE_BYTES` in all; a preview restored after
 * its bytes were dropped says so and "Open Artifact" reads it again.
 */
export class ImageDocuments extends Disposable implements vscode.FileSystemProvider {
	private readonly images = new Map<string, { bytes: Uint8Array; mtime: number }>();
	private readonly changed = this.register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
	readonly onDidChangeFile = this.changed.event;

	/** @param registrations where the scheme is served from (the activation's stand-in in the extension) */
	constructor(registrations: Registrations = directRegistrations) {
		super();
		this.register(registrations.fileSystem(IMAGE_SCHEME, this, FILE_SYSTEM_SCHEMES[IMAGE_SCHEME] ?? {}));
		this.register({ dispose: () => this.images.clear() });
	}

	/** The URI of an image: `cloud-agents-image:/<name>?<key>/<key>`. */
	static uri(name: string, ...key: string[]): vscode.Uri {
		return vscode.Uri.from({ scheme: IMAGE_SCHEME, path: `/${segment(name)}`, query: key.map(segment).join('/') });
	}

	/** Holds `bytes` for `uri` (replacing what it held) and opens it in a preview editor. */
	async show(uri: vscode.Uri, bytes: Uint8Array): Promise<vscode.Uri> {
		const key = uri.toString();
		const had = this.images.delete(key);
		this.images.set(key, { bytes, mtime: Date.now() });
		let total = 0;
		for (const v of this.images.values()) {
			total += v.bytes.byteLength;
		}
		for (const [k, v] of this.images) {
			if ((this.images.size <= MAX_IMAGES && total <= MAX_IMAGE_BYTES) || k === key) {
				break;
			}
			this.images.delete(k);
			total -= v.bytes.byteLength;
		}
		if (had) {
			this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
		}
		await vscode.commands.executeCommand('vscode.open', uri, { preview: true });
		return uri;
	}

	/**
	 * Signed out (issue 42, item 5): every image of that deployment held goes and its tabs close
	 * (`deploymentPart`: undefined for the default deployment's, whose images' URIs have no
	 * authority; another deployment's carry its part: recordDocuments.ts `imagesIn`). Other deployments' stay.
	 */
	async forgetAll(deploymentPart?: string): Promise<void> {
		const ofDeployment = (uri: vscode.Uri): boolean => uri.authority === (deploymentPart ?? '');
		const keys = [...this.images.keys()].filter((key) => ofDeployment(vscode.Uri.parse(key, true)));
		for (const key of keys) {
			this.images.delete(key);
		}
		const held = keys.map((key) => vscode.Uri.parse(key, true));
		if (held.length > 0) {
			this.changed.fire(held.map((uri) => ({ type: vscode.FileChangeType.Deleted, uri })));
		}
		await closeTabsOf(IMAGE_SCHEME, ofDeployment);
	}

	private entry(uri: vscode.Uri): { bytes: Uint8Array; mtime: number } {
		const e = this.images.get(uri.toString());
		if (!e) {
			throw vscode.FileSystemError.FileNotFound(
				vscode.l10n.t('This image is no longer held; run "Open Artifact" again to read it from the service.'),
			);
		}
		return e;
	}

	stat(uri: vscode.Uri): vscode.FileStat {
		if (uri.path === '/') {
			return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0, permissions: vscode.FilePermission.Readonly };
		}
		const e = this.entry(uri);
		return {
			type: vscode.FileType.File,
			ctime: e.mtime,
			mtime: e.mtime,
			size: e.bytes.byteLength,
			permissions: vscode.FilePermission.Readonly,
		};
	}

	readFile(uri: vscode.Uri): Uint8Array {
		return this.entry(uri).bytes;
	}

	readDirectory(): [string, vscode.FileType][] {
		return [];
	}

	watch(): vscode.Disposable {
		return new vscode.Disposable(() => undefined);
	}

	createDirectory(uri: vscode.Uri): never {
		throw vscode.FileSystemError.NoPermissions(uri);
	}

	writeFile(uri: vscode.Uri): never {
		throw vscode.FileSystemError.NoPermissions(uri);
	}

	delete(uri: vscode.Uri): never {
		throw vscode.FileSystemError.NoPermissions(uri);
	}

	rename(uri: vscode.Uri): never {
		throw vscode.FileSystemError.NoPermissions(uri);
	}
}
