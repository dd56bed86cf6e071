/**
 * Workspace file system: requests per VS Code-like call sequence through the cache layer
 * (src/workspace/fs/workspaceCache.ts) divided by the floors, counted by the emulator; and the time to list
 * a 5,000-entry folder.
 */
import { CloudAgentsClient } from '../../src/api';
import { WorkspaceCache } from '../../src/workspace/fs/workspaceCache';
import { type BenchContext, type Row, median } from '../report';
import { emulatorAdmin } from '../../test/unit/support/emulator';
import { nodeConnect } from '../../src/platform/node/network';

export async function run(ctx: BenchContext): Promise<void> {
	const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: ctx.emulatorUrl, getToken: () => ctx.token });
	let offset = 0;
	try {
		await emulatorAdmin(ctx.emulatorUrl, 'POST', '/reset', { seed: 'demo' });
		const agents = await client.listAgents({ limit: 100 });
		const agentId = agents.items.find((a) => a.name === 'Refactor billing module')?.id ?? agents.items[0]?.id;
		if (!agentId) {
			throw new Error('no agent in the demo seed');
		}
		const cache = new WorkspaceCache(() => client, { now: () => Date.now() + offset });
		const measure = async (fn: () => Promise<unknown>): Promise<number> => {
			await emulatorAdmin(ctx.emulatorUrl, 'POST', '/counters/reset');
			await fn();
			return (await emulatorAdmin<{ requests: { total: number } }>(ctx.emulatorUrl, 'GET', '/counters')).requests.total;
		};
		const steps: Array<{ name: string; floor: number; fn: () => Promise<unknown> }> = [
			{
				name: 'add folder + show root (stat, readDirectory, 5 probes of missing .vscode/… names)',
				floor: 1,
				fn: async () => {
					await cache.stat(agentId, '/');
					await cache.readDirectory(agentId, '/');
					for (const p of ['/.vscode', '/.vscode/settings.json', '/.vscode/tasks.json', '/.vscode/launch.json', '/.git']) {
						await cache.stat(agentId, p).catch(() => undefined);
					}
				},
			},
			{
				name: 'expand a subfolder (stat, readDirectory)',
				floor: 1,
				fn: async () => {
					await cache.stat(agentId, '/src');
					await cache.readDirectory(agentId, '/src');
				},
			},
			{
				name: 'open a listed file (stat ∥ readFile), listing 20 s old',
				floor: 1,
				fn: async () => {
					offset += 20_000;
					await Promise.all([cache.stat(agentId, '/src/index.ts'), cache.readFile(agentId, '/src/index.ts')]);
				},
			},
			{
				name: 'save (stat, writeFile, stat)',
				floor: 2,
				fn: async () => {
					offset += 5_000;
					await cache.stat(agentId, '/src/index.ts');
					await cache.writeFile(agentId, '/src/index.ts', Buffer.from('export {};\n'), { create: true, overwrite: true });
					await cache.stat(agentId, '/src/index.ts');
				},
			},
		];
		const rows: Row[] = [];
		for (const s of steps) {
			const n = await measure(s.fn);
			const ratio = n / s.floor;
			rows.push({
				metric: `requests ÷ floor: ${s.name}`,
				value: `${n} ÷ ${s.floor} = ${ratio.toFixed(1)}`,
				target: '1.0',
				pass: ratio <= 1,
			});
		}
		// A 3 MiB file: 1 request per 1 MiB chunk.
		await emulatorAdmin(ctx.emulatorUrl, 'POST', `/workspace/${agentId}/write`, {
			path: 'bench/big.bin',
			content_base64: Buffer.alloc(3 * 1024 * 1024, 7).toString('base64'),
		});
		cache.invalidate(agentId, 'bench/big.bin', 'created'); // what the run's file.changed event does
		await cache.readDirectory(agentId, '/bench');
		const chunks = await measure(() => cache.readFile(agentId, '/bench/big.bin'));
		rows.push({
			metric: 'requests ÷ floor: read a 3 MiB listed file',
			value: `${chunks} ÷ 3 = ${(chunks / 3).toFixed(1)}`,
			target: '1.0',
			pass: chunks <= 3,
		});

		ctx.log('seeding a 5,000-entry folder');
		const writes: Array<Promise<unknown>> = [];
		for (let i = 0; i < 5000; i++) {
			writes.push(
				emulatorAdmin(ctx.emulatorUrl, 'POST', `/workspace/${agentId}/write`, {
					path: `many/f${String(i).padStart(4, '0')}.txt`,
					content_base64: Buffer.from(String(i)).toString('base64'),
				}),
			);
			if (writes.length >= 100) {
				await Promise.all(writes.splice(0));
			}
		}
		await Promise.all(writes);
		const times: number[] = [];
		let listRequests = 0;
		for (let i = 0; i < 5; i++) {
			const fresh = new WorkspaceCache(() => client);
			const t0 = performance.now();
			listRequests = await measure(async () => {
				const entries = await fresh.readDirectory(agentId, '/many');
				if (entries.length !== 5000) {
					throw new Error(`listed ${entries.length} entries`);
				}
			});
			times.push(performance.now() - t0);
		}
		const ms = median(times);
		rows.push({
			metric: 'list a 5,000-entry folder (readDirectory, cold cache, median of 5)',
			value: `${ms.toFixed(0)} ms, ${listRequests} request(s)`,
			target: '< 1000 ms, 1 request',
			pass: ms < 1000 && listRequests === 1,
		});
		ctx.addSection({
			title: 'Workspace file system (cache layer, emulator request counter)',
			rows,
			notes: [
				'Floors: add folder + root = 1, expand = 1, open = 1 (+1 per further 1 MiB chunk), save = 2. The 5,000-entry timing includes the admin counter reset (one loopback request).',
			],
		});
	} finally {
		client.close();
	}
}
