import * as assert from 'node:assert/strict';
import { NETWORK_SETTINGS, NetworkSettingsSource, readNetworkSettings } from '../../../src/auth/networkSettings';
import * as fake from '../support/vscodeFake';

/** src/auth/networkSettings.ts: the `http.*` settings read from the `vscode` fake's configuration. */
suite('auth/networkSettings', () => {
	let logged: string[];
	let source: NetworkSettingsSource;
	setup(() => {
		logged = [];
		source = new NetworkSettingsSource({ info: (m) => logged.push(m), warn: (m) => logged.push(m) });
	});
	teardown(() => source.dispose());

	test('nothing set: no proxy, certificates verified, system certificates used', () => {
		assert.deepEqual(readNetworkSettings(), {
			proxy: undefined,
			noProxy: [],
			proxyAuthorization: undefined,
			strictSSL: true,
			systemCertificates: true,
		});
	});

	test('values are trimmed; blank strings and non-strings are unset; noProxy keeps only non-blank strings', () => {
		Object.assign(fake.settings, {
			'http.proxy': '  http://proxy.test:3128  ',
			'http.noProxy': ['a.test', '', '  ', 7, null, 'b.test'],
			'http.proxyAuthorization': '   ',
			'http.proxyStrictSSL': false,
			'http.systemCertificates': 'no',
		});
		assert.deepEqual(readNetworkSettings(), {
			proxy: 'http://proxy.test:3128',
			noProxy: ['a.test', 'b.test'],
			proxyAuthorization: undefined,
			strictSSL: false,
			systemCertificates: true,
		});
		fake.settings['http.proxy'] = 42;
		fake.settings['http.noProxy'] = 'a.test';
		assert.equal(readNetworkSettings().proxy, undefined);
		assert.deepEqual(readNetworkSettings().noProxy, []);
	});

	test('current is read once and kept until one of the http settings changes, then read again and announced', () => {
		let fired = 0;
		source.onDidChange(() => fired++);
		const first = source.current();
		assert.equal(source.current(), first);
		fake.changeSettings({ 'editor.fontSize': 20 });
		assert.equal(source.current(), first);
		assert.equal(fired, 0);
		for (const key of NETWORK_SETTINGS) {
			fake.changeSettings({ [`http.${key}`]: fake.settings[`http.${key}`] });
		}
		assert.equal(fired, NETWORK_SETTINGS.length);
		fake.changeSettings({ 'http.proxy': 'http://other.test' });
		const second = source.current();
		assert.notEqual(second, first);
		assert.equal(second.proxy, 'http://other.test');
		assert.match(logged.at(-1)!, /Network settings changed/);
	});

	test('proxyStrictSSL off warns once that certificates are not verified, however often it is read again', () => {
		fake.settings['http.proxyStrictSSL'] = false;
		source.current();
		fake.changeSettings({ 'http.proxy': 'http://p.test' });
		source.current();
		const warnings = fake.calls('window.showWarningMessage');
		assert.equal(warnings.length, 1);
		assert.match(warnings[0]![0] as string, /^http\.proxyStrictSSL is off: .*not verify certificates/);
	});

	test('after dispose a settings change is no longer announced', () => {
		let fired = 0;
		source.onDidChange(() => fired++);
		source.dispose();
		fake.changeSettings({ 'http.proxy': 'http://p.test' });
		assert.equal(fired, 0);
	});
});
