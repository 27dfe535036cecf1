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
import { BRIDGE_PROTOCOL, BRIDGE_PROTOCOL_2, encodeDeliveryFrame, parseDeliveryFrames, parseServerFrame, type BridgeDelivery } from '../../src/core/bridge-protocol.js';
import type { Arrival } from '../../src/ingest/arrival.js';
import type { IngestPipeline } from '../../src/ingest/pipeline.js';
import { until } from '../helpers/until.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HELLO = JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 0, latest: 0, credit: 64 });
const body = Buffer.from('{"id":"d1"}');
const delivery = (seq: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'delivery', seq, id: `d${seq}`, trigger: 'vendor.rating_dropped', receivedAt: 1, headers: [['x-service-delivery', `d${seq}`]], body: body.toString('base64'), signature: 'valid', secretIndex: 0, signatureTimestamp: 1, ...extra });

const HELLO_2 = JSON.stringify({ type: 'hello', protocol: 2, subscriber: 'ana', cursor: 0, latest: 0, credit: 64 });
const binary = (seq: number, extra: Partial<BridgeDelivery> = {}): Buffer =>
  encodeDeliveryFrame({ seq, id: `d${seq}`, trigger: 'vendor.rating_dropped', receivedAt: 1, headers: [['x-service-delivery', `d${seq}`]], body, signature: 'valid', secretIndex: 0, signatureTimestamp: 1, ...extra });

/** A fake server that sends `frames` to each connection (speaking `protocol`), and the client's pipeline that records what it was handed. */
async function scenario(frames: Array<string | Buffer>, protocol: string = BRIDGE_PROTOCOL) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => protocol });
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
      // As the real pipeline does: a delivery the client could not take is recorded as refused.
      if (arrival.untaken !== undefined) return { action: { kind: 'answer', status: 422, body: '{}' }, recorded: Promise.resolve({ seq: handed.length } as never) };
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


describe('the bridge client against hostile frames', () => {
  it.each([
    ['not JSON', ['{oops'], /the frame is not JSON/, []],
    ['a delivery before hello', [delivery(1)], /a delivery frame before hello/, []],
    ['an unknown type', [HELLO, '{"type":"surprise"}'], /unknown frame type "surprise"/, []],
    ['an unknown type of 50 euro signs (a close reason over 123 bytes once quoted)', [HELLO, JSON.stringify({ type: '€'.repeat(50) })], /unknown frame type/, []],
    ['more deliveries than the credit', [JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 0, latest: 0, credit: 1 }), delivery(1), delivery(2)], /more than 1 unacknowledged deliveries/, ['bridge-1']],
    ['a binary frame', [HELLO, Buffer.from([1, 2, 3])], /binary frames are not part of protocol version 1/, []],
    ['a delivery out of order', [HELLO, delivery(2), delivery(2)], /delivery 2 is out of order/, ['bridge-2']],
    ['a second hello', [HELLO, HELLO], /a second hello/, []],
    ['a hello of protocol 2 on version 1', [HELLO_2], /hello says protocol 2, but version 1 was negotiated/, []],
    ['a hello that counts more missed deliveries than latest - cursor', [JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 4, latest: 10, credit: 64, missed: 7 })], /hello: missed must be a whole number of at most latest - cursor/, []],
    ['a hello whose missed is not a number', [JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 4, latest: 10, credit: 64, missed: { n: 2 } })], /hello: missed must be a whole number/, []],
    ['a hello of protocol 3', [JSON.stringify({ type: 'hello', protocol: 3, subscriber: 'ana', cursor: 0, latest: 0, credit: 1 })], /protocol 3 is not 1 or 2/, []],
  ])('closes the connection on %s, says why, and stores none of it', async (_name, frames, why, handed) => {
    const run = await scenario(frames as Array<string | Buffer>);
    await until(() => run.closes.length > 0, 'the close');
    expect(run.closes[0]!.code).toBe(4400);
    expect(run.states.some((s) => why.test(s))).toBe(true);
    // Only the well-formed deliveries before the bad frame reach the pipeline.
    expect(run.handed.map((a) => a.requestId)).toEqual(handed);
    expect(run.handed.every((a) => a.source === 'bridge' && a.rawBody.equals(body))).toBe(true);
    expect(run.states.some((s) => /retrying in \d+ s/.test(s))).toBe(true);
  });

  it.each([
    ['a hello of protocol 1 on version 2', [HELLO], /hello says protocol 1, but version 2 was negotiated/, []],
    ['a JSON delivery out of order after a binary one', [HELLO_2, binary(2), delivery(2)], /delivery 2 is out of order/, ['bridge-2']],
    ['a binary delivery cut short', [HELLO_2, binary(1).subarray(0, 60)], /delivery: the frame ends inside the headers/, []],
    ['a binary frame too short to be a delivery', [HELLO_2, binary(1).subarray(0, 20)], /delivery: a frame of 20 bytes is too short/, []],
    ['bytes after the body', [HELLO_2, Buffer.concat([binary(1), Buffer.from([0])])], /record 2 of the frame: unknown binary frame type 0/, []],
    ['a good record then a bad one in one frame', [HELLO_2, Buffer.concat([binary(1), binary(2).subarray(0, 60)])], /record 2 of the frame: delivery: the frame ends inside the headers/, []],
    ['records out of order within one frame', [HELLO_2, Buffer.concat([binary(2), binary(2)])], /delivery 2 is out of order \(after 2\)/, []],
    ['one frame of more records than the credit', [JSON.stringify({ type: 'hello', protocol: 2, subscriber: 'ana', cursor: 0, latest: 0, credit: 1 }), Buffer.concat([binary(1), binary(2)])], /more than 1 unacknowledged deliveries/, []],
    ['an unknown binary frame type', [HELLO_2, Buffer.from([9, 0, 0])], /unknown binary frame type 9/, []],
    ['a binary delivery out of order', [HELLO_2, binary(2), binary(2)], /delivery 2 is out of order/, ['bridge-2']],
  ])('on protocol version 2, closes the connection on %s, says why, and stores none of it', async (_name, frames, why, handed) => {
    const run = await scenario(frames as Array<string | Buffer>, BRIDGE_PROTOCOL_2);
    await until(() => run.closes.length > 0, 'the close');
    expect(run.closes[0]!.code).toBe(4400);
    expect(run.states.some((s) => why.test(s))).toBe(true);
    expect(run.handed.map((a) => a.requestId)).toEqual(handed);
    expect(run.handed.every((a) => a.source === 'bridge' && a.rawBody.equals(body))).toBe(true);
  });

  const LONG_NAME = `x-${'n'.repeat(255)}`;
  const MANY = Array.from({ length: 201 }, (_, i) => [`x-e${i}`, 'v'] as [string, string]);
  it.each([
    ['a body that is not base64', BRIDGE_PROTOCOL, [HELLO, delivery(1, { body: '%%%' }), delivery(2)], /body must be base64/],
    ['a header value with CR LF', BRIDGE_PROTOCOL, [HELLO, delivery(1, { headers: [['x-a', 'v\r\nx-b: injected']] }), delivery(2)], /a header value holds CR, LF or NUL/],
    ['an id of 300 characters', BRIDGE_PROTOCOL, [HELLO, delivery(1, { id: 'i'.repeat(300) }), delivery(2)], /id must be a string of 1 to 256 characters/],
    ['201 header lines', BRIDGE_PROTOCOL, [HELLO, delivery(1, { headers: MANY }), delivery(2)], /201 header lines; hookrelay accepts at most 200/],
    ['a header name of 257 characters', BRIDGE_PROTOCOL, [HELLO, delivery(1, { headers: [[LONG_NAME, 'v']] }), delivery(2)], /a header name of 257 characters/],
    ['a header value with CR (version 2)', BRIDGE_PROTOCOL_2, [HELLO_2, binary(1, { headers: [['x-a', 'v\rx-b']] }), binary(2)], /a header value holds CR, LF or NUL/],
    ['an id of 300 characters (version 2)', BRIDGE_PROTOCOL_2, [HELLO_2, binary(1, { id: 'i'.repeat(300) }), binary(2)], /id must be a string of 1 to 256 characters/],
    ['201 header lines (version 2)', BRIDGE_PROTOCOL_2, [HELLO_2, binary(1, { headers: MANY }), binary(2)], /201 header lines; hookrelay accepts at most 200/],
    ['a header name of 257 characters (version 2)', BRIDGE_PROTOCOL_2, [HELLO_2, Buffer.concat([binary(1, { headers: [[LONG_NAME, 'v']] }), binary(2)])], /a header name of 257 characters/],
  ])('hands on a whole frame of %s as a delivery it could not take, acknowledges its record, and takes the next one', async (_name, protocol, frames, why) => {
    const run = await scenario(frames as Array<string | Buffer>, protocol as string);
    await until(() => run.client.progress().ackedSeq === 2, 'the ack of the next delivery');
    expect(run.closes).toEqual([]);
    expect(run.handed.map((a) => a.requestId)).toEqual(['bridge-1', 'bridge-2']);
    expect(why.test(run.handed[0]!.untaken ?? '')).toBe(true);
    expect(run.handed[1]!.untaken).toBeUndefined();
    expect(run.states.some((s) => /retrying/.test(s))).toBe(false);
  });

  it('on protocol version 2, takes every delivery of a frame of several records, in order, and acknowledges them', async () => {
    const run = await scenario([HELLO_2, Buffer.concat([binary(1), binary(2), binary(5)])], BRIDGE_PROTOCOL_2);
    await until(() => run.client.progress().ackedSeq === 5, 'the ack');
    expect(run.handed.map((a) => a.requestId)).toEqual(['bridge-1', 'bridge-2', 'bridge-5']);
    expect(run.handed.every((a) => a.rawBody.equals(body))).toBe(true);
  });

  it('never throws on fuzzed binary frames: random bytes, and a valid frame cut, grown or with a byte changed', () => {
    const valid = binary(7, { headers: [['content-type', 'application/json'], ['x-service-delivery', 'd7']] });
    const spoiled = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      fc.nat({ max: valid.length }).map((n) => valid.subarray(0, n)),
      fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => {
        const copy = Buffer.from(valid);
        copy[at] = byte;
        return copy;
      }),
      fc.uint8Array({ minLength: 1, maxLength: 20 }).map((tail) => Buffer.concat([valid, tail])),
    );
    fc.assert(
      fc.property(spoiled, (frame) => {
        const parsed = parseDeliveryFrames(frame);
        const all = parseDeliveryFrames(Buffer.concat([valid, frame]));
        return (parsed.ok || parsed.message.length > 0) && (all.ok || all.message.length > 0);
      }),
      { seed: 16, numRuns: 5000 },
    );
  });

  it('on protocol version 2, hands a binary delivery to the pipeline with the exact bytes, headers and verdict, and acknowledges it', async () => {
    const run = await scenario([HELLO_2, binary(1, { headers: [['X-Service-Delivery', 'd1'], ['X-Note', 'caf\u00e9 : x']] })], BRIDGE_PROTOCOL_2);
    await until(() => run.client.progress().ackedSeq === 1, 'the ack');
    expect(run.handed).toHaveLength(1);
    expect(run.handed[0]!.rawBody.equals(body)).toBe(true);
    expect(run.handed[0]!.rawHeaders).toEqual(['X-Service-Delivery', 'd1', 'X-Note', 'caf\u00e9 : x']);
    expect(run.handed[0]!.upstream).toEqual({ signature: 'valid', secretIndex: 0, signatureTimestamp: 1, acceptedAt: 1 });
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
