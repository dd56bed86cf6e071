/**
 * Issue 21 against a hostile server: agent-side names and run events crafted to reach outside the
 * linked local folder (`..`, absolute paths, backslashes, control characters, a local symbolic link
 * pointing out) can never make Compare, Apply to Local or Apply All write or delete outside it.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import type { ApplyAnswer } from '../../../src/changes/apply';
import type { ComparisonAnswer } from '../../../src/changes/changesFeature';
import { AGENT_ID, agent, run, workspaceEntry } from '../../hostile/fixtures';
import { type HostileServer, json, sseFrame, sseStart } from '../../hostile/server';
import { workspaceRoutes } from '../../unit/workspace/fs/hostileWorkspace';
import { shownChanges, testApi, waitFor, writtenText } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { type HostileSession, useHostileServer } from '../support/hostile';

/** After the run's start (2026-11-23T10:00:00Z), so every file counts as changed by the agent. */
const MTIME = Date.parse('2026-11-24T00:00:00Z');

/** Every path under `dir` (files and links), relative, sorted. */
async function tree(dir: string): Promise<string[]> {
	const out: string[] = [];
	const walk = async (d: string): Promise<void> => {
		for (const e of await readdir(d, { withFileTypes: true })) {
			const p = join(d, e.name);
			out.push(relative(dir, p));
			if (e.isDirectory()) {
				await walk(p);
			}
		}
	};
	await walk(dir);
	return out.sort();
}

suite('Hostile server: agent changes never reach outside the linked folder (issue 21)', () => {
	let hostile: HostileSession;
	let server: HostileServer;
	let parent: string;

	suiteSetup(async function () {
		this.timeout(60_000);
		const api = await testApi();
		hostile = await useHostileServer(api, { description: 'starting', routes: {} }, { signIn: 'store' });
		server = hostile.server;
		const entry = (name: string, type: 'file' | 'directory' = 'file'): Record<string, unknown> =>
			workspaceEntry(name, type, { mtime_unix_ms: MTIME, size: type === 'file' ? 7 : 0 });
		const listings: Record<string, Record<string, unknown>[]> = {
			'': [
				entry('ok.txt'),
				entry('..'),
				entry('.'),
				entry('../escape.txt'),
				entry('..\\evil.txt'),
				entry('/abs.txt'),
				entry('nul\u0000.txt'),
				entry('linked', 'directory'),
				entry('sub', 'directory'),
			],
			sub: [entry('deep.txt'), entry('../../up.txt'), entry('a/../../b.txt')],
			linked: [entry('x.txt')],
		};
		server.use({
			description: 'issue 21: hostile names and run events',
			routes: {
				'GET /v2/me': (_req, res) => json(res, 200, { id: 'user_hostile', email: 'hostile@example.invalid' }),
				'GET /v2/agents': (_req, res) => json(res, 200, { agents: [agent()] }),
				// Compare with Local Folder reads the agent it is given (`{agentId}`).
				'GET /v2/agents/*': (_req, res) => json(res, 200, agent()),
				'GET /v2/agents/*/runs': (_req, res) => json(res, 200, { runs: [run({ status: 'succeeded' })] }),
				'GET /v2/agents/*/runs/*/events': (_req, res) => {
					const write = sseStart(res);
					let seq = 0;
					for (const path of ['../outside.txt', '../../outside.txt', '/etc/hosts', 'sub/../../outside.txt', '..\\outside.txt']) {
						write(sseFrame(seq++, 'file.changed', { path, change: 'deleted' }));
					}
					write(sseFrame(seq, 'run.completed', { status: 'succeeded' }));
					res.end();
				},
				'GET /v2/agents/*/runs/*': (_req, res) => json(res, 200, run({ status: 'succeeded' })),
				...workspaceRoutes({
					list: (path) => listings[path],
					file: () => ({ content: Buffer.from('hostile'), mtime: MTIME }),
				}),
			},
		});
		parent = await mkdtemp(join(tmpdir(), 'ca-hostile-link-'));
	});

	suiteTeardown(async function () {
		this.timeout(60_000);
		await closeAllEditors();
		await hostile.restore();
		await rm(parent, { recursive: true, force: true });
	});

	test('crafted names and deletion events are skipped; Apply All writes only inside; a symlinked local folder is not written through', async function () {
		this.timeout(60_000);
		const local = join(parent, 'linked-folder');
		const outside = join(parent, 'outside');
		await mkdir(local);
		await mkdir(outside);
		await writeFile(join(parent, 'outside.txt'), 'mine\n');
		await symlink(outside, join(local, 'linked'), 'dir');

		const answer = await vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.compareWithLocal', {
			automation: true,
			agentId: AGENT_ID,
			agentName: 'Hostile agent',
			localFolder: local,
		});
		assert.equal(answer.error, undefined, answer.error);
		try {
			assert.deepEqual(
				answer.differences.map((d) => [d.path, d.kind]),
				[
					['linked/x.txt', 'added'],
					['ok.txt', 'added'],
					['sub/deep.txt', 'added'],
				],
			);
			assert.match(answer.incomplete ?? '', /could not be used as a local path/);

			const applied = await vscode.commands.executeCommand<ApplyAnswer>('cloudAgents.changes.applyAllToLocal', {
				automation: true,
				link: answer.link,
			});
			// linked/x.txt would be written through the symbolic link: refused, and the caller told why.
			assert.deepEqual([...applied.applied].sort(), ['ok.txt', 'sub/deep.txt']);
			assert.deepEqual(
				applied.refused.map((r) => r.path),
				['linked/x.txt'],
			);
			assert.match(applied.refused[0]?.reason ?? '', /symbolic link/);
			const api = await testApi();
			const logged = (text: string): Promise<true> =>
				waitFor(`the log to read ${JSON.stringify(text)}`, async () =>
					(await writtenText(api)).some((f) => f.text.includes(text) && f.text.includes('linked/x.txt')) ? true : undefined,
				);
			await logged('cloudAgents.changes.applyAllToLocal (automation): not shown:');
			// The same Apply All as a Source Control menu runs it for a person (the link's id, no marker):
			// the refusal is shown to the person, and the file stays listed.
			const byPerson = await vscode.commands.executeCommand<ApplyAnswer>('cloudAgents.changes.applyAllToLocal', {
				link: answer.link,
			});
			assert.deepEqual(
				byPerson.refused.map((r) => r.path),
				['linked/x.txt'],
			);
			await logged('cloudAgents.changes.applyAllToLocal: shown:');
			const listed = shownChanges(await testApi(), answer.link, local);
			assert.deepEqual(
				listed?.map((d) => d.path),
				['linked/x.txt'],
				'the refused file stays listed',
			);
			assert.deepEqual(await tree(parent), [
				'linked-folder',
				'linked-folder/linked',
				'linked-folder/ok.txt',
				'linked-folder/sub',
				'linked-folder/sub/deep.txt',
				'outside',
				'outside.txt',
			]);
			assert.deepEqual(await readdir(outside), [], 'nothing written through the link');
			assert.equal(await readFile(join(parent, 'outside.txt'), 'utf8'), 'mine\n', 'the deletion events named no file of ours');
			assert.equal(existsSync('/etc/hosts'), true);
			assert.equal(
				server.requestsTo('PUT /v2/agents/*/workspace/files').length +
					server.requestsTo('DELETE /v2/agents/*/workspace/files').length,
				0,
				'nothing sent to the agent',
			);
		} finally {
			await vscode.commands.executeCommand('cloudAgents.changes.unlink', { automation: true, link: answer.link });
		}
	});

	test('the marker decides who hears of a failure: an automation caller gets the error, a click without it is shown it', async function () {
		this.timeout(30_000);
		await assert.rejects(
			Promise.resolve(vscode.commands.executeCommand('cloudAgents.changes.refresh', { automation: true, link: 'no-such-link' })),
			/No link no-such-link/,
		);
		// A plain object without the marker (what Source Control's menus and a resource's click pass) is
		// a person's: the registry shows the error and the caller gets nothing back.
		assert.equal(await vscode.commands.executeCommand('cloudAgents.changes.refresh', { link: 'no-such-link' }), undefined);
		await vscode.commands.executeCommand('notifications.clearAll');
	});
});
