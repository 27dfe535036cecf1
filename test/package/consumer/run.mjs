// Run by test/package/pack.test.ts in a fresh project that installed the packed tarball: each subpath at run time.
import { sign, verify, verifyAsync } from 'hookrelay';
import { hookrelay as expressHookrelay } from 'hookrelay/express';
import { hookrelayPlugin } from 'hookrelay/fastify';
import { hookrelay as fetchHookrelay } from 'hookrelay/fetch';
import { startTestReceiver } from 'hookrelay/testing';

const receiver = await startTestReceiver();
const id = 'pack-1';
const body = JSON.stringify({ id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01', createdAt: '2026-06-01T10:00:00Z', organizationId: 'o', data: { accessRequestId: 'a' } });
const t = Math.floor(Date.now() / 1000);
const headers = { 'content-type': 'application/json', 'x-service-delivery': id, 'x-service-event': 'trustcenter.access_requested', 'x-service-delivery-attempt': '1', 'x-service-signature': sign(receiver.secret, body, t) };
const waiting = receiver.waitFor({ deliveryId: id }, { timeoutMs: 10_000 });
const status = (await fetch(receiver.url, { method: 'POST', headers, body })).status;
const delivery = await waiting;
await receiver.close();
const event = await fetchHookrelay({ secrets: receiver.secret })(new Request('http://x/', { method: 'POST', headers, body }));
console.log(JSON.stringify({
  status,
  waited: delivery.id,
  sync: verify(body, headers['x-service-signature'], { secrets: receiver.secret }).ok,
  async: (await verifyAsync(body, headers['x-service-signature'], { secrets: receiver.secret })).ok,
  fetch: event instanceof Response ? event.status : event.id,
  express: typeof expressHookrelay({ secrets: 's' }),
  fastify: typeof hookrelayPlugin,
}));
