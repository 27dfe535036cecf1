/**
 * Relay overhead: how long a delivery takes to reach the app through hookrelay, against a direct
 * POST to the app. The app (a target server) lives in this process, so send and arrival times
 * share one clock. Bounded in count; stops by itself.
 *
 * args: <hookrelay receiver URL> <target port> <sequential count> <load connections> <load ms> [<floor receiver URL> [<least relay URL>]]
 *
 * With a floor (bench/floor-server.ts in `relay-kept` mode, forwarding to the same target: arrivals
 * are matched on `x-service-delivery`, which only that mode passes on), its trips alternate with the
 * others at low load: what a relay that keeps each try in SQLite, committed on a writer thread before it answers and hands on, adds.
 * Trips are a few ms apart, so one server's commit of its try does not land in the next trip. With
 * the least relay (bench/least-relay-server.ts: one fdatasync on the main thread, then the hand-on),
 * its trips alternate too: the leanest durable relay built here, a reference beside the floor.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { sign } from '../src/core/signature/sign.js';
import { SECRET } from './lib.js';

const [receiverUrl, targetPortText, countText, connectionsText, loadMsText, floorUrl, leastUrl] = process.argv.slice(2);
const targetPort = Number(targetPortText);
const arrivals = new Map<string, (at: number) => void>();

const target = createServer((req, res) => {
  const at = performance.now();
  const id = req.headers['x-service-delivery'] as string;
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
    arrivals.get(id)?.(at);
    arrivals.delete(id);
  });
});
target.keepAliveTimeout = 10_000;
target.listen(targetPort, '127.0.0.1');
await once(target, 'listening');

const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
const PAD = 'x'.repeat(330);

function delivery() {
  const id = randomUUID();
  const body = Buffer.from(`{"id":"${id}","type":"vendor.rating_dropped","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"o","data":{"note":"${PAD}"}}`);
  const headers = {
    'content-type': 'application/json',
    'x-service-event': 'vendor.rating_dropped',
    'x-service-delivery': id,
    'x-service-delivery-attempt': '1',
    'x-service-signature': sign(SECRET, body, Math.floor(Date.now() / 1000)),
  };
  return { id, body, headers };
}

/** A delivery that has not reached the app by then is lost: the run fails rather than waits forever. */
const ARRIVAL_TIMEOUT_MS = 10_000;
const GAP_MS = 5;

/** Sends one delivery to `url`; resolves with ms from send to the app's receipt. */
async function oneTrip(url: string): Promise<number> {
  const d = delivery();
  let timer: NodeJS.Timeout | undefined;
  const arrived = new Promise<number>((resolve, reject) => {
    arrivals.set(d.id, (at) => {
      clearTimeout(timer);
      resolve(at);
    });
    timer = setTimeout(() => reject(new Error(`${d.id} sent to ${url} did not reach the app within ${ARRIVAL_TIMEOUT_MS} ms`)), ARRIVAL_TIMEOUT_MS);
  });
  const sentAt = performance.now();
  const res = await request(url, { method: 'POST', headers: d.headers, body: d.body, dispatcher: agent });
  await res.body.dump();
  if (res.statusCode >= 300) throw new Error(`answer ${res.statusCode}`);
  return (await arrived) - sentAt;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const direct = `http://127.0.0.1:${targetPort}/hook`;
const count = Number(countText);
const pause = () => new Promise((r) => setTimeout(r, GAP_MS));
// Warm every path.
for (let i = 0; i < 50; i++) await oneTrip(direct);
for (let i = 0; i < 50; i++) await oneTrip(receiverUrl!);
if (floorUrl) for (let i = 0; i < 50; i++) await oneTrip(floorUrl);
if (leastUrl) for (let i = 0; i < 50; i++) await oneTrip(leastUrl);
const directTrips: number[] = [];
const relayTrips: number[] = [];
const floorTrips: number[] = [];
const leastTrips: number[] = [];
for (let i = 0; i < count; i++) {
  directTrips.push(await oneTrip(direct));
  await pause();
  relayTrips.push(await oneTrip(receiverUrl!));
  await pause();
  if (floorUrl) {
    floorTrips.push(await oneTrip(floorUrl));
    await pause();
  }
  if (leastUrl) {
    leastTrips.push(await oneTrip(leastUrl));
    await pause();
  }
}

// Under the standard load: many connections at once, each waiting for its delivery to arrive.
const loaded: number[] = [];
const deadline = performance.now() + Number(loadMsText);
await Promise.all(
  Array.from({ length: Number(connectionsText) }, async () => {
    while (performance.now() < deadline) loaded.push(await oneTrip(receiverUrl!));
  }),
);

process.stdout.write(
  `${JSON.stringify({
    lowLoad: {
      directP50: pct(directTrips, 50),
      relayP50: pct(relayTrips, 50),
      overheadP50: pct(relayTrips, 50) - pct(directTrips, 50),
      relayP99: pct(relayTrips, 99),
      floorOverheadP50: floorUrl ? pct(floorTrips, 50) - pct(directTrips, 50) : null,
      leastOverheadP50: leastUrl ? pct(leastTrips, 50) - pct(directTrips, 50) : null,
    },
    underLoad: { deliveries: loaded.length, relayP50: pct(loaded, 50), relayP99: pct(loaded, 99) },
  })}\n`,
);
await agent.close();
target.closeAllConnections();
target.close();
