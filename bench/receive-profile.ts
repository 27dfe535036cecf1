/**
 * Where a received delivery's time goes: the bench's receive load (scenario 1) against `listen` and the
 * schema floor in alternating rounds, with each thread's CPU a request (from /proc/<pid>/task, named by
 * its `comm` and id; V8's GC helpers and libuv's pool are all `node`). Not part of `npm run bench`; a tool for the next change to the receive path.
 *
 *   npm run build && npx tsx bench/receive-profile.ts   (after one `npm run bench`, which builds the floor)
 *
 * Knobs: ROUNDS (default 3), ROUND_MS (default 6000), NODEFLAGS (for listen, e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof` or `--trace-gc-nvp`), CLI (another build's dist/bin/cli.js, for an A/B pair),
 * BASE (another build's dist/bin/cli.js, measured in the same rounds as `base`), BASEEXTRA (more flags for `base` only, which is then this build unless BASE is given; with `--console-port` its console is on), FLOORFLAGS (the same for the schema floor), EXTRA (more listen flags, space-separated); SPLIT=1 (every thread but listen's main one moved to core 1, so a
 * `--cpu-prof` of the main thread is not charged with the writer's time: it preempts the main thread on one core).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_BUILD, freePort, listenArgs, load, startServer, threadCpu, type Server } from './lib.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ROUND_MS = Number(process.env.ROUND_MS ?? 6000);
const CLI = process.env.CLI ?? CLI_BUILD;
const NODEFLAGS = (process.env.NODEFLAGS ?? '').split(' ').filter(Boolean);
const EXTRA = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'hookrelay-receive-profile-'));


const hookPort = await freePort();
const schemaPort = await freePort();
const [first, ...rest] = listenArgs(hookPort, join(work, 'hook.db'), EXTRA);
const hook = await startServer([...NODEFLAGS, first === CLI_BUILD ? CLI : first!, ...rest], hookPort, '/webhooks');
const FLOORFLAGS = (process.env.FLOORFLAGS ?? '').split(' ').filter(Boolean);
const schema = await startServer([...FLOORFLAGS, 'bench/.build/bench/floor-server.js', String(schemaPort), 'schema', join(work, 'schema.db')], schemaPort, '/webhooks');
const servers: Array<[string, Server]> = [
  ['hookrelay', hook],
  ['schema floor', schema],
];
const BASEEXTRA = (process.env.BASEEXTRA ?? '').split(' ').filter(Boolean);
if (process.env.BASE || BASEEXTRA.length > 0) {
  const basePort = await freePort();
  const [, ...baseRest] = listenArgs(basePort, join(work, 'base.db'), [...EXTRA, ...BASEEXTRA]).filter((a) => !(BASEEXTRA.includes('--console-port') && a === '--no-console'));
  servers.push(['base', await startServer([...NODEFLAGS, process.env.BASE ?? CLI, ...baseRest], basePort, '/webhooks')]);
}
const answered = new Map<string, number>();
for (const [name, s] of servers) answered.set(name, (await load(s.url, 1500, 50)).ok);
if (process.env.SPLIT === '1') {
  for (const [, s] of servers) for (const tid of readdirSync(`/proc/${s.child.pid}/task`)) if (tid !== String(s.child.pid)) spawnSync('taskset', ['-pc', '1', tid]);
}
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, s] of servers) {
    const before = threadCpu(s.child.pid!);
    const measured = await load(s.url, ROUND_MS, 50);
    const after = threadCpu(s.child.pid!);
    answered.set(name, answered.get(name)! + measured.ok);
    const parts: string[] = [];
    let total = 0;
    const spent = [...after].map(([thread, ms]) => [thread, ((ms - (before.get(thread) ?? 0)) * 1000) / measured.ok] as const).sort((a, b) => b[1] - a[1]);
    for (const [thread, us] of spent) {
      total += us;
      if (us >= 0.5) parts.push(`${thread} ${us.toFixed(1)}`);
    }
    console.log(`round ${round} ${name}: ${Math.round(measured.rps)} req/s, p99 ${measured.p99.toFixed(1)} ms, ${total.toFixed(0)} µs CPU/req = ${parts.join(', ')}`);
  }
}
console.log(`answered in all (for a --cpu-prof's µs a request): ${[...answered].map(([n, ok]) => `${n} ${ok}`).join(', ')}`);
await Promise.all(servers.map(([, s]) => s.stop()));
rmSync(work, { recursive: true, force: true });
