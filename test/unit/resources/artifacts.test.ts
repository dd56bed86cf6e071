import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent, Artifact } from '../../../src/api';
import {
	ARTIFACT_READ_CAP_BYTES,
	artifactActions,
	artifactKind,
	artifactNameProblem,
	artifactsList,
	exceedsReadCap,
	languageOf,
	mediaTypeOf,
	toArtifactName,
} from '../../../src/resources/artifacts';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, type FakeKitOptions, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/artifacts.ts: rows from the emulator's artifacts, open/save/upload/delete against it. */
suite('resources/artifacts', () => {
	const env = emulatorPerSuite();
	let billing: Agent;
	let artifacts: Artifact[];
	let shown: Array<{ uri: vscode.Uri; content: unknown; language?: string }>;
	let state: Map<string, unknown>;

	setup(async () => {
		billing = (await env.client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Refactor billing module')!;
		artifacts = await readList(artifactsList, listContext(env.client), billing);
		shown = [];
		state = new Map();
	});

	const artifact = (name: string): Artifact => {
		const a = artifacts.find((x) => x.name === name);
		assert.ok(a, `no artifact ${name}`);
		return a;
	};
	const kitOf = (opts: FakeKitOptions = {}) =>
		fakeKit({
			client: env.client,
			...opts,
			extra: {
				records: {
					show: async (uri: vscode.Uri, content: string, language: string) => void shown.push({ uri, content, language }),
				},
				images: { show: async (uri: vscode.Uri, content: Uint8Array) => void shown.push({ uri, content }) },
				context: {
					globalState: { get: (k: string) => state.get(k), update: async (k: string, v: unknown) => void state.set(k, v) },
				},
				userFiles: { homeFolder: () => vscode.Uri.file('/home/ada'), knownHosts: undefined },
				resolve: async () => undefined,
				selected: () => billing,
				...opts.extra,
			} as never,
		});
	const mutations = async (kind: string): Promise<number> => (await env.emu.counters()).mutations.by_kind[kind] ?? 0;

	test('rows: kind from the media type, the click opens, the run in the tooltip', () => {
		assert.deepEqual(artifacts.map((a) => a.name).sort(), ['coverage-chart.png', 'pr-summary.md', 'public-functions.txt']);
		const md = artifactsList.row(artifact('pr-summary.md'), rowContext(listContext(env.client), billing, billing.id));
		assert.equal(md.contextValue, 'artifact:text');
		assert.equal(md.icon?.id, 'file-text');
		assert.equal(md.command?.command, 'cloudAgents.artifacts.open');
		assert.match(tooltipText(md.tooltip), new RegExp(`Run: ${artifact('pr-summary.md').run_id}`));
		const png = artifactsList.row(artifact('coverage-chart.png'), rowContext(listContext(env.client), billing, billing.id));
		assert.equal(png.contextValue, 'artifact:image');
		assert.equal(png.icon?.id, 'file-media');
		const big = { ...artifact('public-functions.txt'), size: ARTIFACT_READ_CAP_BYTES + 1 };
		assert.equal(artifactsList.row(big, rowContext(listContext(env.client), billing, billing.id)).contextValue, 'artifact:text:large');
		assert.deepEqual(artifactsList.fields(artifact('pr-summary.md'), billing.id), {
			agentId: billing.id,
			artifact: artifact('pr-summary.md'),
		});
	});

	test('artifactKind, languageOf and mediaTypeOf', () => {
		assert.equal(artifactKind({ media_type: 'image/PNG', name: 'x' }), 'image');
		assert.equal(artifactKind({ media_type: 'image/tiff', name: 'x.tiff' }), 'binary');
		assert.equal(artifactKind({ media_type: 'application/json', name: 'x' }), 'text');
		assert.equal(artifactKind({ media_type: '', name: 'notes.MD' }), 'text');
		assert.equal(artifactKind({ media_type: 'application/octet-stream', name: 'blob.bin' }), 'binary');
		assert.equal(artifactKind({ media_type: 'application/pdf', name: 'x.txt' }), 'binary');
		assert.equal(languageOf({ media_type: 'text/markdown', name: 'x.txt' }), 'markdown');
		assert.equal(languageOf({ media_type: 'text/plain', name: 'x.py' }), 'python');
		assert.equal(languageOf({ media_type: 'text/plain', name: 'x.unknown' }), 'plaintext');
		assert.equal(mediaTypeOf('Chart.PNG'), 'image/png');
		assert.equal(mediaTypeOf('archive.tar.gz'), 'application/octet-stream');
		assert.equal(mediaTypeOf('noext'), 'application/octet-stream');
	});

	test('artifact names: checked against the pattern; a file name made valid', () => {
		assert.equal(artifactNameProblem('report-1.md'), undefined);
		assert.match(artifactNameProblem('-leading')!, /letter or digit first/);
		assert.match(artifactNameProblem('has space')!, /1 to 255 ASCII/);
		assert.match(artifactNameProblem('a'.repeat(256))!, /1 to 255/);
		assert.equal(toArtifactName('My Report (final).md'), 'My-Report--final-.md');
		assert.equal(toArtifactName('..hidden'), 'hidden');
		assert.equal(toArtifactName('日本'), 'artifact');
		assert.equal(toArtifactName('x'.repeat(300)).length, 255);
	});

	test('the read cap counts the base64 answer, not the bytes', () => {
		assert.equal(exceedsReadCap(undefined), false);
		assert.equal(exceedsReadCap((ARTIFACT_READ_CAP_BYTES / 4) * 3), false);
		assert.equal(exceedsReadCap((ARTIFACT_READ_CAP_BYTES / 4) * 3 + 1), true);
	});

	test('Open a text artifact: a read-only record titled by its name, in its language', async () => {
		const { kit } = kitOf();
		await artifactActions.open.run({ agentId: billing.id, artifact: artifact('pr-summary.md') }, kit);
		assert.equal(shown.length, 1);
		assert.equal(shown[0]!.language, 'markdown');
		assert.match(shown[0]!.content as string, /^# Billing refactor/);
		assert.ok(shown[0]!.uri.path.includes('pr-summary.md'), shown[0]!.uri.toString());
	});

	test('Open an image artifact: the image preview gets its bytes (a PNG)', async () => {
		const { kit } = kitOf();
		await artifactActions.open.run({ agentId: billing.id, artifact: artifact('coverage-chart.png') }, kit);
		const bytes = shown[0]!.content as Uint8Array;
		assert.deepEqual([...bytes.slice(1, 4)], [0x50, 0x4e, 0x47]);
	});

	test('Open a binary or too-large artifact: nothing read, only saving offered (not for one past the cap)', async () => {
		const asked: unknown[][] = [];
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => void asked.push(args));
		const before = (await env.emu.counters()).requests.total;
		const { kit } = kitOf();
		const binary = { ...artifact('public-functions.txt'), media_type: 'application/zip', name: 'x.zip' };
		assert.equal(await artifactActions.open.run({ agentId: billing.id, artifact: binary }, kit), undefined);
		assert.deepEqual(asked[0], [
			'The artifact x.zip is binary (application/zip); save it to open it with another program.',
			'Save As…',
		]);
		const large = { ...artifact('public-functions.txt'), size: 3 * 1024 * 1024 };
		await artifactActions.open.run({ agentId: billing.id, artifact: large }, kit);
		assert.equal(asked[1]!.length, 1, 'no Save As for an artifact past the cap');
		assert.match(asked[1]![0] as string, /larger than the service returns in one answer \(2 MiB output cap\)/);
		assert.equal((await env.emu.counters()).requests.total, before);
		assert.equal(shown.length, 0);
	});

	test("Open when the service says it is past the cap (422): the too-large message with the service's words", async () => {
		await env.emu.faults([{ method: 'GET', route: '/v2/agents/{agent_id}/artifacts/{artifact_id}', status: 422 }]);
		const { kit } = kitOf();
		await assert.rejects(
			artifactActions.open.run({ agentId: billing.id, artifact: artifact('pr-summary.md') }, kit),
			(err: Error) =>
				/^The artifact pr-summary\.md \(.*\) is larger than the service returns in one answer/.test(err.message) &&
				err.cause !== undefined,
		);
	});

	test('Save to a target (automation): the bytes written there, nothing remembered', async () => {
		const { kit } = kitOf({ arg: automation({ target: '/tmp/out/summary.md' }), automation: true });
		const dest = (await artifactActions.save.run({ agentId: billing.id, artifact: artifact('pr-summary.md') }, kit)) as vscode.Uri;
		assert.equal(dest.toString(), vscode.Uri.file('/tmp/out/summary.md').toString());
		assert.match(new TextDecoder().decode(fake.memoryFiles.get(dest.toString())), /^# Billing refactor/);
		assert.equal(state.size, 0);
		assert.equal(fake.calls('window.showSaveDialog').length, 0);
	});

	test('Save with the dialog: starts in the home folder with a safe file name, then remembers the folder chosen', async () => {
		const offered: Array<{ defaultUri?: vscode.Uri }> = [];
		fake.answer('window.showSaveDialog', async (o: { defaultUri?: vscode.Uri }) => {
			offered.push(o);
			return vscode.Uri.file('/work/saved/chart.png');
		});
		const { kit } = kitOf();
		const weird = { ...artifact('coverage-chart.png'), name: '../../etc/passwd' };
		await artifactActions.save.run({ agentId: billing.id, artifact: weird }, kit);
		assert.equal(vscode.Uri.joinPath(offered[0]!.defaultUri!, '..').path, '/home/ada', 'the server name never picks the folder');
		assert.ok(!offered[0]!.defaultUri!.path.includes('/etc/'), offered[0]!.defaultUri!.path);
		assert.equal(state.get('cloudAgents.artifacts.lastSaveFolder'), vscode.Uri.file('/work/saved').toString());
		assert.ok(fake.memoryFiles.has(vscode.Uri.file('/work/saved/chart.png').toString()));
		await artifactActions.save.run({ agentId: billing.id, artifact: artifact('pr-summary.md') }, kit);
		assert.equal(offered[1]!.defaultUri!.toString(), vscode.Uri.file('/work/saved/pr-summary.md').toString());
	});

	test('Save dismissed, or past the read cap: nothing read or written', async () => {
		const { kit, log } = kitOf();
		assert.equal(await artifactActions.save.run({ agentId: billing.id, artifact: artifact('pr-summary.md') }, kit), undefined);
		const large = { ...artifact('public-functions.txt'), size: 3 * 1024 * 1024 };
		assert.equal(await artifactActions.save.run({ agentId: billing.id, artifact: large }, kit), undefined);
		assert.equal(log.warnings.length, 1);
		assert.equal(fake.memoryFiles.size, 0);
	});

	test('Upload (automation): the file sent as an artifact of the run, named from the file, the list refreshed', async () => {
		const file = vscode.Uri.file('/tmp/My Notes.md');
		fake.memoryFiles.set(file.toString(), new TextEncoder().encode('# notes\n'));
		const runId = artifact('pr-summary.md').run_id;
		const { kit, log } = kitOf({ arg: automation({ file: file.fsPath, runId }), automation: true });
		const created = (await artifactActions.upload.run({ agent: billing }, kit)) as Artifact;
		assert.equal(created.name, 'My-Notes.md');
		assert.equal(created.media_type, 'text/markdown');
		assert.equal(created.run_id, runId);
		assert.deepEqual(log.listRefreshes, ['artifacts']);
		const back = await env.client.readArtifactContent(billing.id, created.id);
		assert.equal(new TextDecoder().decode(back.content), '# notes\n');
	});

	test('Upload refused before sending: a name that breaks the pattern, a file past 32 MiB', async () => {
		const file = vscode.Uri.file('/tmp/a.txt');
		fake.memoryFiles.set(file.toString(), new TextEncoder().encode('x'));
		const runId = artifact('pr-summary.md').run_id;
		const bad = kitOf({ arg: automation({ file: file.fsPath, runId, name: 'bad name!' }), automation: true });
		assert.equal(await artifactActions.upload.run({ agent: billing }, bad.kit), undefined);
		assert.match(bad.log.warnings[0]!, /^Not uploaded: the name "bad name!" must be 1 to 255 ASCII/);
		const big = vscode.Uri.file('/tmp/big.bin');
		fake.memoryFiles.set(big.toString(), new Uint8Array(32 * 1024 * 1024 + 1));
		const large = kitOf({ arg: automation({ file: big.fsPath, runId }), automation: true });
		assert.equal(await artifactActions.upload.run({ agent: billing }, large.kit), undefined);
		assert.match(large.log.warnings[0]!, /^Not uploaded: big\.bin is .*; artifacts may be at most 32 MiB\./);
		assert.equal(await mutations('artifacts.create'), 0);
	});

	test('Upload by a person: the name asked, prefilled and checked; dismissing sends nothing', async () => {
		const file = vscode.Uri.file('/tmp/x y.txt');
		fake.memoryFiles.set(file.toString(), new TextEncoder().encode('x'));
		fake.answer('window.showOpenDialog', async () => [file]);
		let asked: { value: string; validateInput: (v: string) => string | undefined } | undefined;
		fake.answer('window.showInputBox', async (o: typeof asked) => {
			asked = o;
			return undefined;
		});
		const { kit } = kitOf({ extra: { resolve: async () => ({ run: { id: artifact('pr-summary.md').run_id } }) } as never });
		assert.equal(await artifactActions.upload.run({ agent: billing }, kit), undefined);
		assert.equal(asked!.value, 'x-y.txt');
		assert.equal(asked!.validateInput('ok.txt'), undefined);
		assert.ok(asked!.validateInput('no good'));
		assert.equal(await mutations('artifacts.create'), 0);
	});

	test('Delete: asks first; declined keeps it; confirmed deletes it and refreshes', async () => {
		const target = { agentId: billing.id, artifact: artifact('public-functions.txt') };
		const no = kitOf({ confirm: false });
		assert.equal(await artifactActions.delete.run(target, no.kit), false);
		assert.deepEqual(no.log.confirms[0], {
			message: 'Delete the artifact "public-functions.txt"?',
			detail: 'This cannot be undone.',
			action: 'Delete Artifact',
		});
		assert.equal(await mutations('artifacts.delete'), 0);
		const yes = kitOf({ confirm: true });
		assert.equal(await artifactActions.delete.run(target, yes.kit), true);
		assert.equal(yes.log.refreshes, 1);
		assert.ok(!(await env.client.listArtifacts(billing.id)).some((a) => a.id === target.artifact.id));
	});
});
