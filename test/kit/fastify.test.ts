/** hookrelay/fastify in fastify 5: the shared table, and the Buffer parser scoped to the webhook route. */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { hookrelayPlugin, memoryDedupe, type Delivery, type WebhookError } from '../../src/kit/fastify.js';
import { delivery, nowMs, SECRET, VERIFY_CASES } from './verify-cases.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function build(secrets: string[], extra: Partial<Parameters<typeof hookrelayPlugin>[1]> = {}) {
  const seen = { deliveries: [] as Delivery[], errors: [] as WebhookError[] };
  const app = Fastify();
  apps.push(app);
  await app.register(hookrelayPlugin, {
    secrets,
    now: nowMs,
    onDelivery: (d) => void seen.deliveries.push(d),
    onError: (e) => void seen.errors.push(e),
    ...extra,
  });
  // Another route of the same app: still fastify's JSON parser.
  app.post('/api/echo', async (request) => ({ parsed: request.body }));
  await app.ready();
  return { app, seen };
}

describe('hookrelay/fastify', () => {
  it.each(VERIFY_CASES)('$name', async (c) => {
    const { app, seen } = await build(c.secrets);
    const response = await app.inject({ method: 'POST', url: '/webhooks', headers: c.sent.headers, payload: c.sent.body });
    expect(response.statusCode).toBe(c.expect.status);
    if (c.expect.status === 200) {
      expect(seen.deliveries).toHaveLength(1);
      expect(seen.deliveries[0]!.event.type).toBe(c.expect.type);
      expect(seen.deliveries[0]!.secretIndex).toBe(c.expect.secretIndex);
      expect(response.json()).toMatchObject({ success: true, data: { deliveryId: c.sent.headers['x-service-delivery'] } });
      expect(response.headers['x-hookrelay-error']).toBeUndefined();
      return;
    }
    expect(seen.deliveries).toHaveLength(0);
    expect(response.json()).toMatchObject({ success: false, code: c.expect.code });
    expect(response.headers['x-hookrelay-error']).toBe(c.expect.code);
    if (c.expect.hint) expect(seen.errors[0]!.hints.join('\n')).toMatch(c.expect.hint);
  });

  it('keeps the Buffer parser on its own route: the app’s other routes still parse JSON', async () => {
    const { app } = await build([SECRET]);
    const response = await app.inject({ method: 'POST', url: '/api/echo', headers: { 'content-type': 'application/json' }, payload: '{"a":1}' });
    expect(response.json()).toEqual({ parsed: { a: 1 } });
  });

  it('verifies whatever the content type, and none', async () => {
    const { app, seen } = await build([SECRET]);
    const sent = delivery({ id: 'ct_text', headers: { 'content-type': 'text/plain' } });
    expect((await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body })).statusCode).toBe(200);
    const bare = delivery({ id: 'ct_none', headers: { 'content-type': null } });
    expect((await app.inject({ method: 'POST', url: '/webhooks', headers: bare.headers, payload: bare.body })).statusCode).toBe(200);
    expect(seen.deliveries.map((d) => d.deliveryId)).toEqual(['ct_text', 'ct_none']);
  });

  it('answers 413 in the spec envelope for a body over the limit', async () => {
    const { app, seen } = await build([SECRET], { bodyLimitBytes: 1024 });
    const big = delivery({ id: 'big', body: Buffer.from(JSON.stringify({ pad: 'x'.repeat(4000) })) });
    const response = await app.inject({ method: 'POST', url: '/webhooks', headers: big.headers, payload: big.body });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    expect(response.headers['x-hookrelay-error']).toBe('PAYLOAD_TOO_LARGE');
    expect(seen.deliveries).toHaveLength(0);
  });

  it('answers a Content-Length that does not match the body 400 INVALID_CONTENT_LENGTH', async () => {
    const { app, seen } = await build([SECRET]);
    const sent = delivery({ id: 'short_cl' });
    const response = await app.inject({ method: 'POST', url: '/webhooks', headers: { ...sent.headers, 'content-length': String(sent.body.length + 10) }, payload: sent.body });
    expect([response.statusCode, response.json().code, response.headers['x-hookrelay-error']]).toEqual([400, 'INVALID_CONTENT_LENGTH', 'INVALID_CONTENT_LENGTH']);
    expect(seen.deliveries).toHaveLength(0);
  });

  it('dedupes through the store hook: the handler sees a delivery once, repeats get 200', async () => {
    const { app, seen } = await build([SECRET], { dedupe: memoryDedupe() });
    const sent = delivery({ id: 'dup_f' });
    const first = await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body });
    const again = await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body });
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(again.json()).toMatchObject({ data: { duplicate: true } });
    expect(seen.deliveries).toHaveLength(1);
  });

  it('answers 503 DEDUPE_UNAVAILABLE when the dedupe store fails, so the service retries', async () => {
    const { app, seen } = await build([SECRET], { dedupe: { claim: () => Promise.reject(new Error('redis down')) } });
    const sent = delivery({ id: 'dup_down_f' });
    const response = await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body });
    expect([response.statusCode, response.json().code, response.headers['x-hookrelay-error']]).toEqual([503, 'DEDUPE_UNAVAILABLE', 'DEDUPE_UNAVAILABLE']);
    expect(seen.deliveries).toHaveLength(0);
  });

  it('releases the id when onDelivery throws: the retry runs it again, and only a success makes repeats duplicates', async () => {
    const dedupe = memoryDedupe();
    let calls = 0;
    const { app } = await build([SECRET], {
      dedupe,
      onDelivery: () => {
        calls += 1;
        if (calls === 1) throw new Error('db down');
      },
    });
    const sent = delivery({ id: 'retry_f' });
    const attempt = (n: number) => app.inject({ method: 'POST', url: '/webhooks', headers: { ...sent.headers, 'x-service-delivery-attempt': String(n) }, payload: sent.body });
    expect((await attempt(1)).statusCode).toBe(500);
    const second = await attempt(2);
    expect(second.statusCode).toBe(200);
    expect(second.json()).not.toHaveProperty('data.duplicate');
    const third = await attempt(3);
    expect(third.json()).toMatchObject({ data: { deliveryId: 'retry_f', duplicate: true } });
    expect(calls).toBe(2);
    expect(dedupe.size()).toBe(1);
  });

  it('releases the id when onDelivery answers non-2xx itself', async () => {
    const dedupe = memoryDedupe();
    let calls = 0;
    const { app } = await build([SECRET], {
      dedupe,
      onDelivery: (_d, _request, reply) => {
        calls += 1;
        return calls === 1 ? reply.code(503).send({ busy: true }) : undefined;
      },
    });
    const sent = delivery({ id: 'busy_f' });
    expect((await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body })).statusCode).toBe(503);
    expect((await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body })).json()).not.toHaveProperty('data.duplicate');
    expect(calls).toBe(2);
  });

  it('answers a failing handler 500 HANDLER_FAILED in the spec envelope, without its message', async () => {
    const { app, seen } = await build([SECRET], {
      onDelivery: () => {
        throw Object.assign(new Error('db down at 10.0.0.7'), { statusCode: 502 });
      },
    });
    const sent = delivery({ id: 'leak_f' });
    const response = await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ success: false, code: 'HANDLER_FAILED', error: 'the webhook handler failed; the service retries the delivery' });
    expect(response.headers['x-hookrelay-error']).toBe('HANDLER_FAILED');
    expect(response.body).not.toMatch(/db down|10\.0\.0\.7/);
    // The app still learns what failed, through onError.
    expect(seen.errors.map((e) => [e.code, (e.cause as Error).message])).toEqual([['HANDLER_FAILED', 'db down at 10.0.0.7']]);
  });

  it('keeps fastify’s own 4xx answers about the request', async () => {
    const { app } = await build([SECRET]);
    const sent = delivery({ id: 'bad_ct', headers: { 'content-type': 'bad' } });
    const response = await app.inject({ method: 'POST', url: '/webhooks', headers: sent.headers, payload: sent.body });
    expect([response.statusCode, response.json().code, response.headers['x-hookrelay-error']]).toEqual([415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_INVALID_MEDIA_TYPE']);
  });

  it('lets the handler answer, and a throwing handler gets a 5xx (the service retries)', async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(hookrelayPlugin, {
      secrets: SECRET,
      now: nowMs,
      path: '/in',
      onDelivery: (d, _request, reply) => {
        if (d.deliveryId === 'boom') throw new Error('handler failed');
        return reply.code(202).send({ took: d.deliveryId });
      },
    });
    const ok = delivery({ id: 'fine' });
    const accepted = await app.inject({ method: 'POST', url: '/in', headers: ok.headers, payload: ok.body });
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json()).toEqual({ took: 'fine' });
    const boom = delivery({ id: 'boom' });
    expect((await app.inject({ method: 'POST', url: '/in', headers: boom.headers, payload: boom.body })).statusCode).toBe(500);
  });
});
