/**
 * The public side's flow control, against its own listener with raw WebSocket subscribers: the
 * byte budget beside the credit, a trigger-limited subscriber that is not made to read the same
 * rows again on every delivery, a quiet subscriber's cursor time, and a silent client dropped.
 */
import { EventEmitter, once } from 'node:events';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridgeServer, type BridgeServer, type BridgeServerOptions } from '../../src/bridge/bridge-server.js';
import { BRIDGE_PROTOCOL, BRIDGE_PROTOCOL_2, encodeDeliveryFrame, parseDeliveryFrames } from '../../src/core/bridge-protocol.js';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { startStallProxy } from './helpers/stall-proxy.js';
import { until } from '../helpers/until.js';

const TOKEN = 'flow-token-0123456789abcdefghijklmnopqrstuvwxyz';
const RARE_TOKEN = 'rare-token-0123456789abcdefghijklmnopqrstuvwxyz';
const DAY = 86_400_000;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(store: DeliveryStore, hub: EventHub, options: Partial<BridgeServerOptions> = {}): Promise<BridgeServer> {
  const bridge = await startBridgeServer({
    host: '127.0.0.1',
    port: 0,
    tokens: [{ name: 'all', token: TOKEN, triggers: [] }, { name: 'rare', token: RARE_TOKEN, triggers: ['rare.*'] }],
    store,
    hub,
    clock: Date.now,
    ...options,
  });
  cleanups.push(() => bridge.close());
  return bridge;
}

/** Stores a delivery and announces it, as the ingest pipeline does. */
async function add(store: DeliveryStore, hub: EventHub, overrides: Parameters<typeof makeDelivery>[0] = {}): Promise<number> {
  const d = makeDelivery(overrides);
  await store.accept(d, attemptFor(d));
  const stored = (await store.getDelivery(d.id))!;
  hub.emit('delivery', { delivery: { ...stored, bodyBytes: d.rawBody.length } as never });
  return stored.seq;
}

interface Frame {
  type: string;
  seq?: number;
  cursor?: number;
  bytes: number;
}

/**
 * A raw subscriber: every frame it got, in order. On version 2 each delivery record of a binary
 * frame counts as one delivery `Frame`, with its record's bytes (what the budget counts).
 */
async function subscribe(url: string, token: string, name: string, onFrame: (frame: Frame, ws: WebSocket) => void = () => {}, protocol: string = BRIDGE_PROTOCOL) {
  const ws = new WebSocket(url, protocol, { headers: { authorization: `Bearer ${token}`, 'x-hookrelay-subscriber': name }, maxPayload: 64 * 1024 * 1024 });
  cleanups.push(() => ws.terminate());
  const frames: Frame[] = [];
  ws.on('message', (data: Buffer, binary) => {
    if (binary) {
      const parsed = parseDeliveryFrames(data);
      if (!parsed.ok) throw new Error(parsed.message);
      for (const d of parsed.deliveries) {
        const frame = { type: 'delivery', seq: d.seq, bytes: encodeDeliveryFrame(d).length };
        frames.push(frame);
        onFrame(frame, ws);
      }
      return;
    }
    const text = data.toString();
    const f = JSON.parse(text) as Frame;
    const frame = { type: f.type, bytes: Buffer.byteLength(text), ...(f.seq === undefined ? {} : { seq: f.seq }), ...(f.cursor === undefined ? {} : { cursor: f.cursor }) };
    frames.push(frame);
    onFrame(frame, ws);
  });
  await once(ws, 'open');
  return { ws, frames };
}


describe('bridge flow control', () => {
  it.each([BRIDGE_PROTOCOL, BRIDGE_PROTOCOL_2])('keeps the encoded bytes in flight within the budget, and always sends one delivery however big (%s)', async (protocol) => {
    const store = createMemoryStore();
    const hub = createEventHub();
    const budget = 1024 * 1024;
    const bodies = [300, 300, 300, 1500, 300, 300, 300].map((kib) => Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(kib * 1024, 'a'), Buffer.from('"}')]));
    const seqs: number[] = [];
    for (const rawBody of bodies) seqs.push(await add(store, hub, { rawBody }));
    await store.registerBridgeSubscriber('all/slow', 0, Date.now());
    const bridge = await server(store, hub, { maxBytesInFlight: budget });

    // The subscriber acknowledges one delivery per ping round trip, so a server that sent past
    // its budget would have the chance to: the largest unacknowledged set it ever saw is recorded.
    const unacked: Frame[] = [];
    let worst = { frames: 0, bytes: 0 };
    const { ws, frames } = await subscribe(bridge.url, TOKEN, 'slow', (frame, socket) => {
      if (frame.type !== 'delivery') return;
      unacked.push(frame);
      const bytes = unacked.reduce((n, f) => n + f.bytes, 0);
      if (unacked.length > 1 && bytes > budget) worst = { frames: unacked.length, bytes };
      socket.ping();
    }, protocol);
    ws.on('pong', () => {
      const next = unacked.shift();
      if (next) ws.send(JSON.stringify({ type: 'ack', seq: next.seq }));
    });
    await until(() => frames.filter((f) => f.type === 'delivery').length === bodies.length, 'every delivery');
    expect(worst).toEqual({ frames: 0, bytes: 0 });
    const deliveries = frames.filter((f) => f.type === 'delivery');
    expect(deliveries.map((f) => f.seq)).toEqual(seqs);
    // The 1.5 MiB body is over the budget on its own: it went, alone.
    expect(deliveries[3]!.bytes).toBeGreaterThan(budget);
  }, 30_000);

  it('moves a trigger-limited subscriber past what it cannot see, instead of reading it again on every delivery', async () => {
    const inner = createMemoryStore();
    const hub = createEventHub();
    const reads: Array<{ afterSeq: number; latest: number }> = [];
    const readEvents = new EventEmitter();
    const store: DeliveryStore = {
      ...inner,
      async deliveriesAfter(afterSeq, limit, triggers) {
        if (triggers?.length) {
          reads.push({ afterSeq, latest: await inner.latestDeliverySeq() });
          readEvents.emit('read');
        }
        return inner.deliveriesAfter(afterSeq, limit, triggers);
      },
    };
    const bridge = await server(store, hub);
    const { frames } = await subscribe(bridge.url, RARE_TOKEN, 'desk', (frame, ws) => {
      if (frame.type === 'delivery') ws.send(JSON.stringify({ type: 'ack', seq: frame.seq }));
    });
    await until(() => frames.some((f) => f.type === 'live'), 'live');

    const N = 5000;
    let last = 0;
    for (let i = 0; i < N; i++) {
      // One read per delivery at least, so that a server reading from a stuck cursor would show it.
      const read = once(readEvents, 'read');
      last = await add(store, hub, { trigger: 'common.event' });
      await read;
    }
    const rowsRead = reads.reduce((n, r) => n + Math.max(0, r.latest - r.afterSeq), 0);
    console.log(`trigger-limited subscriber: ${reads.length} reads over ${N} deliveries it cannot see, ${rowsRead} rows in range (from a stuck cursor: ~${(N * N) / 2})`);
    expect(rowsRead).toBeLessThan(3 * N);
    // Its cursor moved past them (durably), so a reconnect does not read them again either.
    await until(async () => (await inner.bridgeCursor('rare/desk'))?.ackedSeq === last, 'the cursor past the deliveries it cannot see');

    const rare = await add(store, hub, { trigger: 'rare.thing' });
    await until(() => frames.some((f) => f.seq === rare), 'the rare delivery');
    expect(frames.filter((f) => f.type === 'delivery').map((f) => f.seq)).toEqual([rare]);
    await until(async () => (await inner.bridgeCursor('rare/desk'))?.ackedSeq === rare, 'the ack of the rare delivery');

    const again = await subscribe(bridge.url, RARE_TOKEN, 'desk');
    await until(() => again.frames.some((f) => f.type === 'live'), 'live again');
    expect(again.frames[0]).toMatchObject({ type: 'hello', cursor: rare });
  }, 60_000);

  it('writes a connected quiet subscriber\'s cursor time again, so retention keeps counting it as seen', async () => {
    const inner = createMemoryStore();
    const hub = createEventHub();
    const t0 = Date.parse('2026-11-23T12:00:00Z');
    let now = t0;
    const writes: Array<{ name: string; seq: number; at: number }> = [];
    const store: DeliveryStore = {
      ...inner,
      async ackBridge(name, seq, at) {
        writes.push({ name, seq, at });
        return inner.ackBridge(name, seq, at);
      },
    };
    const seq = await add(store, hub);
    await store.registerBridgeSubscriber('all/quiet', seq, t0);
    const bridge = await server(store, hub, { clock: () => now, refreshMs: 20 });
    const { frames } = await subscribe(bridge.url, TOKEN, 'quiet');
    await until(() => frames.some((f) => f.type === 'live'), 'live');
    expect(writes).toEqual([]); // nothing to acknowledge, and not yet refreshMs since its last write

    now = t0 + 8 * DAY;
    await until(() => writes.length > 0, 'a refresh of the cursor');
    expect(writes[0]).toEqual({ name: 'all/quiet', seq, at: t0 + 8 * DAY });
  });

  // The refresh above relies on ackBridge(name, sameSeq, now) writing `now` (the store contract checks it in every driver).
  it('stores the refreshed time of a cursor that did not move', async () => {
    const store = createMemoryStore();
    await store.ackBridge('all/quiet', 5, 1000);
    await store.ackBridge('all/quiet', 5, 2000);
    expect((await store.bridgeCursor('all/quiet'))?.updatedAt).toBe(2000);
  });

  it('drops the session of a client gone silent behind a proxy that swallows its packets', async () => {
    const store = createMemoryStore();
    const hub = createEventHub();
    const notices: string[] = [];
    hub.on('notice', (n) => notices.push(n.message));
    const bridge = await server(store, hub, { pingMs: 50, deadMs: 300 });
    const proxy = await startStallProxy(Number(new URL(bridge.url).port));
    cleanups.push(() => proxy.close());
    const { frames } = await subscribe(`ws://127.0.0.1:${proxy.port}/bridge`, TOKEN, 'sleepy');
    await until(() => frames.some((f) => f.type === 'live'), 'live');
    expect((await bridge.status()).find((s) => s.subscriber === 'all/sleepy')?.connected).toBe(true);

    proxy.stall();
    await until(() => notices.some((m) => m.includes('all/sleepy silent')), 'the server to notice the silence');
    await until(async () => (await bridge.status()).find((s) => s.subscriber === 'all/sleepy')?.connected === false, 'the session dropped');
    expect(notices).toContain('bridge: all/sleepy disconnected');
  });
});
