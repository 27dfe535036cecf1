// Run by test/package/pack.test.ts in a fresh express 5 app that installed the packed tarball and none of
// the receiver's dependencies: hookrelay, hookrelay/express, hookrelay/fastify and hookrelay/fetch each
// verify a signed delivery and refuse the same delivery with one byte changed.
import { once } from 'node:events';
import express from 'express';
import { parseSignatureHeader, sign, verify } from 'hookrelay';
import { hookrelay as expressHookrelay } from 'hookrelay/express';
import { hookrelayPlugin } from 'hookrelay/fastify';
import { hookrelay as fetchHookrelay } from 'hookrelay/fetch';

const secret = 'whsec_light';
const id = 'light-1';
const body = JSON.stringify({ id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01', createdAt: '2026-06-01T10:00:00Z', organizationId: 'o', data: { accessRequestId: 'a' } });
const tampered = body.replace('"accessRequestId":"a"', '"accessRequestId":"b"');
const signature = sign(secret, body, Math.floor(Date.now() / 1000));
const headers = { 'content-type': 'application/json', 'x-service-delivery': id, 'x-service-event': 'trustcenter.access_requested', 'x-service-delivery-attempt': '1', 'x-service-signature': signature };
const failed = verify(tampered, signature, { secrets: secret });

// A real express 5 app.
let handled = null;
const app = express();
app.post('/webhooks', expressHookrelay({ secrets: secret }), (req, res) => {
  handled = req.webhook.id;
  res.sendStatus(204);
});
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${server.address().port}/webhooks`;
const accepted = await fetch(url, { method: 'POST', headers, body });
const refused = await fetch(url, { method: 'POST', headers, body: tampered });
server.close();

// fastify is not installed here: a stand-in with the calls the plugin makes registers it, and its route runs.
const routes = new Map();
const stand = { removeAllContentTypeParsers() {}, addContentTypeParser() {}, setErrorHandler() {}, post: (path, handler) => routes.set(path, handler) };
let delivered = null;
await hookrelayPlugin(stand, { secrets: secret, onDelivery: ({ event }) => { delivered = event.id; } });
const reply = () => ({ sent: false, statusCode: 200, code(status) { this.statusCode = status; return this; }, header() { return this; }, type() { return this; }, send() { this.sent = true; return this; } });
const fastifyAccepted = await routes.get('/webhooks')({ body: Buffer.from(body), headers }, reply());
const fastifyRefused = await routes.get('/webhooks')({ body: Buffer.from(tampered), headers }, reply());

const verifyRequest = fetchHookrelay({ secrets: secret });
const event = await verifyRequest(new Request('http://app/webhooks', { method: 'POST', headers, body }));
const fetchRefused = await verifyRequest(new Request('http://app/webhooks', { method: 'POST', headers, body: tampered }));

console.log(JSON.stringify({
  hookrelay: { parsed: parseSignatureHeader(signature).ok, verified: verify(body, signature, { secrets: secret }).ok, refused: failed.ok ? 'accepted' : failed.reason },
  express: { status: accepted.status, handled, refused: refused.status, code: refused.headers.get('x-hookrelay-error') },
  fastify: { status: fastifyAccepted.statusCode, delivered, refused: fastifyRefused.statusCode },
  fetch: { id: event instanceof Response ? event.status : event.id, refused: fetchRefused instanceof Response ? fetchRefused.status : 'accepted' },
}));
