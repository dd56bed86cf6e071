/**
 * Every limit of the extension, in one module: the service's documented limits (checked before a
 * request is sent) and the safety bounds applied to whatever a server sends back (a hostile or
 * broken server must not make the extension write outside its folders, spin, grow or flood the
 * network). The README's "Limits and safety" section lists these values; keep the two in step.
 *
 * Plain data, no imports: `src/api`, the views, the file system and the logs all read it.
 */

/** The service's documented limits (service-api.md "Limits"), checked before sending. */
export const LIMITS = {
	agentNameBytes: { min: 1, max: 255 },
	promptBytes: 65_536,
	images: 8,
	imageEncodedBytes: 35_000_000,
	imagesEncodedBytesTotal: 70_000_000,
	imageMediaTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as readonly string[],
	identifierLength: { min: 1, max: 160 },
	artifactNameLength: { min: 1, max: 255 },
	/** Artifact and workspace writes: decoded bytes (32 MiB). */
	writeBytes: 32 * 1024 * 1024,
	workspacePathBytes: 4_096,
	searchQueryBytes: { min: 1, max: 256 },
	agentListLimit: { min: 1, max: 100 },
	runListLimit: { min: 1, max: 500 },
	runtimeListLimit: { min: 1, max: 100 },
	imageBuildListLimit: { min: 1, max: 100 },
	checkpointListLimit: { min: 1, max: 100 },
	tokenSavingsPageSize: { min: 1, max: 100 },
	runtimeTokenSavingsLimit: { min: 1, max: 100 },
	workspaceListLimit: { min: 1, max: 10_000 },
	workspaceReadLength: { min: 1, max: 1_048_576 },
	searchMaxResults: { min: 1, max: 1_000 },
	eventCursorMin: -1,
	expectedRevisionMin: 1,
	/** Body limits: the resume route takes an ordinary body, new-run and follow-up routes 72 MiB. */
	ordinaryBodyBytes: 1024 * 1024,
	runBodyBytes: 72 * 1024 * 1024,
	/** The service's JSON output cap for run and artifact helpers (content included). */
	outputCapBytes: 2 * 1024 * 1024,
	/**
	 * Secret stub create (service-api.md "Secret stub"): headerName, paramName and filePath at least
	 * 1 character, filePath absolute. The host pattern's 253-character bound is assumed (a DNS name's
	 * length; the emulator refuses longer).
	 */
	secretStubNameMinChars: 1,
	secretStubHostMaxChars: 253,
} as const;

/** Bounds on what a server may send and on how the client reacts to it. */
export const SAFETY = {
	// ---------------------------------------------------------------- ids and text from the server
	/** Longest id the client sends as a route segment (agent ids are a UUID, `.`, and up to 160 characters). */
	idMaxChars: 255,
	/** A request id is shown and copied only when it matches this (UUIDs and similar tokens). */
	requestIdPattern: /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
	/** Error codes longer than this, or with other characters than `[A-Za-z0-9_.-]`, become `invalid_code`. */
	errorCodeMaxChars: 64,
	/** Error messages from the server are cut to this many characters. */
	errorMessageMaxChars: 1_000,
	/** Longest text field of a record kept locally (the rows as last loaded) that is read back (src/api/stored.ts). */
	storedTextMaxChars: 4_096,

	// ---------------------------------------------------------------- response bodies
	/** Largest JSON response body read (the 2 MiB output cap plus JSON and base64 overhead). */
	jsonBodyMaxBytes: 3 * 1024 * 1024,
	/** Largest error body read; the rest is discarded. */
	errorBodyMaxBytes: 64 * 1024,
	/** Longest single server-sent event (characters buffered by the parser). */
	sseEventMaxChars: 16 * 1024 * 1024,

	// ---------------------------------------------------------------- time
	/** Overall deadline of one ordinary request, from sending to the last body byte (trickling bodies end here). */
	requestDeadlineMs: 120_000,
	/** Overall deadline of a request that uploads or downloads up to 32 MiB. */
	transferDeadlineMs: 600_000,
	/** A stream that delivers no complete event or keep-alive for this long counts as dropped. */
	streamIdleMs: 45_000,
	/** Shortest wait between two retries of one request, whatever backoff or Retry-After say. */
	retryMinDelayMs: 250,
	/** Longest Retry-After honoured; a longer one is surfaced as an error instead of waited for. */
	retryAfterMaxMs: 30_000,
	/** Backoff cap between retries. */
	retryMaxDelayMs: 10_000,
	/** Longest wait of a command run at activation for the session's first read of the sign-in state (SecretStorage). */
	sessionReadMaxMs: 30_000,
	/** Device-flow polling interval bounds (the server's `interval` is clamped into them). */
	devicePollMinMs: 1_000,
	devicePollMaxMs: 60_000,
	/** Default device-flow polling interval when the server names none (RFC 8628). */
	devicePollDefaultMs: 5_000,
	/** Longest device-flow lifetime honoured (the server's `expires_in` is clamped). */
	deviceExpiryMaxMs: 60 * 60 * 1000,
	/** Shortest pause before reconnecting an event stream, even right after a connection that made progress. */
	streamReconnectMinMs: 500,
	/** Most reconnects of one event stream within a minute; more ends the stream with an error. */
	streamReconnectsPerMinute: 20,

	// ---------------------------------------------------------------- listings and paging
	/** Most items accepted in one page of any listing; a larger page is refused. */
	pageMaxItems: 10_000,
	/** Most items an iterator over all pages yields before it stops with an error. */
	listingMaxItems: 100_000,
	/** Most pages one listing walk requests. */
	listingMaxPages: 1_000,

	// ---------------------------------------------------------------- workspace
	/** Deepest folder a workspace walk (copy, rename, delete, search, go to file) descends into. */
	walkMaxDepth: 32,
	/** Most entries one workspace walk visits. */
	walkMaxEntries: 20_000,
	/** A non-final chunk of a chunked read must carry at least this many bytes. */
	readChunkMinBytes: 16 * 1024,
	/** Largest file size a read accepts from the server (the write limit, 32 MiB, with room). */
	readMaxBytes: 256 * 1024 * 1024,
	/** Longest workspace entry name accepted from a listing. */
	entryNameMaxChars: 255,

	// ---------------------------------------------------------------- local files
	/** Longest local file name derived from server data (artifact cache, Save As default, run logs). */
	localNameMaxChars: 120,

	// ---------------------------------------------------------------- UI text
	/** Tree labels, quick-pick labels and status bar text derived from server data. */
	labelMaxChars: 120,
	/** Tree descriptions and quick-pick details. */
	descriptionMaxChars: 200,
	/** Tooltips. */
	tooltipMaxChars: 2_000,
	/** Notification messages. */
	notificationMaxChars: 1_000,
	/** One line of an output channel. */
	outputLineMaxChars: 10_000,

	// ---------------------------------------------------------------- UI text (server text in the UI)
	/** Server text in a read-only record document (a run's prompt, result, error: the 2 MiB output cap with room). */
	documentMaxChars: 4 * 1024 * 1024,
	/** An event type in an output channel line. */
	eventTypeMaxChars: 64,

	// ---------------------------------------------------------------- platform (health, SSH gateway, secrets)
	/** "Check Connection": each of its two requests (HEAD /healthz, GET /v2/me) gives up after this long. */
	connectionCheckTimeoutMs: 10_000,
	/** Longest base64 public key blob accepted for the SSH gateway host key (RSA 16384 fits). */
	hostKeyMaxBase64Chars: 16_384,
	/** Largest known_hosts file read before adding a line (larger: refused, nothing written). */
	knownHostsMaxBytes: 4 * 1024 * 1024,

	// ---------------------------------------------------------------- computer sessions (webview)
	/** Most WebSocket subprotocols a computer session may name (the service sends two). */
	sessionProtocolsMax: 8,
	/** Longest subprotocol of a computer session (a `session.<token>` entry included). */
	sessionProtocolMaxChars: 512,
	/** Longest computer-session socket URL handed to the page. */
	sessionUrlMaxChars: 2_048,

	// ---------------------------------------------------------------- token-savings dashboard
	/** Most account-wide savings events the dashboard reads for one filter; it says so when it stops there. */
	savingsMaxEvents: 100_000,
	/**
	 * Largest CSV export of savings events, held in memory until it is written whole (vscode.workspace.fs
	 * writes a file at once, in both extension hosts; at most twice this while the chunks are joined):
	 * a row is ~156 bytes as the emulator's demo sends them (16 MB for savingsMaxEvents), up to ~9 KB
	 * with every member at its bound (32 methods of 120 characters, 255-character ids); past this the
	 * export stops and nothing is written.
	 */
	savingsCsvMaxBytes: 64 * 1024 * 1024,
	/** Methods read from one savings event. */
	savingsMethodsPerEvent: 32,
	/** Distinct methods (and distinct runtimes) the dashboard's breakdowns keep; the rest are added up under "other". */
	savingsMaxKeys: 200,
	/** Rows of the dashboard's recent-events table. */
	savingsRecentRows: 100,
	/** Runtimes whose savings summary the dashboard asks for (four at a time). */
	savingsMaxRuntimeSummaries: 200,
	/** Savings events observed before this time (2000-01-01) or more than a day ahead are malformed. */
	savingsEarliestMs: 946_684_800_000,
	savingsFutureSlackMs: 24 * 60 * 60 * 1000,

	// ---------------------------------------------------------------- secret stubs and the secrets they use
	/** Longest `stub_config_json` parsed to show a stub's shape (longer: shown as "unreadable"). */
	stubConfigMaxChars: 16_384,
	/** How many distinct secrets the "Secrets" group reads (one GET each); the rest are listed unread. */
	secretsFromStubsMax: 50,
	/** How many of those reads run at once. */
	secretReadConcurrency: 4,

	// ---------------------------------------------------------------- agent session history
	/** Most new events one "Show Session History" stores and shows (run it again for more). */
	sessionHistoryMaxEvents: 100_000,
	/** How many stored events the output shows when it opens (the file keeps every one). */
	sessionHistoryShownEvents: 5_000,
	/** Events written to the file and the output at a time. */
	sessionHistoryBatch: 200,
	/** Session output channels kept open at once (the oldest is closed). */
	sessionChannelsMax: 10,
	// ---------------------------------------------------------------- images, builds, checkpoints, model providers
	/** One text member read from an image, build, checkpoint or provider record (names, reasons). */
	recordTextMaxChars: 2_000,
	/** Items read from an array member of such a record (attempts, tags, architectures). */
	recordArrayMaxItems: 1_000,
	/** Nesting levels walked when secret-named members are masked in a record shown as JSON. */
	recordDepthMax: 16,
	/** Field-level problems read from one error body (`error.details`, `error.field_violations`). */
	fieldErrorsMax: 100,
	/** Following a build: the first wait between two reads of it. */
	buildPollMinMs: 2_000,
	/** Following a build: the longest wait between two reads (the wait grows ×1.5 while nothing changes). */
	buildPollMaxMs: 30_000,
	/** Following a build: reads of it before following stops (with a message; the list still shows it). */
	buildPollMaxReads: 2_000,
} as const;
