/**
 * `--pace`: a target's concurrency, rate and pause, measured at the target. A paced or paused
 * target never holds up another, and its queue stays in the store.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePace, resolvePacing, type PaceSettings } from '../../src/core/pacing.js';
import { createRateBucket } from '../../src/core/rate-bucket.js';
import type { RelayTargets } from '../../src/core/routes.js';
import { DEFAULT_RELAY_RETRY } from '../../src/relay/relay-backoff.js';
import { createRelayWorker, type RelayWorker } from '../../src/relay/relay-worker.js';
import { createTargetGates } from '../../src/relay/target-gates.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';
import { countingReads } from '../helpers/counted-reads.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function paced(texts: string[], targets: string[] = []): { settings: PaceSettings; problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  const settings = resolvePacing(texts, '--pace', targets, problems, warnings);
  return { settings, problems, warnings };
}

describe('--pace texts', () => {
  it('reads a target, concurrency, rate per second or minute, burst and paused', () => {
    expect(parsePace('http://127.0.0.1:3000/hooks concurrency=4 rate=50/s burst=10 paused')).toEqual({
      ok: true,
      target: 'http://127.0.0.1:3000/hooks',
      fields: { concurrency: 4, ratePerSecond: 50, burst: 10, paused: true },
    });
    expect(parsePace('rate=120/m')).toEqual({ ok: true, target: null, fields: { ratePerSecond: 2 } });
  });

  it('lists every problem of a text at once, naming each word, and never shows a password', () => {
    const parsed = parsePace('concurrency=0 rate=5/h burst=x speed=3 http://u:hunter2@127.0.0.1/x');
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/"concurrency=0": concurrency is a whole number from 1 to 256/);
    expect(problems[1]).toMatch(/"rate=5\/h": rate is N\/s or N\/m/);
    expect(problems[2]).toMatch(/"burst=x": burst is a whole number/);
    expect(problems[3]).toMatch(/"speed=3" is not a pace setting/);
    expect(problems[4]).toMatch(/the target URL comes first/);
    expect(problems.join('\n')).not.toContain('hunter2');
    expect(parsePace('   ')).toMatchObject({ ok: false, problems: [expect.stringMatching(/is empty/)] });
    expect(parsePace('localhost:3000 rate=1/s')).toMatchObject({ ok: false, problems: [expect.stringMatching(/starts with http:\/\/ or https:\/\//)] });
  });

  it('a text without a URL is every target\'s default; one with a URL paces that target over it', () => {
    const a = 'http://127.0.0.1:3001/a';
    const { settings, problems, warnings } = paced(['concurrency=4', `${a} rate=10/s`, 'burst=3'], [a]);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    expect(settings.fallback).toEqual({ concurrency: 4, ratePerSecond: null, burst: 3, paused: false, order: null });
    expect(settings.byTarget.get(a)).toEqual({ concurrency: 4, ratePerSecond: 10, burst: 3, paused: false, order: null });
  });

  it('warns of a pace for a target nothing hands on to, and names the text of each problem', () => {
    const { problems, warnings } = paced(['http://127.0.0.1:9/typo rate=1/s', 'rate=fast'], ['http://127.0.0.1:3001/a']);
    expect(warnings).toEqual([expect.stringMatching(/^--pace #1: no route or --forward-to hands on to http:\/\/127\.0\.0\.1:9\/typo/)]);
    expect(problems).toEqual([expect.stringMatching(/^--pace #2: "rate=fast": rate is/)]);
  });
});

describe('rate bucket and gates', () => {
  it('spaces starts evenly with burst 1, lets `burst` start after a quiet while, and owes nothing for a stall', () => {
    const bucket = createRateBucket(50, 1, 0);
    expect(bucket.waitMs(0)).toBe(0);
    bucket.take(0);
    expect(bucket.waitMs(0)).toBe(20);
    expect(bucket.waitMs(19)).toBe(1);
    expect(bucket.waitMs(20)).toBe(0);
    bucket.take(20);
    // A 10 s stall: one start now, the next 20 ms later.
    bucket.take(10_020);
    expect(bucket.waitMs(10_020)).toBe(20);

    const bursty = createRateBucket(10, 3, 0);
    for (let i = 0; i < 3; i++) {
      expect(bursty.waitMs(0)).toBe(0);
      bursty.take(0);
    }
    expect(bursty.waitMs(0)).toBe(100);
  });

  it('closes a target at its concurrency, by its rate until the next token, and while paused', () => {
    const a = 'http://127.0.0.1:3001/a';
    const b = 'http://127.0.0.1:3001/b';
    const { settings } = paced([`${a} concurrency=2`, `${b} rate=4/s`], [a, b]);
    const gates = createTargetGates(settings, [a, b], 0);
    gates.started(a, 0);
    expect(gates.open(a, 0)).toBe(true);
    gates.started(a, 0);
    expect(gates.open(a, 0)).toBe(false);
    gates.finished(a);
    expect(gates.open(a, 0)).toBe(true);

    gates.started(b, 0);
    gates.finished(b);
    expect(gates.closed(0)).toEqual([b]);
    expect(gates.nextOpening(0)).toBe(250);
    expect(gates.open(b, 250)).toBe(true);

    expect(gates.setPaused(a, true)).toBe(true);
    expect(gates.closed(250)).toEqual([a]);
    expect(gates.setPaused('http://127.0.0.1:3001/unknown', true)).toBe(false);
  });
});

/** A target that notes when each delivery arrived and how many were in flight at once. */
async function timedTarget(holdMs = 0) {
  const arrivals: Array<{ id: string; at: number }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    arrivals.push({ id: String(req.headers['x-service-delivery']), at: Date.now() });
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        inFlight--;
        res.end('ok');
      }, holdMs),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals, maxInFlight: () => maxInFlight };
}

async function relayOn(targets: RelayTargets, pace: string[]): Promise<{ store: DeliveryStore; worker: RelayWorker; afterReads: (n: number) => Promise<void> }> {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const sqlite = await createSqliteStore(join(dir.dir, 'pace.db'), { outbox: targets });
  cleanups.push(() => sqlite.close());
  const { store, nextReads: afterReads } = countingReads(sqlite);
  const { settings, problems } = paced(pace, [targets.to, ...targets.routes.flatMap((r) => r.urls)]);
  expect(problems).toEqual([]);
  const worker = createRelayWorker({ store, hub: createEventHub(), target: targets.to, routes: targets.routes, pacing: settings, secret: 'whsec_pace', timeoutMs: 5000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], pollIntervalMs: 200 });
  cleanups.push(() => worker.stop());
  return { store, worker, afterReads };
}

async function accept(store: DeliveryStore, worker: RelayWorker, trigger: string): Promise<string> {
  const id = randomUUID();
  const now = Date.now();
  const d = makeDelivery({ id, trigger, receivedAt: now, rawHeaders: ['Content-Type', 'application/json', 'X-Service-Delivery', id, 'X-Service-Event', trigger] });
  const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: now }));
  worker.offer({ seq: deliverySeq, id, trigger, receivedAt: now, rawBody: d.rawBody, rawHeaders: d.rawHeaders });
  return id;
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  // (a local one: it takes the bound as a number, and the tests here wait on counts)
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The most arrivals in any window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((x, y) => x - y);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('the relay at each target\'s pace', () => {
  it('a target limited to 50/s gets at most that, measured at the target, while an unpaced one is not held up', async () => {
    const slow = await timedTarget();
    const fast = await timedTarget();
    const { store, worker } = await relayOn({ to: slow.url, routes: [{ glob: 'vendor.*', urls: [fast.url] }] }, [`${slow.url} rate=50/s`]);
    const toSlow: string[] = [];
    const toFast: string[] = [];
    for (let i = 0; i < 75; i++) {
      toSlow.push(await accept(store, worker, 'control.failed'));
      toFast.push(await accept(store, worker, 'vendor.onboarded'));
    }
    await until(() => fast.arrivals.length === 75);
    // 75 at 50/s take 1.5 s: the unpaced target had all of its own well before.
    expect(slow.arrivals.length).toBeLessThan(75);
    await until(() => slow.arrivals.length === 75);
    expect(busiestWindow(slow.arrivals.map((a) => a.at), 1000)).toBeLessThanOrEqual(51);
    // Exactly once each, at the right target.
    expect(new Set(slow.arrivals.map((a) => a.id))).toEqual(new Set(toSlow));
    expect(new Set(fast.arrivals.map((a) => a.id))).toEqual(new Set(toFast));
    expect(slow.arrivals).toHaveLength(75);
    expect(fast.arrivals).toHaveLength(75);
  });

  it('keeps at most `concurrency` hand-offs in flight at a target', async () => {
    const app = await timedTarget(50);
    const { store, worker } = await relayOn({ to: app.url, routes: [] }, ['concurrency=2']);
    for (let i = 0; i < 12; i++) await accept(store, worker, 'control.failed');
    await until(() => app.arrivals.length === 12);
    expect(app.maxInFlight()).toBe(2);
  });

  it('a paused target gets nothing, its jobs stay pending in the store, and resumed it gets each exactly once', async () => {
    const app = await timedTarget();
    const other = await timedTarget();
    const { store, worker, afterReads } = await relayOn({ to: app.url, routes: [{ glob: 'vendor.*', urls: [other.url] }] }, []);
    expect(worker.setPaused(app.url, true)).toBe(true);
    const ids: string[] = [];
    // More than are ever held in memory for one target: the rest are read from the store on resume.
    for (let i = 0; i < 150; i++) ids.push(await accept(store, worker, 'control.failed'));
    await accept(store, worker, 'vendor.onboarded');
    await until(() => other.arrivals.length === 1);
    // Two more reads of the outbox (the poll's): each would have started the paused target's jobs.
    await afterReads(2);
    expect(app.arrivals).toHaveLength(0);
    expect(worker.targets().find((t) => t.target === app.url)).toMatchObject({ paused: true, inFlight: 0, waiting: 0 });
    const owed = (await store.relayBacklog()).filter((row) => row.target === app.url);
    expect(owed).toEqual([expect.objectContaining({ pending: 150 })]);

    expect(worker.setPaused(app.url, false)).toBe(true);
    await until(() => app.arrivals.length >= 150);
    // Every job done, and two reads later: nothing is owed that could go out a second time.
    const done = Date.now() + 15_000;
    while ((await store.relayCounts()).done < 151 && Date.now() < done) await new Promise((resolve) => setTimeout(resolve, 20));
    await afterReads(2);
    expect(app.arrivals).toHaveLength(150);
    expect(new Set(app.arrivals.map((a) => a.id))).toEqual(new Set(ids));
    expect(worker.setPaused('http://127.0.0.1:9/not-a-target', true)).toBe(false);
  });

  it('starts paused with `paused` in its pace', async () => {
    const app = await timedTarget();
    const { store, worker, afterReads } = await relayOn({ to: app.url, routes: [] }, [`${app.url} paused`]);
    await accept(store, worker, 'control.failed');
    // Two reads of the outbox after it was stored: each would have started it.
    await afterReads(2);
    expect(app.arrivals).toHaveLength(0);
    worker.setPaused(app.url, false);
    await until(() => app.arrivals.length === 1);
  });
});

describe('pacing, where targets meet', () => {
  it('jobs queued with no target (an older hookrelay) for a paused target never fill the reads: other targets go on', async () => {
    const paused = await timedTarget();
    const other = await timedTarget();
    const dir = tempDir();
    cleanups.push(dir.remove);
    const path = join(dir.dir, 'legacy.db');
    // An older run kept no targets: its jobs have none.
    const old = await createSqliteStore(path, { outbox: true });
    for (let i = 0; i < 150; i++) {
      const id = randomUUID();
      const d = makeDelivery({ id, trigger: 'control.failed', rawHeaders: ['Content-Type', 'application/json', 'X-Service-Delivery', id, 'X-Service-Event', 'control.failed'] });
      await old.accept(d, attemptFor(d));
    }
    await old.close();
    const targets = { to: paused.url, routes: [{ glob: 'vendor.*', urls: [other.url] }] };
    const store = await createSqliteStore(path, { outbox: targets });
    cleanups.push(() => store.close());
    const { settings } = paced([`${paused.url} paused`], [paused.url, other.url]);
    const worker = createRelayWorker({ store, hub: createEventHub(), target: paused.url, routes: targets.routes, pacing: settings, secret: 'whsec_pace', timeoutMs: 5000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], pollIntervalMs: 100 });
    cleanups.push(() => worker.stop());
    // Stored, not offered: the relay finds it only by reading the outbox, behind the 150 older jobs.
    const id = randomUUID();
    const d = makeDelivery({ id, trigger: 'vendor.onboarded', rawHeaders: ['Content-Type', 'application/json', 'X-Service-Delivery', id, 'X-Service-Event', 'vendor.onboarded'] });
    await store.accept(d, attemptFor(d));
    await until(() => other.arrivals.length === 1, 5000);
    expect(paused.arrivals).toHaveLength(0);
    worker.setPaused(paused.url, false);
    await until(() => paused.arrivals.length === 150, 10_000);
    expect(new Set(paused.arrivals.map((a) => a.id)).size).toBe(150);
  });

  it('a slow target\'s wake-up never holds back a faster one\'s', async () => {
    const slow = await timedTarget();
    const fast = await timedTarget();
    const { store, worker } = await relayOn({ to: slow.url, routes: [{ glob: 'vendor.*', urls: [fast.url] }] }, [`${slow.url} rate=1/m`, `${fast.url} rate=20/s`]);
    await accept(store, worker, 'control.failed');
    await accept(store, worker, 'control.failed'); // parked: the slow target's next start is a minute away
    await until(() => slow.arrivals.length === 1, 5000);
    for (let i = 0; i < 20; i++) await accept(store, worker, 'vendor.onboarded');
    // At 20/s, about a second; woken only by the polls (every 200 ms here), it took four times that.
    await until(() => fast.arrivals.length === 20, 2500);
    expect(slow.arrivals).toHaveLength(1);
  });

  it('two targets on one origin each get their own sockets: a slow one never holds up the other', async () => {
    const arrivals: string[] = [];
    const slowAnswers: Array<() => void> = [];
    const server = createServer((req, res) => {
      arrivals.push(req.url!);
      req.resume();
      if (req.url === '/slow') slowAnswers.push(() => res.end('ok'));
      else res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => (slowAnswers.forEach((answer) => answer()), server.closeAllConnections(), server.close(() => resolve()))));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { store, worker } = await relayOn({ to: `${origin}/slow`, routes: [{ glob: 'vendor.*', urls: [`${origin}/fast`] }] }, []);
    for (let i = 0; i < 16; i++) await accept(store, worker, 'control.failed');
    await until(() => arrivals.filter((u) => u === '/slow').length === 16, 5000);
    await accept(store, worker, 'vendor.onboarded');
    // Every slow hand-off still waits for its answer, and the fast one is in.
    // Well within the hand-off timeout (5 s), after which a shared pool would free a socket anyway.
    await until(() => arrivals.includes('/fast'), 2000);
    expect(slowAnswers).toHaveLength(16);
    slowAnswers.forEach((answer) => answer());
  });
});
