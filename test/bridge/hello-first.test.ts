/**
 * Nothing goes to a subscriber before its `hello`, however long the store takes to prepare it: a
 * delivery announced while the resume count is still running waits for the hello (the pump used to
 * run on the hub's wake-up and send it first, and the client refused the frame and reconnected). A
 * count that fails, or a backlog too long to count, gives a hello without `missed`.
 */
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridgeServer } from '../../src/bridge/bridge-server.js';
import { BRIDGE_PROTOCOL } from '../../src/core/bridge-protocol.js';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { tempDir } from '../helpers/temp-dir.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { join } from 'node:path';

const TOKEN = 'hello-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function add(store: DeliveryStore, hub: EventHub): Promise<void> {
  const d = makeDelivery();
  await store.accept(d, attemptFor(d));
  const stored = (await store.getDelivery(d.id))!;
  hub.emit('delivery', { delivery: { ...stored, bodyBytes: d.rawBody.length } as never });
}

/** Text frames' types (and hello's `missed`), binary frames as 'delivery', in arrival order. */
async function subscribe(url: string, name: string): Promise<Array<{ type: string; missed?: number }>> {
  const ws = new WebSocket(url, BRIDGE_PROTOCOL, { headers: { authorization: `Bearer ${TOKEN}`, 'x-hookrelay-subscriber': name } });
  cleanups.push(() => ws.terminate());
  const frames: Array<{ type: string; missed?: number }> = [];
  ws.on('message', (data: Buffer, binary) => {
    if (binary) return frames.push({ type: 'delivery' });
    const frame = JSON.parse(data.toString()) as { type: string; missed?: number };
    frames.push(frame.type === 'hello' ? { type: 'hello', ...(frame.missed !== undefined ? { missed: frame.missed } : {}) } : { type: frame.type });
  });
  return frames;
}

describe('the bridge server sends hello first', () => {
  it('holds a delivery announced while the resume count runs until hello is sent', async () => {
    const store = createMemoryStore();
    const hub = createEventHub();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let counting = false;
    const slow: DeliveryStore = Object.assign(Object.create(store) as DeliveryStore, {
      countDeliveriesAfter: async (...args: Parameters<DeliveryStore['countDeliveriesAfter']>) => {
        counting = true;
        await gate;
        return store.countDeliveriesAfter(...args);
      },
    });
    const bridge = await startBridgeServer({ host: '127.0.0.1', port: 0, tokens: [{ name: 'all', token: TOKEN, triggers: [] }], store: slow, hub, clock: Date.now });
    cleanups.push(() => bridge.close());
    await add(store, hub);
    const frames = await subscribe(bridge.url, 'ana');
    await until(() => counting, 'the resume count');
    await add(store, hub); // announced while hello waits on the count
    await new Promise((r) => setImmediate(r));
    expect(frames).toEqual([]);
    release();
    await until(() => frames.some((f) => f.type === 'delivery'), 'the delivery');
    expect(frames[0]).toEqual({ type: 'hello', missed: 0 });
  });

  it('sends hello without missed when the count fails', async () => {
    const store = createMemoryStore();
    const hub = createEventHub();
    const failing: DeliveryStore = Object.assign(Object.create(store) as DeliveryStore, {
      countDeliveriesAfter: async () => {
        throw new Error('statement timeout');
      },
    });
    const bridge = await startBridgeServer({ host: '127.0.0.1', port: 0, tokens: [{ name: 'all', token: TOKEN, triggers: [] }], store: failing, hub, clock: Date.now });
    cleanups.push(() => bridge.close());
    const frames = await subscribe(bridge.url, 'ana');
    await until(() => frames.length > 0, 'hello');
    expect(frames[0]).toEqual({ type: 'hello' });
  });
});

describe('countDeliveriesAfter with a bound (the stores whose reads run on the receiver\'s thread)', () => {
  it.each([
    ['memory', async () => createMemoryStore()],
    ['sqlite', async () => {
      const { dir, remove } = tempDir();
      cleanups.push(remove);
      return createSqliteStore(join(dir, 'count.db'));
    }],
  ])('%s: resolves null past `most` rows, and the count within it', async (_name, open) => {
    const store = await open();
    cleanups.push(() => store.close());
    for (let i = 0; i < 6; i++) {
      const d = makeDelivery({ trigger: i % 2 === 0 ? 'vendor.rating_dropped' : 'control.drift_detected' });
      await store.accept(d, attemptFor(d));
    }
    const latest = await store.latestDeliverySeq();
    expect(await store.countDeliveriesAfter(0, latest, undefined, 6)).toBe(6);
    expect(await store.countDeliveriesAfter(0, latest, ['vendor.*'], 6)).toBe(3);
    expect(await store.countDeliveriesAfter(0, latest, undefined, 5)).toBeNull();
    expect(await store.countDeliveriesAfter(0, latest, ['vendor.*'], 5)).toBeNull();
  });
});
