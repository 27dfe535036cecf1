/**
 * What one relay hand-off costs, alone: deliveries are stored first (with their relay jobs), then a
 * relay worker hands them all to the bench's stand-in app (on core 1), and the CPU of every thread
 * of this process (main, writer, checkpoint, GC helpers) over the drain is divided by the
 * hand-offs. No HTTP intake in the way, so a change to the relay path shows in a few rounds. Not
 * part of `npm run bench`; a tool for the next change to the hand-off (bench/notes.md, session 9).
 *
 *   npm run build && taskset -c 0 npx tsx bench/handoff-profile.ts
 *
 * Knobs: N (hand-offs a round, default 10000), ROUNDS (default 4), FROM=fresh|outbox (handed on
 * from memory as stored, as live deliveries are, or read back from the outbox, as after a
 * restart or past the memory bound; default fresh), DIST (a build's folder, default dist; a
 * comma-separated pair alternates two builds round by round for an A/B), PROFILE=<file> (a
 * `.cpuprofile` of the main thread over each build's last round, the storing left out; that round
 * still counts in the median, with the profiler's cost in it), SPLIT=1 (every thread but the main one
 * moved to core 1 before each count, so a profile of the main thread holds only its own time), HEAP=1
 * (PROFILE is then a sampling heap profile, `.heapprofile`: every allocation over the round, those
 * that minor and major GCs collected included, so it counts garbage, not only survivors).
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { freePort, pinnedSpawn, threadCpu } from './lib.js';

const N = Number(process.env.N ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const FROM = process.env.FROM ?? 'fresh';
const DISTS = (process.env.DIST ?? 'dist').split(',');

const appPort = await freePort();
const app = pinnedSpawn(1, ['bench/target-app.ts', String(appPort)], 'pipe');
await once(app.stdout!, 'data');
const work = mkdtempSync(join(tmpdir(), 'hookrelay-handoff-'));
// A failed round throws: the app and the folder must go with the process all the same.
process.once('exit', () => {
  app.kill();
  rmSync(work, { recursive: true, force: true });
});

const body = (id: string) =>
  Buffer.from(`{"id":"${id}","type":"trustcenter.resource_downloaded","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"o","data":{"note":"${'x'.repeat(330)}"}}`);

async function round(dist: string, n: number, profile: string | null = null): Promise<number> {
  const load = (path: string) => import(resolve(dist, path));
  const { openStore } = await load('store/open-store.js');
  const { createEventHub } = await load('runtime/event-hub.js');
  const { createRelayWorker } = await load('relay/relay-worker.js');
  const { DEFAULT_RELAY_RETRY } = await load('relay/relay-backoff.js');
  const { createJsonLogger } = await load('reporter/json-logger.js');
  const path = join(work, `${Math.random().toString(36).slice(2)}.db`);
  let commits = 0;
  let counting = false;
  const target = `http://127.0.0.1:${appPort}/hook`;
  // As listen opens it: each job queued under its target, the key under which the worker holds what it offers.
  const store = await openStore({ kind: 'sqlite', path }, { outbox: { to: target, routes: [] }, onCommit: () => void (counting && commits++) });
  const hub = createEventHub();
  // As the bench's listen runs: `--log-format json`, lines thrown away.
  const logger = createJsonLogger(hub, { out: new Writable({ write: (_c, _e, done) => done() }) });
  const fresh: unknown[] = [];
  const stored = Date.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const id = `dlv_${stored}_${i}`;
      const rawBody = body(id);
      const rawHeaders = ['Host', '127.0.0.1', 'Content-Type', 'application/json', 'X-Service-Event', 'trustcenter.resource_downloaded', 'X-Service-Delivery', id, 'X-Service-Delivery-Attempt', '1', 'X-Service-Api-Version', '2026-06-01', 'X-Service-Signature', 't=1,v1=00'];
      const delivery = { id, trigger: 'trustcenter.resource_downloaded', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: stored, rawBody, rawHeaders, signature: 'valid', secretIndex: 0, signatureTimestamp: 1 };
      const attempt = { deliveryId: id, trigger: delivery.trigger, receivedAt: stored, finishedAt: stored, attemptHeader: 1, signatureTimestamp: 1, bodySha256: '0'.repeat(64), bodyBytes: rawBody.length, outcome: 'accepted', status: 200, reason: null, retryAfter: null };
      const result = await store.accept(delivery, attempt);
      fresh.push({ seq: result.deliverySeq, id, trigger: delivery.trigger, receivedAt: stored, rawBody, rawHeaders });
    }),
  );
  // The storing's WAL is copied by the checkpoint thread (every second) before the count starts:
  // its work is not the hand-offs'.
  await new Promise((r) => setTimeout(r, 1500));
  const worker = createRelayWorker({ store, hub, target, secret: 'whsec_forward_secret_0123456789', timeoutMs: 10_000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [] });
  // Done when every delivery's hand-off is recorded: the worker announces each after its commit.
  // FROM=fresh offers a delivery for each one recorded, so at most 1,024 wait in memory, within the
  // worker's bound. The worker also reads jobs back from the outbox (at its start and in its polls),
  // which all hold every delivery here: one it has handed on that way is not offered again, as
  // listen never offers a delivery after its commit's turn.
  const relayedIds = new Set<string>();
  let twice = 0;
  let offered = 0;
  let allRelayed!: () => void;
  const done = new Promise<void>((r) => (allRelayed = r));
  const offerNext = () => {
    while (offered < fresh.length) {
      const next = fresh[offered++] as { id: string };
      if (relayedIds.has(next.id)) continue;
      worker.offer(next);
      return;
    }
  };
  hub.on('relay', (event: { deliveryId: string; ok: boolean }) => {
    // A failed try is retried later: only a delivery the app took is handed on.
    if (!event.ok) return;
    if (relayedIds.has(event.deliveryId)) twice++;
    relayedIds.add(event.deliveryId);
    if (relayedIds.size === n) allRelayed();
    if (FROM === 'fresh') offerNext();
  });
  if (process.env.SPLIT) {
    // The main thread alone on core 0: its profile is then not charged with the other threads' time.
    for (const tid of readdirSync('/proc/self/task')) if (Number(tid) !== process.pid) execFileSync('taskset', ['-p', '-c', '1', tid], { stdio: 'ignore' });
  }
  const session = profile ? new Session() : null;
  if (session) {
    session.connect();
    if (process.env.HEAP) {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    } else {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
  }
  counting = true;
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpu(process.pid);
  const started = performance.now();
  if (FROM === 'fresh') for (let i = 0; i < 1024; i++) offerNext();
  await done;
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // The main thread, then the busiest other threads (the writer first, in practice), µs a hand-off.
  const threads = [...threadCpu(process.pid)].map(([name, ms]) => [name, ((ms - (threadsBefore.get(name) ?? 0)) * 1000) / n] as const);
  const main = threads.find(([name]) => name === 'main')?.[1] ?? 0;
  const others = threads.filter(([name]) => name !== 'main').map(([, us]) => us).sort((a, b) => b - a);
  if (session && profile) {
    const { profile: written } = process.env.HEAP ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
    writeFileSync(profile, JSON.stringify(written));
    session.disconnect();
  }
  if (twice > 0) throw new Error(`${twice} deliveries handed on twice`);
  const pending = (await store.relayCounts()).pending;
  if (pending > 0) throw new Error(`${pending} relay jobs still pending after ${n} relay events`);
  await worker.stop();
  logger.detach();
  await store.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const us = (cpu.user + cpu.system) / n;
  console.log(`${dist}: ${n} hand-offs (${FROM}) in ${elapsed.toFixed(0)} ms, ${us.toFixed(1)} µs CPU each (all threads; user ${(cpu.user / n).toFixed(0)}, system ${(cpu.system / n).toFixed(0)}), ${((n / elapsed) * 1000).toFixed(0)}/s, ${(n / Math.max(1, commits)).toFixed(1)} outcomes a commit; by thread: main ${main.toFixed(0)}, then ${others.filter((us) => us >= 1).map((us) => us.toFixed(0)).join(', ')} µs`);
  return us;
}

await round(DISTS[0]!, Math.min(N, 3000)); // warm-up: the JIT and the app's connections
const results = new Map<string, number[]>(DISTS.map((d) => [d, []]));
// Each build's last round, one file per build when there are two (PROFILE=a.cpuprofile → a.0.cpuprofile, a.1.cpuprofile).
const profileOf = (dist: string) => (process.env.PROFILE ? (DISTS.length > 1 ? process.env.PROFILE.replace(/(\.cpuprofile)?$/, `.${DISTS.indexOf(dist)}$1`) : process.env.PROFILE) : null);
for (let r = 0; r < ROUNDS; r++) {
  for (const dist of r % 2 ? [...DISTS].reverse() : DISTS) results.get(dist)!.push(await round(dist, N, r === ROUNDS - 1 ? profileOf(dist) : null));
}
for (const [dist, list] of results) console.log(`median ${dist}: ${[...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!.toFixed(1)} µs a hand-off`);
// The app child keeps the event loop alive: the exit handler above stops it.
process.exit(0);
