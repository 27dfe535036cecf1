/** Shared plumbing of the benchmark: pinned processes, readiness, the load generator, medians. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, fdatasyncSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SECRET = 'whsec_bench_secret_value_0123456789';
export const PINNED = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

export interface Load {
  requests: number;
  ok: number;
  errors: number;
  /** How long the round ran. */
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

export interface Server {
  url: string;
  port: number;
  child: ChildProcess;
  peakRssMb(): number;
  stop(): Promise<void>;
}

/** Clock ticks a second, the unit of CPU times in /proc. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/** utime and stime (fields 14 and 15 of a /proc stat line) in ms; the command name before them may hold spaces. */
function statCpu(stat: string): [user: number, system: number] {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [(Number(fields[11]) * 1000) / CLOCK_TICKS, (Number(fields[12]) * 1000) / CLOCK_TICKS];
}

/** User and system CPU ms of a whole process so far, every thread (zeros when it is gone). */
export function processCpu(pid: number): { user: number; system: number } {
  try {
    const [user, system] = statCpu(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return { user, system };
  } catch {
    return { user: 0, system: 0 };
  }
}

/**
 * CPU ms (user + system) of each thread of a process so far: `main`, and the others by their
 * `comm` and their id as an offset from the process's (V8's GC helpers and libuv's pool are all `node`).
 */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}:${Number(tid) - pid}`;
      const [user, system] = statCpu(stat);
      out.set(name, user + system);
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `node <args>` on a core (server: 0, load and apps: 1) when taskset is available. */
export function pinnedSpawn(core: number, args: string[], stdout: 'pipe' | 'ignore' | number = 'ignore'): ChildProcess {
  const nodeArgs = args[0]!.endsWith('.ts') ? ['--import', 'tsx', ...args] : args;
  const [cmd, argv] = PINNED ? ['taskset', ['-c', String(core), process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  return spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', stdout, 'inherit'] });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Polls GET url until it answers 200; bounded. Returns the milliseconds it took. */
export async function waitReady(url: string, child: ChildProcess, deadlineMs = 20_000): Promise<number> {
  const started = performance.now();
  let exited = false;
  child.once('exit', () => (exited = true));
  while (performance.now() - started < deadlineMs) {
    if (exited) throw new Error(`process exited before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return performance.now() - started;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${url} not ready within ${deadlineMs} ms`);
}

/** Starts a server process on core 0 listening on `port`, ready once `readyPath` answers 200. */
export async function startServer(args: string[], port: number, path: string, readyPath = '/healthz'): Promise<Server> {
  const child = pinnedSpawn(0, args);
  await waitReady(`http://127.0.0.1:${port}${readyPath}`, child);
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    child,
    peakRssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs a bench script on core 1 and parses the JSON of its last output line. */
export async function runPinnedScript<T>(args: string[]): Promise<T> {
  const child = pinnedSpawn(1, args, 'pipe');
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${out}`);
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

export function load(url: string, durationMs: number, connections: number, rate = 0): Promise<Load> {
  return runPinnedScript<Load>(['bench/load-generator.ts', url, String(connections), String(durationMs), SECRET, String(rate)]);
}

/** The CLI as users run it (bin/hookrelay.js runs this bundle: scripts/bundle-cli.mjs). */
export const CLI_BUILD = 'dist/bin/cli.js';

/** `hookrelay listen` from the build, as users run it. */
export function listenArgs(port: number, db: string, extra: string[] = []): string[] {
  return [CLI_BUILD, 'listen', '--port', String(port), '--db', db, '--secret', SECRET, '--log-format', 'json', '--no-console', ...extra];
}

/** How long a drain waits at the most before it gives up. */
export const DRAIN_CAP_MS = 60_000;

/** Waits until a store's relay outbox has nothing pending: the ms waited (at most DRAIN_CAP_MS), and how many were pending at the start. */
export async function drainRelay(dbPath: string): Promise<{ ms: number; backlog: number }> {
  const started = performance.now();
  const db = new Database(dbPath, { readonly: true });
  try {
    const pending = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM relay_jobs WHERE state = 'pending'");
    const backlog = pending.get()!.n;
    while (pending.get()!.n > 0 && performance.now() - started < DRAIN_CAP_MS) await new Promise((r) => setTimeout(r, 50));
    return { ms: performance.now() - started, backlog };
  } finally {
    db.close();
  }
}

/** Deliveries stored in a SQLite store, and relay jobs still pending there. */
export function storeCounts(dbPath: string): { stored: number; pending: number } {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const stored = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM deliveries').get()!.n;
    const pending = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM relay_jobs WHERE state = 'pending'").get()!.n;
    return { stored, pending };
  } finally {
    db.close();
  }
}

/** The postmaster's pid of a cluster (the first line of DATA/postmaster.pid), or null when it is not running. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The pids whose parent is `pid` (a postmaster's: its backends and background processes). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * CPU ms (user + system) a PostgreSQL server has used so far: the postmaster, every live child
 * (backends, WAL writer, checkpointer, autovacuum…), and the children it has reaped (cutime and
 * cstime of the postmaster), so a backend that exits between two readings is still counted.
 */
export function postgresCpuMs(dataDir: string): number {
  const pid = postmasterPid(dataDir);
  if (pid === null) return 0;
  let total = 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
    total += ((Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
  for (const child of childPids(pid)) {
    const { user, system } = processCpu(child);
    total += user + system;
  }
  return total;
}

/**
 * Pins a PostgreSQL server to a core: the postmaster and its children now, and so every backend it
 * forks later. False when taskset is missing or refused.
 */
export function pinPostgres(dataDir: string, core: number): boolean {
  const pid = postmasterPid(dataDir);
  if (pid === null || !PINNED) return false;
  return [pid, ...childPids(pid)].every((one) => spawnSync('taskset', ['-a', '-p', '-c', String(core), String(one)], { stdio: 'ignore' }).status === 0);
}

/** Busy and total jiffies of one core so far (/proc/stat), for how busy it was over a window. */
export function coreTicks(core: number): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${core} `));
  if (!line) return { busy: 0, total: 0 };
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy, total: busy + idle! + iowait! };
}

/** The median time of one fdatasync of a 4 KiB append in `dir`, in ms: what each durable commit waits for at least. */
export function fdatasyncP50(dir: string, times = 200): number {
  const file = join(dir, 'fdatasync-probe.bin');
  const fd = openSync(file, 'w');
  const page = Buffer.alloc(4096, 1);
  const took: number[] = [];
  try {
    for (let i = 0; i < times; i++) {
      writeSync(fd, page);
      const started = performance.now();
      fdatasyncSync(fd);
      took.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return median(took);
}
