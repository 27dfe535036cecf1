/**
 * Version negotiation on the public side: a client offering version 2 gets it (deliveries as binary
 * frames), a client of version 1 still gets JSON, and one offering neither is refused before the upgrade.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridgeServer, type BridgeServer } from '../../src/bridge/bridge-server.js';
import { BRIDGE_PROTOCOL, BRIDGE_PROTOCOL_2, BRIDGE_PROTOCOLS, parseDeliveryFrames, parseServerFrame, type BridgeDelivery, type ServerFrame } from '../../src/core/bridge-protocol.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const TOKEN = 'versions-token-0123456789abcdefghijklmnopqrstuvwxyz';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function publicSide(): Promise<{ bridge: BridgeServer; body: Buffer }> {
  const store = createMemoryStore();
  const hub = createEventHub();
  await store.registerBridgeSubscriber('all/ana', 0, Date.now());
  const body = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x7d]);
  for (let i = 0; i < 3; i++) {
    const d = makeDelivery({ rawBody: body });
    await store.accept(d, attemptFor(d));
  }
  const bridge = await startBridgeServer({ host: '127.0.0.1', port: 0, tokens: [{ name: 'all', token: TOKEN, triggers: [] }], store, hub, clock: Date.now });
  cleanups.push(() => bridge.close());
  return { bridge, body };
}

/** The frames a raw client offering `protocols` receives until `live`, each with whether it came binary. */
async function framesFor(url: string, protocols: string[]): Promise<{ protocol: string; frames: Array<{ frame: ServerFrame | { type: 'deliveries'; deliveries: BridgeDelivery[] }; binary: boolean }> }> {
  const ws = new WebSocket(url, protocols, { headers: { authorization: `Bearer ${TOKEN}`, 'x-hookrelay-subscriber': 'ana' } });
  cleanups.push(() => ws.terminate());
  const frames: Array<{ frame: ServerFrame | { type: 'deliveries'; deliveries: BridgeDelivery[] }; binary: boolean }> = [];
  const live = new Promise<void>((resolve, reject) =>
    ws.on('message', (data: Buffer, binary) => {
      if (binary) {
        const parsed = parseDeliveryFrames(data);
        if (!parsed.ok) return reject(new Error(parsed.message));
        return frames.push({ frame: { type: 'deliveries', deliveries: parsed.deliveries }, binary });
      }
      const parsed = parseServerFrame(data.toString());
      if (!parsed.ok) return reject(new Error(parsed.message));
      frames.push({ frame: parsed.frame, binary });
      if (parsed.frame.type === 'live') resolve();
    }),
  );
  await once(ws, 'open');
  await live;
  return { protocol: ws.protocol, frames };
}

describe('bridge protocol versions', () => {
  it('speaks version 2 to a client that offers it: hello says 2, and the deliveries of one read travel in one binary frame, bodies exact', async () => {
    const { bridge, body } = await publicSide();
    const { protocol, frames } = await framesFor(bridge.url, [...BRIDGE_PROTOCOLS]);
    expect(protocol).toBe(BRIDGE_PROTOCOL_2);
    expect(frames.map((f) => [f.frame.type, f.binary])).toEqual([['hello', false], ['deliveries', true], ['live', false]]);
    expect(frames[0]!.frame).toMatchObject({ type: 'hello', protocol: 2 });
    const batch = frames[1]!.frame;
    if (batch.type !== 'deliveries') throw new Error('not deliveries');
    expect(batch.deliveries.map((d) => d.seq)).toEqual([1, 2, 3]);
    expect(batch.deliveries.every((d) => d.body.equals(body))).toBe(true);
  });

  it('on version 2, keeps the order across a delivery that must go as JSON, and splits records past 1 MiB into frames', async () => {
    const store = createMemoryStore();
    const hub = createEventHub();
    await store.registerBridgeSubscriber('all/ana', 0, Date.now());
    const big = Buffer.alloc(600 * 1024, 0x61);
    for (const d of [makeDelivery(), makeDelivery({ id: 'evt_\ud800' }), makeDelivery({ rawBody: big }), makeDelivery({ rawBody: big }), makeDelivery()]) await store.accept(d, attemptFor(d));
    const bridge = await startBridgeServer({ host: '127.0.0.1', port: 0, tokens: [{ name: 'all', token: TOKEN, triggers: [] }], store, hub, clock: Date.now });
    cleanups.push(() => bridge.close());
    const { frames } = await framesFor(bridge.url, [...BRIDGE_PROTOCOLS]);
    const seqs = frames.map((f) => (f.frame.type === 'deliveries' ? `binary ${f.frame.deliveries.map((d) => d.seq).join(',')}` : f.frame.type === 'delivery' ? `json ${f.frame.delivery.seq}` : f.frame.type));
    expect(seqs).toEqual(['hello', 'binary 1', 'json 2', 'binary 3', 'binary 4,5', 'live']);
    const json = frames[2]!.frame;
    expect(json.type === 'delivery' && json.delivery.id).toBe('evt_\ud800');
  });

  it('still speaks version 1 to a client that offers only it: JSON deliveries', async () => {
    const { bridge, body } = await publicSide();
    const { protocol, frames } = await framesFor(bridge.url, [BRIDGE_PROTOCOL]);
    expect(protocol).toBe(BRIDGE_PROTOCOL);
    expect(frames.map((f) => [f.frame.type, f.binary])).toEqual([['hello', false], ['delivery', false], ['delivery', false], ['delivery', false], ['live', false]]);
    expect(frames[0]!.frame).toMatchObject({ type: 'hello', protocol: 1 });
    const delivery = frames[1]!.frame;
    expect(delivery.type === 'delivery' && delivery.delivery.body.equals(body)).toBe(true);
  });

  it('refuses a client that offers no version it speaks, naming the ones it does', async () => {
    const { bridge } = await publicSide();
    const ws = new WebSocket(bridge.url, ['hookrelay-bridge.9'], { headers: { authorization: `Bearer ${TOKEN}`, 'x-hookrelay-subscriber': 'ana' } });
    ws.on('error', () => {}); // terminated below, before it ever opened
    cleanups.push(() => ws.terminate());
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, import('node:http').IncomingMessage];
    let text = '';
    for await (const chunk of res) text += String(chunk);
    expect(res.statusCode).toBe(400);
    expect(text).toContain('hookrelay-bridge.2 or hookrelay-bridge.1');
  });
});
