/**
 * `--pace 'URL order=KEY [on-dead=skip|block]'`: one delivery at a time per key, in acceptance order,
 * kept by the store's reads (SQLite and memory); a failing head holds its key only, never others.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orderKeyOf, orderOfTargets, parsePace, resolvePacing, type OrderSpec } from '../../src/core/pacing.js';
import type { RelayTargets } from '../../src/core/routes.js';
import { DEFAULT_RELAY_RETRY } from '../../src/relay/relay-backoff.js';
import { createRelayWorker } from '../../src/relay/relay-worker.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const APP = 'http://127.0.0.1:3000/webhooks';

function order(text: string): OrderSpec {
  const parsed = parsePace(`${APP} ${text}`);
  if (!parsed.ok || !parsed.fields.order) throw new Error(`not an order: ${text}`);
  return parsed.fields.order;
}

const body = (data: unknown) => Buffer.from(JSON.stringify({ id: randomUUID(), type: 'trustcenter.access_requested', data }));

describe('order= in --pace', () => {
  it('reads the trigger, a JSON pointer, a dotted path or a header, and on-dead', () => {
    expect(order('order=trigger')).toEqual({ text: 'trigger', key: 'trigger', onDead: 'skip' });
    expect(order('order=/data/accessRequestId on-dead=block')).toMatchObject({ text: '/data/accessRequestId', onDead: 'block', key: { kind: 'body', path: ['data', 'accessRequestId'] } });
    expect(order('order=header:x-tenant').key).toEqual({ kind: 'header', name: 'x-tenant' });
  });

  it('names every problem: an empty or bad key, a bad on-dead, on-dead without order', () => {
    expect(parsePace('order= on-dead=later')).toMatchObject({ ok: false, problems: [expect.stringMatching(/"order=": order is trigger, a JSON pointer/), expect.stringMatching(/"on-dead=later": on-dead is skip .* or block/)] });
    expect(parsePace('order=/a/b~2')).toMatchObject({ ok: false, problems: [expect.stringMatching(/has a "~" not followed by 0 or 1/)] });
    expect(parsePace('on-dead=block')).toMatchObject({ ok: false, problems: ['on-dead applies to ordered hand-offs: add order=trigger or order=/json/pointer'] });
  });

  it('keys a delivery by what it reads; a missing value or a body that is not JSON is one key of its own; a long key is cut', () => {
    const pointer = order('order=/data/accessRequestId');
    const subject = (raw: Buffer) => ({ trigger: 't.x', rawBody: raw, headers: [] as string[] });
    expect(orderKeyOf(order('order=trigger'), subject(body({})))).toBe('t:t.x');
    expect(orderKeyOf(pointer, subject(body({ accessRequestId: 'ar_1' })))).toBe('v:"ar_1"');
    expect(orderKeyOf(pointer, subject(Buffer.from('{"data":{"accessRequestId":12345678901234567890}}')))).toBe('v:12345678901234567890');
    expect(orderKeyOf(pointer, subject(body({})))).toBe('-');
    expect(orderKeyOf(pointer, subject(Buffer.from('not json')))).toBe('-');
    expect(orderKeyOf(pointer, subject(body({ accessRequestId: 'x'.repeat(1000) })))).toHaveLength(256);
    expect(orderKeyOf(order('order=/data/__proto__'), subject(Buffer.from('{"data":{}}')))).toBe('-');
  });

  it('takes order= on a PostgreSQL store too (test/store/postgres-order.test.ts orders there)', async () => {
    const { resolveListenConfig } = await import('../../src/config/listen-config.js');
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const result = resolveListenConfig({ flags: { db: join(dir, 'h.db'), forwardTo: APP, store: 'postgres://127.0.0.1:9/x', pace: ['order=trigger'] }, env: { HOOKRELAY_SECRET: 'whsec_order_settings_0123456789' }, configFile: join(dir, 'none.json') });
    expect(result.ok && result.config.forward?.pacing?.fallback.order).toMatchObject({ text: 'trigger', onDead: 'skip' });
  });
});

const stores: Array<[string, (outbox: RelayTargets) => Promise<DeliveryStore>]> = [
  ['memory', async (outbox) => createMemoryStore({ outbox })],
  [
    'sqlite',
    async (outbox) => {
      const { dir, remove } = tempDir();
      cleanups.push(remove);
      const store = await createSqliteStore(join(dir, 'order.db'), { outbox });
      cleanups.push(() => store.close());
      return store;
    },
  ],
];

for (const [name, open] of stores) {
  describe(`the ${name} outbox keeps each key's order`, () => {
    async function setUp(text: string) {
      const pacing = resolvePacing([`${APP} ${text}`], '--pace', [APP], [], []);
      const store = await open({ to: APP, routes: [], order: orderOfTargets(pacing, [APP]) });
      const t = Date.now();
      const ids: Record<string, string> = {};
      for (const [label, key] of [['a1', 'A'], ['b1', 'B'], ['a2', 'A'], ['a3', 'A'], ['b2', 'B']] as const) {
        const d = makeDelivery({ id: `${label}-${randomUUID()}`, rawBody: body({ accessRequestId: key }), receivedAt: t });
        await store.accept(d, attemptFor(d, { receivedAt: t }));
        ids[label] = d.id;
      }
      const due = async () => (await store.dueRelayJobs(t + 1_000_000, 50)).map((entry) => entry.delivery.id);
      const finish = async (id: string, next: { state: 'done' } | { state: 'dead' } | { state: 'pending'; nextAt: number }) => {
        const job = (await store.relayHistory(id)).jobs[0]!;
        await store.recordRelay({ deliverySeq: job.deliverySeq, startedAt: t, finishedAt: t, status: next.state === 'done' ? 200 : 503, error: null, replay: false, target: APP, try: job.tries + 1, next });
      };
      return { store, ids, due, finish, t };
    }

    it('hands out only the head of each key, the next once the head is done', async () => {
      const { ids, due, finish, t } = await setUp('order=/data/accessRequestId');
      expect(await due()).toEqual([ids.a1, ids.b1]);
      await finish(ids.a1!, { state: 'done' });
      expect(await due()).toEqual([ids.b1, ids.a2]);
      // A head waiting for its retry holds its key, not another.
      await finish(ids.a2!, { state: 'pending', nextAt: t + 10_000_000 });
      await finish(ids.b1!, { state: 'done' });
      expect(await due()).toEqual([ids.b2]);
    });

    it('on-dead=skip: a dead head lets its key move on', async () => {
      const { ids, due, finish, store } = await setUp('order=/data/accessRequestId on-dead=skip');
      await finish(ids.a1!, { state: 'dead' });
      expect(await due()).toEqual([ids.b1, ids.a2]);
      expect(await store.blockedOrderKeys(APP, 10)).toEqual([]);
    });

    it('on-dead=block: a dead head keeps its key waiting, listed as blocked, until it is retried', async () => {
      const { ids, due, finish, store, t } = await setUp('order=/data/accessRequestId on-dead=block');
      await finish(ids.a1!, { state: 'dead' });
      expect(await due()).toEqual([ids.b1]);
      expect(await store.blockedOrderKeys(APP, 10)).toEqual([{ target: APP, key: 'v:"A"', deliveryId: ids.a1, state: 'dead', tries: 1, lastStatus: 503, lastError: null, waiting: 2 }]);
      expect(await store.requeueRelay(ids.a1!, t)).toBe(true);
      expect(await due()).toEqual([ids.a1, ids.b1]);
    });
  });
}

describe('the relay hands on in order, per key', () => {
  it('a key whose head fails waits for it; the other keys go on; each key arrives in acceptance order, once', async () => {
    const arrivals: Array<{ id: string; key: string }> = [];
    let failedOnce = false;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const key = String(JSON.parse(Buffer.concat(chunks).toString()).data.accessRequestId);
        // Key A's first delivery fails until every delivery of B and C is in: were A's failing head
        // to hold them up, they would never all arrive, and A never succeed.
        if (key === 'A' && !failedOnce) {
          if (arrivals.filter((a) => a.key !== 'A').length >= 20) failedOnce = true;
          else {
            res.statusCode = 503;
            return res.end();
          }
        }
        arrivals.push({ id: String(req.headers['x-service-delivery']), key });
        res.end('ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const app = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const pacing = resolvePacing([`${app} order=/data/accessRequestId`], '--pace', [app], [], []);
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const store = await createSqliteStore(join(dir, 'ordered.db'), { outbox: { to: app, routes: [], order: orderOfTargets(pacing, [app]) } });
    cleanups.push(() => store.close());
    const worker = createRelayWorker({ store, hub: createEventHub(), target: app, pacing, secret: 'whsec_order', timeoutMs: 5000, retry: { ...DEFAULT_RELAY_RETRY, initialDelayMs: 100, maxDelayMs: 200 }, extraHeaders: [], pollIntervalMs: 100 });
    cleanups.push(() => worker.stop());

    const sent: Record<string, string[]> = { A: [], B: [], C: [] };
    for (let i = 0; i < 10; i++) {
      for (const key of ['A', 'B', 'C']) {
        const now = Date.now();
        const d = makeDelivery({ id: `${key}${i}-${randomUUID()}`, rawBody: body({ accessRequestId: key }), receivedAt: now });
        const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: now }));
        worker.offer({ seq: deliverySeq, id: d.id, trigger: d.trigger, receivedAt: now, rawBody: d.rawBody, rawHeaders: d.rawHeaders });
        sent[key]!.push(d.id);
      }
    }
    const end = Date.now() + 20_000;
    while (arrivals.length < 30 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(failedOnce).toBe(true);
    for (const key of ['A', 'B', 'C']) expect(arrivals.filter((a) => a.key === key).map((a) => a.id)).toEqual(sent[key]);
    // B and C all came in while A's head kept failing: before A's first arrival.
    const firstA = arrivals.findIndex((a) => a.key === 'A');
    expect(arrivals.slice(0, firstA).filter((a) => a.key !== 'A')).toHaveLength(20);
  });
});
