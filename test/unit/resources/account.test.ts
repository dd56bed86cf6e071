import * as assert from 'node:assert/strict';
import { ACCOUNT_GROUPS, accountList } from '../../../src/resources/account';
import { checkpointsList } from '../../../src/resources/checkpoints';
import { githubRequestsList } from '../../../src/resources/github';
import { imagesList } from '../../../src/resources/images';
import { listContext, readList, rowContext } from './kit';

/** src/resources/account.ts: the Account view's group rows (on the vscode fake). */
suite('resources/account', () => {
	test('the groups are read without a request, in order, each its own list once', async () => {
		// No client: reading the groups must not reach for one.
		const groups = await readList(accountList, listContext(undefined), undefined);
		assert.deepEqual(
			groups.map((g) => g.list.key),
			ACCOUNT_GROUPS.map((g) => g.list.key),
		);
		assert.equal(groups[0]!.list, imagesList);
		assert.equal(groups.at(-1)!.list, githubRequestsList);
		assert.equal(new Set(groups.map((g) => g.list.key)).size, groups.length, 'a list in two groups');
		assert.deepEqual(
			accountList.groups,
			groups.map((g) => g.list),
		);
		// A copy: a caller changing the array cannot change the view's groups.
		groups.pop();
		assert.equal((await readList(accountList, listContext(undefined), undefined)).length, ACCOUNT_GROUPS.length);
	});

	test('a group row: the list title, the group codicon and group:<kind>', () => {
		const ctx = rowContext(listContext(undefined), undefined);
		const checkpoints = ACCOUNT_GROUPS.find((g) => g.list === checkpointsList)!;
		const row = accountList.row(checkpoints, ctx);
		assert.equal(row.label, 'Checkpoints');
		assert.equal(row.icon?.id, 'history');
		assert.equal(row.contextValue, 'group:checkpoint');
		for (const group of ACCOUNT_GROUPS) {
			const r = accountList.row(group, ctx);
			assert.equal(r.contextValue, `group:${group.list.kind}`);
			assert.ok(r.label.length > 0 && r.label !== group.list.key, `${group.list.key} has no title`);
		}
	});

	test('a group without a title is labelled by its key; a group is keyed by its list', () => {
		const untitled = { list: { ...imagesList, title: undefined }, icon: 'x' };
		assert.equal(accountList.row(untitled, rowContext(listContext(undefined), undefined)).label, 'images');
		assert.equal(accountList.keyOf(untitled), 'images');
		assert.deepEqual(accountList.fields(untitled, undefined), { group: untitled });
	});
});
