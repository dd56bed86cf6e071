/**
 * API client figures: request overhead against a bare undici.request, run-event streaming
 * throughput against raw eventsource-parser and the `eventsource` package, the same stream through
 * the browser's transport (fetch: VS Code for the Web) against raw eventsource-parser over fetch,
 * and heap while consuming a long stream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { EventSource } from 'eventsource';
import { Agent, request } from 'undici';
import { CloudAgentsClient, type RunEventStream } from '../../src/api';
import { followBalancedOrder } from '../order';
import { type BenchContext, median, quantile } from '../report';
import { nodeConnect } from '../../src/platform/node/network';
import { fetchConnect } from '../../src/platform/web/fetchWire';

const AGENT = '0190f1c2-0000-7000-8000-00000000b001.bench';
const RUN = 'run_bench';
const EVENTS_PATH = `/v2/agents/${encodeURIComponent(AGENT)}/runs/${RUN}/events`;

function frame(seq: number, last: boolean): string {
	const type = last ? 'run.completed' : 'log';
	const data = last
		? { seq, run_id: RUN, type, created_at: '2025-11-21T10:00:00.000Z', data: { status: 'succeeded' } }
		: {
				seq,
				run_id: RUN,
				type,
				created_at: '2025-11-21T10:00:00.000Z',
				data: { level: 'info', text: `step ${seq}: compiled module ${seq % 97} in ${seq % 13} ms` },
			};
	return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function sseBytes(count: number): Buffer {
	const parts: string[] = ['retry: 3000\n\n'];
	for (let i = 0; i < count; i++) {
		parts.push(frame(i, i === count - 1));
	}
	return Buffer.from(parts.join(''), 'utf8');
}

/** A loopback server: a fixed buffer, or `count` events generated on the fly with backpressure. */
async function sseServer(fixed: Buffer | undefined, streamedCount: number): Promise<{ server: Server; url: string }> {
	const server = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		if (fixed) {
			res.end(fixed);
			return;
		}
		let i = 0;
		const pump = (): void => {
			while (i < streamedCount) {
				let chunk = '';
				for (let k = 0; k < 500 && i < streamedCount; k++, i++) {
					chunk += frame(i, i === streamedCount - 1);
				}
				if (!res.write(chunk)) {
					res.once('drain', pump);
					return;
				}
			}
			res.end();
		};
		pump();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Median latencies of calls interleaved one by one, so drift and GC hit every side alike, in an
 * order where every side follows every side (itself included) equally often: what one call leaves
 * behind (garbage, stream teardown, a pooled socket's state) then falls on the next call of each
 * side alike. A plain rotation had one side follow another twice as often, which alone put 0.1–0.25
 * on a ratio.
 */
async function pairedMedians(sides: ReadonlyArray<() => Promise<unknown>>, callsPerSide: number): Promise<number[]> {
	for (let i = 0; i < 300; i++) {
		for (const side of sides) {
			await side();
		}
	}
	const times: number[][] = sides.map(() => []);
	const order = followBalancedOrder(sides.length);
	for (let i = 0; i < callsPerSide * sides.length; i++) {
		const side = order[i % order.length] as number;
		const t0 = process.hrtime.bigint();
		await (sides[side] as () => Promise<unknown>)();
		(times[side] as number[]).push(Number(process.hrtime.bigint() - t0) / 1e3);
	}
	return times.map((t) => median(t));
}

/**
 * Median latencies of the same GET three ways: our client, a bare undici.request (the baseline of the
 * transport we chose), and Node's global `fetch` (what VS Code's extension host hands extensions, before
 * its proxy and certificate layer): the figures behind the transport choice (README "Networks").
 * Each ratio comes from its own paired loop against bare undici: with all three in one loop, the
 * garbage fetch leaves (web streams, Headers, Response) was collected during the next calls, and
 * the client, which allocates more than bare undici, paid for more of it (client ÷ bare 1.13 with
 * fetch in the loop, 1.09 without it, in one run).
 */
async function requestOverhead(
	ctx: BenchContext,
): Promise<{ client: number; bare: number; fetch: number; fetchBare: number; lowest: number; lowestClient: number }> {
	const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: ctx.emulatorUrl, getToken: async () => ctx.token });
	const agent = (await client.listAgents({ limit: 1 })).items[0];
	if (!agent) {
		throw new Error('the emulator has no agent');
	}
	const dispatcher = new Agent({ connect: { timeout: 10_000 }, keepAliveTimeout: 4_000 });
	const url = `${ctx.emulatorUrl}/v2/agents/${encodeURIComponent(agent.id)}`;
	const bare = async (): Promise<unknown> => {
		const res = await request(url, {
			method: 'GET',
			dispatcher,
			headers: { accept: 'application/json', authorization: `Bearer ${ctx.token}`, 'user-agent': 'bench' },
		});
		return res.body.json();
	};
	const viaFetch = async (): Promise<unknown> => {
		const res = await fetch(url, {
			headers: { accept: 'application/json', authorization: `Bearer ${ctx.token}`, 'user-agent': 'bench' },
		});
		return res.json();
	};
	// undici's lowest call, as the client makes it: origin and path given, no URL to parse, the
	// options an object literal (undici.request(url) parses the URL and spreads its options).
	const target = new URL(url);
	const lowest = async (): Promise<unknown> => {
		const res = await dispatcher.request({
			origin: target.origin,
			path: target.pathname,
			method: 'GET',
			headers: { accept: 'application/json', authorization: `Bearer ${ctx.token}`, 'user-agent': 'bench' },
		});
		return res.body.json();
	};
	const viaClient = (): Promise<unknown> => client.getAgent(agent.id);
	const [clientMs, bareMs] = (await pairedMedians([viaClient, bare], 3000)) as [number, number];
	const [fetchMs, fetchBareMs] = (await pairedMedians([viaFetch, bare], 3000)) as [number, number];
	const [lowestClientMs, lowestMs] = (await pairedMedians([viaClient, lowest], 3000)) as [number, number];
	client.close();
	await dispatcher.close();
	return { client: clientMs, bare: bareMs, fetch: fetchMs, fetchBare: fetchBareMs, lowest: lowestMs, lowestClient: lowestClientMs };
}

/** The parsed-record members every contender hands to the sink. */
interface WireRecord {
	seq: number;
	type: string;
	data?: Record<string, unknown>;
}

/** The per-event consumer work, identical for every contender. */
class Sink {
	count = 0;
	seqSum = 0;
	completed = 0;
	dataMembers = 0;
	take(seq: number, type: string, data: Record<string, unknown> | undefined): void {
		this.count++;
		this.seqSum += seq;
		if (type === 'run.completed') {
			this.completed++;
		}
		if (data !== undefined) {
			this.dataMembers++;
		}
	}
}

/** One contender's full stream: events per wall-clock second and per CPU second of this process. */
interface Rate {
	wall: number;
	cpu: number;
}

/**
 * Events per second of one full stream; checks every event arrived once, in order, with its data.
 * First, outside the timing, a short pause lets the previous contender's teardown (socket close,
 * aborted fetch) finish and a full gc() collects its garbage, so no contender pays for another's.
 */
async function throughput(consume: (sink: Sink) => Promise<void>, expected: number, gc: () => void): Promise<Rate> {
	const sink = new Sink();
	await new Promise((resolve) => setTimeout(resolve, 20));
	gc();
	const cpu0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	await consume(sink);
	const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
	const cpu = process.cpuUsage(cpu0);
	if (
		sink.count !== expected ||
		sink.completed !== 1 ||
		sink.dataMembers !== expected ||
		sink.seqSum !== (expected * (expected - 1)) / 2
	) {
		throw new Error(
			`consumed ${sink.count} events (${sink.dataMembers} with data, ${sink.completed} completions), expected ${expected}`,
		);
	}
	return { wall: expected / seconds, cpu: expected / ((cpu.user + cpu.system) / 1e6) };
}

/** A contender of the streaming rounds: consumes the whole stream, handing every event to the sink. */
interface Contender {
	key: string;
	run: (sink: Sink) => Promise<void>;
}

/**
 * The six orders of three contenders, taken in turn by the rounds (the measured rounds a multiple
 * of 6), in a sequence where each contender takes each position equally often and runs right after
 * each other contender equally often, across the rounds' seams too: whatever one leaves behind that
 * the pause and gc() do not absorb (the `eventsource` package's aborted fetch, a socket's teardown)
 * falls on the others alike. A plain rotation (C P E, P E C, E C P) had the client start right after
 * the `eventsource` package in two rounds of three.
 */
const ORDERS = [
	[0, 1, 2],
	[1, 2, 0],
	[2, 0, 1],
	[0, 2, 1],
	[2, 1, 0],
	[1, 0, 2],
] as const;
const WARMUP = 3;
const ROUNDS = 30;

/**
 * Interleaved rounds of three contenders over the same stream: load from other processes and drift
 * hit all three alike, and each ratio is then the median of the per-round ratios (paired within a
 * round). Returns, per measured round, each contender's rate by key.
 */
async function streamRounds(
	contenders: readonly [Contender, Contender, Contender],
	count: number,
	gc: () => void,
): Promise<Array<Record<string, Rate>>> {
	const rounds: Array<Record<string, Rate>> = [];
	for (let r = 0; r < WARMUP + ROUNDS; r++) {
		const round: Record<string, Rate> = {};
		// The measured rounds start with the first order (the warm-up rounds take the last ones).
		const order = ORDERS[(((r - WARMUP) % ORDERS.length) + ORDERS.length) % ORDERS.length] as readonly number[];
		for (const k of order) {
			const c = contenders[k] as Contender;
			round[c.key] = await throughput(c.run, count, gc);
		}
		if (r >= WARMUP) {
			rounds.push(round);
		}
	}
	return rounds;
}

/** Per round, `a`'s rate ÷ `b`'s (wall clock or CPU seconds). */
function ratios(rounds: ReadonlyArray<Record<string, Rate>>, a: string, b: string, clock: keyof Rate): number[] {
	return rounds.map((r) => (r[a] as Rate)[clock] / (r[b] as Rate)[clock]);
}

/** The median over rounds of one contender's rate (wall clock). */
function medianRate(rounds: ReadonlyArray<Record<string, Rate>>, key: string): number {
	return median(rounds.map((r) => (r[key] as Rate).wall));
}

/**
 * Raw eventsource-parser + JSON.parse over a `fetch` response body (Node's global fetch here): what
 * a consumer of the stream writes by hand where fetch is the transport (VS Code for the Web).
 */
async function viaFetchParser(url: string, sink: Sink): Promise<void> {
	const res = await fetch(`${url}${EVENTS_PATH}?after=-1`, { headers: { accept: 'text/event-stream' } });
	if (!res.body) {
		throw new Error(`no body (status ${res.status})`);
	}
	const decoder = new TextDecoder();
	const parser = createParser({
		onEvent: (m) => {
			const record = JSON.parse(m.data) as WireRecord;
			sink.take(record.seq, record.type, record.data);
		},
	});
	const reader = (res.body as ReadableStream<Uint8Array>).getReader();
	for (let r = await reader.read(); !r.done; r = await reader.read()) {
		parser.feed(decoder.decode(r.value, { stream: true }));
	}
}

/** Reads a run-event stream as readRunEvents does (RunEventStream.nextBatch), handing every record to the sink. */
async function takeBatches(stream: RunEventStream, sink: Sink): Promise<void> {
	for (let batch = await stream.nextBatch(); batch !== undefined; batch = await stream.nextBatch()) {
		for (const ev of batch) {
			sink.take(ev.seq, ev.type, ev.data);
		}
	}
}

export async function run(ctx: BenchContext): Promise<void> {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) {
		throw new Error('run node with --expose-gc');
	}
	ctx.log('request overhead…');
	const overhead = await requestOverhead(ctx);
	const ratio = overhead.client / overhead.bare;

	const COUNT = 200_000;
	ctx.log(`streaming ${COUNT} events…`);
	const bytes = sseBytes(COUNT);
	const { server, url } = await sseServer(bytes, 0);
	const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: url, getToken: () => 'ca_bench_token' });
	const rawDispatcher = new Agent({ keepAliveTimeout: 4_000 });

	// Every contender does the same consumer work per event: it obtains the parsed record's seq,
	// type and data (the client hands out parsed records; the raw contenders JSON.parse the SSE
	// data themselves, as their users must) and gives them to the same sink.
	// The client as the run follower reads it (src/runFollowing/runEvents.ts): a chunk's records at a time.
	const viaClient = (sink: Sink): Promise<void> => takeBatches(client.streamRunEvents(AGENT, RUN), sink);
	const viaParser = async (sink: Sink): Promise<void> => {
		const res = await request(`${url}${EVENTS_PATH}?after=-1`, {
			method: 'GET',
			dispatcher: rawDispatcher,
			headers: { accept: 'text/event-stream' },
		});
		const decoder = new TextDecoder();
		const parser = createParser({
			onEvent: (m) => {
				const record = JSON.parse(m.data) as WireRecord;
				sink.take(record.seq, record.type, record.data);
			},
		});
		for await (const chunk of res.body) {
			parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
		}
	};
	const viaEventSource = (sink: Sink): Promise<void> =>
		new Promise((resolve, reject) => {
			// The package as most Node users reach for it: default options, its default fetch.
			const es = new EventSource(`${url}${EVENTS_PATH}?after=-1`);
			const onEvent = (e: MessageEvent): void => {
				const record = JSON.parse(e.data as string) as WireRecord;
				sink.take(record.seq, record.type, record.data);
				if (record.type === 'run.completed') {
					es.close();
					resolve();
				}
			};
			es.addEventListener('log', onEvent);
			es.addEventListener('run.completed', onEvent);
			es.onerror = (err) => {
				es.close();
				reject(new Error(`eventsource error: ${String((err as { message?: string }).message ?? err.type)}`));
			};
		});

	// The client through the browser's transport (src/platform/web/fetchWire.ts over Node's global fetch), as
	// VS Code for the Web runs it: the same client code, a different wire.
	const webClient = new CloudAgentsClient({ connect: fetchConnect, baseUrl: url, getToken: () => 'ca_bench_token' });
	const viaWebClient = (sink: Sink): Promise<void> => takeBatches(webClient.streamRunEvents(AGENT, RUN), sink);

	// Node: the client, raw eventsource-parser (over undici, the client's transport there) and the
	// `eventsource` package. The browser's transport: the client over fetch, raw eventsource-parser
	// over fetch (the same transport: the target's baseline) and over undici (the Node baseline).
	const nodeRounds = await streamRounds(
		[
			{ key: 'client', run: viaClient },
			{ key: 'parser', run: viaParser },
			{ key: 'es', run: viaEventSource },
		],
		COUNT,
		gc,
	);
	ctx.log(`streaming ${COUNT} events through fetch (the browser's transport)…`);
	const webRounds = await streamRounds(
		[
			{ key: 'webClient', run: viaWebClient },
			{ key: 'fetchParser', run: (sink) => viaFetchParser(url, sink) },
			{ key: 'parser', run: viaParser },
		],
		COUNT,
		gc,
	);
	const clientOverParser = ratios(nodeRounds, 'client', 'parser', 'wall');
	const clientOverEs = ratios(nodeRounds, 'client', 'es', 'wall');
	const cpuClientOverParser = ratios(nodeRounds, 'client', 'parser', 'cpu');
	const cpuClientOverEs = ratios(nodeRounds, 'client', 'es', 'cpu');
	const webOverFetchParser = ratios(webRounds, 'webClient', 'fetchParser', 'wall');
	const webOverParser = ratios(webRounds, 'webClient', 'parser', 'wall');
	const cpuWebOverFetchParser = ratios(webRounds, 'webClient', 'fetchParser', 'cpu');
	const c = medianRate(nodeRounds, 'client');
	const p = medianRate(nodeRounds, 'parser');
	const es = medianRate(nodeRounds, 'es');
	const cp = median(clientOverParser);
	const ces = median(clientOverEs);
	const wfp = median(webOverFetchParser);
	const spread = (xs: number[]): string => `quartiles ${quantile(xs, 0.25).toFixed(2)}–${quantile(xs, 0.75).toFixed(2)}`;

	ctx.log('heap over 1,000,000 events…');
	const HEAP_EVENTS = 1_000_000;
	// A generated stream (backpressured writes), so the server itself holds no 1,000,000-event buffer.
	const big = await sseServer(undefined, HEAP_EVENTS);
	const bigClient = new CloudAgentsClient({ connect: nodeConnect, baseUrl: big.url, getToken: () => 'ca_bench_token' });
	gc();
	const baseline = process.memoryUsage().heapUsed;
	let maxExtra = 0;
	let m = 0;
	for await (const ev of bigClient.streamRunEvents(AGENT, RUN)) {
		void ev;
		m++;
		if (m % 100_000 === 0) {
			gc();
			maxExtra = Math.max(maxExtra, process.memoryUsage().heapUsed - baseline);
		}
	}
	if (m !== HEAP_EVENTS) {
		throw new Error(`heap run consumed ${m} events`);
	}
	const extraMb = maxExtra / (1024 * 1024);

	client.close();
	webClient.close();
	bigClient.close();
	await rawDispatcher.close();
	server.close();
	big.server.close();

	const fmt = (x: number): string => `${Math.round(x).toLocaleString('en-US')} events/s`;
	ctx.addSection({
		title: 'API client (src/api)',
		rows: [
			{ metric: 'GET /v2/agents/{id}: median latency, client', value: `${overhead.client.toFixed(1)} µs` },
			{ metric: 'GET /v2/agents/{id}: median latency, bare undici.request + JSON', value: `${overhead.bare.toFixed(1)} µs` },
			{ metric: "GET /v2/agents/{id}: median latency, Node's global fetch + JSON", value: `${overhead.fetch.toFixed(1)} µs` },
			{
				metric: 'transport choice: global fetch ÷ bare undici (median latencies)',
				value: (overhead.fetch / overhead.fetchBare).toFixed(3),
			},
			{
				metric: 'request overhead: client ÷ bare undici (median latencies)',
				value: ratio.toFixed(3),
				target: '≤ 1.10',
				pass: ratio <= 1.1,
			},
			{
				metric: "GET /v2/agents/{id}: median latency, undici's lowest call (dispatcher.request with origin and path) + JSON",
				value: `${overhead.lowest.toFixed(1)} µs`,
			},
			{
				metric: "what the client's own layers cost: client ÷ undici's lowest call (median latencies)",
				value: (overhead.lowestClient / overhead.lowest).toFixed(3),
			},
			{ metric: `run events, client stream (${COUNT.toLocaleString('en-US')} events; seq, type, parsed data)`, value: fmt(c) },
			{ metric: 'run events, raw eventsource-parser + JSON.parse (same work)', value: fmt(p) },
			{ metric: 'run events, `eventsource` package (default fetch) + JSON.parse (same work)', value: fmt(es) },
			{
				metric: `SSE: client ÷ raw eventsource-parser (median of ${ROUNDS} paired rounds, wall clock; ${spread(clientOverParser)})`,
				value: cp.toFixed(2),
				target: '≥ 0.8',
				pass: cp >= 0.8,
			},
			{
				metric: `SSE: client ÷ \`eventsource\` package (median of ${ROUNDS} paired rounds, wall clock; ${spread(clientOverEs)})`,
				value: ces.toFixed(2),
				target: '≥ 1.5',
				pass: ces >= 1.5,
			},
			{
				metric: `cross-check, per CPU second of the bench process: client ÷ raw eventsource-parser (${spread(cpuClientOverParser)})`,
				value: median(cpuClientOverParser).toFixed(2),
			},
			{
				metric: `cross-check, per CPU second of the bench process: client ÷ \`eventsource\` package (${spread(cpuClientOverEs)})`,
				value: median(cpuClientOverEs).toFixed(2),
			},
			{
				metric: `run events through the browser's transport: client over fetch (src/platform/web/fetchWire.ts, Node's global fetch)`,
				value: fmt(medianRate(webRounds, 'webClient')),
			},
			{
				metric: 'run events, raw eventsource-parser + JSON.parse over fetch (same work)',
				value: fmt(medianRate(webRounds, 'fetchParser')),
			},
			{
				metric: `SSE through fetch (VS Code for the Web): client ÷ raw eventsource-parser over fetch (median of ${ROUNDS} paired rounds, wall clock; ${spread(webOverFetchParser)})`,
				value: wfp.toFixed(2),
				target: '≥ 0.8',
				pass: wfp >= 0.8,
			},
			{
				metric: `SSE: client over fetch ÷ raw eventsource-parser over undici, the Node baseline (same rounds; ${spread(webOverParser)})`,
				value: median(webOverParser).toFixed(2),
			},
			{
				metric: `cross-check, per CPU second of the bench process: client over fetch ÷ raw eventsource-parser over fetch (${spread(cpuWebOverFetchParser)})`,
				value: median(cpuWebOverFetchParser).toFixed(2),
			},
			{
				metric: `extra heap while consuming ${HEAP_EVENTS.toLocaleString('en-US')} events (max, after gc)`,
				value: `${extraMb.toFixed(1)} MB`,
				target: '< 50 MB',
				pass: extraMb < 50,
			},
		],
		notes: [
			`Streaming: ${ROUNDS} rounds (after ${WARMUP} warm-up rounds) over the same bytes (${(bytes.length / 1e6).toFixed(1)} MB) from one loopback server; each round runs the three contenders back to back, the rounds taking the six orders in turn (each contender equally often in each place and right after each other), each after a 20 ms pause and a full gc() outside its timing, and every contender does the same work per event (takes the parsed record's seq, type and data). Rates are medians over rounds; ratios are medians of the per-round ratios (the targets use wall-clock time; the CPU-second ratios count only this process's user + system time, which other processes' load does not inflate, and are shown as a cross-check). Per-round client ÷ eventsource: ${clientOverEs.map((x) => x.toFixed(2)).join(', ')}.`,
			`Through fetch (the browser's transport, VS Code for the Web): ${ROUNDS} more rounds of the same kind over the same bytes, the contenders being the client over src/platform/web/fetchWire.ts (what the web build uses; Node's global fetch stands in for the browser's), raw eventsource-parser + JSON.parse reading a fetch response body (the target's baseline: the same transport, as the Node row pairs the client with the parser over undici), and raw eventsource-parser over undici (the Node row's baseline, shown for comparison: it includes what fetch itself costs against undici). Per-round client over fetch ÷ parser over fetch: ${webOverFetchParser.map((x) => x.toFixed(2)).join(', ')}.`,
			"Request latency is the median of 3,000 calls per side to the in-process emulator, interleaved one by one in an order where each side follows each side equally often; the client and global fetch are each paired with bare undici in a loop of their own (the bare figure shown is the client loop's), and the client once more with undici's lowest call. The client calls the dispatcher as that lowest call does (origin and path, no URL parse, an options literal); bare undici.request(url) parses the URL and spreads its options, which costs it more than all the client's own layers (deadlines, retries, body caps, decoding) cost the client, so the client ÷ bare undici ratio is below 1 and the lowest-call ratio shows what those layers cost.",
		],
	});
}
