/**
 * Issue 39, item 2: what traces cost the receive path. `npx tsx bench/tracing.ts`
 *
 * Three builds of `hookrelay listen` (no forwarding, no console), in alternating rounds (PERFORMANCE.md),
 * and the first of them twice, as the noise floor of the ratios:
 *
 * - `no tracing code`: the CLI bundled from a copy of src/ with the tracing call sites taken out
 *   (PATCHES below, each the exact text it replaces: a change to one of those places stops this
 *   bench, naming it, rather than measure something else);
 * - `tracing off`: the CLI bundled from src/ as it is, without OTEL_* (target ≥ 0.98× the above);
 * - `tracing on`: the same bundle with OTEL_EXPORTER_OTLP_ENDPOINT set to a local OTLP/HTTP sink in
 *   this process, which reads every export and counts its spans (target ≥ 0.85×).
 *
 * Both bundles are built here, by esbuild with the same settings as scripts/bundle-cli.mjs, from the
 * TypeScript sources, so they differ only by the tracing code. Servers on core 0, the load generator
 * on core 1 (bench/lib.ts); each round starts with the next server in turn. Env: BENCH_ROUNDS (3), BENCH_ROUND_MS (8000), BENCH_CONNECTIONS (50).
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { freePort, load, median, processCpu, ROOT, SECRET, startServer, type Load, type Server } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 8000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WORK = join(ROOT, 'bench', '.build', 'tracing');

/** Where the tracing code sits in the receive path: [file, the text with tracing, the text without]. */
const PATCHES: Array<[file: string, traced: string, untraced: string]> = [
  ['src/app/build-node.ts', "import { startTracing } from '../telemetry/start-tracing.js';\n", ''],
  ['src/app/build-node.ts', '    // Traces, when the standard OTEL_* variables ask for them (docs: "Traces"); closed last, so it\n    // exports the spans of everything that closes before it.\n', ''],
  ['src/app/build-node.ts', '    const tracing = await startTracing();\n    started.add(() => tracing.close());\n', ''],
  ['src/app/build-node.ts', "    for (const warning of tracing.warnings) startNotices.push({ level: 'warn', message: warning });\n", ''],
  ['src/ingest/pipeline.ts', "import { endStep, startArrival, tracingOn, type ArrivalTrace } from '../telemetry/tracing.js';\n", ''],
  ['src/ingest/pipeline.ts', `  /** The arrival's span (tracing on only: telemetry/tracing.ts), ended with the attempt's record. */
  async function traced(arrival: Arrival, trace: ArrivalTrace): Promise<Outcome> {
    let outcome: Outcome;
    try {
      outcome = await decide(arrival, trace);
    } catch (err) {
      trace.fail(err);
      throw err;
    }
    const { action } = outcome;
    trace.answered(action.kind, 'status' in action ? action.status : undefined);
    outcome.recorded.then((record) => trace.end(record), (err: unknown) => trace.fail(err));
    return outcome;
  }

  // Asked once, as the node is built after tracing started (build-node.ts): with tracing off an arrival calls nothing of it.
  const tracing = tracingOn();
  function handle(arrival: Arrival): Promise<Outcome> {
    const trace = tracing ? startArrival(arrival) : null;
    return trace === null ? decide(arrival, null) : traced(arrival, trace);
  }

  async function decide(arrival: Arrival, trace: ArrivalTrace | null): Promise<Outcome> {`, '  async function handle(arrival: Arrival): Promise<Outcome> {'],
  ['src/ingest/pipeline.ts', "      const step = trace?.step('fault_rules');\n", ''],
  ['src/ingest/pipeline.ts', "      if (step) endStep(step, fault ? 'fired' : 'none');\n", ''],
  ['src/ingest/pipeline.ts', "    const verifying = trace?.step('verify');\n", ''],
  ['src/ingest/pipeline.ts', "    if (verifying) endStep(verifying, verdict.ok ? 'ok' : verdict.rejection.code);\n", ''],
  ['src/ingest/pipeline.ts', 'passthrough.handOn(arrival, checked.envelope.id, trace?.context)', 'passthrough.handOn(arrival, checked.envelope.id)'],
  ['src/ingest/pipeline.ts', 'return storeStep({ arrival, checked, signature, attempt, handedOn, trace });', 'return storeStep({ arrival, checked, signature, attempt, handedOn });'],
  ['src/ingest/store-step.ts', "import { endStep, type ArrivalTrace } from '../telemetry/tracing.js';\n", ''],
  ['src/ingest/store-step.ts', "  /** The arrival's span, when tracing is on: the commit is its child. */\n  trace?: ArrivalTrace | null;\n", ''],
  ['src/ingest/store-step.ts', "      // Before the relay is told: its first try hangs under this arrival.\n", ''],
  ['src/ingest/store-step.ts', '  return async function store({ arrival, checked, signature, attempt, handedOn, trace }) {', '  return async function store({ arrival, checked, signature, attempt, handedOn }) {'],
  ['src/ingest/store-step.ts', "    const committing = trace?.step('commit');\n", ''],
  ['src/ingest/store-step.ts', "      if (committing) endStep(committing, result.outcome === 'duplicate' ? 'duplicate' : 'stored');\n", ''],
  ['src/ingest/store-step.ts', '      if (!duplicate) trace?.stored(envelope.id);\n', ''],
  ['src/ingest/store-step.ts', "      if (committing) endStep(committing, err instanceof StoreUnavailableError ? 'unavailable' : 'error');\n", ''],
];

/** A copy of src/ with every PATCHES text (each occurrence) replaced by the code without tracing. */
function untracedSources(): string {
  const copy = join(WORK, 'untraced-src');
  rmSync(copy, { recursive: true, force: true });
  // Inside the repository, so the copy's imports of packages find node_modules as the original's do.
  cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
  for (const [file, traced, untraced] of PATCHES) {
    const path = join(copy, file);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(traced)) throw new Error(`bench/tracing.ts: ${file} no longer holds the tracing code this bench takes out; update PATCHES:\n${traced}`);
    writeFileSync(path, text.split(traced).join(untraced));
  }
  // Nothing of the untraced CLI may still reach the tracing module on the receive path.
  for (const file of ['src/ingest/pipeline.ts', 'src/ingest/store-step.ts', 'src/app/build-node.ts']) {
    const text = readFileSync(join(copy, file), 'utf8');
    if (/telemetry\/|trace\b|tracing\./.test(text)) throw new Error(`bench/tracing.ts: ${file} still holds tracing code after PATCHES`);
  }
  return copy;
}

/** The CLI bundled as scripts/bundle-cli.mjs bundles it, from TypeScript sources under `root`. */
async function bundle(root: string, out: string): Promise<string> {
  rmSync(out, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: ['src/cli.ts', 'src/store/sqlite/writer-worker.ts', 'src/store/sqlite/checkpoint-worker.ts'],
    entryNames: '[name]',
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pg', 'pg-native', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
    logLevel: 'warning',
    banner: {
      js: [
        "import { createRequire as __hookrelayRequire } from 'node:module';",
        "import { fileURLToPath as __hookrelayPath } from 'node:url';",
        "import { dirname as __hookrelayDirname } from 'node:path';",
        'const require = __hookrelayRequire(import.meta.url);',
        'const __filename = __hookrelayPath(import.meta.url);',
        'const __dirname = __hookrelayDirname(__filename);',
      ].join(' '),
    },
  });
  return join(out, 'cli.js');
}

/** An OTLP/HTTP sink: answers every export 200 and counts the spans in it (`"spanId"` occurrences). */
async function startSink(): Promise<{ endpoint: string; spans: () => number; exports: () => number; close: () => void }> {
  let spans = 0;
  let exports = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports++;
      const text = Buffer.concat(chunks).toString('utf8');
      for (let at = text.indexOf('"spanId"'); at >= 0; at = text.indexOf('"spanId"', at + 8)) spans++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => spans, exports: () => exports, close: () => server.close() };
}

/** `listen` from a bundle, on core 0, with these variables added to its environment. */
async function startListen(cli: string, db: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    // pinnedSpawn (bench/lib.ts) passes this process's environment on: set for this spawn only.
    return await startServer([cli, 'listen', '--port', String(port), '--db', db, '--secret', SECRET, '--log-format', 'json', '--no-console'], port, '/webhooks');
  } finally {
    for (const name of Object.keys(env)) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

interface Round extends Load {
  cpuUsPerRequest: number;
}

export interface TracingRatio {
  /** The median of the rounds' own ratios of req/s against "no tracing code". */
  ratio: number;
  each: number[];
  cpuUsPerRequest: number;
  /** For a table row: the ratio, every round's, and the CPU a request. */
  text: string;
}

export interface TracingResult {
  /** The untraced build against itself (a second process, same rounds): the noise floor of the other two. */
  noise: TracingRatio;
  off: TracingRatio;
  on: TracingRatio;
  baseline: { rps: number; cpuUsPerRequest: number };
  /** Spans the sink received from `tracing on`, and the deliveries it accepted in its rounds (one span each, the arrival, when none is dropped: its steps are attributes of it). */
  exportedSpans: number;
  onDeliveries: number;
}

/**
 * The scenario, for `npx tsx bench/tracing.ts` and for bench/run.ts: builds both bundles, runs the
 * three servers in alternating rounds, and returns the same-round ratios.
 */
export async function tracingScenario(options: { rounds?: number; roundMs?: number; connections?: number; say?: (line: string) => void } = {}): Promise<TracingResult> {
  const rounds = options.rounds ?? ROUNDS;
  const roundMs = options.roundMs ?? ROUND_MS;
  const connections = options.connections ?? CONNECTIONS;
  const say = options.say ?? ((line: string) => console.log(line));
  mkdirSync(WORK, { recursive: true });
  say('  building the two bundles (src/ as it is, and src/ without the tracing code)');
  const traced = await bundle(ROOT, join(WORK, 'traced'));
  const untraced = await bundle(untracedSources(), join(WORK, 'untraced'));
  const sink = await startSink();
  const dbDir = join(WORK, 'db');
  rmSync(dbDir, { recursive: true, force: true });
  mkdirSync(dbDir, { recursive: true });

  const servers: Array<{ name: string; server: Server }> = [];
  try {
    servers.push({ name: 'no tracing code', server: await startListen(untraced, join(dbDir, 'untraced.db')) });
    // The same build again: its ratio to the first is what this machine's noise alone makes of "no change".
    servers.push({ name: 'no tracing code again', server: await startListen(untraced, join(dbDir, 'untraced-again.db')) });
    servers.push({ name: 'tracing off', server: await startListen(traced, join(dbDir, 'off.db')) });
    servers.push({ name: 'tracing on', server: await startListen(traced, join(dbDir, 'on.db'), { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint }) });
    const measured = new Map<string, Round[]>(servers.map((s) => [s.name, []]));
    let onDeliveries = 0;
    for (const { server } of servers) await load(server.url, 1500, connections);
    const spansBefore = sink.spans();
    for (let round = 1; round <= rounds; round++) {
      const parts: string[] = [];
      // Each round starts with another server, so none is always measured first or last in a round.
      const order = servers.map((_, i) => servers[(i + round - 1) % servers.length]!);
      for (const { name, server } of order) {
        const pid = server.child.pid!;
        const before = processCpu(pid);
        const result = await load(server.url, roundMs, connections);
        const after = processCpu(pid);
        const cpuUsPerRequest = result.ok === 0 ? 0 : ((after.user + after.system - before.user - before.system) * 1000) / result.ok;
        measured.get(name)!.push({ ...result, cpuUsPerRequest });
        if (name === 'tracing on') onDeliveries += result.ok;
        parts.push(`${name} ${result.rps.toFixed(0)} req/s p99 ${result.p99.toFixed(2)} ms, ${cpuUsPerRequest.toFixed(0)} µs CPU/req${result.requests - result.ok ? ` (${result.requests - result.ok} non-2xx)` : ''}`);
      }
      say(`  round ${round}: ${parts.join(' | ')}`);
    }
    // The last batch of spans is exported on the node's clean close, so they are counted after it.
    await Promise.all(servers.map(({ server }) => server.stop()));
    const exportedSpans = sink.spans() - spansBefore;
    const base = measured.get('no tracing code')!;
    const ratioOf = (name: string): TracingRatio => {
      const each = measured.get(name)!.map((r, i) => r.rps / base[i]!.rps);
      const ratio = median(each);
      const cpuUsPerRequest = median(measured.get(name)!.map((r) => r.cpuUsPerRequest));
      return { ratio, each, cpuUsPerRequest, text: `${ratio.toFixed(2)}× (median of the rounds' ${each.map((x) => x.toFixed(2)).join(', ')}), ${cpuUsPerRequest.toFixed(0)} µs CPU/req` };
    };
    return {
      noise: ratioOf('no tracing code again'),
      off: ratioOf('tracing off'),
      on: ratioOf('tracing on'),
      baseline: { rps: median(base.map((r) => r.rps)), cpuUsPerRequest: median(base.map((r) => r.cpuUsPerRequest)) },
      exportedSpans,
      onDeliveries,
    };
  } finally {
    await Promise.all(servers.map(({ server }) => server.stop()));
    sink.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await tracingScenario();
  console.log('\nreceive throughput, the median of the rounds\' own ratios against "no tracing code" (PERFORMANCE.md):');
  console.log(`  the same untraced build again (noise): ${result.noise.text}`);
  console.log(`  tracing off: ${result.off.text}; target ≥ 0.98×: ${result.off.ratio >= 0.98 ? 'met' : 'NOT met'}`);
  console.log(`  tracing on:  ${result.on.text}; target ≥ 0.85×: ${result.on.ratio >= 0.85 ? 'met' : 'NOT met'}`);
  console.log(`  no tracing code: median ${result.baseline.rps.toFixed(0)} req/s, ${result.baseline.cpuUsPerRequest.toFixed(0)} µs CPU/req`);
  console.log(`  tracing on exported ${result.exportedSpans} spans for ${result.onDeliveries} deliveries (${(result.exportedSpans / Math.max(1, result.onDeliveries)).toFixed(2)} a delivery; 1, the arrival, when the batch processor dropped none)`);
}
