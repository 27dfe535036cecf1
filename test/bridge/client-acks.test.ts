/**
 * The client acknowledges in order and only what is committed, one ack per event-loop turn: a
 * group commit that settles 50 deliveries at once sends one ack for all of them, not 50 frames
 * the server must parse (and wake up for) one by one.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { afterEach, expect, it } from 'vitest';
import { startBridgeClient } from '../../src/bridge/bridge-client.js';
import { BRIDGE_PROTOCOL } from '../../src/core/bridge-protocol.js';
import type { IngestPipeline } from '../../src/ingest/pipeline.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const body = Buffer.from('{"id":"d1"}').toString('base64');
const delivery = (seq: number) =>
  JSON.stringify({ type: 'delivery', seq, id: `d${seq}`, trigger: 'vendor.rating_dropped', receivedAt: 1, headers: [['x-service-delivery', `d${seq}`]], body, signature: 'valid', secretIndex: 0, signatureTimestamp: 1 });

it('sends one ack for a group committed together, and none before the commit', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => BRIDGE_PROTOCOL });
  await once(wss, 'listening');
  const acks: number[] = [];
  let acked50!: () => void;
  const fiftyAcked = new Promise<void>((resolve) => (acked50 = resolve));
  const connected = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  wss.once('connection', (ws) => {
    ws.on('message', (data) => {
      acks.push((JSON.parse(data.toString()) as { seq: number }).seq);
      if (acks.at(-1) === 50) acked50();
    });
    ws.send(JSON.stringify({ type: 'hello', protocol: 1, subscriber: 'ana', cursor: 0, latest: 50, credit: 64 }));
    for (let seq = 1; seq <= 50; seq++) ws.send(delivery(seq));
  });
  // A store whose commit the test releases: every delivery handed over waits for the same commit.
  let commit!: () => void;
  const committed = new Promise<void>((resolve) => (commit = resolve));
  let handed = 0;
  let all!: () => void;
  const allHanded = new Promise<void>((resolve) => (all = resolve));
  const pipeline: IngestPipeline = {
    async handle() {
      if (++handed === 50) all();
      await committed;
      return { action: { kind: 'answer', status: 200, body: '{}' }, recorded: Promise.resolve({} as never) };
    },
  };
  const client = startBridgeClient({ url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/bridge`, token: 't'.repeat(40), name: 'ana', pipeline, clock: Date.now, onState: () => {} });
  cleanups.push(async () => {
    await client.close();
    for (const ws of wss.clients) ws.terminate();
    await new Promise((r) => wss.close(r));
  });
  await allHanded;
  // A ping's pong comes back after anything the client sent before it: an early ack would be here.
  const server = await connected;
  await new Promise<void>((resolve) => {
    server.once('pong', () => resolve());
    server.ping();
  });
  expect(acks).toEqual([]); // nothing is acknowledged before its commit
  commit();
  await fiftyAcked;
  expect(acks).toEqual([50]);
  expect(client.progress().ackedSeq).toBe(50);
});
