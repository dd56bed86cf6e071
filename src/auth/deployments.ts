/**
 * The deployments: the services a person uses side by side (staging and production, two
 * organisations). `cloudAgents.apiUrl` names the default one and still works alone;
 * `cloudAgents.deployments` adds more, each `{ name, apiUrl }`. Every URL is checked as the
 * client checks its base URL (`checkBaseUrl`: https, plain http only to a loopback host, no
 * credentials in it; the transport never follows a redirect, whatever the deployment).
 *
 * A deployment's id comes from its normalised API URL, so it stays the same across windows and
 * reloads and can sit in a URI authority or a path segment (lower-case letters, digits and `-`:
 * VS Code lower-cases authorities). Tokens are kept per origin (`tokenKey`), so a second entry
 * for a listed URL, or for another path of a listed origin, is refused: it would share a token.
 */
import * as vscode from 'vscode';
import { checkBaseUrl, membersOf, ValidationError } from '../api';
import { sha256HexSync } from '../base/random';
import { CONFIG } from '../ids';
import { singleLine } from '../util/text';

/** Default API base URL when `cloudAgents.apiUrl` is not set: the local emulator. */
export const DEFAULT_API_URL = 'http://127.0.0.1:8787';

/** Most entries of `cloudAgents.deployments` read (Coder's extension keeps at most ten servers). */
export const MAX_DEPLOYMENTS = 20;

/** Longest deployment name kept (longer ones are refused, not cut: two cut names could meet). */
export const DEPLOYMENT_NAME_MAX_CHARS = 64;

/** Longest host part of a deployment id (the id ends with a hash of the whole URL either way). */
const ID_HOST_MAX_CHARS = 40;

/** One service the person uses. */
export interface Deployment {
	/** Derived from the normalised API URL: `[a-z0-9-]`, stable, unique in the list. */
	readonly id: string;
	/** What the UI calls it: the entry's name, or the API URL's host for the default deployment. */
	readonly name: string;
	/** The API base URL requests go to (the default deployment's: `cloudAgents.apiUrl` as read today). */
	readonly apiUrl: string;
	/** True for the deployment `cloudAgents.apiUrl` names: its addresses carry no deployment part. */
	readonly isDefault: boolean;
}

/** The deployments and, for each entry of `cloudAgents.deployments` that was refused, why. */
export interface DeploymentList {
	/** The default deployment first, then the accepted entries in the setting's order. */
	readonly deployments: readonly Deployment[];
	/** One sentence per refused entry (or for a setting that is not a list), naming it. */
	readonly problems: readonly string[];
}

/** The default deployment's API URL: `cloudAgents.apiUrl` trimmed, without trailing slashes; the emulator when blank. */
export function defaultApiUrl(setting: string): string {
	return (setting.trim() || DEFAULT_API_URL).replace(/\/+$/, '');
}

/**
 * The normalised form of an API URL, `<protocol>//<host><path>`: checked by `checkBaseUrl`
 * (throws its `ValidationError`), host lower-cased and default port dropped (as `URL` does),
 * query, fragment and trailing slashes left out.
 */
export function normaliseApiUrl(apiUrl: string): string {
	const url = checkBaseUrl(apiUrl.trim());
	return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The id of the deployment at a normalised API URL: its host (and port) spelled with `[a-z0-9-]`,
 * for a person reading an address, then 12 hex digits of a SHA-256 of the whole URL (path and
 * protocol included), so two URLs never share an id.
 */
export function deploymentId(normalisedUrl: string): string {
	const host = new URL(normalisedUrl).host.toLowerCase();
	const readable =
		host
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, ID_HOST_MAX_CHARS)
			.replace(/-+$/, '') || 'deployment';
	return `${readable}-${sha256HexSync(normalisedUrl).slice(0, 12)}`;
}

/** True when `text` could be a deployment id (the shape `deploymentId` gives; any case, as VS Code may lower-case it). */
export function isDeploymentIdShape(text: string): boolean {
	return /^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{12}$/i.test(text) && text.length <= ID_HOST_MAX_CHARS + 13;
}

/** The default deployment's name: the host of its URL (the URL as written when it has none). */
function hostName(apiUrl: string): string {
	try {
		return new URL(apiUrl).host || apiUrl;
	} catch {
		return apiUrl;
	}
}

/** The problem text of a URL `checkBaseUrl` refused: its own reason without the `baseUrl:` field prefix. */
function urlProblem(err: unknown): string {
	const message = err instanceof ValidationError ? err.message : String(err);
	return message.replace(/^baseUrl:\s*/, '');
}

/**
 * The deployments `cloudAgents.apiUrl` (`apiUrlSetting`) and `cloudAgents.deployments`
 * (`entries`, as read from the settings: anything) describe. The default deployment is always
 * there, with its URL exactly as the session reads it today (not checked here: the client
 * refuses a bad one as before). Each entry needs a name (one line, at most
 * `DEPLOYMENT_NAME_MAX_CHARS`, unique ignoring case) and an API URL `checkBaseUrl` accepts whose
 * origin no earlier deployment has; any other entry is left out, with a problem naming it.
 */
export function parseDeployments(apiUrlSetting: string, entries: unknown): DeploymentList {
	const apiUrl = defaultApiUrl(apiUrlSetting);
	let defaultNormalised: string | undefined;
	try {
		defaultNormalised = normaliseApiUrl(apiUrl);
	} catch {
		// The default deployment's URL is refused by the client when used, as before.
	}
	const first: Deployment = {
		id: defaultNormalised !== undefined ? deploymentId(defaultNormalised) : 'default',
		name: hostName(apiUrl),
		apiUrl,
		isDefault: true,
	};
	const deployments: Deployment[] = [first];
	const problems: string[] = [];
	const origins = new Map<string, Deployment>();
	if (defaultNormalised !== undefined) {
		origins.set(new URL(defaultNormalised).origin, first);
	}
	if (entries === undefined || entries === null) {
		return { deployments, problems };
	}
	if (!Array.isArray(entries)) {
		problems.push(vscode.l10n.t('{0} is ignored: it must be a list of {1}.', settingName(), '{ name, apiUrl }'));
		return { deployments, problems };
	}
	for (const [index, entry] of entries.entries()) {
		if (index >= MAX_DEPLOYMENTS) {
			problems.push(vscode.l10n.t('{0}: only the first {1} deployments are used.', settingName(), MAX_DEPLOYMENTS));
			break;
		}
		const accepted = parseEntry(entry, index, deployments, origins);
		if (typeof accepted === 'string') {
			problems.push(accepted);
		} else {
			deployments.push(accepted);
			origins.set(new URL(accepted.apiUrl).origin, accepted);
		}
	}
	return { deployments, problems };
}

/** A deployment's name as shown: one line, neutralised (not cut: `nameProblem` refuses a long one). */
export function deploymentName(raw: string): string {
	return singleLine(raw, Number.MAX_SAFE_INTEGER);
}

/**
 * Why `name` (as `deploymentName` gives it) cannot name a deployment beside `listed`: `length`
 * (empty or longer than `DEPLOYMENT_NAME_MAX_CHARS`), `taken` (a listed one has it, ignoring case).
 */
export function nameProblem(name: string, listed: readonly Deployment[]): 'length' | 'taken' | undefined {
	if (name === '' || name.length > DEPLOYMENT_NAME_MAX_CHARS) {
		return 'length';
	}
	return listed.some((d) => d.name.toLowerCase() === name.toLowerCase()) ? 'taken' : undefined;
}

/** One entry: the deployment, or the sentence that says why it is refused. */
function parseEntry(
	entry: unknown,
	index: number,
	listed: readonly Deployment[],
	origins: ReadonlyMap<string, Deployment>,
): Deployment | string {
	const position = index + 1;
	const { name: rawName, apiUrl: rawUrl } = membersOf(entry);
	if (typeof rawName !== 'string' || typeof rawUrl !== 'string') {
		return vscode.l10n.t('Deployment {0} of {1} is ignored: it needs a name and an apiUrl.', position, settingName());
	}
	const name = deploymentName(rawName);
	const nameRefused = nameProblem(name, listed);
	if (nameRefused === 'length') {
		return vscode.l10n.t(
			'Deployment {0} of {1} is ignored: its name needs 1 to {2} characters.',
			position,
			settingName(),
			DEPLOYMENT_NAME_MAX_CHARS,
		);
	}
	let normalised: string;
	try {
		normalised = normaliseApiUrl(rawUrl);
	} catch (err) {
		return vscode.l10n.t('Deployment "{0}" is ignored: {1}.', name, urlProblem(err));
	}
	if (nameRefused === 'taken') {
		return vscode.l10n.t('Deployment "{0}" is ignored: another deployment has this name.', name);
	}
	const sameOrigin = origins.get(new URL(normalised).origin);
	if (sameOrigin) {
		return normaliseApiUrlOrUndefined(sameOrigin.apiUrl) === normalised
			? vscode.l10n.t('Deployment "{0}" is ignored: {1} is already listed as "{2}".', name, normalised, sameOrigin.name)
			: vscode.l10n.t(
					'Deployment "{0}" is ignored: {1} has the origin of "{2}" (tokens are kept per origin).',
					name,
					normalised,
					sameOrigin.name,
				);
	}
	return { id: deploymentId(normalised), name, apiUrl: normalised, isDefault: false };
}

function normaliseApiUrlOrUndefined(apiUrl: string): string | undefined {
	try {
		return normaliseApiUrl(apiUrl);
	} catch {
		return undefined;
	}
}

function settingName(): string {
	return `${CONFIG.section}.${CONFIG.deployments}`;
}

/** The deployments the settings describe now. */
export function readDeployments(): DeploymentList {
	const config = vscode.workspace.getConfiguration(CONFIG.section);
	return parseDeployments(config.get<string>(CONFIG.apiUrl, ''), config.get<unknown>(CONFIG.deployments));
}

/**
 * The name that what belongs to a deployment adds when two or more deployments are configured (a
 * followed run's channel, notifications and status bar: "… (Staging)"), of the deployment of this
 * id (without one, the default deployment); undefined with one deployment, so nothing then names it.
 */
export function deploymentNameWhenSeveral(deploymentId?: string): string | undefined {
	const { deployments } = readDeployments();
	if (deployments.length < 2) {
		return undefined;
	}
	return deployments.find((d) => (deploymentId === undefined ? d.isDefault : d.id === deploymentId))?.name;
}

/**
 * The deployment part of an address (an agent workspace's `cloud-agent:` authority, a record
 * document's `cloud-agents-record:` authority): none for the default deployment, so its addresses
 * are byte for byte what they were before deployments existed; the deployment's id for any other.
 * The one place that decides what names a deployment in an address.
 */
export function addressPart(deployment: Pick<Deployment, 'id' | 'isDefault'>): string | undefined {
	return deployment.isDefault ? undefined : deployment.id;
}

/**
 * What the deployment part of an address names among `deployments`: the default deployment (no
 * part), a configured deployment, or `removed` (a part of the right shape no configured deployment
 * has: a restored tab or workspace file of a deployment the person removed). Undefined for a part
 * that cannot be a deployment id. The part is compared in lower case: VS Code lower-cases authorities.
 */
export function deploymentOfPart(
	part: string | undefined,
	deployments: readonly Deployment[] = readDeployments().deployments,
): { deployment: Deployment } | { removed: string } | undefined {
	if (part === undefined) {
		const first = deployments.find((d) => d.isDefault);
		return first ? { deployment: first } : undefined;
	}
	if (!isDeploymentIdShape(part)) {
		return undefined;
	}
	const id = part.toLowerCase();
	const deployment = deployments.find((d) => !d.isDefault && d.id === id);
	return deployment ? { deployment } : { removed: id };
}

/** The sentence for an address (`what`: "This address", "This record") of a deployment no longer configured. */
export function removedDeploymentMessage(part: string, what: 'address' | 'record'): string {
	return what === 'record'
		? vscode.l10n.t(
				'This record belongs to the deployment {0}, which is no longer configured. Add it to the setting {1} again and open the record from its view.',
				part,
				settingName(),
			)
		: vscode.l10n.t(
				'This address belongs to the deployment {0}, which is no longer configured. Add it to the setting {1} again to open it.',
				part,
				settingName(),
			);
}

/**
 * The name that says which deployment something belongs to (a tab title, a folder, a panel, a
 * notification): `deployment`'s (undefined: the default deployment's) when two or more deployments
 * are configured; undefined with one, so that nothing names a deployment then, as before.
 */
export function shownDeploymentName(
	deployment: Pick<Deployment, 'name'> | undefined,
	deployments: readonly Deployment[] = readDeployments().deployments,
): string | undefined {
	if (deployments.length < 2) {
		return undefined;
	}
	return (deployment ?? deployments.find((d) => d.isDefault))?.name;
}

/**
 * `shownDeploymentName` of the deployment an address part names (src/auth/deployments.ts
 * `addressPart`; undefined: the default deployment); undefined with one deployment, and for a part
 * no configured deployment has.
 */
export function shownNameOfPart(
	part: string | undefined,
	deployments: readonly Deployment[] = readDeployments().deployments,
): string | undefined {
	const named = deploymentOfPart(part, deployments);
	return named !== undefined && 'deployment' in named ? shownDeploymentName(named.deployment, deployments) : undefined;
}

/** `text` with the deployment's name after it, "my-agent (Staging)"; `text` itself without a name (one deployment). */
export function withDeploymentName(text: string, name: string | undefined): string {
	return name === undefined ? text : vscode.l10n.t('{0} ({1})', text, name);
}
