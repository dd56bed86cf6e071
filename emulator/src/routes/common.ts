import type { FastifyRequest } from 'fastify';
import type { Emulator } from '../emulator';
import type { AgentRow } from '../state';
import { checkAgentId } from '../validate';

export const agentParams = {
	type: 'object',
	required: ['agent_id'],
	properties: { agent_id: { type: 'string' } },
} as const;

export const str = { type: 'string' } as const;
export const bool = { type: 'boolean' } as const;

export function params<T extends Record<string, string>>(req: FastifyRequest): T {
	return req.params as T;
}

export function query<T>(req: FastifyRequest): T {
	return req.query as T;
}

export function body<T>(req: FastifyRequest): T {
	return req.body as T;
}

export function agentOf(emu: Emulator, req: FastifyRequest): AgentRow {
	return emu.agent(checkAgentId(params<{ agent_id: string }>(req).agent_id, emu.profile));
}

export const limitQuery = (min: number, max: number, dflt: number, extra: Record<string, unknown> = {}) =>
	({
		type: 'object',
		properties: { limit: { type: 'integer', minimum: min, maximum: max, default: dflt }, ...extra },
	}) as const;
