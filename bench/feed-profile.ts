/**
 * What the console feed costs the receiver a request: this process publishes an attempt and a
 * delivery message a request (look-alikes of the views hub-feed.ts makes), paced at RATE requests a
 * second in turns of PER_TURN (a group commit's answers), while CLIENTS WebSocket clients on core 1
 * parse every frame. Each round's CPU of this whole process (making the views, publish, serialise,
 * frames, sends, the pacing) is divided by the requests. Two feeds alternate round by round:
 * `createFeed` of src/console/feed.ts with the clients, and either the same feed with none or, with
 * OLD, another feed module with the clients too (an A/B of a change). The no-client figure is what
 * every round pays outside the feed: take it off both sides to compare the feeds' own costs. Not part of
 * `npm run bench`; a tool for the next change to the feed. Run from the repository's root.
 *
 *   taskset -c 0 npx tsx bench/feed-profile.ts
 *   git show <commit>:src/console/feed.ts > bench/.build/feed-old.ts
 *   OLD=bench/.build/feed-old.ts taskset -c 0 npx tsx bench/feed-profile.ts
 *
 * Knobs: CLIENTS (default 10), ROUNDS (default 10), MS (a round, default 2000), RATE (default 6000), PER_TURN (default 25).
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_FEED_LIMITS } from '../src/console/console-options.js';
import { createFeed, type Feed } from '../src/console/feed.js';
import { median, pinnedSpawn } from './lib.js';

const CLIENTS = Number(process.env.CLIENTS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const MS = Number(process.env.MS ?? 2000);
const RATE = Number(process.env.RATE ?? 6000);
const PER_TURN = Number(process.env.PER_TURN ?? 25);
const OLD = process.env.OLD;

type CreateFeed = typeof createFeed;
const other: CreateFeed | null = OLD ? ((await import(pathToFileURL(resolvePath(OLD)).href)) as { createFeed: CreateFeed }).createFeed : null;
// A reader dropped for falling behind would make its side cheaper: every round checks that none was.
let dropped = 0;
const onDrop = () => void dropped++;
const feeds: Array<{ name: string; feed: Feed; clients: number }> = [
  { name: 'this feed', feed: createFeed(DEFAULT_FEED_LIMITS, onDrop), clients: CLIENTS },
  other ? { name: `OLD (${OLD})`, feed: other(DEFAULT_FEED_LIMITS, onDrop), clients: CLIENTS } : { name: 'no client', feed: createFeed(DEFAULT_FEED_LIMITS, onDrop), clients: 0 },
];

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
await new Promise((resolve) => wss.once('listening', resolve));
const port = (wss.address() as { port: number }).port;
// Connections are handed to the feeds in the order they were asked for, each feed's clients from a process of its own on core 1.
const queue: Feed[] = [];
wss.on('connection', (ws: WebSocket) => queue.shift()!.attach(ws, { since: null, epoch: null }));
const readers = [];
for (const { feed, clients } of feeds) {
  if (clients === 0) continue;
  for (let i = 0; i < clients; i++) queue.push(feed);
  const reader = pinnedSpawn(1, ['bench/feed-readers.ts', String(port), String(clients)], 'pipe');
  readers.push(reader);
  const opened = await Promise.race([once(reader.stdout!, 'data').then(() => true), once(reader, 'exit').then(() => false)]);
  if (!opened) throw new Error('a reader process ended before its clients were open');
}

const attempt = (seq: number) => ({ seq, deliveryId: randomUUID(), trigger: 'trustcenter.access_requested', receivedAt: Date.now(), finishedAt: Date.now() + 1, attemptHeader: 1, signatureTimestamp: 1764300000, bodySha256: 'ffa3bed51982c68f1e9b9eac007b242a8affcaad452b9ac84931e7af07e48118', bodyBytes: 731, outcome: 'accepted', status: 200, reason: null, retryAfter: null, hints: [], skipVerify: false });
const delivery = (seq: number) => ({ seq, id: randomUUID(), trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: Date.now(), lastAttemptAt: Date.now(), duplicateCount: 0, bodyBytes: 731, signature: 'valid', secretHint: 'whsec_…ede7', signatureTimestamp: 1764300000 });

/** One round: µs of CPU a request (two messages), the last window's flush included. */
async function round(feed: Feed): Promise<number> {
  const start = performance.now();
  const before = process.cpuUsage();
  let requests = 0;
  while (performance.now() - start < MS) {
    for (let j = 0; j < PER_TURN; j++, requests++) {
      feed.publish('attempt', attempt(requests));
      feed.publish('delivery', delivery(requests));
    }
    const wait = start + (requests / RATE) * 1000 - performance.now();
    await new Promise((resolve) => (wait > 1 ? setTimeout(resolve, wait) : setImmediate(resolve)));
  }
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_FEED_LIMITS.flushIntervalMs * 2));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

// One round each first, not counted: the JIT, and the readers' first frames.
for (const { feed } of feeds) await round(feed);
const results = feeds.map(() => [] as number[]);
for (let r = 1; r <= ROUNDS; r++) {
  const order = r % 2 ? [0, 1] : [1, 0];
  for (const i of order) results[i]!.push(await round(feeds[i]!.feed));
  for (const { name, feed, clients } of feeds) {
    if (dropped > 0 || feed.clientCount() !== clients) throw new Error(`${name}: ${feed.clientCount()} of ${clients} readers left (${dropped} dropped): the round does not count`);
  }
  console.log(`round ${r}: ${feeds.map((f, i) => `${f.name} ${results[i]!.at(-1)!.toFixed(2)}`).join(' | ')} µs CPU a request`);
}
const [a, b] = results as [number[], number[]];
console.log(`median: ${feeds[0]!.name} ${median(a).toFixed(2)}, ${feeds[1]!.name} ${median(b).toFixed(2)} µs a request; the rounds' ratio ${median(a.map((v, i) => v / b[i]!)).toFixed(3)}×`);
for (const reader of readers) reader.kill();
for (const { feed } of feeds) feed.close();
wss.close();
