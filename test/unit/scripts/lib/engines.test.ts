import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The Node versions the project says it supports (package.json `engines.node`, README
// "Prerequisites") against what every package of package-lock.json accepts: `npm ci` on a Node the
// project supports must print no "EBADENGINE Unsupported engine" (issue 33, item 13: cookie@2.0.2,
// pulled by fastify → light-my-request, wanted Node ≥ 22 while the README said 20.18.1 was enough).

type Version = [number, number, number];
interface EnginesModule {
	rangeIntervals(range: string): [Version, Version][];
	rangeWithin(range: string, accepted: string): boolean;
	versionText(v: Version): string;
	enginesConflicts(lock: unknown): { path: string; version: string; node: string }[];
}

// Compiled to out/test/unit/scripts/lib/, so the repository root is five levels up.
const ROOT = join(__dirname, '..', '..', '..', '..', '..');

suite('scripts/lib/engines', () => {
	let m: EnginesModule;
	suiteSetup(async () => {
		m = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'engines.mjs')).href)) as EnginesModule;
	});

	const text = (range: string): string =>
		m
			.rangeIntervals(range)
			.map(([lo, hi]) => `[${m.versionText(lo)}, ${m.versionText(hi)})`)
			.join(' ');

	test('reads the range forms npm packages write', () => {
		assert.equal(text('>=20.18.1'), '[20.18.1, ∞)');
		assert.equal(text('>= 18'), '[18.0.0, ∞)');
		assert.equal(text('>= 10.x'), '[10.0.0, ∞)');
		assert.equal(text('>=22'), '[22.0.0, ∞)');
		assert.equal(text('>20'), '[21.0.0, ∞)');
		assert.equal(text('>20.18.1'), '[20.18.2, ∞)');
		assert.equal(text('^20.19.0 || ^22.13.0 || >=24'), '[20.19.0, 21.0.0) [22.13.0, 23.0.0) [24.0.0, ∞)');
		assert.equal(text('20 || >=22'), '[20.0.0, 21.0.0) [22.0.0, ∞)');
		assert.equal(text('18 || 20 || >=22'), '[18.0.0, 19.0.0) [20.0.0, 21.0.0) [22.0.0, ∞)');
		assert.equal(text('>=22.12.0 || >=20.19.0 <21.0.0'), '[20.19.0, 21.0.0) [22.12.0, ∞)');
		assert.equal(text('>=16 || 14 >=14.17'), '[14.17.0, 15.0.0) [16.0.0, ∞)');
		assert.equal(text('>=0.6.11 <=0.7.0 || >=0.7.3'), '[0.6.11, 0.7.1) [0.7.3, ∞)');
		assert.equal(text('^18.18.0 || ^20.9.0 || >=21.1.0'), '[18.18.0, 19.0.0) [20.9.0, 21.0.0) [21.1.0, ∞)');
		assert.equal(text('^0.2.3'), '[0.2.3, 0.3.0)');
		assert.equal(text('^0.0.3'), '[0.0.3, 0.0.4)');
		assert.equal(text('~1.2.3'), '[1.2.3, 1.3.0)');
		assert.equal(text('~1'), '[1.0.0, 2.0.0)');
		assert.equal(text('1.2 - 2.3'), '[1.2.0, 2.4.0)');
		assert.equal(text('<20'), '[0.0.0, 20.0.0)');
		assert.equal(text('*'), '[0.0.0, ∞)');
		assert.equal(text(''), '[0.0.0, ∞)');
		assert.equal(text('v18'), '[18.0.0, 19.0.0)');
		// Adjacent and overlapping alternatives merge; an empty one is dropped.
		assert.equal(text('>=18 <20 || 20.x || >=21'), '[18.0.0, ∞)');
		assert.equal(text('>=22 <20'), '');
	});

	test('refuses syntax it does not know instead of guessing', () => {
		assert.throws(() => m.rangeIntervals('>=lts'), /cannot read the engines range ">=lts"/);
		assert.throws(() => m.rangeIntervals('node 20'), /cannot read the engines range/);
	});

	test('a range is within another only when every version it admits is admitted there', () => {
		assert.equal(m.rangeWithin('^20.19.0 || ^22.13.0 || >=24', '>=18'), true);
		assert.equal(m.rangeWithin('^20.19.0 || ^22.13.0 || >=24', '^20.19.0 || >=22.12.0'), true);
		assert.equal(m.rangeWithin('^20.19.0 || ^22.13.0 || >=24', '>=22.12.0 || >=20.19.0 <21.0.0'), true);
		assert.equal(m.rangeWithin('^20.19.0 || ^22.13.0 || >=24', '20 || >=22'), true);
		// What the project said before issue 33, against what its packages accepted.
		assert.equal(m.rangeWithin('>=20.18.1', '>=22'), false);
		assert.equal(m.rangeWithin('>=20.18.1', '^20.19.0 || ^22.13.0 || >=24'), false);
		assert.equal(m.rangeWithin('>=20.19.0', '^20.19.0 || >=22.12.0'), false, '21.x is outside');
		assert.equal(m.rangeWithin('^20.19.0', '>=22'), false);
	});

	test('lists the packages of a lockfile whose engines.node leaves out a Node the project supports', () => {
		const lock = {
			packages: {
				'': { engines: { node: '>=20.18.1' } },
				'node_modules/a': { version: '1.0.0', engines: { node: '>=18' } },
				'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } },
				'node_modules/b': { version: '1.0.0' },
			},
		};
		assert.deepEqual(m.enginesConflicts(lock), [{ path: 'node_modules/cookie', version: '2.0.2', node: '>=22' }]);
		assert.throws(() => m.enginesConflicts({ packages: { '': {} } }), /no engines\.node for the project itself/);
	});

	test('every installed package accepts every Node the project supports (npm ci: no EBADENGINE)', () => {
		const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
		const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
			packages: Record<string, { engines?: { node?: string } }>;
		};
		assert.equal(
			lock.packages['']?.engines?.node,
			pkg.engines.node,
			'package-lock.json is not up to date with package.json engines.node',
		);
		const conflicts = m.enginesConflicts(lock).map((c) => `${c.path}@${c.version} wants Node ${c.node}`);
		assert.deepEqual(conflicts, [], `package.json says Node ${pkg.engines.node}`);
		// The machine and CI run Node 20: the project must support it.
		assert.equal(m.rangeWithin('20.19.0', pkg.engines.node), true);
		assert.equal(
			m.rangeWithin(process.versions.node, pkg.engines.node),
			true,
			`this Node (${process.versions.node}) is outside engines.node`,
		);
	});

	test('the README names the Node versions package.json names', () => {
		const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
		const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
		const prerequisites = /## Prerequisites\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
		assert.ok(prerequisites.includes(`\`${pkg.engines.node}\``), `README "Prerequisites" does not name ${pkg.engines.node}`);
	});
});
