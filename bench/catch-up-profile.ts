/**
 * Where a bridge catch-up's time goes: the bench's sleep-and-wake method (scenario 8) once, with each
 * thread's CPU, the core's idle time and the relay's own rate after everything is stored. Not part of
 * `npm run bench`; a tool for the next change to the laptop's path (bench/notes.md, session 7).
 *
 *   npm run build && npx tsx bench/catch-up-profile.ts
 *
 * Knobs: BACKLOG (deliveries piled up while asleep, default 10000); WARM (2 s rounds of live load
 * before, default 5: the JIT warms up as in the bench); NODEFLAGS (for connect, e.g. `--trace-gc-nvp`,
 * whose lines then land in its log, printed at the end); STRACE=1 (syscall counts of connect while it
 * catches up, `strace -c`); CLI (another build's dist/bin/cli.js, for an A/B pair).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_BUILD, freePort, listenArgs, load, pinnedSpawn, ROOT, SECRET, startServer, storeCounts, threadCpu } from './lib.js';

const BACKLOG = Number(process.env.BACKLOG ?? 10_000);
const WARM = Number(process.env.WARM ?? 5);
const CLI = process.env.CLI ?? CLI_BUILD;
const TOKEN = 'bench-bridge-token-0123456789abcdef0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'hookrelay-catch-up-'));

/** storeCounts, or "nothing yet" before the laptop's store exists. */
function counts(path: string): { stored: number; pending: number } {
  try {
    return storeCounts(path);
  } catch {
    return { stored: -1, pending: 1 };
  }
}

/** Idle and total jiffies of core 0, where the servers run. */
function core0(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith('cpu0 '))!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
}

const idlePercent = (a: { idle: number; total: number }, b: { idle: number; total: number }) => Math.round((100 * (b.idle - a.idle)) / Math.max(1, b.total - a.total));
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const appPort = await freePort();
const app = pinnedSpawn(1, ['bench/target-app.ts', String(appPort)], 'pipe');
await once(app.stdout!, 'data');
const [publicPort, bridgePort] = [await freePort(), await freePort()];
const [publicDb, laptopDb] = [join(work, 'public.db'), join(work, 'laptop.db')];
const publicArgs = listenArgs(publicPort, publicDb, ['--bridge-port', String(bridgePort), '--bridge-token', `bench:${TOKEN}`]);
publicArgs[0] = CLI;
const pub = await startServer(publicArgs, publicPort, '/webhooks');
const logPath = join(work, 'connect.log');
const logFd = openSync(logPath, 'w');
const nodeFlags = (process.env.NODEFLAGS ?? '').split(' ').filter(Boolean);
const connectArgs = [...nodeFlags, CLI, 'connect', `ws://127.0.0.1:${bridgePort}/bridge`, '--token', TOKEN, '--name', 'bench', '--db', laptopDb, '--forward-to', `http://127.0.0.1:${appPort}/hook`, '--forward-secret', SECRET, '--no-console', '--log-format', 'json'];
const laptop = spawn('taskset', ['-c', '0', process.execPath, ...connectArgs], { cwd: ROOT, stdio: ['ignore', logFd, 'inherit'] });
closeSync(logFd);
// An exit before the end is a finding, not noise: its log's last lines say why.
laptop.once('exit', (code, signal) => {
  if (!finished) console.error(`connect exited early (code ${code}, signal ${signal}); its log ends:\n${readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n')}`);
});
let finished = false;
try {
  const started = performance.now();
  while (!readFileSync(logPath, 'utf8').includes('"msg":"live"')) {
    if (laptop.exitCode !== null || performance.now() - started > 30_000) throw new Error('connect did not go live');
    await wait(10);
  }
  for (let i = 0; i < WARM; i++) await load(pub.url, 2000, 32);
  while (counts(laptopDb).stored < counts(publicDb).stored || counts(laptopDb).pending > 0) await wait(25);

  laptop.kill('SIGSTOP');
  const before = counts(publicDb).stored;
  while (counts(publicDb).stored - before < BACKLOG) await load(pub.url, 2000, 32);
  const total = counts(publicDb).stored;
  const backlog = total - counts(laptopDb).stored;

  const strace = process.env.STRACE ? spawn('strace', ['-c', '-f', '-p', String(laptop.pid), '-o', join(work, 'strace.txt')], { stdio: 'ignore' }) : null;
  if (strace) await wait(300);
  const [laptop0, public0, idle0] = [threadCpu(laptop.pid!), threadCpu(pub.child.pid!), core0()];
  const woke = performance.now();
  laptop.kill('SIGCONT');
  const deadline = woke + 120_000;
  while (counts(laptopDb).stored < total && performance.now() < deadline) await wait(25);
  const storedMs = performance.now() - woke;
  const [idleStored, pendingAtStored] = [core0(), counts(laptopDb).pending];
  while (counts(laptopDb).pending > 0 && performance.now() < deadline) await wait(25);
  const ms = performance.now() - woke;
  const [laptop1, public1, idle1] = [threadCpu(laptop.pid!), threadCpu(pub.child.pid!), core0()];
  if (strace) {
    strace.kill('SIGINT');
    await once(strace, 'exit');
  }

  const perDelivery = (a: Map<string, number>, b: Map<string, number>) =>
    Object.fromEntries([...b].map(([tid, cpu]) => [tid, Math.round(((cpu - (a.get(tid) ?? 0)) * 1000) / backlog)]).filter(([, us]) => (us as number) > 0));
  const sum = (o: Record<string, unknown>) => Object.values(o).reduce<number>((a, b) => a + (b as number), 0);
  const laptopThreads = perDelivery(laptop0, laptop1);
  const publicThreads = perDelivery(public0, public1);
  console.log(JSON.stringify({
    backlog,
    seconds: +(ms / 1000).toFixed(2),
    rate: Math.round(backlog / (ms / 1000)),
    storedAfterSeconds: +(storedMs / 1000).toFixed(2),
    relayAloneRate: Math.round(pendingAtStored / Math.max(0.001, (ms - storedMs) / 1000)),
    core0IdlePercent: { whole: idlePercent(idle0, idle1), storing: idlePercent(idle0, idleStored), relayAlone: idlePercent(idleStored, idle1) },
    cpuUsPerDelivery: { connect: sum(laptopThreads), public: sum(publicThreads), connectThreads: laptopThreads, publicThreads },
  }, null, 2));
  if (strace) console.log(readFileSync(join(work, 'strace.txt'), 'utf8'));
  if (nodeFlags.length > 0) console.log(`connect's log (with its V8 lines): ${logPath}`);
} finally {
  finished = true;
  laptop.kill('SIGCONT');
  laptop.kill('SIGTERM');
  await pub.stop();
  app.kill();
  if (nodeFlags.length === 0) rmSync(work, { recursive: true, force: true });
}
