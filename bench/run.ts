/**
 * `npm run bench`: hookrelay against baselines measured in the same run, as ratios.
 * Servers are pinned to core 0 and the load generator to core 1 (PERFORMANCE.md), rounds
 * alternate, and every request carries a fresh id and signature.
 *
 * Env: BENCH_ROUNDS (3), BENCH_ROUND_MS (8000), BENCH_CONNECTIONS (50), BENCH_SKIP_1M=1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDeliveries } from './seed-store.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 8000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECRET = 'whsec_bench_secret_value_0123456789';
const PINNED = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

interface Load {
  requests: number;
  ok: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

interface Server {
  url: string;
  child: ChildProcess;
  peakRssMb(): number;
  stop(): Promise<void>;
}

function pinned(core: number, args: string[]): [string, string[]] {
  return PINNED ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args];
}

async function startServer(args: string[]): Promise<Server> {
  const [cmd, argv] = pinned(0, args[0]!.endsWith('.ts') ? ['--import', 'tsx', ...args] : args);
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"receiver":"(http:\/\/[^"]+)"/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return {
    url,
    child,
    peakRssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function load(url: string, durationMs = ROUND_MS, rate = 0, connections = CONNECTIONS): Promise<Load> {
  const [cmd, argv] = pinned(1, ['--import', 'tsx', 'bench/load-generator.ts', url, String(connections), String(durationMs), SECRET, String(rate)]);
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out.trim().split('\n').pop()!) as Load;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function listenArgs(db: string): string[] {
  return ['dist/cli.js', 'listen', '--port', '0', '--db', db, '--secret', SECRET, '--log-format', 'json'];
}

async function main(): Promise<void> {
  if (spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  const work = join(ROOT, 'bench', 'results', `run-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const rows: Array<{ name: string; value: string; target: string; pass: boolean | null }> = [];
  console.log(`hookrelay bench — ${cpus().length} cores (${cpus()[0]?.model}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  console.log(PINNED ? 'servers pinned to core 0, load generator to core 1' : 'taskset not found: NOT pinned (ratios are less fair)');
  console.log(`${ROUNDS} alternating rounds of ${ROUND_MS} ms, ${CONNECTIONS} connections, fresh id and signature per request\n`);

  // 1. Durable verified receive against a bare fastify route.
  const bare = await startServer(['bench/bare-server.ts']);
  const hook = await startServer(listenArgs(join(work, 'receive.db')));
  await load(bare.url, 2000);
  await load(hook.url, 2000);
  const bareRuns: Load[] = [];
  const hookRuns: Load[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const b = await load(bare.url);
    const h = await load(hook.url);
    bareRuns.push(b);
    hookRuns.push(h);
    console.log(`round ${round + 1}: bare ${b.rps.toFixed(0)} req/s p99 ${b.p99.toFixed(2)} ms | hookrelay ${h.rps.toFixed(0)} req/s p99 ${h.p99.toFixed(2)} ms (non-2xx ${h.requests - h.ok}, errors ${h.errors})`);
  }
  const bareRps = median(bareRuns.map((r) => r.rps));
  const hookRps = median(hookRuns.map((r) => r.rps));
  const bareP99 = median(bareRuns.map((r) => r.p99));
  const hookP99 = median(hookRuns.map((r) => r.p99));
  const rss = hook.peakRssMb();
  await Promise.all([bare.stop(), hook.stop()]);
  rows.push(
    { name: 'bare fastify route', value: `${bareRps.toFixed(0)} req/s, p50 ${median(bareRuns.map((r) => r.p50)).toFixed(2)} ms, p99 ${bareP99.toFixed(2)} ms`, target: 'baseline', pass: null },
    { name: 'hookrelay listen (verify + FULL durable store + dedupe)', value: `${hookRps.toFixed(0)} req/s, p50 ${median(hookRuns.map((r) => r.p50)).toFixed(2)} ms, p99 ${hookP99.toFixed(2)} ms`, target: '', pass: null },
    { name: 'receive throughput ratio', value: `${(hookRps / bareRps).toFixed(2)}×`, target: '≥ 0.60×', pass: hookRps / bareRps >= 0.6 },
    { name: 'p99 latency ratio', value: `${(hookP99 / bareP99).toFixed(2)}×`, target: '≤ 3×', pass: hookP99 / bareP99 <= 3 },
    { name: 'peak RSS of hookrelay under sustained load', value: `${rss.toFixed(0)} MB`, target: '≤ 200 MB', pass: rss <= 200 },
  );

  // 2. A store holding 1,000,000 deliveries against an empty one.
  if (process.env.BENCH_SKIP_1M !== '1') {
    const bigDb = join(work, 'million.db');
    const t0 = performance.now();
    seedDeliveries(bigDb, 1_000_000);
    console.log(`\nseeded 1,000,000 deliveries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const big = await startServer(listenArgs(bigDb));
    const empty = await startServer(listenArgs(join(work, 'empty.db')));
    await load(big.url, 2000);
    await load(empty.url, 2000);
    const bigRuns: number[] = [];
    const emptyRuns: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const e = await load(empty.url);
      const b = await load(big.url);
      emptyRuns.push(e.rps);
      bigRuns.push(b.rps);
      console.log(`round ${round + 1}: empty store ${e.rps.toFixed(0)} req/s | 1M stored ${b.rps.toFixed(0)} req/s`);
    }
    await Promise.all([big.stop(), empty.stop()]);
    const ratio = median(bigRuns) / median(emptyRuns);
    rows.push({ name: 'throughput with 1,000,000 stored vs empty store', value: `${ratio.toFixed(2)}× (${median(bigRuns).toFixed(0)} vs ${median(emptyRuns).toFixed(0)} req/s)`, target: '≥ 0.90×', pass: ratio >= 0.9 });
  }

  console.log('\n| measure | result | target | |\n|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.name} | ${row.value} | ${row.target} | ${row.pass === null ? '' : row.pass ? 'met' : 'MISSED'} |`);
  writeFileSync(join(ROOT, 'bench', 'results', 'latest.json'), JSON.stringify({ date: new Date().toISOString(), pinned: PINNED, rounds: ROUNDS, roundMs: ROUND_MS, connections: CONNECTIONS, rows }, null, 2));
}

await main();
