/**
 * Where a forwarded delivery's time goes under the bench's forwarding load (scenario 3): `listen
 * --forward-to` and the relay floor with each try kept, in alternating rounds, each round's load
 * followed by the drain of its relay backlog, with each thread's CPU over both divided by the
 * deliveries accepted, and the drain's own CPU a hand-off. Unlike bench/handoff-profile.ts
 * (hand-offs alone, nothing received), the relay here shares its process with the intake it falls
 * behind, as in the bench. Not part of `npm run bench`; a tool for the next change to the relay.
 *
 *   npm run build && npx tsx bench/forward-profile.ts   (after one `npm run bench`, which builds the floor)
 *
 * Knobs:
 * - ROUNDS (default 3), ROUND_MS (default 8000);
 * - NODEFLAGS for listen and FLOORFLAGS for the floor, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`;
 * - BASE: another build's dist/bin/cli.js, measured in the same rounds as `base`; BASEFLAGS: node flags for
 *   `base` instead of NODEFLAGS (with BASE=dist/bin/cli.js: this build with other V8 flags, in the same rounds);
 * - EXTRA: more listen flags, space-separated;
 * - SPLIT=1: every server's threads but its main one moved to core 1, so a `--cpu-prof` of a main
 *   thread holds only its own time. "The core N% busy" (all threads' CPU over the drain's wall time)
 *   then counts two cores.
 */
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_BUILD, DRAIN_CAP_MS, drainRelay, freePort, listenArgs, load, pinnedSpawn, processCpu, startServer, threadCpu, type Server } from './lib.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ROUND_MS = Number(process.env.ROUND_MS ?? 8000);
const NODEFLAGS = (process.env.NODEFLAGS ?? '').split(' ').filter(Boolean);
const FLOORFLAGS = (process.env.FLOORFLAGS ?? '').split(' ').filter(Boolean);
const EXTRA = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'hookrelay-forward-profile-'));

const appPort = await freePort();
const app = pinnedSpawn(1, ['bench/target-app.ts', String(appPort)], 'pipe');
const servers: Array<[string, Server, string]> = [];
try {
  await once(app.stdout!, 'data');
  await profile();
} finally {
  await Promise.all(servers.map(([, s]) => s.stop()));
  app.kill();
  rmSync(work, { recursive: true, force: true });
}

async function profile(): Promise<void> {
  const target = `http://127.0.0.1:${appPort}/hook`;
  const startListen = async (cli: string, name: string, flags: string[]) => {
    const port = await freePort();
    const db = join(work, `${name}.db`);
    const [, ...rest] = listenArgs(port, db, ['--forward-to', target, ...EXTRA]);
    servers.push([name, await startServer([...flags, cli, ...rest], port, '/webhooks'), db]);
  };
  await startListen(CLI_BUILD, 'hookrelay', NODEFLAGS);
  if (process.env.BASE) await startListen(process.env.BASE, 'base', process.env.BASEFLAGS === undefined ? NODEFLAGS : process.env.BASEFLAGS.split(' ').filter(Boolean));
  const keptPort = await freePort();
  const keptDb = join(work, 'kept.db');
  servers.push(['kept floor', await startServer([...FLOORFLAGS, 'bench/.build/bench/floor-server.js', String(keptPort), 'relay-kept', keptDb, target], keptPort, '/webhooks'), keptDb]);

  for (const [, s, db] of servers) {
    await load(s.url, 1500, 50);
    await drainRelay(db);
  }
  if (process.env.SPLIT === '1') {
    for (const [, s] of servers) for (const tid of readdirSync(`/proc/${s.child.pid}/task`)) if (tid !== String(s.child.pid)) spawnSync('taskset', ['-pc', '1', tid]);
  }
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, s, db] of servers) {
      const pid = s.child.pid!;
      const [before, cpuBefore] = [threadCpu(pid), processCpu(pid)];
      const measured = await load(s.url, ROUND_MS, 50);
      const loaded = threadCpu(pid);
      const { ms: drainMs, backlog } = await drainRelay(db);
      const [after, cpuAfter] = [threadCpu(pid), processCpu(pid)];
      if (drainMs >= DRAIN_CAP_MS) console.log(`round ${round} ${name}: the drain hit its ${DRAIN_CAP_MS / 1000} s cap; its figures count an unfinished drain`);
      const drainBusy = drainMs > 0 ? (sum(after) - sum(loaded)) / drainMs : 0;
      const drainCpu = backlog > 0 ? ((sum(after) - sum(loaded)) * 1000) / backlog : 0;
      const perDelivery = (ms: number) => Math.round((ms * 1000) / measured.ok);
      let total = 0;
      const parts: string[] = [];
      const spent = [...after].map(([thread, ms]) => [thread, ((ms - (before.get(thread) ?? 0)) * 1000) / measured.ok] as const).sort((a, b) => b[1] - a[1]);
      for (const [thread, us] of spent) {
        total += us;
        if (us >= 0.5) parts.push(`${thread} ${us.toFixed(1)}`);
      }
      const sustained = measured.ok / (measured.seconds + drainMs / 1000);
      console.log(
        `round ${round} ${name}: ${Math.round(measured.rps)} req/s, drained ${backlog} in ${Math.round(drainMs)} ms, the core ${Math.round(drainBusy * 100)}% busy meanwhile, ` +
          `${Math.round(drainCpu)} µs CPU each (${Math.round(sustained)} sustained), ${total.toFixed(0)} µs CPU/delivery ` +
          `(user ${perDelivery(cpuAfter.user - cpuBefore.user)}, system ${perDelivery(cpuAfter.system - cpuBefore.system)}) = ${parts.join(', ')}`,
      );
    }
  }
}
