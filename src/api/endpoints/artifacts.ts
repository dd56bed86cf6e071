/**
 * Artifacts of an agent: list, create, read (with content), delete. One group of
 * CloudAgentsClient's methods (src/api/client.ts puts them on the one client object).
 */
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { ClientCore, e, timeOf } from './core';

/** Endpoint methods of CloudAgentsClient: artifacts of an agent. */
export class ArtifactEndpoints extends ClientCore {
	/** GET /v2/agents/{agent_id}/artifacts. */
	async listArtifacts(agentId: string, options: T.CallOptions = {}): Promise<T.Artifact[]> {
		V.checkAgentId(agentId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/artifacts`,
				route: 'GET /v2/agents/{agent_id}/artifacts',
				idempotent: true,
				signal: options.signal,
			},
			this.listOf<T.Artifact>(D.decodeArtifact, 'artifacts'),
		);
	}

	/**
	 * POST /v2/agents/{agent_id}/artifacts. Never retried; after an ambiguous failure the artifact
	 * is looked up by run, name and creation time, or OutcomeUnknownError is thrown.
	 */
	async createArtifact(agentId: string, request: T.CreateArtifactRequest, options: T.CallOptions = {}): Promise<T.Artifact> {
		V.checkAgentId(agentId);
		V.checkIdentifier('run_id', request.run_id);
		V.checkArtifactName(request.name);
		V.checkWriteSize('content', request.content);
		const body = {
			run_id: request.run_id,
			name: request.name,
			media_type: request.media_type,
			content_base64: V.base64(request.content),
		};
		return this.createOnce(
			'artifact',
			() =>
				this.decoded(
					{
						method: 'POST',
						path: `/v2/agents/${e(agentId)}/artifacts`,
						route: 'POST /v2/agents/{agent_id}/artifacts',
						body,
						idempotent: false,
						transfer: true,
						signal: options.signal,
					},
					this.one<T.Artifact>(D.decodeArtifact),
				),
			async (since) => {
				const all = await this.listArtifacts(agentId, options);
				return all.filter(
					(a) =>
						a.name === request.name &&
						(a.run_id === undefined || a.run_id === request.run_id) &&
						(a.size === undefined || a.size === request.content.byteLength) &&
						(timeOf(a.created_at) ?? since) >= since,
				);
			},
		);
	}

	/**
	 * GET …/artifacts/{artifact_id}. How content is requested is not shown: both common spellings
	 * (`include_content=true`, `include=content`) are sent; a server ignores the one it does not know.
	 */
	async getArtifact(
		agentId: string,
		artifactId: string,
		options: T.CallOptions & { includeContent?: boolean } = {},
	): Promise<T.Artifact> {
		V.checkAgentId(agentId);
		V.checkOpaqueId('artifactId', artifactId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/artifacts/${e(artifactId)}`,
				route: 'GET /v2/agents/{agent_id}/artifacts/{artifact_id}',
				query: {
					include_content: options.includeContent ? 'true' : undefined,
					include: options.includeContent ? 'content' : undefined,
				},
				idempotent: true,
				transfer: options.includeContent === true,
				signal: options.signal,
			},
			this.one<T.Artifact>(D.decodeArtifact),
		);
	}

	/** The artifact with its decoded content. */
	async readArtifactContent(
		agentId: string,
		artifactId: string,
		options: T.CallOptions = {},
	): Promise<{ artifact: T.Artifact; content: Uint8Array }> {
		const artifact = await this.getArtifact(agentId, artifactId, { ...options, includeContent: true });
		const content = D.decodeBase64Strict(artifact.content_base64 ?? '', 'artifact.content_base64', {});
		if (artifact.size !== undefined && artifact.size !== content.byteLength) {
			throw new D.InvalidResponseError('artifact.size', `the length of the content (${content.byteLength} bytes)`, undefined);
		}
		return { artifact, content };
	}

	/** DELETE …/artifacts/{artifact_id} (idempotent, so retried). */
	async deleteArtifact(agentId: string, artifactId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkAgentId(agentId);
		V.checkOpaqueId('artifactId', artifactId);
		await this.call({
			method: 'DELETE',
			path: `/v2/agents/${e(agentId)}/artifacts/${e(artifactId)}`,
			route: 'DELETE /v2/agents/{agent_id}/artifacts/{artifact_id}',
			idempotent: true,
			signal: options.signal,
		});
	}
}
