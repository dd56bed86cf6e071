/** The JSON report the in-host runner writes and scripts/test-integration.mjs reads. */
export interface TestReport {
	/** Where the tests ran. */
	host: { vscodeVersion: string; node: string; appName: string; appHost: string; uiKind: string };
	stats: { suites: number; tests: number; passes: number; pending: number; failures: number; durationMs: number };
	tests: TestResult[];
	/** A failure outside any test (loading the suites, mocha itself). */
	fatal?: string;
}

/** One test, or one failed hook. */
export interface TestResult {
	/** Titles from the outermost suite down to the test. */
	titlePath: string[];
	state: 'passed' | 'failed' | 'pending';
	durationMs: number;
	error?: { message: string; stack?: string };
}
