import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ChannelCloser, workbenchShowsChannel } from '../../../src/util/outputChannels';
import * as fake from '../support/vscodeFake';

/**
 * src/util/outputChannels.ts: the workbench's `output:` documents are the fake's text documents,
 * opened and closed through its events; the channels record what is done to them.
 */
const docUri = (name: string, n = 1): vscode.Uri => fake.Uri.from({ scheme: 'output', path: `extension-output-pub.ext-#${n}-${name}` });

function channel(name: string) {
	const done: string[] = [];
	return {
		done,
		ch: {
			name,
			show: (preserveFocus?: boolean) => done.push(`show ${preserveFocus}`),
			hide: () => done.push('hide'),
			dispose: () => done.push('dispose'),
		} as unknown as vscode.OutputChannel,
	};
}
function open(uri: vscode.Uri): void {
	const doc = { uri };
	fake.workspace.textDocuments = [...fake.workspace.textDocuments, doc];
	fake.fire.openDoc.fire(doc);
}
function close(uri: vscode.Uri): void {
	const doc = fake.workspace.textDocuments.find((d) => (d as { uri: vscode.Uri }).uri.toString() === uri.toString());
	fake.workspace.textDocuments = fake.workspace.textDocuments.filter((d) => d !== doc);
	fake.fire.closeDoc.fire(doc);
}

suite('util/outputChannels', () => {
	let closer: ChannelCloser;
	setup(() => {
		closer = new ChannelCloser();
	});
	teardown(() => closer.dispose());

	test('workbenchShowsChannel: an output document of any extension whose name ends in exactly -#<n>-<name>', () => {
		fake.workspace.textDocuments = [
			{ uri: docUri('Cloud Agents: run 1', 3) },
			{ uri: docUri('a-Log', 12) },
			{ uri: fake.Uri.file('/x/Cloud Agents') },
		];
		assert.equal(workbenchShowsChannel('Cloud Agents: run 1'), true);
		assert.equal(workbenchShowsChannel('a-Log'), true);
		assert.equal(workbenchShowsChannel('Log'), false, 'a name that is only the end of another');
		assert.equal(workbenchShowsChannel('Cloud Agents'), false, 'a file: document is not a channel');
		fake.workspace.textDocuments = [{ uri: fake.Uri.from({ scheme: 'output', path: 'extension-output-pub.ext-#x-Log' }) }];
		assert.equal(workbenchShowsChannel('Log'), false);
	});

	test('a channel the view does not show is disposed at once when closed; closing twice does nothing more', () => {
		const { ch, done } = channel('Log');
		closer.close(ch);
		closer.close(ch);
		assert.deepEqual(done, ['dispose']);
		assert.equal(closer.isClosed(ch), true);
	});

	test('a channel the view shows is disposed only once its document closes (hide closes the view first)', () => {
		const { ch, done } = channel('Log');
		open(docUri('Log'));
		closer.close(ch, { hide: true });
		assert.deepEqual(done, ['hide']);
		close(docUri('Log'));
		assert.deepEqual(done, ['hide', 'dispose']);
	});

	test('closed while a reveal is on its way: hidden once it shows, disposed once the view lets go of it', () => {
		const { ch, done } = channel('Log');
		closer.reveal(ch, true);
		closer.close(ch, { hide: true });
		assert.deepEqual(done, ['show true'], 'not disposed while the workbench is about to load it');
		open(docUri('Log'));
		assert.deepEqual(done, ['show true', 'hide']);
		close(docUri('Log'));
		assert.deepEqual(done, ['show true', 'hide', 'dispose']);
	});

	test('a closed channel is never revealed again; dispose disposes every channel still waiting', () => {
		const { ch, done } = channel('Log');
		open(docUri('Log'));
		closer.close(ch);
		closer.reveal(ch, false);
		assert.deepEqual(done, []);
		closer.dispose();
		assert.deepEqual(done, ['dispose']);
	});
});
