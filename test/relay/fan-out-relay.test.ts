/**
 * Fan-out in the relay: one delivery, one job per target, each with its own tries, retries and dead
 * state. A target that is down holds up only its own jobs; when it comes back it gets each delivery
 * once, and the others never get one twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RelayTargets } from '../../src/core/routes.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createRelayWorker, type RelayWorker } from '../../src/relay/relay-worker.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { freePort, startTarget, type Target } from '../helpers/target-server.js';
import { until } from '../helpers/until.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function target(answer?: Parameters<typeof startTarget>[0], port?: number): Promise<Target> {
  const t = await startTarget(answer, port);
  cleanups.push(() => t.close());
  return t;
}

/** How many times each delivery id reached a target. */
const idsAt = (t: Target) => {
  const counts = new Map<string, number>();
  for (const r of t.received) {
    const id = String(r.headers['x-service-delivery']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
};

function relay(store: DeliveryStore, targets: RelayTargets, maxTries = 50): RelayWorker {
  const worker = createRelayWorker({
    store, hub: createEventHub(), target: targets.to, routes: targets.routes, secret: 'whsec_fan_out', timeoutMs: 2000,
    retry: { maxTries, initialDelayMs: 20, maxDelayMs: 100 }, extraHeaders: [], pollIntervalMs: 25,
  });
  cleanups.push(() => worker.stop());
  return worker;
}

/** Stores and offers n deliveries, as the receiver does. */
async function arrive(store: DeliveryStore, worker: RelayWorker, n: number, trigger = 'vendor.rating_dropped') {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = makeDelivery({ trigger });
    const { deliverySeq } = await store.accept(d, attemptFor(d));
    worker.offer({ seq: deliverySeq, id: d.id, trigger: d.trigger, receivedAt: d.receivedAt, rawBody: d.rawBody, rawHeaders: d.rawHeaders });
    ids.push(d.id);
  }
  return ids;
}

describe('fan-out', () => {
  it('hands each delivery to three targets once each, one of them down for a while, which holds up only its own jobs', async () => {
    const app = await target();
    const audit = await target();
    const logPort = await freePort();
    const logUrl = `http://127.0.0.1:${logPort}/hook`;
    const targets: RelayTargets = { to: app.url, routes: [{ glob: 'vendor.*', urls: [app.url, audit.url] }, { glob: '*', urls: [logUrl], also: true }] };
    const store = createMemoryStore({ outbox: targets });
    const worker = relay(store, targets);
    const ids = await arrive(store, worker, 30);

    await app.waitFor(30);
    await audit.waitFor(30);
    // The log is down: its jobs retry while the others are done.
    await until(async () => (await store.relayBacklog()).some((b) => b.target === logUrl && b.retrying === 30), 'the log target\'s 30 jobs retrying');
    const log = await target(undefined, logPort);
    await until(() => log.received.length >= 30, 'the log target\'s 30 deliveries');
    await until(async () => (await store.relayCounts()).done === 90, '90 jobs done');

    for (const t of [app, audit, log]) expect(idsAt(t)).toEqual(new Map(ids.map((id) => [id, 1])));
    const history = await store.relayHistory(ids[0]!);
    expect(history.jobs.map((j) => [j.target, j.state])).toEqual([[app.url, 'done'], [audit.url, 'done'], [logUrl, 'done']]);
    expect(history.jobs[2]!.tries).toBeGreaterThan(1);
    expect(history.jobs[0]!.tries).toBe(1);
    // Each try names its target; the log's failed tries are its own.
    const triesAt = (url: string) => history.attempts.filter((a) => a.target === url);
    expect(triesAt(app.url)).toHaveLength(1);
    expect(triesAt(logUrl).filter((a) => a.status === null).length).toBeGreaterThan(0);
  });

  it('gives up on one target without touching the others, and a retry by target brings back that one only', async () => {
    let gone = true;
    const app = await target();
    const audit = await target(() => (gone ? 410 : 204));
    const targets: RelayTargets = { to: app.url, routes: [{ glob: '*', urls: [audit.url], also: true }] };
    const store = createMemoryStore({ outbox: targets });
    const worker = relay(store, targets, 2);
    const [id] = await arrive(store, worker, 1);
    await until(async () => (await store.relayHistory(id!)).jobs.some((j) => j.state === 'dead'), 'the audit job dead');
    expect((await store.relayHistory(id!)).jobs.map((j) => [j.target, j.state, j.tries])).toEqual([[app.url, 'done', 1], [audit.url, 'dead', 2]]);

    gone = false;
    expect(await store.requeueRelay(id!, Date.now(), app.url)).toBe(false);
    expect(await store.requeueRelay(id!, Date.now(), audit.url)).toBe(true);
    worker.poke();
    await until(async () => (await store.relayHistory(id!)).jobs.every((j) => j.state === 'done'), 'every job done');
    expect(app.received).toHaveLength(1);
    expect(audit.received.map((r) => r.headers['x-service-delivery'])).toEqual([id, id, id]);
  });

  it('pauses one target of a fan-out: the others go on, and resumed it gets what it missed once', async () => {
    const app = await target();
    const audit = await target();
    const targets: RelayTargets = { to: app.url, routes: [{ glob: '*', urls: [audit.url], also: true }] };
    const store = createMemoryStore({ outbox: targets });
    const worker = relay(store, targets);
    expect(worker.setPaused(audit.url, true)).toBe(true);
    const ids = await arrive(store, worker, 10);
    await app.waitFor(10);
    expect((await store.relayBacklog()).find((b) => b.target === audit.url)).toMatchObject({ pending: 10 });
    expect(audit.received).toHaveLength(0);
    worker.setPaused(audit.url, false);
    await until(() => audit.received.length >= 10, 'the audit target\'s 10 deliveries');
    await until(async () => (await store.relayCounts()).done === 20, '20 jobs done');
    expect(idsAt(audit)).toEqual(new Map(ids.map((id) => [id, 1])));
    expect(idsAt(app)).toEqual(new Map(ids.map((id) => [id, 1])));
  });
});
