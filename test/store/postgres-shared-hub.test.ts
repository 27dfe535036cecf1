/** Other instances' events through LISTEN/NOTIFY: coalesced into few payloads a commit group, in order, without bodies. */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createEventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { packPayloads, shareHubThroughPostgres, type SharedHub } from '../../src/store/postgres/pg-shared-hub.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { until } from '../helpers/until.js';

const server = useTestPostgres();
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

const delivery = (seq: number): HubEvents['delivery'] => ({
  delivery: {
    seq, id: `evt-${seq}`, trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: 1, headers: [],
    signature: 'valid', secretIndex: 0, signatureTimestamp: 1, duplicateCount: 0, lastAttemptAt: 1, bodyBytes: 10,
  },
  rawBody: Buffer.from('{"secret":"body"}'),
  rawHeaders: ['X-Secret', 'header'],
});
const attempt = (seq: number): HubEvents['attempt'] => ({
  attempt: {
    seq, deliveryId: `evt-${seq}`, trigger: 'trustcenter.access_requested', receivedAt: 5, finishedAt: 6, attemptHeader: 1, signatureTimestamp: 1,
    bodySha256: 'ab'.repeat(32), bodyBytes: 10, outcome: 'accepted', status: 200, reason: null, retryAfter: null,
  },
  skipVerify: seq % 2 === 0,
  requestId: `req-${seq}`,
});

async function hub(url: string, options: Parameters<typeof shareHubThroughPostgres>[2] = {}): Promise<{ hub: ReturnType<typeof createEventHub>; shared: SharedHub }> {
  const h = createEventHub();
  const shared = await shareHubThroughPostgres(url, h, options);
  closing.push(() => shared.close());
  return { hub: h, shared };
}

async function rawListener(url: string, channel: string): Promise<{ payloads: string[]; client: pg.Client }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  closing.push(() => client.end());
  const payloads: string[] = [];
  client.on('notification', (m) => m.channel === channel && m.payload && payloads.push(m.payload));
  await client.query(`LISTEN "${channel}"`);
  return { payloads, client };
}

describe('the shared hub on PostgreSQL', () => {
  it("sends a turn's events in a few payloads of one statement, in order, each with its highest delivery seq, and no body or header list", async () => {
    const url = await server.freshSchema();
    const [one, two] = [await hub(url), await hub(url)];
    const { client, payloads } = await rawListener(url, one.shared.channel);
    const seen: string[] = [];
    let rawBodies = 0;
    const all = new Promise<void>((resolve) => {
      const note = (what: string) => {
        seen.push(what);
        if (seen.length === 120) resolve();
      };
      two.hub.on('delivery', (e) => {
        if (e.rawBody !== undefined || e.rawHeaders !== undefined) rawBodies++;
        note(`d${e.delivery.seq}`);
      });
      // (An expect in a listener would be caught by the hub: what it saw is checked after.)
      two.hub.on('attempt', (e) => note(`a${e.attempt.seq}${e.remote === true ? '' : ' local'}${e.skipVerify === (e.attempt.seq % 2 === 0) ? '' : ' skipVerify lost'}`));
    });
    const expected: string[] = [];
    for (let seq = 1; seq <= 60; seq++) {
      one.hub.emit('attempt', attempt(seq));
      one.hub.emit('delivery', delivery(seq));
      expected.push(`a${seq}`, `d${seq}`);
    }
    await all;
    expect(seen).toEqual(expected);
    // The relay of another instance reads a delivery without a body as a wake-up to read the shared outbox.
    expect(rawBodies).toBe(0);
    // A marker notified after those payloads arrived at the other instance reaches this listener after them.
    await client.query('SELECT pg_notify($1, $2)', [one.shared.channel, 'marker']);
    await until(() => payloads.includes('marker'), 'the marker');
    payloads.splice(payloads.indexOf('marker'), 1);
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads.length).toBeLessThan(20);
    let items = 0;
    for (const text of payloads) {
      expect(Buffer.byteLength(text)).toBeLessThan(8000);
      expect(text).not.toMatch(/\{"secret"|rawBody|rawHeaders|X-Secret|req-\d/);
      const message = JSON.parse(text) as { v: number; s: number; e: Array<[string, { seq: number }]> };
      expect(message.v).toBe(2);
      expect(message.s).toBe(Math.max(0, ...message.e.filter((e) => e[0] === 'd').map((e) => e[1].seq)));
      items += message.e.length;
    }
    expect(items).toBe(120);
  });

  it('reads the one-event messages of an instance not yet upgraded, without the body it sent along', async () => {
    const url = await server.freshSchema();
    const two = await hub(url);
    const { client } = await rawListener(url, two.shared.channel);
    const got = new Promise<HubEvents['delivery']>((resolve) => two.hub.on('delivery', resolve));
    const old = { o: 'an-older-instance', k: 'delivery', p: { ...delivery(7), rawBody: { type: 'Buffer', data: [1, 2] } } };
    await client.query('SELECT pg_notify($1, $2)', [two.shared.channel, JSON.stringify(old)]);
    const event = await got;
    expect(event.delivery.id).toBe('evt-7');
    expect(event.rawBody).toBeUndefined();
  });

  it('publishes nothing while no other instance is there, and shares again as soon as one says it is', async () => {
    const url = await server.freshSchema();
    const alone = await hub(url, { aloneAfterMs: 400, startGraceMs: 100, heartbeatMs: 60_000 });
    const { client, payloads } = await rawListener(url, alone.shared.channel);
    await until(() => !alone.shared.sharing(), 'the start grace to end with nobody heard from');
    const before = payloads.length;
    for (let seq = 1; seq <= 5; seq++) alone.hub.emit('delivery', delivery(seq));
    // A marker notified after the deliveries' flush turn: whatever that turn sent arrives before it.
    await new Promise((resolve) => setImmediate(resolve));
    await client.query('SELECT pg_notify($1, $2)', [alone.shared.channel, 'marker']);
    await until(() => payloads.includes('marker'), 'the marker');
    // Nothing went out (a raw LISTEN is nobody: it never says hello).
    expect(payloads.slice(before)).toEqual(['marker']);
    const other = await hub(url, { aloneAfterMs: 60_000, startGraceMs: 0, heartbeatMs: 60_000 });
    const got = new Promise<HubEvents['delivery']>((resolve) => other.hub.on('delivery', resolve));
    // The newcomer's hello reaches the first instance within a round trip.
    await until(() => alone.shared.sharing(), "the first instance to hear the newcomer's hello");
    alone.hub.emit('delivery', delivery(6));
    expect((await got).delivery.id).toBe('evt-6');
    // And the first answered the newcomer's hello: the newcomer, with no grace of its own, shares with it.
    const back = new Promise<HubEvents['delivery']>((resolve) => alone.hub.on('delivery', (e) => e.delivery.id === 'evt-7' && resolve(e)));
    other.hub.emit('delivery', delivery(7));
    expect((await back).delivery.id).toBe('evt-7');
  });

  it('leaves out an event too large for a payload, and packs the rest', () => {
    const big = attempt(2);
    big.attempt.reason = 'x'.repeat(9000);
    const payloads = packPayloads('origin', [['d', delivery(1).delivery], ['a', big.attempt, false], ['d', delivery(3).delivery]]);
    expect(payloads).toHaveLength(1);
    expect((JSON.parse(payloads[0]!) as { s: number; e: unknown[] }).e).toHaveLength(2);
    expect((JSON.parse(payloads[0]!) as { s: number }).s).toBe(3);
  });
});
