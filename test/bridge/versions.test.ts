/**
 * Version negotiation on the public side: a client offering version 2 gets it (deliveries as binary
 * frames), a client of version 1 still gets JSON, and one offering neither is refused before the upgrade.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridgeServer, type BridgeServer } from '../../src/bridge/bridge-server.js';
import { BRIDGE_PROTOCOL, BRIDGE_PROTOCOL_2, BRIDGE_PROTOCOLS, parseDeliveryFrame, parseServerFrame, type ServerFrame } from '../../src/core/bridge-protocol.js';
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
  const d = makeDelivery({ rawBody: body });
  await store.accept(d, attemptFor(d));
  const bridge = await startBridgeServer({ host: '127.0.0.1', port: 0, tokens: [{ name: 'all', token: TOKEN, triggers: [] }], store, hub, clock: Date.now });
  cleanups.push(() => bridge.close());
  return { bridge, body };
}

/** The frames a raw client offering `protocols` receives until `live`, each with whether it came binary. */
async function framesFor(url: string, protocols: string[]): Promise<{ protocol: string; frames: Array<{ frame: ServerFrame; binary: boolean }> }> {
  const ws = new WebSocket(url, protocols, { headers: { authorization: `Bearer ${TOKEN}`, 'x-hookrelay-subscriber': 'ana' } });
  cleanups.push(() => ws.terminate());
  const frames: Array<{ frame: ServerFrame; binary: boolean }> = [];
  const live = new Promise<void>((resolve, reject) =>
    ws.on('message', (data: Buffer, binary) => {
      const parsed = binary ? parseDeliveryFrame(data) : parseServerFrame(data.toString());
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
  it('speaks version 2 to a client that offers it: hello says 2, and each delivery is one binary frame with the exact body', async () => {
    const { bridge, body } = await publicSide();
    const { protocol, frames } = await framesFor(bridge.url, [...BRIDGE_PROTOCOLS]);
    expect(protocol).toBe(BRIDGE_PROTOCOL_2);
    expect(frames.map((f) => [f.frame.type, f.binary])).toEqual([['hello', false], ['delivery', true], ['live', false]]);
    expect(frames[0]!.frame).toMatchObject({ type: 'hello', protocol: 2 });
    const delivery = frames[1]!.frame;
    expect(delivery.type === 'delivery' && delivery.delivery.body.equals(body)).toBe(true);
  });

  it('still speaks version 1 to a client that offers only it: JSON deliveries', async () => {
    const { bridge, body } = await publicSide();
    const { protocol, frames } = await framesFor(bridge.url, [BRIDGE_PROTOCOL]);
    expect(protocol).toBe(BRIDGE_PROTOCOL);
    expect(frames.map((f) => [f.frame.type, f.binary])).toEqual([['hello', false], ['delivery', false], ['live', false]]);
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
