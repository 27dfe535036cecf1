/**
 * `--pace 'URL order=KEY'` on PostgreSQL: one job at a time per target and key, in acceptance (seq)
 * order, with several instances accepting and claiming on one database.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { orderOfTargets, resolvePacing } from '../../src/core/pacing.js';
import type { RelayTargets } from '../../src/core/routes.js';
import { DEFAULT_RELAY_RETRY } from '../../src/relay/relay-backoff.js';
import { createRelayWorker } from '../../src/relay/relay-worker.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createPostgresStore, type PostgresStore } from '../../src/store/postgres/pg-store.js';
import { relayJobKey, type RelayJob } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';

const server = useTestPostgres();
const APP = 'http://127.0.0.1:3000/webhooks';
const AUDIT = 'http://127.0.0.1:3001/audit';

const opened: PostgresStore[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
async function open(url: string, outbox: RelayTargets): Promise<PostgresStore> {
  const store = await createPostgresStore(url, { outbox });
  opened.push(store);
  return store;
}

/** APP ordered by /data/key (and AUDIT, unordered, besides it when `fanOut`). */
function ordered(pace: string, fanOut = false): RelayTargets {
  const targets = fanOut ? [APP, AUDIT] : [APP];
  const order = orderOfTargets(resolvePacing([`${APP} ${pace}`], '--pace', targets, [], []), targets);
  return { to: APP, routes: fanOut ? [{ glob: '*', urls: [AUDIT], also: true }] : [], order };
}

const T = 1_763_719_200_000;
const keyed = (key: string, label = key) => {
  const id = `${label}-${randomUUID()}`;
  return makeDelivery({ id, receivedAt: T, rawBody: Buffer.from(JSON.stringify({ id, type: 'trustcenter.access_requested', data: { key } })) });
};

async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL outbox keeps each key\'s order', () => {
  async function setUp(pace: string) {
    const url = await server.freshSchema();
    const store = await open(url, ordered(pace, true));
    const ids: Record<string, string> = {};
    for (const [label, key] of [['a1', 'A'], ['b1', 'B'], ['a2', 'A'], ['a3', 'A'], ['b2', 'B']] as const) {
      const d = keyed(key, label);
      await store.accept(d, attemptFor(d, { receivedAt: T }));
      ids[label] = d.id;
    }
    // Only the ordered target's jobs: the unordered one's are all due at once.
    const due = async () => (await store.dueRelayJobs(T + 1_000_000, 50)).filter((e) => e.job.target === APP).map((e) => e.delivery.id);
    const finish = async (id: string, next: { state: 'done' } | { state: 'dead' } | { state: 'pending'; nextAt: number }) => {
      const job = (await store.relayHistory(id)).jobs.find((j) => j.target === APP)!;
      await store.recordRelay({ deliverySeq: job.deliverySeq, startedAt: T, finishedAt: T, status: next.state === 'done' ? 200 : 503, error: null, replay: false, target: APP, try: job.tries + 1, next });
    };
    return { url, store, ids, due, finish };
  }

  it('writes each job\'s order key with the group accept (none for the unordered target), and hands out only the head of each key', async () => {
    const { url, store, ids, due, finish } = await setUp('order=/data/key');
    const keys = await sql(url, 'SELECT d.id, j.target, j.order_key FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq ORDER BY j.delivery_seq, j.job_n');
    expect(keys.rows.filter((r) => r.id === ids.a1)).toEqual([{ id: ids.a1, target: APP, order_key: 'v:"A"' }, { id: ids.a1, target: AUDIT, order_key: null }]);
    // Every unordered job is due at once, whatever the keys.
    expect((await store.dueRelayJobs(T + 1_000_000, 50)).filter((e) => e.job.target === AUDIT)).toHaveLength(5);
    await store.releaseRelayClaims!((await store.dueRelayJobs(T + 1_000_000, 50)).map((e) => relayJobKey(e.job)));
    expect(await due()).toEqual([ids.a1, ids.b1]);
    await finish(ids.a1!, { state: 'done' });
    expect(await due()).toEqual([ids.b1, ids.a2]);
    // A head waiting for its retry holds its key, not another.
    await finish(ids.a2!, { state: 'pending', nextAt: T + 10_000_000 });
    await finish(ids.b1!, { state: 'done' });
    expect(await due()).toEqual([ids.b2]);
    expect(await store.blockedOrderKeys(APP, 10)).toMatchObject([{ target: APP, key: 'v:"A"', deliveryId: ids.a2, state: 'pending', tries: 1, lastStatus: 503, waiting: 1 }]);
  });

  it('on-dead=skip: a dead head lets its key move on', async () => {
    const { ids, due, finish, store } = await setUp('order=/data/key on-dead=skip');
    await finish(ids.a1!, { state: 'dead' });
    expect(await due()).toEqual([ids.b1, ids.a2]);
    expect(await store.blockedOrderKeys(APP, 10)).toEqual([]);
  });

  it('on-dead=block: a dead head keeps its key waiting, listed as blocked, until it is retried', async () => {
    const { ids, due, finish, store } = await setUp('order=/data/key on-dead=block');
    await finish(ids.a1!, { state: 'dead' });
    expect(await due()).toEqual([ids.b1]);
    expect(await store.blockedOrderKeys(APP, 10)).toEqual([{ target: APP, key: 'v:"A"', deliveryId: ids.a1, state: 'dead', tries: 1, lastStatus: 503, lastError: null, waiting: 2 }]);
    expect(await store.requeueRelay(ids.a1!, T, APP)).toBe(true);
    expect(await due()).toEqual([ids.a1, ids.b1]);
  });

  it('never claims a job of a key while an earlier one of it is still being committed by another instance', async () => {
    const url = await server.freshSchema();
    const [slow, fast] = await Promise.all([open(url, ordered('order=/data/key')), open(url, ordered('order=/data/key'))]);
    // The slow instance's accept draws its seq, then waits (inside its transaction) for a lock the test holds.
    await sql(
      url,
      `CREATE FUNCTION wait_77() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.attempt_header = 77 THEN PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NEW; END $$;
       CREATE TRIGGER wait_77 BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION wait_77();`,
    );
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    onTestFinished(() => holder.end());
    await holder.query('SELECT pg_advisory_lock(4242)');
    const first = keyed('A', 'first');
    const accepting = slow.accept(first, attemptFor(first, { attemptHeader: 77, receivedAt: T }));
    await until(async () => (await sql(url, "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n === 1, 'the slow accept waiting', 5_000);
    const second = keyed('A', 'second');
    const other = keyed('B', 'other');
    const secondSeq = (await fast.accept(second, attemptFor(second, { receivedAt: T }))).deliverySeq;
    await fast.accept(other, attemptFor(other, { receivedAt: T }));
    // Committed and visible, but a smaller seq of its key may still come: neither instance claims it.
    for (const store of [fast, slow]) expect((await store.dueRelayJobs(T + 1_000_000, 50)).map((e) => e.delivery.id)).not.toContain(second.id);
    await holder.query('SELECT pg_advisory_unlock(4242)');
    const firstSeq = (await accepting).deliverySeq;
    expect(firstSeq).toBeLessThan(secondSeq);
    const claimed = [...(await fast.dueRelayJobs(T + 1_000_000, 50)), ...(await slow.dueRelayJobs(T + 1_000_000, 50))].map((e) => e.delivery.id);
    expect(claimed.sort()).toEqual([first.id, other.id].sort());
  });

  it('hands each key on in acceptance order, one job at a time, with two instances accepting and claiming at once', async () => {
    const url = await server.freshSchema();
    const stores = await Promise.all([open(url, ordered('order=/data/key')), open(url, ordered('order=/data/key'))]);
    const KEYS = ['A', 'B', 'C', 'D'];
    const TOTAL = 160;
    const accepted: Array<{ id: string; key: string; seq: number }> = [];
    // Accepts race on both instances (several groups each), while both relays already claim.
    const accepting = (async () => {
      for (let round = 0; round < TOTAL / 20; round++) {
        const batch = Array.from({ length: 20 }, (_, i) => keyed(KEYS[(round * 20 + i) % KEYS.length]!));
        const results = await Promise.all(batch.map((d, i) => stores[i % 2]!.accept(d, attemptFor(d, { receivedAt: T }))));
        batch.forEach((d, i) => accepted.push({ id: d.id, key: JSON.parse(d.rawBody.toString()).data.key, seq: results[i]!.deliverySeq }));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const inFlight = new Map<string, string>();
    const overlaps: string[] = [];
    const handedOn = new Map<string, number[]>();
    let failures = 0;
    let done = 0;
    async function relay(store: PostgresStore, n: number): Promise<void> {
      const held = new Set<string>();
      const keyOf = (job: RelayJob, body: Uint8Array) => JSON.parse(Buffer.from(body).toString()).data.key as string;
      const handOn = async (job: RelayJob, key: string) => {
        if (inFlight.has(key)) overlaps.push(`${key}: ${job.deliveryId} beside ${inFlight.get(key)}`);
        inFlight.set(key, job.deliveryId);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
        inFlight.delete(key);
        // Now and then a try fails and its job is due again at once: its key must wait for it.
        const fails = (job.deliverySeq + n) % 7 === 0 && job.tries === 0;
        if (fails) failures++;
        else handedOn.set(key, [...(handedOn.get(key) ?? []), job.deliverySeq]);
        await store.recordRelay({ deliverySeq: job.deliverySeq, startedAt: T, finishedAt: T, status: fails ? 503 : 200, error: null, replay: false, target: APP, try: job.tries + 1, next: fails ? { state: 'pending', nextAt: T } : { state: 'done' } });
        if (!fails) done++;
        held.delete(relayJobKey(job));
      };
      const running = new Set<Promise<void>>();
      while (done < TOTAL) {
        const read = await store.dueRelayJobs(T + 1_000_000, 8, held);
        for (const { job, delivery } of read) {
          held.add(relayJobKey(job));
          const p = handOn(job, keyOf(job, delivery.rawBody)).finally(() => running.delete(p));
          running.add(p);
        }
        if (read.length === 0) await (running.size > 0 ? Promise.race(running) : new Promise((resolve) => setTimeout(resolve, 5)));
      }
      await Promise.all(running);
    }
    await Promise.all([accepting, relay(stores[0]!, 0), relay(stores[1]!, 1)]);
    expect(overlaps).toEqual([]);
    expect(failures).toBeGreaterThan(0);
    expect(done).toBe(TOTAL);
    for (const key of KEYS) {
      const seqs = accepted.filter((a) => a.key === key).map((a) => a.seq).sort((x, y) => x - y);
      expect(handedOn.get(key), `key ${key}`).toEqual(seqs);
    }
    expect(await stores[0]!.relayCounts()).toEqual({ pending: 0, held: 0, done: TOTAL, dead: 0 });
  }, 60_000);

  it('two relays on two instances hand each key on in acceptance order: a failing head holds its key only', async () => {
    const arrivals: Array<{ id: string; key: string; instance: string }> = [];
    let failedOnce = false;
    const appServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const key = String(JSON.parse(Buffer.concat(chunks).toString()).data.key);
        // Key A's head fails until every delivery of B and C is in.
        if (key === 'A' && !failedOnce) {
          if (arrivals.filter((a) => a.key !== 'A').length >= 20) failedOnce = true;
          else {
            res.statusCode = 503;
            return res.end();
          }
        }
        arrivals.push({ id: String(req.headers['x-service-delivery']), key, instance: String(req.headers['x-instance']) });
        res.end('ok');
      });
    });
    appServer.listen(0, '127.0.0.1');
    await once(appServer, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => (appServer.closeAllConnections(), appServer.close(() => resolve()))));
    const app = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/hook`;
    const pacing = resolvePacing([`${app} order=/data/key`], '--pace', [app], [], []);
    const url = await server.freshSchema();
    const instances = await Promise.all(
      ['one', 'two'].map(async (name) => {
        const store = await open(url, { to: app, routes: [], order: orderOfTargets(pacing, [app]) });
        const worker = createRelayWorker({
          store, hub: createEventHub(), target: app, pacing, secret: 'whsec_order', timeoutMs: 5000, retry: { ...DEFAULT_RELAY_RETRY, initialDelayMs: 100, maxDelayMs: 200 },
          extraHeaders: [['X-Instance', name]], pollIntervalMs: 50,
        });
        cleanups.push(() => worker.stop());
        return { store, worker };
      }),
    );
    const sent: Record<string, string[]> = { A: [], B: [], C: [] };
    for (let i = 0; i < 10; i++) {
      for (const key of ['A', 'B', 'C']) {
        const d = keyed(key, `${key}${i}`);
        const now = Date.now();
        const { store, worker } = instances[(i + key.charCodeAt(0)) % 2]!;
        const { deliverySeq } = await store.accept({ ...d, receivedAt: now }, attemptFor(d, { receivedAt: now }));
        worker.offer({ seq: deliverySeq, id: d.id, trigger: d.trigger, receivedAt: now, rawBody: d.rawBody, rawHeaders: d.rawHeaders });
        sent[key]!.push(d.id);
      }
    }
    await until(() => arrivals.length >= 30, 'every delivery handed on', 20_000);
    expect(failedOnce).toBe(true);
    for (const key of ['A', 'B', 'C']) expect(arrivals.filter((a) => a.key === key).map((a) => a.id)).toEqual(sent[key]);
    // B and C all came in while A's head kept failing: before A's first arrival.
    const firstA = arrivals.findIndex((a) => a.key === 'A');
    expect(arrivals.slice(0, firstA).filter((a) => a.key !== 'A')).toHaveLength(20);
    // Both instances handed on.
    expect(new Set(arrivals.map((a) => a.instance))).toEqual(new Set(['one', 'two']));
  }, 30_000);
});
