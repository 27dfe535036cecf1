import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { verify } from '../../src/core/signature/verify.js';
import { DEFAULT_RELAY_RETRY } from '../../src/relay/relay-backoff.js';
import { createRelayWorker, type RelayWorker } from '../../src/relay/relay-worker.js';
import { createReplayer } from '../../src/relay/replay.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { freePort, startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { countingReads } from '../helpers/counted-reads.js';

const SECRET = 'whsec_forward';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Relay events as they come, and a way to await the n-th. */
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
  return {
    events,
    waitFor: (n: number) => (events.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}

function setup(store: DeliveryStore, target: string, clock: () => number, retry = DEFAULT_RELAY_RETRY): { worker: RelayWorker; hub: EventHub; relay: ReturnType<typeof relayEvents> } {
  const hub = createEventHub();
  const relay = relayEvents(hub);
  const worker = createRelayWorker({ store, hub, target, secret: SECRET, timeoutMs: 2000, retry, extraHeaders: [], clock, random: () => 0.5, pollIntervalMs: 60_000 });
  cleanups.push(() => worker.stop());
  return { worker, hub, relay };
}

async function acceptAll(store: DeliveryStore, bodies: Buffer[], at: number) {
  const ids: string[] = [];
  for (const [i, rawBody] of bodies.entries()) {
    const d = makeDelivery({ id: `relay-${i}-${at}`, rawBody, receivedAt: at });
    await store.accept(d, attemptFor(d, { receivedAt: at }));
    ids.push(d.id);
  }
  return ids;
}

/**
 * A worker on a memory outbox whose reads are counted, a target answering 200, and the relay
 * events; returned once the worker's first read (a restart's resume) has found nothing.
 */
async function countedWorker(pollIntervalMs: number) {
  const target = await startTarget(() => 200);
  cleanups.push(() => target.close());
  const memory = createMemoryStore({ outbox: true });
  const counted = countingReads(memory);
  const now = 1_763_719_200_000;
  const hub = createEventHub();
  const relay = relayEvents(hub);
  const firstRead = counted.nextReads(1);
  const worker = createRelayWorker({ store: counted.store, hub, target: target.url, secret: SECRET, timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], clock: () => now, pollIntervalMs });
  cleanups.push(() => worker.stop());
  await firstRead;
  return { target, memory, counted, store: counted.store, now, relay, worker };
}

/** Stores a delivery and offers it to the worker, as the receiver does. */
async function acceptAndOffer(store: DeliveryStore, worker: RelayWorker, id: string, rawBody: Buffer, now: number) {
  const d = makeDelivery({ id, rawBody, receivedAt: now });
  const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: now }));
  worker.offer({ seq: deliverySeq, id: d.id, trigger: d.trigger, receivedAt: now, rawBody, rawHeaders: d.rawHeaders });
}

const ODD_BODIES = [
  Buffer.from('{ "id" : "x",\n\t"data":{"b":1,"a":2}   }\r\n'),
  Buffer.from('{"url":"https:\\/\\/example.com\\/a","z":1,"a":0}'),
  Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"bom":true}')]),
  Buffer.concat([Buffer.from('{"bad":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
  Buffer.from('{"multi":"日本語 — ✓ 🎉 é"}'),
];

describe('relay worker', () => {
  it('does not start a job read ahead whose delivery was deleted meanwhile', async () => {
    const arrived: string[] = [];
    const held: Array<() => void> = [];
    let fourHeld!: () => void;
    const fourCommitsHeld = new Promise<void>((resolve) => (fourHeld = resolve));
    let holding = true;
    let allHeld!: () => void;
    const sixteenHeld = new Promise<void>((resolve) => (allHeld = resolve));
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(String(req.headers['x-service-delivery']));
        if (arrived.length === 16) allHeld();
        const answer = () => res.writeHead(204).end();
        if (holding) held.push(answer);
        else answer();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
    const store = createMemoryStore({ outbox: true });
    const now = 1_763_719_200_000;
    const { worker, relay } = setup(store, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, () => now);
    // 20 jobs, 16 hand-offs at once: 4 wait in the read-ahead while the app holds the first 16.
    const ids = await acceptAll(store, Array.from({ length: 20 }, (_, i) => Buffer.from(`{"n":${i}}`)), now);
    worker.poke();
    await sixteenHeld;
    const deleted = ids[19]!;
    expect(arrived).not.toContain(deleted);
    worker.forget(deleted);
    expect(await store.deleteDelivery(deleted)).toBe(true);
    holding = false;
    for (const answer of held.splice(0)) answer();
    await relay.waitFor(19);
    // Stopping waits for every hand-off in flight: a wrongly started one has reached the app by then.
    await worker.stop();
    expect(arrived).toHaveLength(19);
    expect(arrived).not.toContain(deleted);
  });

  it('hands each body on byte for byte, freshly signed, once; a replay much later still verifies', async () => {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const store = createMemoryStore({ outbox: true });
    let now = 1_763_719_200_000;
    const { worker, relay, hub } = setup(store, target.url, () => now);
    const replayer = createReplayer({ store, hub, settings: { secret: SECRET, timeoutMs: 2000, headers: [], targets: null }, clock: () => now });
    cleanups.push(() => replayer.close());
    const replay = (id: string) => replayer.replay(id, target.url);
    const ids = await acceptAll(store, ODD_BODIES, now);
    worker.poke();
    await relay.waitFor(ODD_BODIES.length);
    expect(target.received).toHaveLength(ODD_BODIES.length);
    for (const [i, id] of ids.entries()) {
      const got = target.received.find((r) => r.headers['x-service-delivery'] === id)!;
      expect(got.body.equals(ODD_BODIES[i]!)).toBe(true);
      expect(verify(got.body, got.headers['x-service-signature'] as string, { secrets: [SECRET], nowSeconds: now / 1000 }).ok).toBe(true);
      expect(got.headers['x-hookrelay-replay']).toBe('false');
    }
    expect(await store.relayCounts()).toEqual({ pending: 0, held: 0, done: ODD_BODIES.length, dead: 0 });

    // Three days later: the replay is signed now, so the app's tolerance check passes.
    now += 3 * 24 * 3600 * 1000;
    const result = await replay(ids[3]!);
    expect(result).toMatchObject({ ok: true, status: 200 });
    const replayed = target.received.at(-1)!;
    expect(replayed.headers['x-hookrelay-replay']).toBe('true');
    expect(replayed.body.equals(ODD_BODIES[3]!)).toBe(true);
    expect(verify(replayed.body, replayed.headers['x-service-signature'] as string, { secrets: [SECRET], nowSeconds: now / 1000 }).ok).toBe(true);
    const history = await store.relayHistory(ids[3]!);
    expect(history.attempts.map((a) => a.replay)).toEqual([false, true]);
    expect(await replay('missing')).toBeNull();
  });

  it('keeps deliveries while the target is down and hands each on exactly once when it is back', async () => {
    const port = await freePort();
    const store = createMemoryStore({ outbox: true });
    let now = 1_763_719_200_000;
    const { worker, relay } = setup(store, `http://127.0.0.1:${port}/hook`, () => now);
    const ids = await acceptAll(store, Array.from({ length: 6 }, (_, i) => Buffer.from(`{"n":${i}}`)), now);
    worker.poke();
    await relay.waitFor(6);
    expect(relay.events.every((e) => !e.ok && e.status === null && e.nextRetryAt === now + 1000)).toBe(true);
    const target = await startTarget(() => 200, port);
    cleanups.push(() => target.close());
    now += 999;
    worker.poke();
    expect((await store.dueRelayJobs(now, 10)).length).toBe(0); // not due yet: backoff is respected
    now += 1;
    worker.poke();
    await relay.waitFor(12);
    await target.waitFor(6);
    const arrived = target.received.map((r) => r.headers['x-service-delivery']).sort();
    expect(arrived).toEqual([...ids].sort());
    expect(await store.relayCounts()).toEqual({ pending: 0, held: 0, done: 6, dead: 0 });
  });

  it('backs off after a 500, succeeds once, and marks a job dead after the last try', async () => {
    let answer = 500;
    const target = await startTarget(() => answer);
    cleanups.push(() => target.close());
    const store = createMemoryStore({ outbox: true });
    let now = 1_000_000;
    const { worker, relay } = setup(store, target.url, () => now, { maxTries: 2, initialDelayMs: 1000, maxDelayMs: 10_000 });
    const [first] = await acceptAll(store, [Buffer.from('{"a":1}')], now);
    worker.poke();
    await relay.waitFor(1);
    expect(relay.events[0]).toMatchObject({ ok: false, status: 500, nextRetryAt: now + 1000 });
    answer = 200;
    now += 1000;
    worker.poke();
    await relay.waitFor(2);
    expect(relay.events[1]).toMatchObject({ ok: true, status: 200 });
    expect((await store.relayHistory(first!)).attempts.map((a) => a.status)).toEqual([500, 200]);

    answer = 503;
    const [second] = await acceptAll(store, [Buffer.from('{"b":2}')], now);
    worker.poke();
    await relay.waitFor(3);
    now += 1000;
    worker.poke();
    await relay.waitFor(4);
    expect((await store.relayHistory(second!)).jobs).toMatchObject([{ state: 'dead', tries: 2 }]);
    expect(relay.events[3]!.error).toMatch(/gave up after 2 tries/);
    expect(await store.requeueRelay(second!, now)).toBe(true);
    answer = 200;
    worker.poke();
    await relay.waitFor(5);
    expect((await store.relayHistory(second!)).jobs).toMatchObject([{ state: 'done' }]);
  });

  it('records what the target answered with each try and each replay, through the SQLite writer (issue 13, item 13)', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const store = await createSqliteStore(join(dir, 'answers.db'), { outbox: true });
    cleanups.push(() => store.close());
    const failing = Buffer.concat([Buffer.from('<h1>busy</h1>\u001b[2J'), Buffer.from([0xff, 0xfe]), Buffer.alloc(6000, 0x7a)]);
    const answers = [
      { status: 503, headers: { 'retry-after': '5', 'x-app': '<script>alert(1)</script>' }, body: failing },
      { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"ok":true}') },
      { status: 201, headers: {}, body: Buffer.alloc(0) },
    ];
    let n = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const a = answers[n++]!;
        res.writeHead(a.status, a.headers).end(a.body);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    let now = 1_000_000;
    const { worker, relay } = setup(store, url, () => now);
    const [id] = await acceptAll(store, [Buffer.from('{"a":1}')], now);
    worker.poke();
    await relay.waitFor(1);
    now += 1000;
    worker.poke();
    await relay.waitFor(2);
    const replayer = createReplayer({ store, settings: { secret: SECRET, timeoutMs: 2000, headers: [], targets: null }, clock: () => now });
    cleanups.push(() => replayer.close());
    await replayer.replay(id!, url);

    const tries = (await store.relayHistory(id!, { withAnswers: true })).attempts;
    expect(tries.map((t) => [t.replay, t.try, t.status])).toEqual([[false, 1, 503], [false, 2, 200], [true, 1, 201]]);
    const [first, second, replayed] = tries.map((t) => t.answer!);
    expect(first!.headers).toEqual(expect.arrayContaining([['retry-after', '5'], ['x-app', '<script>alert(1)</script>']]));
    expect(first!.body.equals(failing.subarray(0, 4096))).toBe(true);
    expect(first).toMatchObject({ bodyBytes: failing.length, complete: true });
    expect(Buffer.from(second!.body).toString()).toBe('{"ok":true}');
    expect(replayed).toMatchObject({ bodyBytes: 0, complete: true });
    // The plain history (what the list and the worker read) carries none of it.
    expect((await store.relayHistory(id!)).attempts.every((t) => t.answer === undefined)).toBe(true);
  });

  it('frees a slot once the target answered, not once the outcome is committed, sends nothing twice meanwhile, and holds at most twice the slots uncommitted', async () => {
    const target = await startTarget(() => 200);
    cleanups.push(() => target.close());
    const memory = createMemoryStore({ outbox: true });
    // Every outcome's commit is held until the test lets it go; after that, commits go through.
    const held: Array<() => void> = [];
    let fourHeld!: () => void;
    const fourCommitsHeld = new Promise<void>((resolve) => (fourHeld = resolve));
    let holding = true;
    const releaseAll = () => {
      holding = false;
      for (const release of held.splice(0)) release();
    };
    const counted = countingReads(memory, {
      recordRelay: (outcome: Parameters<DeliveryStore['recordRelay']>[0]) =>
        holding
          ? new Promise<void>((resolve) => {
              if (held.push(() => resolve(memory.recordRelay(outcome))) === 4) fourHeld();
            })
          : memory.recordRelay(outcome),
    });
    const store = counted.store;
    const now = 1_763_719_200_000;
    const hub = createEventHub();
    const relay = relayEvents(hub);
    const worker = createRelayWorker({ store, hub, target: target.url, secret: SECRET, timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], clock: () => now, concurrency: 2, pollIntervalMs: 20 });
    cleanups.push(() => worker.stop());
    cleanups.push(releaseAll);
    await acceptAll(store, Array.from({ length: 6 }, (_, i) => Buffer.from(`{"n":${i}}`)), now);
    worker.poke();
    // Two slots: four are posted and answered while their commits are held (twice the slots). With
    // four outcomes uncommitted the worker starts nothing more: the other two wait.
    await fourCommitsHeld;
    expect(relay.events).toEqual([]);
    expect(target.received.length).toBe(4);
    releaseAll();
    await relay.waitFor(6);
    expect(await memory.relayCounts()).toEqual({ pending: 0, held: 0, done: 6, dead: 0 });
    await counted.nextReads(2);
    expect(target.received.length).toBe(6);
    expect(new Set(target.received.map((r) => r.headers['x-service-delivery'])).size).toBe(6);
  });

  it('hands a delivery offered as it is stored on from memory, once, while polls read the outbox beside it', async () => {
    const { target, memory, counted, store, now, relay, worker } = await countedWorker(5);
    const bodies = Array.from({ length: 40 }, (_, i) => Buffer.from(`{"n":${i}}`));
    for (const [i, rawBody] of bodies.entries()) await acceptAndOffer(store, worker, `fresh-${i}`, rawBody, now);
    await relay.waitFor(40);
    await counted.nextReads(2);
    expect(target.received.length).toBe(40);
    expect(new Set(target.received.map((r) => r.headers['x-service-delivery'])).size).toBe(40);
    expect(target.received.map((r) => r.body.toString()).sort()).toEqual(bodies.map(String).sort());
    expect(counted.reads()).toBeGreaterThan(1); // the polls ran…
    expect(counted.returned()).toBe(0); // …and never returned a job held in memory
    expect(await memory.relayCounts()).toEqual({ pending: 0, held: 0, done: 40, dead: 0 });
  });

  it('does not read the outbox after each hand-off while it holds every job, and reads it for what it was not offered', async () => {
    // No poll in this test's time: every read below is one the worker chose to make.
    const { target, memory, counted, store, now, relay, worker } = await countedWorker(60_000);
    for (let i = 0; i < 30; i++) {
      await acceptAndOffer(store, worker, `kept-up-${i}`, Buffer.from(`{"kept-up":${i}}`), now);
      await relay.waitFor(i + 1);
    }
    // Two empty reads after every hand-off, before: here none.
    expect(counted.reads()).toBe(1);
    // Stored without an offer (as a delivery stored without its bytes is): poke() has it read.
    const [late] = await acceptAll(store, [Buffer.from('{"late":1}')], now);
    worker.poke();
    await relay.waitFor(31);
    expect(target.received.at(-1)!.headers['x-service-delivery']).toBe(late);
    // Past the memory bound, offers are left in the outbox, and read from there.
    const offers = await Promise.all(
      Array.from({ length: 1100 }, async (_, i) => {
        const rawBody = Buffer.from(`{"burst":${i}}`);
        const d = makeDelivery({ id: `burst-${i}`, rawBody, receivedAt: now });
        const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: now }));
        return { seq: deliverySeq, id: d.id, trigger: d.trigger, receivedAt: now, rawBody, rawHeaders: d.rawHeaders };
      }),
    );
    for (const offer of offers) worker.offer(offer);
    await relay.waitFor(31 + 1100);
    expect(await memory.relayCounts()).toEqual({ pending: 0, held: 0, done: 1131, dead: 0 });
    expect(new Set(target.received.map((r) => r.headers['x-service-delivery'])).size).toBe(1131);
    expect(target.received).toHaveLength(1131);
  });

  it('hands on all of a backlog that one poll finds, not 32 a poll', async () => {
    // The poll's timer is the test's: exactly one poll happens in this test. (Code that drains 32
    // a poll never reaches 100 events, and the test fails on its timeout.)
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    cleanups.push(() => void vi.useRealTimers());
    const { memory, store, now, relay } = await countedWorker(1000);
    // Due, but neither offered nor poked (as retries coming due are, or jobs requeued by another process).
    await acceptAll(store, Array.from({ length: 100 }, (_, i) => Buffer.from(`{"backlog":${i}}`)), now);
    vi.advanceTimersByTime(1000);
    await relay.waitFor(100);
    expect(relay.events).toHaveLength(100);
    expect(await memory.relayCounts()).toEqual({ pending: 0, held: 0, done: 100, dead: 0 });
  });

  it('holds a job whose outcome cannot be recorded, instead of sending it again at once in a loop', async () => {
    const target = await startTarget(() => 200);
    cleanups.push(() => target.close());
    const memory = createMemoryStore({ outbox: true });
    // Reads work, writes fail: a full disk, or a writer that timed out.
    const counted = countingReads(memory, {
      recordRelay: async () => {
        throw new Error('the store could not write: disk full');
      },
    });
    const store = counted.store;
    const now = 1_763_719_200_000;
    const hub = createEventHub();
    const worker = createRelayWorker({ store, hub, target: target.url, secret: SECRET, timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], clock: () => now, pollIntervalMs: 10 });
    cleanups.push(() => worker.stop());
    await acceptAll(store, [Buffer.from('{"n":1}')], now);
    worker.poke();
    await target.waitFor(1);
    // Twenty polls (10 ms apart, well within the 1 s hold) find the job pending: none sends it again.
    await counted.nextReads(20);
    expect(target.received.length).toBe(1);
  });

  it('hands on and records every delivery although its observers throw (a broken console, log or metrics)', async () => {
    // A throwing `delivery` observer: test/ingest/store-step.test.ts ('tells the port … even when every observer of the hub
    // throws'); the whole node: test/app/node-contract.test.ts ('hands on a delivery although every observer of the hub throws').
    const target = await startTarget(() => 200);
    cleanups.push(() => target.close());
    const store = createMemoryStore({ outbox: true });
    const now = 1_763_719_200_000;
    const hub = createEventHub();
    for (const name of ['relay', 'notice'] as const) {
      hub.on(name, () => {
        throw new Error(`a broken ${name} observer`);
      });
    }
    const relay = relayEvents(hub);
    const worker = createRelayWorker({ store, hub, target: target.url, secret: SECRET, timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], clock: () => now, pollIntervalMs: 60_000 });
    cleanups.push(() => worker.stop());
    // One from memory (as the receiver offers it), then one read from the outbox, after the first's throwing announcement.
    await acceptAndOffer(store, worker, 'observed-1', Buffer.from('{"n":1}'), now);
    await relay.waitFor(1);
    const [second] = await acceptAll(store, [Buffer.from('{"n":2}')], now);
    worker.poke();
    await relay.waitFor(2);
    expect(target.received.map((r) => r.headers['x-service-delivery'])).toEqual(['observed-1', second]);
    expect(relay.events.map((e) => e.ok)).toEqual([true, true]);
    expect(await store.relayCounts()).toEqual({ pending: 0, held: 0, done: 2, dead: 0 });
  });

  it('says so when a try cannot be recorded, and announces no try it did not record', async () => {
    const target = await startTarget(() => 200);
    cleanups.push(() => target.close());
    const memory = createMemoryStore({ outbox: true });
    const store: DeliveryStore = Object.assign(Object.create(memory) as DeliveryStore, { recordRelay: async () => Promise.reject(new Error('disk full')) });
    const now = 1_763_719_200_000;
    const hub = createEventHub();
    const relay = relayEvents(hub);
    const noticed = new Promise<HubEvents['notice']>((resolve) => hub.on('notice', resolve));
    const worker = createRelayWorker({ store, hub, target: target.url, secret: SECRET, timeoutMs: 2000, retry: DEFAULT_RELAY_RETRY, extraHeaders: [], clock: () => now, pollIntervalMs: 60_000 });
    cleanups.push(() => worker.stop());
    await acceptAndOffer(store, worker, 'unrecorded', Buffer.from('{"n":1}'), now);
    expect(await noticed).toEqual({ level: 'warn', message: 'relay: the try of delivery unrecorded could not be recorded (disk full); it is handed on again' });
    // Past the hold that follows a failed record: the job is handed on again, and still no try was announced.
    await target.waitFor(2);
    expect(relay.events).toEqual([]);
  });

  it('resumes pending jobs after a restart and sends none twice', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const path = join(dir, 'relay.db');
    const port = await freePort();
    let now = Date.now();
    const first = await createSqliteStore(path, { outbox: true });
    const ids = await acceptAll(first, Array.from({ length: 5 }, (_, i) => Buffer.from(`{"r":${i}}`)), now);
    const before = setup(first, `http://127.0.0.1:${port}/hook`, () => now);
    before.worker.poke();
    await before.relay.waitFor(5);
    await before.worker.stop();
    await first.close();

    const target: Target = await startTarget(() => 200, port);
    cleanups.push(() => target.close());
    now += 2000;
    const second = await createSqliteStore(path, { outbox: true });
    cleanups.push(() => second.close());
    const after = setup(second, target.url, () => now);
    after.worker.poke();
    await after.relay.waitFor(5);
    after.worker.poke();
    await target.waitFor(5);
    expect(target.received.map((r) => r.headers['x-service-delivery']).sort()).toEqual([...ids].sort());
    expect(await second.relayCounts()).toEqual({ pending: 0, held: 0, done: 5, dead: 0 });
    await after.worker.stop();
    expect(target.received).toHaveLength(5);
  });
});
