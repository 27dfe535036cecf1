/**
 * `--route` in the relay: each delivery goes to the first route its trigger matches, else to
 * `--forward-to`; each try records the target it used; the target is chosen at each try, so a
 * route added before a restart applies to the jobs still waiting.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Route } from '../../src/core/routes.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { DEFAULT_RELAY_RETRY } from '../../src/relay/relay-backoff.js';
import { createRelayWorker, type RelayWorker } from '../../src/relay/relay-worker.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { freePort, startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function relayEvents(hub: EventHub) {
  const events: Array<HubEvents['relay']> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  hub.on('relay', (e) => {
    events.push(e);
    for (const w of waiters.filter((w) => events.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  return { events, waitFor: (n: number) => (events.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))) };
}

function worker(store: DeliveryStore, target: string, routes: Route[], clock: () => number): { worker: RelayWorker; relay: ReturnType<typeof relayEvents> } {
  const hub = createEventHub();
  const relay = relayEvents(hub);
  const w = createRelayWorker({ store, hub, target, routes, secret: 'whsec_forward', timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], clock, random: () => 0.5, pollIntervalMs: 60_000 });
  cleanups.push(() => w.stop());
  return { worker: w, relay };
}

async function target(): Promise<Target> {
  const t = await startTarget();
  cleanups.push(() => t.close());
  return t;
}

async function accept(store: DeliveryStore, trigger: string, at: number): Promise<string> {
  const id = randomUUID();
  const d = makeDelivery({ id, trigger, receivedAt: at, rawHeaders: ['Content-Type', 'application/json', 'X-Service-Delivery', id, 'X-Service-Event', trigger] });
  await store.accept(d, attemptFor(d, { receivedAt: at }));
  return d.id;
}

describe('relay routes', () => {
  it('hands each delivery to the first route its trigger matches, the rest to --forward-to, and records the target of each try', async () => {
    const [exact, vendor, trust, fallback] = await Promise.all([target(), target(), target(), target()]);
    const store = createMemoryStore({ outbox: true });
    const now = Date.now();
    const ids = {
      dropped: await accept(store, 'vendor.rating_dropped', now),
      vendorOther: await accept(store, 'vendor.onboarded', now),
      access: await accept(store, 'trustcenter.access_requested', now),
      drift: await accept(store, 'control.drift_detected', now),
    };
    const routes = [
      { glob: 'vendor.rating_dropped', urls: [exact.url] },
      { glob: 'vendor.*', urls: [vendor.url] },
      { glob: 'trustcenter.*', urls: [trust.url] },
    ];
    const { worker: w, relay } = worker(store, fallback.url, routes, () => now);
    w.poke();
    await relay.waitFor(4);
    const got = (t: Target) => t.received.map((r) => r.headers['x-service-delivery']);
    expect(got(exact)).toEqual([ids.dropped]);
    expect(got(vendor)).toEqual([ids.vendorOther]);
    expect(got(trust)).toEqual([ids.access]);
    expect(got(fallback)).toEqual([ids.drift]);
    expect(relay.events.every((e) => e.ok)).toBe(true);
    expect((await store.relayHistory(ids.dropped)).attempts.map((a) => a.target)).toEqual([exact.url]);
    expect((await store.relayHistory(ids.drift)).attempts.map((a) => a.target)).toEqual([fallback.url]);
  });

  it('chooses the target when a job is handed on: a route added before a restart applies to the jobs still waiting', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const path = join(dir, 'relay.db');
    const down = `http://127.0.0.1:${await freePort()}/down`;
    let now = Date.now();
    const first = await createSqliteStore(path, { outbox: true });
    const vendorId = await accept(first, 'vendor.rating_dropped', now);
    const otherId = await accept(first, 'control.drift_detected', now);
    const before = worker(first, down, [], () => now);
    before.worker.poke();
    await before.relay.waitFor(2);
    expect(before.relay.events.map((e) => e.ok)).toEqual([false, false]);
    await before.worker.stop();
    await first.close();

    // Restarted with a route for vendor.* (the fallback is still down).
    const routed = await target();
    now += 5_000;
    const second = await createSqliteStore(path, { outbox: true });
    cleanups.push(() => second.close());
    const after = worker(second, down, [{ glob: 'vendor.*', urls: [routed.url] }], () => now);
    after.worker.poke();
    await after.relay.waitFor(2);
    expect(routed.received.map((r) => r.headers['x-service-delivery'])).toEqual([vendorId]);
    expect(routed.received[0]!.headers['x-hookrelay-relay-try']).toBe('2');
    const history = await second.relayHistory(vendorId);
    expect(history.jobs).toMatchObject([{ state: 'done', tries: 2 }]);
    expect(history.attempts.map((a) => [a.try, a.target])).toEqual([
      [1, down],
      [2, routed.url],
    ]);
    expect((await second.relayHistory(otherId)).jobs).toMatchObject([{ state: 'pending', tries: 2 }]);
  });
});
