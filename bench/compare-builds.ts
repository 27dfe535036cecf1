/**
 * Two (or more) builds of `listen --forward-to` against the same stand-in app, in many short
 * alternating rounds (the order reversed every other round), each round's load followed by the drain
 * of its relay backlog: per build, CPU a delivery (all threads, and the main thread alone) and the
 * sustained rate, with the median of the rounds' ratios against the first build. For a change that
 * must not make forwarding slower by a few percent, where `npm run bench`'s rounds stray 10–25%
 * from each other. Not part of `npm run bench`.
 *
 *   npm run build && npx tsx bench/compare-builds.ts before=bench/.build/baseline-<ref>/dist/bin/cli.js now=dist/bin/cli.js
 *
 * (`bench/baseline-build.ts` makes a baseline build of a commit.) Knobs: ROUNDS (10), ROUND_MS
 * (4000), RATE (requests a second, 0: as fast as 50 connections go; a fixed rate below saturation
 * keeps every build's commit groups the same size), EXTRA (more listen flags, space-separated), NODEFLAGS
 * (node flags for every build, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: at a fixed RATE each build's
 * profile then covers the same deliveries).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drainRelay, freePort, listenArgs, load, median, pinnedSpawn, processCpu, startServer, threadCpu, type Server } from './lib.js';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const ROUND_MS = Number(process.env.ROUND_MS ?? 4000);
const RATE = Number(process.env.RATE ?? 0);
const EXTRA = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const NODEFLAGS = (process.env.NODEFLAGS ?? '').split(' ').filter(Boolean);
const builds = process.argv.slice(2).map((arg) => arg.split('=') as [string, string]);
if (builds.length < 2 || builds.some(([name, cli]) => !name || !cli)) {
  console.error('usage: npx tsx bench/compare-builds.ts NAME=path/to/cli.js NAME=path/to/cli.js …');
  process.exit(2);
}

interface Round {
  cpuUs: number;
  mainUs: number;
  sustained: number;
}

const work = mkdtempSync(join(tmpdir(), 'hookrelay-compare-builds-'));
const appPort = await freePort();
const app = pinnedSpawn(1, ['bench/target-app.ts', String(appPort)], 'pipe');
const servers: Array<[string, Server, string]> = [];
try {
  await once(app.stdout!, 'data');
  for (const [name, cli] of builds) {
    const port = await freePort();
    const db = join(work, `${name}.db`);
    const [, ...rest] = listenArgs(port, db, ['--forward-to', `http://127.0.0.1:${appPort}/hook`, ...EXTRA]);
    servers.push([name, await startServer([...NODEFLAGS, cli, ...rest], port, '/webhooks'), db]);
  }
  for (const [, server, db] of servers) {
    await load(server.url, 2000, 50);
    await drainRelay(db);
  }
  const rounds = new Map<string, Round[]>(builds.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, server, db] of round % 2 === 0 ? servers : [...servers].reverse()) {
      const pid = server.child.pid!;
      const [cpuBefore, mainBefore] = [processCpu(pid), threadCpu(pid).get('main') ?? 0];
      const measured = await load(server.url, ROUND_MS, 50, RATE);
      const { ms: drainMs } = await drainRelay(db);
      const [cpuAfter, mainAfter] = [processCpu(pid), threadCpu(pid).get('main') ?? 0];
      rounds.get(name)!.push({
        cpuUs: ((cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) * 1000) / measured.ok,
        mainUs: ((mainAfter - mainBefore) * 1000) / measured.ok,
        sustained: measured.ok / (measured.seconds + drainMs / 1000),
      });
    }
  }
  const first = rounds.get(builds[0]![0])!;
  const ratios = (list: Round[], pick: (r: Round) => number, cost: boolean) => list.map((r, i) => (cost ? pick(first[i]!) / pick(r) : pick(r) / pick(first[i]!)));
  const spread = (values: number[]) => `median ${median(values).toFixed(3)} (${[...values].sort((a, b) => a - b).map((v) => v.toFixed(2)).join(' ')})`;
  console.log(`${ROUNDS} rounds of ${ROUND_MS / 1000} s${RATE ? ` at ${RATE} req/s` : ''}; ratios against ${builds[0]![0]} (above 1: better)`);
  for (const [name] of builds) {
    const list = rounds.get(name)!;
    console.log(
      `${name}: CPU ${median(list.map((r) => r.cpuUs)).toFixed(0)} µs a delivery (main thread ${median(list.map((r) => r.mainUs)).toFixed(0)}), sustained ${median(list.map((r) => r.sustained)).toFixed(0)}/s` +
        (list === first ? '' : `\n  CPU ratio ${spread(ratios(list, (r) => r.cpuUs, true))}\n  main thread ratio ${spread(ratios(list, (r) => r.mainUs, true))}\n  sustained ratio ${spread(ratios(list, (r) => r.sustained, false))}`),
    );
  }
} finally {
  await Promise.all(servers.map(([, server]) => server.stop()));
  app.kill();
  rmSync(work, { recursive: true, force: true });
}
