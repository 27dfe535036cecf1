// Run by test/package/pack.test.ts in a fresh project that installed the packed tarball: each subpath at run time.
import { sign, verify, verifyAsync } from 'hookrelay';
import { hookrelay as expressHookrelay } from 'hookrelay/express';
import { hookrelayPlugin } from 'hookrelay/fastify';
import { hookrelay as fetchHookrelay } from 'hookrelay/fetch';
import { startTestReceiver } from 'hookrelay/testing';
import { createServiceClient, ServiceError } from 'hookrelay/client';
import { createServer } from 'node:http';

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
// A stand-in service: GET answers a pending request; POST answers 409 with the key echoed in its message.
const KEY = 'hr_pack_key_0123456789';
const service = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.method === 'GET') return res.end(JSON.stringify({ success: true, data: { id: 'r1', status: 'pending', visitorEmail: 'a@b.test', requestedResources: [] } }));
  res.statusCode = 409;
  res.end(JSON.stringify({ success: false, error: `already decided (key ${KEY})`, code: 'ACCESS_REQUEST_ALREADY_DECIDED', requestId: 'req-pack' }));
});
await new Promise((resolve) => service.listen(0, '127.0.0.1', resolve));
const client = createServiceClient({ baseUrl: `http://127.0.0.1:${service.address().port}/v1`, apiKey: KEY });
const pending = (await client.trustCenter.accessRequest('r1')).status;
const failed = await client.trustCenter.approve('r1', { reference: 'T-1' }).catch((e) => e);
await client.close();
service.close();
console.log(JSON.stringify({
  client: { pending, error: failed instanceof ServiceError ? failed.name : String(failed), status: failed.status, apiCode: failed.apiCode, requestId: failed.requestId, keyShown: JSON.stringify([failed.message, failed.envelope]).includes(KEY) },
  status,
  waited: delivery.id,
  sync: verify(body, headers['x-service-signature'], { secrets: receiver.secret }).ok,
  async: (await verifyAsync(body, headers['x-service-signature'], { secrets: receiver.secret })).ok,
  fetch: event instanceof Response ? event.status : event.id,
  express: typeof expressHookrelay({ secrets: 's' }),
  fastify: typeof hookrelayPlugin,
}));
