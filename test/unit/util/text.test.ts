import * as assert from 'node:assert/strict';
import { SAFETY } from '../../../src/base/limits';
import {
	ELLIPSIS,
	NEWLINE_MARK,
	cut,
	iconSafe,
	markdownText,
	notificationText,
	outputLine,
	plainText,
	singleLine,
	unlink,
} from '../../../src/util/text';

/** Every bidi control the module promises to remove. */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
/** C0 (without tab and newline), DEL and C1 controls. */
const CONTROLS = [
	...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).filter((c) => c !== '\t' && c !== '\n'),
	'\u007f',
	...Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)),
];
const FORBIDDEN = new RegExp(
	`[${[...BIDI, ...CONTROLS.filter((c) => c !== '\r')].join('').replace(/[\]\\^-]/g, '\\$&')}\\r\\u200b\\ufeff\\u2028\\u2029]`,
);

suite('Server text made safe (src/util/text.ts)', () => {
	test('removes every bidi override, embedding, isolate and mark', () => {
		const spoof = `invoice${BIDI.join('')}fdp.exe`;
		assert.equal(plainText(spoof), 'invoicefdp.exe');
		assert.equal(singleLine('\u202eevil\u202c name'), 'evil name');
	});

	test('removes C0 and C1 control characters and ANSI escapes; keeps newline and tab only in plainText', () => {
		for (const c of CONTROLS) {
			const cleaned = plainText(`a${c}b`);
			assert.ok(!FORBIDDEN.test(cleaned), `U+${c.charCodeAt(0).toString(16).padStart(4, '0')} survived: ${JSON.stringify(cleaned)}`);
		}
		assert.equal(plainText('\u001b[31mred\u001b[0m\u0000!'), 'red!');
		assert.equal(plainText('one\r\ntwo\rthree\u2028four\u0085five'), 'one\ntwo\nthree\nfour\nfive');
		assert.equal(plainText('a\tb'), 'a\tb');
	});

	test('removes invisible spoofing characters but keeps joiners that scripts need', () => {
		assert.equal(singleLine('pay\u200bpal\ufeff\u2060\u00ad'), 'paypal');
		assert.equal(singleLine('👨\u200d👩'), '👨\u200d👩');
	});

	test('singleLine puts everything on one line: no line break of any kind survives', () => {
		const text = singleLine('first\nsecond\r\nthird\rfourth\u2028fifth\u2029sixth\u0085seventh\u000bend');
		assert.equal(text, 'first second third fourth fifth sixth seventh end');
		assert.equal(singleLine('  lots   of\t\tspace  '), 'lots of space');
	});

	test('cuts to the limit with an ellipsis, never splitting a surrogate pair', () => {
		assert.equal(singleLine('x'.repeat(500)).length, SAFETY.labelMaxChars);
		assert.ok(singleLine('x'.repeat(500)).endsWith(ELLIPSIS));
		assert.equal(plainText('y'.repeat(10_000)).length, SAFETY.tooltipMaxChars);
		assert.equal(cut('abc', 3), 'abc');
		assert.equal(cut('abcd', 3), `ab${ELLIPSIS}`);
		const emoji = cut(`a${'😀'.repeat(10)}`, 4);
		assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(emoji), `a lone high surrogate in ${JSON.stringify(emoji)}`);
		// Cutting is idempotent, so a row cleaned twice stays the same.
		const once = singleLine('z'.repeat(300));
		assert.equal(singleLine(once), once);
	});

	test('notificationText leaves no link VS Code would render: [label](command:…), [label](https:…), bare command:', () => {
		// The pattern VS Code's notification renderer turns into anchors (vs/base/common/linkedText.ts).
		const linkPattern = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
		const hostile = [
			'Failed. [Open settings](command:workbench.action.openSettings)',
			'[x](https://evil.example/steal)',
			'[f](file:///etc/passwd)',
			'[a]\n(command:x)',
			'[CMD](COMMAND:workbench.action.terminal.new)',
			'\\[esc](command:workbench.action.openSettings)',
			'[nested [x]](command:a)',
			`[a${'\u200b'}](command:b)`,
		];
		for (const text of hostile) {
			const safe = notificationText(text);
			assert.equal(safe.match(linkPattern), null, `${JSON.stringify(text)} still forms a link: ${JSON.stringify(safe)}`);
			assert.ok(!/command:\S/i.test(safe), `a bare command URI survives in ${JSON.stringify(safe)}`);
		}
		assert.equal(
			notificationText('Failed. [Open](command:workbench.action.openSettings)'),
			'Failed. [Open] (command: workbench.action.openSettings)',
		);
		assert.equal(notificationText('plain message'), 'plain message');
		assert.equal(notificationText('n'.repeat(5000)).length, SAFETY.notificationMaxChars);
		assert.equal(unlink('a](b'), 'a] (b');
	});

	test('outputLine shows line breaks as ⏎ so text cannot start a line of its own', () => {
		const line = outputLine('log\n12:00:00.000  run.completed  succeeded');
		assert.ok(!line.includes('\n'));
		assert.equal(line, `log ${NEWLINE_MARK} 12:00:00.000 run.completed succeeded`);
		assert.equal(outputLine('o'.repeat(SAFETY.outputLineMaxChars + 10)).length, SAFETY.outputLineMaxChars);
	});

	test('iconSafe escapes $(icon) syntax for quick picks and the status bar', () => {
		assert.equal(iconSafe('$(check) trusted'), '\\$(check) trusted');
	});

	test('markdownText escapes everything that starts a link, image, autolink, HTML or entity', () => {
		const text = markdownText(
			'See [docs](command:workbench.action.openSettings) ![i](https://t.example/p.png) <a href="command:x">y</a> &#99;ommand: \\[x](command:y)\n# Heading',
		);
		assert.ok(!/(^|[^\\])\[/.test(text.replace(/\\\\/g, '')), `an unescaped [ in ${text}`);
		assert.ok(!/(^|[^\\])</.test(text), `an unescaped < in ${text}`);
		assert.ok(!/(^|[^\\])&/.test(text), `an unescaped & in ${text}`);
		assert.ok(text.endsWith('\n# Heading'), 'Markdown structure other than links stays');
		assert.equal(markdownText('a\\[b'), 'a\\\\\\[b');
		assert.equal(markdownText('## Done\n\nTask: x'), '## Done\n\nTask: x');
	});

	test('non-string values become text or nothing, never throw', () => {
		assert.equal(singleLine(undefined), '');
		assert.equal(singleLine(null), '');
		assert.equal(singleLine(42), '42');
		assert.equal(plainText({ toString: () => 'x' }), '');
	});
});
