/**
 * How an agent id travels in the authority of a `cloud-agent:` URI. VS Code lower-cases URI
 * authorities (`Uri.toString()`, workspace-folder storage, a window reload) and reads a `:` in them
 * as a port separator, while agent ids are opaque and case-sensitive (`C19B1983-…:Main`). So the
 * authority carries `agent-` followed by the id's UTF-8 bytes in lower-case base32 (RFC 4648
 * alphabet, no padding): only `a`–`z`, `2`–`7` and `-`, which survive lower-casing and need no
 * escaping. Old links that carried the id as is (`cloud-agent://<uuid>.<harness>/…`) still decode,
 * as the id they spell. No `vscode` import: unit tests load it in Node.
 *
 * An agent of a deployment other than the default one (src/auth/deployments.ts) carries the
 * deployment's id after a dot: `agent-<base32>.<deployment id>` (the id is `[a-z0-9-]`, so it too
 * survives lower-casing, and base32 has no dot). The default deployment's addresses have no such
 * part: with one deployment every address is what it was before deployments existed.
 */
import { checkAgentId } from '../../api/validation';

/** What starts an encoded authority (cannot start an old one: those start with a UUID). */
export const AGENT_AUTHORITY_PREFIX = 'agent-';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const utf8 = new TextDecoder('utf-8', { fatal: true });

function base32(bytes: Uint8Array): string {
	let out = '';
	let buffer = 0;
	let bits = 0;
	for (const byte of bytes) {
		buffer = (buffer << 8) | byte;
		bits += 8;
		while (bits >= 5) {
			out += ALPHABET[(buffer >>> (bits - 5)) & 31];
			bits -= 5;
		}
		buffer &= (1 << bits) - 1;
	}
	if (bits > 0) {
		out += ALPHABET[(buffer << (5 - bits)) & 31];
	}
	return out;
}

/** The bytes of canonical unpadded base32 (any case), or undefined (other characters, an impossible length, stray bits). */
function unbase32(text: string): Uint8Array | undefined {
	const bytes: number[] = [];
	let buffer = 0;
	let bits = 0;
	for (const ch of text.toLowerCase()) {
		const v = ALPHABET.indexOf(ch);
		if (v < 0) {
			return undefined;
		}
		buffer = ((buffer << 5) | v) & 0xfff;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			bytes.push((buffer >>> bits) & 0xff);
		}
	}
	// Leftover bits must be padding zeros of fewer than 5 bits: one spelling per id.
	if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) {
		return undefined;
	}
	return Uint8Array.from(bytes);
}

/** True when `id` is an agent id as the description states it (the client's own check). */
export function isAgentId(id: string): boolean {
	try {
		checkAgentId(id);
		return true;
	} catch {
		return false;
	}
}

/** What separates the agent's part of an authority from its deployment's. */
const DEPLOYMENT_SEPARATOR = '.';

/**
 * The URI authority for an agent id (any case and separator survive VS Code's lower-casing), with
 * `deploymentPart` (a deployment id; undefined for the default deployment) after it.
 */
export function encodeAgentAuthority(agentId: string, deploymentPart?: string): string {
	const agent = AGENT_AUTHORITY_PREFIX + base32(new TextEncoder().encode(agentId));
	return deploymentPart === undefined ? agent : `${agent}${DEPLOYMENT_SEPARATOR}${deploymentPart}`;
}

/** What an authority names: the agent, and the deployment part when it has one (undefined: the default deployment). */
export interface AgentAddress {
	readonly agentId: string;
	readonly deploymentPart: string | undefined;
}

/**
 * The agent and deployment part an authority names, or undefined when it names no agent: as
 * `decodeAgentAuthority`, plus a deployment part of the shape `isDeploymentPart` accepts (as VS
 * Code spelled it: lower-case). An old link's authority has no deployment part.
 */
export function parseAgentAuthority(authority: string, isDeploymentPart: (part: string) => boolean): AgentAddress | undefined {
	const dot = authority.indexOf(DEPLOYMENT_SEPARATOR);
	if (dot >= 0 && authority.toLowerCase().startsWith(AGENT_AUTHORITY_PREFIX)) {
		const part = authority.slice(dot + 1).toLowerCase();
		const agentId = isDeploymentPart(part) ? decodeAgentAuthority(authority.slice(0, dot)) : undefined;
		return agentId === undefined ? undefined : { agentId, deploymentPart: part };
	}
	const agentId = decodeAgentAuthority(authority);
	return agentId === undefined ? undefined : { agentId, deploymentPart: undefined };
}

/**
 * The agent id an authority names, or undefined when it names none: an `agent-<base32>` authority
 * (any case) whose bytes are UTF-8 of a valid agent id, or an old link's authority that is itself
 * a valid agent id (decoded as spelled; an old link whose id had capitals was already lower-cased
 * by VS Code and cannot be restored).
 */
export function decodeAgentAuthority(authority: string): string | undefined {
	if (authority.toLowerCase().startsWith(AGENT_AUTHORITY_PREFIX)) {
		const bytes = unbase32(authority.slice(AGENT_AUTHORITY_PREFIX.length));
		if (!bytes || bytes.length === 0) {
			return undefined;
		}
		let id: string;
		try {
			id = utf8.decode(bytes);
		} catch {
			return undefined;
		}
		return isAgentId(id) ? id : undefined;
	}
	return isAgentId(authority) ? authority : undefined;
}
