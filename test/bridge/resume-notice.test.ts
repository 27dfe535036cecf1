/**
 * What `connect` says when it resumes (issue 36 item 20), against a fake server: a server that
 * counts (hello's `missed`) is believed up front; an older one, which does not, gets today's words.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { afterEach, expect, it } from 'vitest';
import { startBridgeClient, type BridgeState } from '../../src/bridge/bridge-client.js';
import { BRIDGE_PROTOCOL_2, encodeDeliveryFrame } from '../../src/core/bridge-protocol.js';
import type { Arrival } from '../../src/ingest/arrival.js';
import type { IngestPipeline } from '../../src/ingest/pipeline.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const hello = (fields: Record<string, unknown>) => JSON.stringify({ type: 'hello', protocol: 2, subscriber: 'vendor/desk', cursor: 10, latest: 16, credit: 64, ...fields });
const record = (seq: number) =>
  encodeDeliveryFrame({ seq, id: `d${seq}`, trigger: 'vendor.rating_dropped', receivedAt: 1, headers: [['x-service-delivery', `d${seq}`]], body: Buffer.from('{}'), signature: 'valid', secretIndex: 0, signatureTimestamp: 1 });
const LIVE = JSON.stringify({ type: 'live' });

/** A fake version 2 server that sends `frames` on connect; resolves once the client is live, with every message it said and what it handed on. */
async function resume(frames: Array<string | Buffer>): Promise<{ messages: string[]; handed: Arrival[] }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => BRIDGE_PROTOCOL_2 });
  await once(wss, 'listening');
  wss.on('connection', (ws) => {
    for (const frame of frames) ws.send(frame);
  });
  const handed: Arrival[] = [];
  const pipeline: IngestPipeline = {
    async handle(arrival) {
      handed.push(arrival);
      return { action: { kind: 'answer', status: 200, body: '{}' }, recorded: Promise.resolve({} as never) };
    },
  };
  const messages: string[] = [];
  let isLive!: () => void;
  let notLive!: (err: Error) => void;
  const live = new Promise<void>((resolve, reject) => ((isLive = resolve), (notLive = reject)));
  const client = startBridgeClient({
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/bridge`,
    token: 't'.repeat(40),
    name: 'desk',
    pipeline,
    clock: Date.now,
    onState: (state: BridgeState, message) => {
      messages.push(message);
      if (state === 'live') isLive();
      if (state === 'lost') notLive(new Error(message));
    },
  });
  cleanups.push(async () => {
    await client.close();
    for (const ws of wss.clients) ws.terminate();
    await new Promise((r) => wss.close(r));
  });
  await live;
  return { messages, handed };
}

const resumeLines = (messages: string[]) => messages.filter((m) => /^(resum|no missed)/.test(m));

it('says the count the server gives up front, not latest - cursor: 6 stored since, 2 for this subscriber', async () => {
  const run = await resume([hello({ missed: 2 }), Buffer.concat([record(12), record(15)]), LIVE]);
  expect(resumeLines(run.messages)).toEqual(['resuming 2 missed deliveries', 'resumed 2 missed deliveries']);
  expect(run.handed.map((a) => a.requestId)).toEqual(['bridge-12', 'bridge-15']);
});

it('says one missed delivery in the singular', async () => {
  const run = await resume([hello({ missed: 1 }), record(13), LIVE]);
  expect(resumeLines(run.messages)).toEqual(['resuming 1 missed delivery', 'resumed 1 missed delivery']);
});

it('says nothing of resuming when the server counted none for this subscriber', async () => {
  const run = await resume([hello({ missed: 0 }), LIVE]);
  expect(resumeLines(run.messages)).toEqual([]);
});

it('falls back to the words without a number when the server does not count (an older server)', async () => {
  const run = await resume([hello({}), record(12), record(15), LIVE]);
  expect(resumeLines(run.messages)).toEqual(['resuming missed deliveries', 'resumed 2 missed deliveries']);
});
