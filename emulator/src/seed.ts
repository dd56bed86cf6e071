import { createHash } from 'node:crypto';
import { stableUuid } from './ids';
import { makePng } from './png';
import { SAVINGS_HISTORY_EVENTS, savingsRow, seedSavingsHistory } from './seedSavings';
import type {
	AgentRow,
	ArtifactRow,
	Data,
	ImageRow,
	Resources,
	RunEvent,
	RunRow,
	RuntimeRow,
	RuntimeStatus,
	DesiredStatus,
	SecretConfiguration,
} from './state';
import { emptyData } from './state';
import type { ChangeKind } from './runs';
import { nowIso } from './util';
import { Workspace } from './workspace';

export const CURRENT_USER_ID = 'usr_ada_lovelace';
export const OTHER_USER_ID = 'usr_grace_hopper';
export const ORGANIZATION_ID = 'org_analytical_engines';
/** The distinctive word in the demo workspace (search tests). */
export const DEMO_SEARCH_WORD = 'quetzalcoatl';
/** Token-saving events of the demo seed over the last seven days. */
const BILLING_HEAD = 'export interface Invoice {\n\tid: string;\n\ttotal: number;\n}\n\n';
const BILLING_V0 = `import { roundInvoice } from './rounding';\n\n${BILLING_HEAD}// TODO: support credit notes\nexport function createInvoice(id: string, total: number): Invoice {\n\treturn { id, total: roundInvoice(total) };\n}\n\nexport function voidInvoice(inv: Invoice): Invoice {\n\treturn { ...inv, total: 0 };\n}\n`;
const BILLING_V1 = BILLING_V0.replace("'./rounding'", "'./util'");
const BILLING_V2 = BILLING_V1.replace(
	'export function createInvoice',
	'/** A new invoice, its total rounded to cents. */\nexport function createInvoice',
).replace('export function voidInvoice', '/** The invoice with a zero total. */\nexport function voidInvoice');
const UTIL_BODY = `export function roundInvoice(amount: number): number {\n\treturn Math.sign(amount) * Math.round(Math.abs(amount) * 100) / 100;\n}\n\n// The ${DEMO_SEARCH_WORD} flag enables the experimental ledger path.\nexport const LEDGER_FLAG = '${DEMO_SEARCH_WORD}';\n`;
const UTIL_V1 = UTIL_BODY;
const UTIL_V2 = `/** Rounds half away from zero to cents. */\n${UTIL_BODY}`;

/**
 * The billing agent's workspace as it was when its first run started (its files are dated before
 * that run); its runs then added, modified and deleted files (see seedDemo). A local copy of these
 * files is what a user had before the agent worked: the demo's "Compare with Local Folder" source.
 */
export const DEMO_BILLING_BASELINE: Readonly<Record<string, Buffer>> = {
	'README.md': Buffer.from(
		`# Billing service\n\nInvoices, discounts and tax handling for Analytical Engines.\n\nRun \`npm test\` before pushing. TODO: document the ${DEMO_SEARCH_WORD} rollout flag.\n`,
	),
	'package.json': Buffer.from(JSON.stringify({ name: 'billing', version: '2.3.0', scripts: { test: 'node --test' } }, null, 2) + '\n'),
	'src/index.ts': Buffer.from(
		"export { createInvoice, voidInvoice } from './lib/billing';\nexport { roundInvoice } from './lib/rounding';\n",
	),
	'src/lib/rounding.ts': Buffer.from(
		'/** Rounds to cents (legacy). */\nexport function roundInvoice(amount: number): number {\n\treturn Math.round(amount * 100) / 100;\n}\n',
	),
	'src/lib/billing.ts': Buffer.from(BILLING_V0),
	'src/lib/billing.test.ts': Buffer.from(
		"import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { createInvoice } from './billing';\n\ntest('rounds', () => assert.equal(createInvoice('a', 1.005).total, 1.01));\n",
	),
	'docs/guide.md': Buffer.from('# Guide\n\nHow to use the billing service.\n'),
	'docs/notes.md': Buffer.from('# Notes\n\n- TODO: move invoice rounding out of billing.ts\n'),
	'docs/api/endpoints.md': Buffer.from(
		'# Endpoints\n\n| Method | Path |\n|---|---|\n| POST | /invoices |\n| DELETE | /invoices/{id} |\n',
	),
	'assets/logo.png': makePng(16, 16),
};

const RECENT_TOKEN_SAVING_EVENTS = 42;
/** All token-saving events of the demo seed: the last seven days plus the three weeks of `seedSavingsHistory`. */
export const TOKEN_SAVING_EVENTS = RECENT_TOKEN_SAVING_EVENTS + SAVINGS_HISTORY_EVENTS;

function base(): Data {
	const d = emptyData();
	d.organization_id = ORGANIZATION_ID;
	d.users = [
		{
			id: CURRENT_USER_ID,
			email: 'ada@analytical-engines.example',
			display_name: 'Ada Lovelace',
			organization_id: ORGANIZATION_ID,
			organization_name: 'Analytical Engines Ltd',
		},
		{
			id: OTHER_USER_ID,
			email: 'grace@analytical-engines.example',
			display_name: 'Grace Hopper',
			organization_id: ORGANIZATION_ID,
			organization_name: 'Analytical Engines Ltd',
		},
	];
	d.host_key = gatewayHostKey();
	d.images = builtinImages();
	return d;
}

/** The SSH wire encoding of a string (uint32 length, bytes). */
const sshString = (b: Buffer): Buffer => {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(b.length);
	return Buffer.concat([len, b]);
};

/** Host and port of the demo SSH gateway (a non-standard port: known_hosts needs `[host]:port`). */
export const GATEWAY_HOST = 'gateway.cloud-agents.example';
export const GATEWAY_PORT = 2222;

/**
 * A well-formed ed25519 host key (a fixed 32-byte point; the emulator never signs with it) with its
 * real OpenSSH SHA256 fingerprint, so a known_hosts line made from it is what ssh-keygen would accept.
 */
export function gatewayHostKey(): Data['host_key'] {
	const point = createHash('sha256').update('cloud-agents emulator gateway host key').digest();
	const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(point)]);
	const fp = createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
	return {
		key_type: 'ssh-ed25519',
		public_key: `ssh-ed25519 ${blob.toString('base64')}`,
		fingerprint_sha256: `SHA256:${fp}`,
		host: GATEWAY_HOST,
		port: GATEWAY_PORT,
	};
}

export function seedEmpty(): Data {
	return base();
}

function builtinImages(): ImageRow[] {
	const onboarding = [
		{
			protocol: 'openai',
			description: 'Set the API key as MODEL_API_KEY; requests go to the default endpoint through the egress proxy.',
		},
		{ protocol: 'anthropic', description: 'Set the API key as MODEL_API_KEY; the proxy adds the x-api-key header.' },
	];
	return [
		{
			id: 'img_standard_2025_11',
			display_name: 'Cloud Agent standard (2025-11)',
			kind: 'builtin',
			architectures: ['x86_64'],
			onboarding,
			credential_variable: 'MODEL_API_KEY',
			default_endpoint: 'https://api.openai.example/v1',
			subscription_credentials: ['openai-platform'],
			endpoint_overridable: true,
			browser_surfaces: [],
			tcp_ports: [22],
		},
		{
			id: 'img_browser_2025_11',
			display_name: 'Cloud Agent with browser (2025-11)',
			kind: 'builtin',
			architectures: ['x86_64'],
			onboarding,
			credential_variable: 'MODEL_API_KEY',
			default_endpoint: 'https://api.anthropic.example/v1',
			subscription_credentials: [],
			endpoint_overridable: false,
			browser_surfaces: [
				{ name: 'chromium', guest_port: 9222 },
				{ name: 'preview', guest_port: 5173 },
			],
			tcp_ports: [22, 5900],
		},
	];
}

const resources = (mem: number, vcpus: number, disk: number): Resources => ({
	current: { memory_mib: mem, observed_disk_gib: disk },
	limits: { memory_mib: mem * 2 },
	requests: { memory_mib: mem, vcpus, disk_gib: disk },
});

const secretConf = (secretId: string, envName: string, host: string): SecretConfiguration => ({
	secret_id: secretId,
	environment: [{ name: envName, value_template: '${credential}' }],
	egress_rules: [
		{ host_pattern: host, path_pattern: null, action: 'header', name: 'Authorization', value_template: 'Bearer ${credential}' },
	],
	files: [],
});

export function seedDemo(): Data {
	const d = base();
	const t0 = Date.now();
	const ago = (minutes: number): number => t0 - minutes * 60_000;
	const iso = (minutes: number): string => nowIso(ago(minutes));

	// ---- secrets ---------------------------------------------------------------------------------
	const secret = (name: string, value: string, ttl = 300) => ({
		id: stableUuid(`secret:${name}`),
		display_name: name,
		cache_ttl_secs: ttl,
		value,
	});
	d.secrets = [
		secret('openai-api-key', 'sk-demo-4f9a0c1e7b2d48e6a3c5'),
		secret('github-token', 'ghp_demo7Yq2Lr5Xz8Kp1Vb4Nm6Tc9Wd3'),
		secret('npm-token', 'npm_demoA1b2C3d4E5f6G7h8', 600),
		secret('sentry-dsn', 'https://demo123@o42.ingest.sentry.example/7', 3600),
		secret('anthropic-api-key', 'sk-ant-demo-9e8d7c6b5a4f3e2d'),
		secret('pypi-token', 'pypi-demoAgEIcHlwaS5vcmcCJGRlbW8', 86_400),
		secret('datadog-api-key', 'dd-demo-0a1b2c3d4e5f6a7b8c9d', 900),
	];
	const sid = (name: string): string => d.secrets.find((s) => s.display_name === name)!.id;

	// ---- images, builds ------------------------------------------------------------------------
	d.images.push(
		{
			...d.images[0]!,
			id: 'img_custom_python_ml',
			display_name: 'Python ML toolchain',
			kind: 'custom',
			subscription_credentials: [],
			tcp_ports: [8888],
		},
		{
			...d.images[0]!,
			id: 'img_custom_node18_legacy',
			display_name: 'Node 18 legacy toolchain',
			kind: 'custom',
			subscription_credentials: [],
			tcp_ports: [],
		},
	);
	d.builds = [
		{
			id: stableUuid('build:python-ml'),
			display_name: 'Python ML toolchain',
			architecture: 'x86_64',
			status: 'succeeded',
			image_id: 'img_custom_python_ml',
			attempts: [{ number: 1, outcome: 'succeeded', started_at: iso(4300), finished_at: iso(4290) }],
			created_at: iso(4301),
			updated_at: iso(4290),
			dockerfile: 'FROM cloud-agent-standard\nRUN pip install numpy pandas torch\n',
		},
		{
			id: stableUuid('build:rust-nightly'),
			display_name: 'Rust nightly',
			architecture: 'x86_64',
			status: 'failed',
			image_id: null,
			attempts: [
				{ number: 1, outcome: 'failed', started_at: iso(2000), finished_at: iso(1995) },
				{ number: 2, outcome: 'failed', started_at: iso(1990), finished_at: iso(1984) },
			],
			created_at: iso(2001),
			updated_at: iso(1984),
			dockerfile: 'FROM cloud-agent-standard\nRUN curl https://sh.rustup.rs | sh -s -- --default-toolchain nightly\nRUN FAIL\n',
		},
		{
			id: stableUuid('build:node18'),
			display_name: 'Node 18 legacy toolchain',
			architecture: 'x86_64',
			status: 'succeeded',
			image_id: 'img_custom_node18_legacy',
			attempts: [{ number: 1, outcome: 'succeeded', started_at: iso(9000), finished_at: iso(8992) }],
			created_at: iso(9001),
			updated_at: iso(8992),
			dockerfile: 'FROM cloud-agent-standard\nRUN n 18\n',
		},
		{
			// Moves on by itself in the demo: running in 10 s, done 20 s later.
			id: stableUuid('build:go-toolchain'),
			display_name: 'Go 1.23 toolchain',
			architecture: 'x86_64',
			status: 'pending',
			image_id: null,
			attempts: [],
			created_at: iso(1),
			updated_at: iso(1),
			dockerfile: 'FROM cloud-agent-standard\nRUN curl -fsSL https://go.dev/dl/go1.23.linux-amd64.tar.gz | tar -C /usr/local -xz\n',
			next_at: t0 + 10_000,
			step_ms: 20_000,
		},
		{
			// A second attempt after a failed first one; succeeds 25 s after start.
			id: stableUuid('build:java-21'),
			display_name: 'Java 21 + Gradle',
			architecture: 'x86_64',
			status: 'running',
			image_id: null,
			attempts: [
				{ number: 1, outcome: 'failed', started_at: iso(6), finished_at: iso(3) },
				{ number: 2, outcome: 'running', started_at: iso(2), finished_at: null },
			],
			created_at: iso(7),
			updated_at: iso(2),
			dockerfile:
				'FROM cloud-agent-standard\n# FLAKY: the mirror timed out on the first attempt\nRUN apt-get install -y openjdk-21-jdk gradle\n',
			next_at: t0 + 25_000,
			step_ms: 20_000,
		},
	];

	// ---- runtimes ------------------------------------------------------------------------------
	const runtime = (name: string, status: RuntimeStatus, desired: DesiredStatus, extra: Partial<RuntimeRow> = {}): RuntimeRow => ({
		id: stableUuid(`runtime:${name}`),
		display_name: name,
		environment_variables: { NODE_ENV: 'development', TZ: 'UTC' },
		egress_policy: { mode: 'denylist', denied_hosts: ['*.internal.example', '169.254.169.254', '10.0.0.0/8'] },
		llm_tool_io_capture_enabled: true,
		llm_session_content_capture_enabled: false,
		llm_token_saving_policy: { json_array_enabled: true, log_enabled: true, search_results_enabled: true, git_diff_enabled: false },
		idle_policy: { mode: 'disabled' },
		created_at: iso(20000),
		updated_at: iso(60),
		ingress_specs: [{ protocol: 'https', runtime_port: 3000 }],
		resources: resources(8192, 4, 64),
		image_id: 'img_standard_2025_11',
		status,
		desired_status: desired,
		ssh_enabled: true,
		vnc_enabled: false,
		vnc_ready: false,
		vnc_error_code: null,
		vnc_connection: { hostname: `${name}.vnc.cloud-agents.example`, port: 5901, username: 'service', security_type: 'X509Plain' },
		error_code: null,
		owner_user_id: CURRENT_USER_ID,
		revision: 3,
		secret_configuration: [],
		heartbeat_stalled: false,
		ssh_key_ids: [],
		vnc_credentials: [],
		bindings: [],
		...extra,
	});
	const atlas = runtime('atlas-dev', 'running', 'running', {
		vnc_enabled: true,
		vnc_ready: true,
		revision: 12,
		secret_configuration: [
			secretConf(sid('openai-api-key'), 'OPENAI_API_KEY', 'api.openai.example'),
			secretConf(sid('github-token'), 'GITHUB_TOKEN', 'api.github.com'),
		],
	});
	const borealis = runtime('borealis-ci', 'running', 'running', {
		heartbeat_stalled: true,
		image_id: 'img_browser_2025_11',
		revision: 7,
		egress_policy: { mode: 'allowlist', allowed_hosts: ['api.github.com', 'registry.npmjs.org', '*.anthropic.example'] },
		secret_configuration: [
			secretConf(sid('anthropic-api-key'), 'ANTHROPIC_API_KEY', 'api.anthropic.example'),
			{
				...secretConf(sid('npm-token'), 'NPM_TOKEN', 'registry.npmjs.org'),
				files: [{ path: '.npmrc', value_template: '//registry.npmjs.org/:_authToken=${credential}' }],
			},
		],
	});
	const cobalt = runtime('cobalt-sandbox', 'paused', 'paused', {
		revision: 5,
		idle_policy: { mode: 'wake_on_activity', idle_timeout_seconds: 1800 },
		secret_configuration: [secretConf(sid('openai-api-key'), 'OPENAI_API_KEY', 'api.openai.example')],
	});
	const delta = runtime('delta-shared', 'running', 'running', {
		owner_user_id: OTHER_USER_ID,
		vnc_enabled: true,
		vnc_ready: true,
		revision: 21,
		secret_configuration: [secretConf(sid('sentry-dsn'), 'SENTRY_DSN', 'o42.ingest.sentry.example')],
	});
	const ember = runtime('ember-nightly', 'suspended', 'suspended', {
		revision: 9,
		idle_policy: { mode: 'suspend_on_idle', idle_timeout_seconds: 900 },
		secret_configuration: [secretConf(sid('github-token'), 'GITHUB_TOKEN', 'api.github.com')],
	});
	const fjord = runtime('fjord-legacy', 'error', 'running', {
		error_code: 'image_pull_failed',
		revision: 4,
		resources: resources(4096, 2, 32),
		secret_configuration: [secretConf(sid('npm-token'), 'NPM_TOKEN', 'registry.npmjs.org')],
	});
	const gale = runtime('gale-staging', 'shutdown', 'shutdown', {
		revision: 2,
		ssh_enabled: false,
		secret_configuration: [secretConf(sid('sentry-dsn'), 'SENTRY_DSN', 'o42.ingest.sentry.example')],
	});
	const harbor = runtime('harbor-gpu', 'creating', 'running', {
		revision: 1,
		image_id: 'img_custom_python_ml',
		resources: resources(32768, 16, 256),
		pending: { status: 'running', at: t0 + 3000 },
		secret_configuration: [secretConf(sid('openai-api-key'), 'OPENAI_API_KEY', 'api.openai.example')],
	});
	d.runtimes = [atlas, borealis, cobalt, delta, ember, fjord, gale, harbor];
	d.runtimes.forEach((rt, i) => {
		rt.created_at = iso(20000 - i * 1500);
	});

	// ---- SSH keys, VNC credentials, GitHub ------------------------------------------------------
	const sshKey = (name: string, user: string, minutes: number) => ({
		id: stableUuid(`ssh:${name}`),
		organization_id: ORGANIZATION_ID,
		user_id: user,
		display_name: name,
		public_key: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${Buffer.from(name).toString('base64').replace(/=/g, '')}demoKey ${name}`,
		fingerprint: `SHA256:${Buffer.from(`fp:${name}`).toString('base64').replace(/=/g, '')}`,
		created_at: iso(minutes),
	});
	d.sshKeys = [
		sshKey('ada-laptop', CURRENT_USER_ID, 30000),
		sshKey('ada-desktop', CURRENT_USER_ID, 12000),
		sshKey('grace-workstation', OTHER_USER_ID, 25000),
	];
	atlas.ssh_key_ids = [d.sshKeys[0]!.id, d.sshKeys[1]!.id];
	borealis.ssh_key_ids = [d.sshKeys[0]!.id];
	delta.ssh_key_ids = [d.sshKeys[2]!.id];
	const vnc = (rt: RuntimeRow, name: string, minutes: number, revoked: boolean) => ({
		id: stableUuid(`vnc:${rt.display_name}:${name}`),
		display_name: name,
		locator: `vnc://${rt.vnc_connection.hostname}:${rt.vnc_connection.port}/${name}`,
		created_by_user_id: rt.owner_user_id,
		created_at: iso(minutes),
		last_used_at: iso(minutes - 30),
		revoked_at: revoked ? iso(minutes - 60) : null,
	});
	atlas.vnc_credentials = [vnc(atlas, 'ada-viewer', 5000, false), vnc(atlas, 'old-viewer', 9000, true)];
	delta.vnc_credentials = [vnc(delta, 'grace-viewer', 7000, false)];
	atlas.bindings = [
		{
			id: stableUuid('binding:atlas:1'),
			tenant_id: ORGANIZATION_ID,
			runtime_id: atlas.id,
			repository_id: 781234501,
			branch: 'main',
			sort_order: 0,
		},
		{
			id: stableUuid('binding:atlas:2'),
			tenant_id: ORGANIZATION_ID,
			runtime_id: atlas.id,
			repository_id: 781234502,
			branch: 'develop',
			sort_order: 1,
		},
	];
	d.githubRequests = [
		{
			request_id: 'ghreq_01JC8Q2W3E4R5T6Y7U8I9O0P1A',
			requested_by: 'agent:Refactor billing module',
			reason: 'Push the refactoring branch and open a pull request in analytical-engines/billing',
			created_at_unix_seconds: Math.floor(ago(12) / 1000),
			lifecycle: {
				status: 'pending',
				authorization_url: 'https://github.com/login/oauth/authorize?client_id=Iv1.demo&state=ghreq_01JC8Q2W3E4R5T6Y7U8I9O0P1A',
				expires_at_unix_seconds: Math.floor((t0 + 48 * 60_000) / 1000),
			},
		},
		{
			request_id: 'ghreq_01JC8Q9Z8X7C6V5B4N3M2L1K0J',
			requested_by: 'agent:CI triage',
			created_at_unix_seconds: Math.floor(ago(3) / 1000),
			lifecycle: {
				status: 'pending',
				authorization_url: 'https://github.com/login/oauth/authorize?client_id=Iv1.demo&state=ghreq_01JC8Q9Z8X7C6V5B4N3M2L1K0J',
				expires_at_unix_seconds: Math.floor((t0 + 57 * 60_000) / 1000),
			},
		},
		{
			// Drops off the list two minutes after start.
			request_id: 'ghreq_01JC8R0S1D2F3G4H5J6K7L8M9N',
			requested_by: 'agent:Nightly dependency bump',
			reason: 'Open a pull request with the dependency updates in analytical-engines/billing',
			created_at_unix_seconds: Math.floor(ago(58) / 1000),
			lifecycle: {
				status: 'pending',
				authorization_url: 'https://github.com/login/oauth/authorize?client_id=Iv1.demo&state=ghreq_01JC8R0S1D2F3G4H5J6K7L8M9N',
				expires_at_unix_seconds: Math.floor((t0 + 2 * 60_000) / 1000),
			},
		},
		{
			// Already expired: stored, never listed.
			request_id: 'ghreq_01JC8P7O6I5U4Y3T2R1E0W9Q8A',
			requested_by: 'agent:Docs writer',
			reason: 'Push the docs branch',
			created_at_unix_seconds: Math.floor(ago(180) / 1000),
			lifecycle: {
				status: 'pending',
				authorization_url: 'https://github.com/login/oauth/authorize?client_id=Iv1.demo&state=ghreq_01JC8P7O6I5U4Y3T2R1E0W9Q8A',
				expires_at_unix_seconds: Math.floor(ago(120) / 1000),
			},
		},
	];

	// ---- stubs, checkpoints, model providers -----------------------------------------------------
	d.stubs = [
		{
			id: stableUuid('stub:atlas:openai'),
			runtime_id: atlas.id,
			host_pattern: 'api.openai.example',
			path_pattern: '/v1/*',
			runtime_display_name: atlas.display_name,
			stub_config_json: JSON.stringify({ headerName: 'Authorization', valueFormat: 'Bearer ${credential}' }),
			stub_value_display_name: 'openai-api-key',
		},
		{
			id: stableUuid('stub:borealis:npm'),
			runtime_id: borealis.id,
			host_pattern: 'registry.npmjs.org',
			path_pattern: '*',
			runtime_display_name: borealis.display_name,
			stub_config_json: JSON.stringify({ filePath: '/home/service/.npm-token' }),
			stub_value_display_name: 'npm-token',
		},
		{
			id: stableUuid('stub:atlas:github'),
			runtime_id: atlas.id,
			host_pattern: 'api.github.com',
			path_pattern: '*',
			runtime_display_name: atlas.display_name,
			stub_config_json: JSON.stringify({ headerName: 'Authorization', value: 'token ${credential}' }),
			stub_value_display_name: 'github-token',
		},
		{
			id: stableUuid('stub:cobalt:datadog'),
			runtime_id: cobalt.id,
			host_pattern: '*.datadoghq.example',
			path_pattern: '/api/v2/*',
			runtime_display_name: cobalt.display_name,
			stub_config_json: JSON.stringify({ paramName: 'api_key', paramFormat: '{value}' }),
			stub_value_display_name: 'datadog-api-key',
		},
		{
			id: stableUuid('stub:delta:sentry'),
			runtime_id: delta.id,
			host_pattern: 'o42.ingest.sentry.example',
			path_pattern: '/api/*/envelope/',
			runtime_display_name: delta.display_name,
			stub_config_json: JSON.stringify({ headerName: 'X-Sentry-Auth', valueFormat: 'Sentry sentry_key=${credential}' }),
			stub_value_display_name: 'sentry-dsn',
		},
	];
	d.checkpoints = [
		{
			id: stableUuid('ckpt:1'),
			display_name: 'before-billing-refactor',
			kind: 'full',
			created_at: iso(3000),
			resources: atlas.resources,
			state: { status: 'ready', failure_reason: null },
			source_runtime: { id: atlas.id, display_name: atlas.display_name },
		},
		{
			id: stableUuid('ckpt:2'),
			display_name: 'ci-baseline',
			kind: 'cold',
			created_at: iso(2500),
			resources: borealis.resources,
			state: { status: 'ready', failure_reason: null },
			source_runtime: { id: borealis.id, display_name: borealis.display_name },
		},
		{
			id: stableUuid('ckpt:3'),
			display_name: 'sandbox-snapshot',
			kind: 'full',
			created_at: iso(1500),
			resources: cobalt.resources,
			state: { status: 'failed', failure_reason: 'disk_snapshot_timeout' },
			source_runtime: { id: cobalt.id, display_name: cobalt.display_name },
		},
		{
			id: stableUuid('ckpt:4'),
			display_name: 'retired-runtime-final',
			created_at: iso(40000),
			resources: resources(2048, 1, 16),
			state: { status: 'ready', failure_reason: null },
			source_runtime: { id: null, display_name: 'iris-retired' },
		},
		{
			id: stableUuid('ckpt:5'),
			display_name: 'nightly-pre-upgrade',
			kind: 'full',
			created_at: iso(2),
			resources: ember.resources,
			state: { status: 'creating', failure_reason: null },
			source_runtime: { id: ember.id, display_name: ember.display_name },
			settle: { at: t0 + 45_000, status: 'ready' },
		},
		{
			id: stableUuid('ckpt:6'),
			display_name: 'gpu-warm-cache',
			kind: 'cold',
			created_at: iso(1),
			resources: harbor.resources,
			state: { status: 'creating', failure_reason: null },
			source_runtime: { id: harbor.id, display_name: harbor.display_name },
			settle: { at: t0 + 60_000, status: 'failed', failure_reason: 'runtime_stopped_during_snapshot' },
		},
		{
			id: stableUuid('ckpt:7'),
			display_name: 'iris-before-retire',
			kind: 'full',
			created_at: iso(41000),
			resources: resources(2048, 1, 16),
			state: { status: 'failed', failure_reason: 'checkpoint_storage_quota_exceeded' },
			source_runtime: { id: null, display_name: 'iris-retired' },
		},
	];
	d.modelProviders = [
		{
			id: 'mp_openai',
			display_name: 'OpenAI',
			kind: 'openai',
			endpoint: 'https://api.openai.example/v1',
			model: 'gpt-4.1',
			enabled: true,
			updated_at: iso(10000),
		},
		{
			id: 'mp_anthropic',
			display_name: 'Anthropic',
			kind: 'anthropic',
			endpoint: 'https://api.anthropic.example/v1',
			model: 'claude-sonnet-4',
			enabled: true,
			updated_at: iso(9000),
		},
		{
			id: 'mp_local_vllm',
			display_name: 'Local vLLM',
			kind: 'openai_compatible',
			endpoint: 'http://vllm.internal.example:8000/v1',
			model: 'qwen2.5-coder-32b',
			enabled: false,
			updated_at: iso(8000),
		},
	];

	// ---- token savings ---------------------------------------------------------------------------
	const methods = ['json_array', 'log', 'search_results', 'git_diff'];
	const rts = [atlas, borealis, delta, atlas, cobalt];
	// Spread over the last seven days (about six events a day, newest first at i = 0 … oldest last).
	for (let i = 0; i < RECENT_TOKEN_SAVING_EVENTS; i++) {
		const rt = rts[i % rts.length]!;
		const before = 40_000 + ((i * 7919) % 30_000);
		const after = Math.round(before * (0.35 + (i % 4) * 0.1));
		const observed = ago(25 + i * 233);
		const m = methods[i % methods.length]!;
		const row = savingsRow({
			id: stableUuid(`ts:${i}`),
			eventId: `evt_${String(i + 1).padStart(4, '0')}`,
			runtime: rt,
			anthropic: i % 2 !== 0,
			observed,
			before,
			after,
			elapsedMicros: 300 + i * 41,
			method: { method: m, blocks: 1 + (i % 3), input_units: 120 + i, output_units: 40 + i },
		});
		if (i === 9 || i === 33) {
			row.methods.push({
				method: 'log',
				blocks: 0,
				input_units: 3,
				output_units: 0,
				parse_error: 'unterminated JSON array at byte 4096',
			});
		}
		d.tokenSavings.push(row);
	}
	seedSavingsHistory(d, t0, [atlas, borealis, delta, cobalt]);

	// ---- agents, runs, artifacts, workspaces -----------------------------------------------------
	const agent = (rt: RuntimeRow, harness: string, name: string, minutes: number, status: AgentRow['status'] = 'idle'): AgentRow => ({
		id: `${rt.id}.${harness}`,
		runtime_id: rt.id,
		harness_id: harness,
		name,
		status,
		created_at_ms: ago(minutes),
		updated_at_ms: ago(Math.max(minutes - 100, 1)),
		repositories: [],
	});
	const billing = agent(atlas, 'main', 'Refactor billing module', 9000);
	billing.repositories = [{ repository_id: 781234501, branch: 'main' }];
	billing.model_provider_id = 'mp_openai';
	const docs = agent(atlas, 'docs', 'Docs writer', 8000);
	const triage = agent(borealis, 'main', 'CI triage', 7000, 'running');
	const sandbox = agent(cobalt, 'main', 'Sandbox explorer', 6000);
	const reviewer = agent(delta, 'main', 'Shared reviewer', 5000);
	const nightly = agent(ember, 'main', 'Nightly dependency bump', 4000);
	const legacy = agent(fjord, 'main', 'Legacy migration', 3000, 'error');
	d.agents = [billing, docs, triage, sandbox, reviewer, nightly, legacy];

	let seqRun = 0;
	const run = (
		a: AgentRow,
		minutes: number,
		prompt: string,
		status: RunRow['status'],
		opts: {
			result?: string;
			error?: string;
			session?: boolean;
			parent?: string;
			hold?: boolean;
			session_id?: string;
			steps?: number;
			/** The workspace files the run changed (file.changed events; applied to the workspace below). */
			changes?: [string, ChangeKind][];
		} = {},
	): RunRow => {
		seqRun++;
		const created = ago(minutes);
		const id = `run_01JC${String(seqRun).padStart(4, '0')}${stableUuid(`run:${seqRun}`).replace(/-/g, '').slice(0, 18).toUpperCase()}`;
		const r: RunRow = {
			id,
			agent_id: a.id,
			status,
			prompt,
			parent_run_id: opts.parent,
			dsh_session_id:
				opts.session === false
					? undefined
					: (opts.session_id ?? `ses_01JC${stableUuid(`ses:${seqRun}`).replace(/-/g, '').slice(0, 22).toUpperCase()}`),
			created_at: nowIso(created),
			updated_at: nowIso(created + 95_000),
			created_ms: created,
			image_count: 0,
			events: [],
			event_bytes: 0,
			hold: opts.hold ?? false,
		};
		if (opts.result !== undefined) r.result = opts.result;
		if (opts.error !== undefined) r.error = opts.error;
		const ev = (type: string, data: Record<string, unknown>, offsetS: number): void => {
			const e: RunEvent = { seq: r.events.length, run_id: id, type, created_at: nowIso(created + offsetS * 1000), data };
			r.events.push(e);
			r.event_bytes += JSON.stringify(e).length;
		};
		ev('run.status', { status: 'queued' }, 0);
		ev('run.status', { status: 'running' }, 2);
		ev('message', { role: 'assistant', text: `Looking into: ${prompt.slice(0, 80)}` }, 4);
		ev('tool.call', { tool: 'workspace.search', input: { query: 'invoice' } }, 10);
		ev('tool.result', { tool: 'workspace.search', output: '7 match(es)' }, 12);
		// A long session: one tool call, its result and a progress message per step.
		for (let i = 1; i <= (opts.steps ?? 0); i++) {
			const file = `samples/query-${String(i).padStart(2, '0')}.sql`;
			ev('tool.call', { tool: 'sql.parse', input: { path: file } }, 12 + i);
			ev(
				'tool.result',
				{
					tool: 'sql.parse',
					output:
						i % 16 === 0 ? `${file}: parsed after normalising a trailing semicolon` : `${file}: ok (${3 + (i % 7)} statements)`,
				},
				12 + i,
			);
			if (i % 8 === 0) ev('message', { role: 'assistant', text: `${i} of ${opts.steps} sample queries parsed so far.` }, 12 + i);
		}
		if (status === 'running') {
			ev('log', { level: 'info', text: 'Waiting for the CI job to finish (held until cancelled)' }, 20);
		} else {
			if (status === 'succeeded') {
				(opts.changes ?? []).forEach(([path, change], i) => ev('file.changed', { path, change }, 40 + i));
				ev('message', { role: 'assistant', text: opts.result ?? 'Done.' }, 80);
			} else if (status === 'cancelled') {
				ev('log', { level: 'info', text: 'Cancellation requested' }, 50);
			} else {
				ev('log', { level: 'error', text: opts.error ?? 'failed' }, 50);
			}
			ev('run.status', { status }, 90);
			const data: Record<string, unknown> = { status };
			if (opts.result !== undefined) data.result = opts.result;
			if (opts.error !== undefined) data.error = opts.error;
			ev('run.completed', data, 90);
		}
		d.runs.push(r);
		return r;
	};
	const ok = (what: string, changes: [string, ChangeKind][]): string =>
		`## Done\n\n${what}\n\n### Files changed\n${changes.map(([p, c]) => `- \`${p}\` (${c})`).join('\n')}`;
	// The billing agent's runs changed its workspace (seeded below): since its first run started,
	// src/lib/util.ts and docs/pr-summary.md were added, src/lib/billing.ts, src/index.ts,
	// docs/guide.md and package.json modified, src/lib/rounding.ts and docs/notes.md deleted.
	const extract: [string, ChangeKind][] = [
		['src/lib/util.ts', 'created'],
		['src/lib/billing.ts', 'modified'],
		['src/index.ts', 'modified'],
		['src/lib/rounding.ts', 'deleted'],
	];
	const jsdoc: [string, ChangeKind][] = [
		['src/lib/billing.ts', 'modified'],
		['src/lib/util.ts', 'modified'],
	];
	const guide: [string, ChangeKind][] = [['docs/guide.md', 'modified']];
	const summary: [string, ChangeKind][] = [
		['docs/pr-summary.md', 'created'],
		['package.json', 'modified'],
		['docs/notes.md', 'deleted'],
	];
	const r1 = run(billing, 8900, 'Map the billing module and list its public functions', 'succeeded', {
		result: '## Done\n\nListed 14 public functions in `src/lib/billing.ts`.',
	});
	const rExtract = run(billing, 8000, 'Extract invoice rounding into src/lib/util.ts', 'succeeded', {
		result: ok('Moved `roundInvoice` into `util.ts` and updated 3 callers.', extract),
		parent: r1.id,
		session_id: r1.dsh_session_id,
		changes: extract,
	});
	run(billing, 7000, 'Run the test suite and fix failures', 'failed', {
		error: 'npm test exited with code 1 (2 failing tests in billing.test.ts)',
	});
	run(billing, 6000, 'Rename Customer.taxId to Customer.vatId everywhere', 'cancelled', { error: 'Cancelled by the caller' });
	const rJsdoc = run(billing, 5000, 'Add JSDoc to every exported function', 'succeeded', {
		result: ok('Documented 14 exported functions.', jsdoc),
		changes: jsdoc,
	});
	const rGuide = run(billing, 4000, 'Write a migration note in docs/guide.md', 'succeeded', {
		result: ok('Added a "Migrating to v2" section.', guide),
		changes: guide,
	});
	const lastBilling = run(billing, 300, 'Summarise the refactoring for the pull request', 'succeeded', {
		result: '## Summary\n\n- Invoice rounding lives in `util.ts`\n- `vatId` replaces `taxId`\n- Exported functions are documented',
		changes: summary,
	});
	billing.latest_reply = {
		run_id: lastBilling.id,
		text: lastBilling.result ?? '',
		created_at: lastBilling.updated_at,
		updated_at: lastBilling.updated_at,
	};
	const docsRun = run(docs, 7900, 'Bootstrap the docs agent', 'succeeded', {
		result: 'Hello! I am ready to write documentation.',
		session: false,
	});
	docs.latest_reply = { run_id: docsRun.id, text: docsRun.result ?? '', created_at: docsRun.updated_at, updated_at: docsRun.updated_at };
	const docsChanges: [string, ChangeKind][] = [['drafts/overview.md', 'created']];
	const rDocs = run(docs, 2000, 'Draft the API overview in drafts/overview.md', 'succeeded', {
		result: ok('Drafted the overview of 12 endpoints.', docsChanges),
		changes: docsChanges,
	});
	run(triage, 900, 'Why does the e2e job time out on main?', 'succeeded', {
		result: 'The e2e job waits for a port that never opens; see `ci/e2e.yml` line 42.',
	});
	run(triage, 20, 'Watch the CI pipeline and report failures', 'running', { hold: true });
	run(sandbox, 5000, 'Try the new SQL parser on the sample queries', 'succeeded', { result: 'All 48 sample queries parse.', steps: 48 });
	run(reviewer, 4500, 'Review PR #4312', 'succeeded', { result: 'Two blocking comments: missing null check, flaky test.' });
	run(nightly, 3900, 'Bump dependencies and open a PR', 'failed', { error: 'Lockfile conflict in package-lock.json' });
	run(legacy, 2900, 'Migrate the CommonJS modules to ESM', 'failed', {
		error: 'Runtime setup failed: image_pull_failed',
		session: false,
	});
	// An agent's updated time moves with its runs, as the emulator's live runs move it (runs.ts: a
	// run's start and end): the Agents view's order (most recent activity first) reads it.
	for (const a of d.agents) {
		for (const r of d.runs.filter((x) => x.agent_id === a.id)) {
			a.updated_at_ms = Math.max(a.updated_at_ms, r.status === 'running' ? r.created_ms : Date.parse(r.updated_at));
		}
	}

	// artifacts of the billing agent
	const art = (a: AgentRow, r: RunRow, name: string, media: string, content: Buffer, minutes: number): ArtifactRow => ({
		id: `art_01JC${stableUuid(`art:${name}`).replace(/-/g, '').slice(0, 22).toUpperCase()}`,
		agent_id: a.id,
		run_id: r.id,
		harness_id: a.harness_id,
		name,
		media_type: media,
		created_at: iso(minutes),
		content,
	});
	const png = makePng(24, 24);
	d.artifacts = [
		art(
			billing,
			r1,
			'public-functions.txt',
			'text/plain',
			Buffer.from('createInvoice\nroundInvoice\napplyDiscount\nvoidInvoice\n'),
			8850,
		),
		art(
			billing,
			lastBilling,
			'pr-summary.md',
			'text/markdown',
			Buffer.from('# Billing refactor\n\n* rounding moved to `util.ts`\n* `vatId` replaces `taxId`\n'),
			290,
		),
		art(billing, lastBilling, 'coverage-chart.png', 'image/png', png, 289),
		art(docs, docsRun, 'outline.md', 'text/markdown', Buffer.from('# Docs outline\n\n1. Getting started\n2. API\n'), 7850),
	];

	// Workspace of the billing agent: the state at its first run's start (DEMO_BILLING_BASELINE,
	// dated before that run), then each run's changes at the time the run made them.
	const ws = new Workspace(ago(9000));
	const baselineAt = ago(8950);
	for (const [p, content] of Object.entries(DEMO_BILLING_BASELINE)) ws.write(p, Buffer.from(content), baselineAt);
	const apply = (w: Workspace, r: RunRow, changes: [string, ChangeKind][], files: Record<string, string>): void => {
		changes.forEach(([p, change], i) => {
			const at = r.created_ms + (40 + i) * 1000;
			if (change === 'deleted') w.delete(p, false, at);
			else w.write(p, Buffer.from(files[p] ?? '', 'utf8'), at);
		});
	};
	apply(ws, rExtract, extract, {
		'src/lib/util.ts': UTIL_V1,
		'src/lib/billing.ts': BILLING_V1,
		'src/index.ts': "export { createInvoice, voidInvoice } from './lib/billing';\nexport { roundInvoice } from './lib/util';\n",
	});
	apply(ws, rJsdoc, jsdoc, { 'src/lib/billing.ts': BILLING_V2, 'src/lib/util.ts': UTIL_V2 });
	apply(ws, rGuide, guide, { 'docs/guide.md': '# Guide\n\n## Migrating to v2\n\n`Customer.taxId` is now `Customer.vatId`.\n' });
	apply(ws, lastBilling, summary, {
		'docs/pr-summary.md':
			'# Billing refactor\n\n* rounding moved to `util.ts`\n* `vatId` replaces `taxId`\n* exported functions documented\n',
		'package.json': JSON.stringify({ name: 'billing', version: '2.4.0', scripts: { test: 'node --test' } }, null, 2) + '\n',
	});
	d.workspaces.set(billing.id, ws);
	const ws2 = new Workspace(ago(8000));
	ws2.write('README.md', Buffer.from('# Docs\n\nDocumentation drafts.\n'), ago(7950));
	apply(ws2, rDocs, docsChanges, { 'drafts/overview.md': '# Overview\n\nTODO\n' });
	d.workspaces.set(docs.id, ws2);
	return d;
}
