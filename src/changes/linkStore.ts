/**
 * The links between an agent's workspace folder and a local folder (issue 21), remembered per
 * agent across windows and restarts: the links themselves in `globalState` (a few short records),
 * each link's baseline (up to the comparison's file cap) in a JSON file of its own under the
 * extension's global storage. What is read back is checked: a damaged or foreign record is dropped,
 * never trusted.
 *
 * A link of a deployment other than the default one (issue 47) stores that deployment's id; a link
 * of the default deployment stores none, so the links kept before deployments existed read as the
 * default deployment's, and the default deployment's links are stored as they always were.
 */
import * as vscode from 'vscode';
import { isJsonObject } from '../api';
import { checkBaseline } from '../compare/baseline';
import type { Baseline } from '../compare/types';
import { checkRelativePath } from '../util/paths';
import { LINKS_KEY } from '../ids';
import { isDeploymentIdShape } from '../auth/deployments';

/** One link: the agent (and its name when linked, for labels), its folder, the local folder. */
export interface AgentLink {
	/** Stable id of the link (file name of its baseline). */
	id: string;
	agentId: string;
	/** The agent's name when linked (labels; the id when it had none). */
	agentName: string;
	/** Workspace path of the agent-side folder ('' = the workspace root). */
	agentFolder: string;
	/** The local folder, as a `file:` URI string. */
	localFolder: string;
	/** The id of the agent's deployment (src/auth/deployments.ts `addressPart`); absent for the default deployment. */
	deployment?: string;
}

/** At most this many links are kept (the oldest goes when a new one is added past it). */
export const MAX_LINKS = 20;

const ID_PATTERN = /^[a-z0-9-]{1,64}$/;

/** The links stored under `LINKS_KEY`, checked (anything malformed is left out). */
export function readLinks(state: vscode.Memento): AgentLink[] {
	const raw: unknown = state.get(LINKS_KEY);
	if (!Array.isArray(raw)) {
		return [];
	}
	const out: AgentLink[] = [];
	for (const item of raw.slice(0, MAX_LINKS)) {
		const link = checkLink(item);
		if (link && !out.some((l) => l.id === link.id)) {
			out.push(link);
		}
	}
	return out;
}

function checkLink(item: unknown): AgentLink | undefined {
	if (!isJsonObject(item)) {
		return undefined;
	}
	const r = item as Partial<Record<keyof AgentLink, unknown>>;
	if (
		typeof r.id !== 'string' ||
		!ID_PATTERN.test(r.id) ||
		typeof r.agentId !== 'string' ||
		r.agentId === '' ||
		typeof r.agentName !== 'string' ||
		typeof r.agentFolder !== 'string' ||
		typeof r.localFolder !== 'string' ||
		(r.deployment !== undefined && (typeof r.deployment !== 'string' || !isDeploymentIdShape(r.deployment)))
	) {
		return undefined;
	}
	if (r.agentFolder !== '') {
		try {
			checkRelativePath(r.agentFolder);
		} catch {
			return undefined;
		}
	}
	let local: vscode.Uri;
	try {
		local = vscode.Uri.parse(r.localFolder, true);
	} catch {
		return undefined;
	}
	if (local.scheme !== 'file') {
		return undefined;
	}
	return {
		id: r.id,
		agentId: r.agentId,
		agentName: r.agentName.slice(0, 200),
		agentFolder: r.agentFolder,
		localFolder: r.localFolder,
		...(typeof r.deployment === 'string' ? { deployment: r.deployment.toLowerCase() } : {}),
	};
}

/** True when `link` joins what `spec` names: the same agent of the same deployment, the same folders. */
export function sameLink(link: Omit<AgentLink, 'id'>, spec: Omit<AgentLink, 'id'>): boolean {
	return (
		link.agentId === spec.agentId &&
		link.agentFolder === spec.agentFolder &&
		link.localFolder === spec.localFolder &&
		link.deployment === spec.deployment
	);
}

/** The links of this machine and their baselines. */
export class LinkStore {
	private readonly _onDidChange = new vscode.EventEmitter<void>();
	/** Fires when a link is added or removed. */
	readonly onDidChange = this._onDidChange.event;

	constructor(
		private readonly state: vscode.Memento,
		/** Folder of the baseline files (under context.globalStorageUri). */
		private readonly folder: vscode.Uri,
		private readonly maxEntries: number,
	) {}

	all(): AgentLink[] {
		return readLinks(this.state);
	}

	/** Adds a link (replacing one of the same agent and deployment, agent folder and local folder); returns the kept link. */
	async add(link: Omit<AgentLink, 'id'>): Promise<AgentLink> {
		const links = this.all();
		const same = links.find((l) => sameLink(l, link));
		const { deployment, ...rest0 } = link;
		// The default deployment's link is stored as before deployments existed: without the field.
		const kept: AgentLink = { ...rest0, ...(deployment !== undefined ? { deployment } : {}), id: same?.id ?? newLinkId() };
		const rest = links.filter((l) => l.id !== kept.id);
		const next = [...rest, kept].slice(-MAX_LINKS);
		for (const dropped of rest.filter((l) => !next.includes(l))) {
			await this.deleteBaseline(dropped.id);
		}
		await this.state.update(LINKS_KEY, next);
		this._onDidChange.fire();
		return kept;
	}

	/** Forgets a link and its baseline. */
	async remove(id: string): Promise<void> {
		await this.state.update(
			LINKS_KEY,
			this.all().filter((l) => l.id !== id),
		);
		await this.deleteBaseline(id);
		this._onDidChange.fire();
	}

	/** The baseline kept for a link, or undefined (none yet, or unreadable). */
	async baseline(id: string): Promise<Baseline | undefined> {
		try {
			const bytes = await vscode.workspace.fs.readFile(this.fileOf(id));
			return checkBaseline(JSON.parse(new TextDecoder().decode(bytes)), this.maxEntries);
		} catch {
			return undefined;
		}
	}

	async setBaseline(id: string, baseline: Baseline): Promise<void> {
		await vscode.workspace.fs.createDirectory(this.folder);
		await vscode.workspace.fs.writeFile(this.fileOf(id), new TextEncoder().encode(JSON.stringify(baseline)));
	}

	private async deleteBaseline(id: string): Promise<void> {
		try {
			await vscode.workspace.fs.delete(this.fileOf(id));
		} catch {
			// None was written.
		}
	}

	private fileOf(id: string): vscode.Uri {
		if (!ID_PATTERN.test(id)) {
			throw new Error('not a link id');
		}
		return vscode.Uri.joinPath(this.folder, `${id}.json`);
	}

	dispose(): void {
		this._onDidChange.dispose();
	}
}

function newLinkId(): string {
	return `link-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
