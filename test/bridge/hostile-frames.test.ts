/**
 * Frames from the server are untrusted input: a fake bridge server sends malformed, out-of-order
 * and fuzzed frames. The client closes the connection with a message naming the problem, never
 * crashes, and stores nothing that was not a well-formed delivery.
 */
import fc from 'fast-check';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridgeClient, type BridgeClient } from '../../src/bridge/bridge-client.js';
import { BRIDGE_PROTOCOL, parseServerFrame } from '../../src/core/bridge-protocol.js';
import type { Arrival } from '../../src/ingest/arrival.js';
import type { IngestPipeline } from '../../src/ingest/pipeline.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HELLO = JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 0, latest: 0, credit: 64 });
const body = Buffer.from('{"id":"d1"}');
const delivery = (seq: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'delivery', seq, id: `d${seq}`, trigger: 'vendor.rating_dropped', receivedAt: 1, headers: [['x-service-delivery', `d${seq}`]], body: body.toString('base64'), signature: 'valid', secretIndex: 0, signatureTimestamp: 1, ...extra });

/** A fake server that sends `frames` to each connection, and the client's pipeline that records what it was handed. */
async function scenario(frames: Array<string | Buffer>) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => BRIDGE_PROTOCOL });
  await once(wss, 'listening');
  const closes: Array<{ code: number; reason: string }> = [];
  const connected = new Promise<WebSocket>((resolve) =>
    wss.once('connection', (ws) => {
      ws.on('close', (code, reason) => closes.push({ code, reason: reason.toString() }));
      for (const frame of frames) ws.send(frame);
      resolve(ws);
    }),
  );
  const handed: Arrival[] = [];
  const pipeline: IngestPipeline = {
    async handle(arrival) {
      handed.push(arrival);
      return { action: { kind: 'answer', status: 200, body: '{}' }, recorded: Promise.resolve({} as never) };
    },
  };
  const states: string[] = [];
  const client: BridgeClient = startBridgeClient({
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/bridge`,
    token: 't'.repeat(40),
    name: 'ana',
    pipeline,
    clock: Date.now,
    random: () => 0.5,
    onState: (_state, message) => states.push(message),
  });
  cleanups.push(async () => {
    await client.close();
    for (const ws of wss.clients) ws.terminate();
    await new Promise((r) => wss.close(r));
  });
  await connected;
  return { handed, states, closes, client };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the bridge client against hostile frames', () => {
  it.each([
    ['not JSON', ['{oops'], /the frame is not JSON/],
    ['a delivery before hello', [delivery(1)], /a delivery frame before hello/],
    ['an unknown type', [HELLO, '{"type":"surprise"}'], /unknown frame type "surprise"/],
    ['an unknown type of 50 euro signs (a close reason over 123 bytes once quoted)', [HELLO, JSON.stringify({ type: '€'.repeat(50) })], /unknown frame type/],
    ['more deliveries than the credit', [JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 0, latest: 0, credit: 1 }), delivery(1), delivery(2)], /more than 1 unacknowledged deliveries/],
    ['a binary frame', [HELLO, Buffer.from([1, 2, 3])], /binary frames are not part of the protocol/],
    ['a delivery out of order', [HELLO, delivery(2), delivery(2)], /delivery 2 is out of order/],
    ['a body that is not base64', [HELLO, delivery(1, { body: '%%%' })], /body must be base64/],
    ['a header value with CR LF', [HELLO, delivery(1, { headers: [['x-a', 'v\r\nx-b: injected']] })], /a header value holds CR, LF or NUL/],
    ['an id of 300 characters', [HELLO, delivery(1, { id: 'i'.repeat(300) })], /id must be a string of 1 to 256 characters/],
    ['a second hello', [HELLO, HELLO], /a second hello/],
    ['protocol 2', [JSON.stringify({ type: 'hello', protocol: 2, subscriber: 'ana', cursor: 0, latest: 0, credit: 1 })], /protocol 2 is not 1/],
  ])('closes the connection on %s, says why, and stores none of it', async (_name, frames, why) => {
    const run = await scenario(frames as Array<string | Buffer>);
    await until(() => run.closes.length > 0, 'the close');
    expect(run.closes[0]!.code).toBe(4400);
    expect(run.states.some((s) => why.test(s))).toBe(true);
    // Only well-formed deliveries before the bad frame reach the pipeline.
    expect(run.handed.every((a) => a.source === 'bridge' && a.rawBody.equals(body))).toBe(true);
    expect(run.states.some((s) => /retrying in \d+ s/.test(s))).toBe(true);
  });

  it('never throws on fuzzed frames: every one is parsed or refused with a message', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ type: 'delivery', ...(typeof v === 'object' && v !== null ? v : { v }) }))), (text) => {
        const parsed = parseServerFrame(text);
        return parsed.ok || (typeof parsed.message === 'string' && parsed.message.length > 0);
      }),
      { seed: 15, numRuns: 3000 },
    );
  });

  it('hands a well-formed delivery to the pipeline with the exact bytes and the upstream verdict, and acknowledges it', async () => {
    const run = await scenario([HELLO, delivery(1)]);
    await until(() => run.client.progress().ackedSeq === 1, 'the ack');
    expect(run.handed).toHaveLength(1);
    expect(run.handed[0]!.rawBody.equals(body)).toBe(true);
    expect(run.handed[0]!.upstream).toEqual({ signature: 'valid', secretIndex: 0, signatureTimestamp: 1, acceptedAt: 1 });
  });
});
