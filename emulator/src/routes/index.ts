import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator';
import { registerAgents } from './agents';
import { registerAuth } from './auth';
import { registerPlatform } from './platform';

export function registerApi(app: FastifyInstance, emu: Emulator): void {
	registerPlatform(app, emu);
	registerAuth(app, emu);
	registerAgents(app, emu);
}
