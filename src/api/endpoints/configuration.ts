/**
 * What runtimes are configured with: model providers, secrets and secret stubs, SSH keys, GitHub
 * access. One group of CloudAgentsClient's methods (src/api/client.ts puts them on the one client
 * object).
 */
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { ClientCore, e, obj, unwrap, arrayOf } from './core';

/** Endpoint methods of CloudAgentsClient: what runtimes are configured with. */
export class ConfigurationEndpoints extends ClientCore {
	// ------------------------------------------------------------------ model providers

	/** GET /v2/model-providers. */
	async listModelProviders(options: T.CallOptions = {}): Promise<T.ModelProviderList> {
		const b = obj(
			unwrap(
				await this.call({
					method: 'GET',
					path: '/v2/model-providers',
					route: 'GET /v2/model-providers',
					idempotent: true,
					signal: options.signal,
				}),
			),
		);
		return {
			organization_id: typeof b.organization_id === 'string' ? b.organization_id : '',
			model_providers: arrayOf<T.ModelProvider>(b, 'model_providers'),
		};
	}

	/** PATCH /v2/model-providers/{provider_id} (every configuration field required). */
	async updateModelProvider(
		providerId: string,
		request: T.UpdateModelProviderRequest | Record<string, unknown>,
		options: T.CallOptions = {},
	): Promise<T.ModelProvider> {
		V.checkOpaqueId('providerId', providerId);
		return unwrap(
			await this.call({
				method: 'PATCH',
				path: `/v2/model-providers/${e(providerId)}`,
				route: 'PATCH /v2/model-providers/{provider_id}',
				body: request,
				idempotent: false,
				signal: options.signal,
			}),
		);
	}

	// ------------------------------------------------------------------ secrets

	/** GET /v2/secrets/{secret_id} (UUID or display name). */
	async getSecret(secretId: string, options: T.CallOptions = {}): Promise<T.Secret> {
		V.checkOpaqueId('secretId', secretId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/secrets/${e(secretId)}`,
				route: 'GET /v2/secrets/{secret_id}',
				idempotent: true,
				signal: options.signal,
			},
			this.one<T.Secret>(D.decodeSecret, true),
		);
	}

	/** DELETE /v2/secrets/{secret_id}. */
	async deleteSecret(secretId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('secretId', secretId);
		await this.call({
			method: 'DELETE',
			path: `/v2/secrets/${e(secretId)}`,
			route: 'DELETE /v2/secrets/{secret_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ secret stubs

	/** POST /v1/runtimes/{runtime_id}/secret-stubs. Not retried. */
	async createSecretStub(runtimeId: string, request: T.CreateSecretStubRequest, options: T.CallOptions = {}): Promise<T.SecretStub> {
		V.checkOpaqueId('runtimeId', runtimeId);
		return this.mutateOnce('secret stub', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v1/runtimes/${e(runtimeId)}/secret-stubs`,
					route: 'POST /v1/runtimes/{runtime_id}/secret-stubs',
					body: request,
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.SecretStub>(D.decodeSecretStub, true),
			),
		);
	}

	/** DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}. */
	async deleteRuntimeSecretStub(runtimeId: string, stubId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkOpaqueId('stubId', stubId);
		await this.call({
			method: 'DELETE',
			path: `/v1/runtimes/${e(runtimeId)}/secret-stubs/${e(stubId)}`,
			route: 'DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	/** GET /v1/secret-stubs. */
	async listSecretStubs(options: T.CallOptions = {}): Promise<T.SecretStub[]> {
		return this.decoded(
			{ method: 'GET', path: '/v1/secret-stubs', route: 'GET /v1/secret-stubs', idempotent: true, signal: options.signal },
			this.listOf<T.SecretStub>(D.decodeSecretStub),
		);
	}

	/** DELETE /v1/secret-stubs/{stub_id}. */
	async deleteSecretStub(stubId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('stubId', stubId);
		await this.call({
			method: 'DELETE',
			path: `/v1/secret-stubs/${e(stubId)}`,
			route: 'DELETE /v1/secret-stubs/{stub_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ SSH keys

	/** DELETE /v2/ssh-keys/{ssh_key_id}: deletes one of the current user's keys. */
	async deleteSshKey(sshKeyId: string, options: T.CallOptions = {}): Promise<T.SshKey> {
		V.checkOpaqueId('sshKeyId', sshKeyId);
		return unwrap(
			await this.call({
				method: 'DELETE',
				path: `/v2/ssh-keys/${e(sshKeyId)}`,
				route: 'DELETE /v2/ssh-keys/{ssh_key_id}',
				idempotent: false,
				signal: options.signal,
			}),
		);
	}

	// ------------------------------------------------------------------ GitHub

	/** GET /v2/github/authorization-requests. */
	async listGitHubAuthorizationRequests(options: T.CallOptions = {}): Promise<T.GitHubAuthorizationRequest[]> {
		return this.decoded(
			{
				method: 'GET',
				path: '/v2/github/authorization-requests',
				route: 'GET /v2/github/authorization-requests',
				idempotent: true,
				signal: options.signal,
			},
			this.listOf<T.GitHubAuthorizationRequest>(D.decodeGitHubAuthorizationRequest, 'requests'),
		);
	}

	/** PUT /v2/github/runtime-bindings/{runtime_id}: atomically replaces the bindings (idempotent, so retried). */
	async setGitHubRuntimeBindings(
		runtimeId: string,
		repositories: T.RepositoryRef[],
		options: T.CallOptions = {},
	): Promise<T.GitHubRuntimeBinding[]> {
		V.checkOpaqueId('runtimeId', runtimeId);
		return arrayOf(
			await this.call({
				method: 'PUT',
				path: `/v2/github/runtime-bindings/${e(runtimeId)}`,
				route: 'PUT /v2/github/runtime-bindings/{runtime_id}',
				body: { repositories },
				idempotent: true,
				signal: options.signal,
			}),
			'bindings',
		);
	}
}
