import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import { sign } from '../../src/core/signature/sign.js';
import { testReceiver } from '../helpers/test-receiver.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type AttemptRecord, type DeliveryStore } from '../../src/store/store.js';
import { envelopeBody, signedRequest, T0, TEST_SECRET } from '../helpers/signed-delivery.js';

const NOW_MS = T0 * 1000 + 1500;

let store: DeliveryStore;
let hub: EventHub;
let app: FastifyInstance;
let seen: AttemptRecord[];

function build(overrides: Partial<Parameters<typeof testReceiver>[0]> = {}) {
  return testReceiver({
    path: '/webhooks',
    secrets: [TEST_SECRET],
    toleranceSeconds: 300,
    skipVerify: false,
    bodyLimitBytes: 4096,
    store,
    hub,
    clock: () => NOW_MS,
    ...overrides,
  });
}

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  seen = [];
  hub.on('attempt', ({ attempt }) => seen.push(attempt));
  app = build();
});
afterEach(() => app.close());

const post = (headers: Record<string, string>, payload: Buffer | string, url = '/webhooks') => app.inject({ method: 'POST', url, headers, payload });

describe('receiver: accepted and duplicate', () => {
  it('stores a signed delivery byte for byte and answers 200 in the spec envelope', async () => {
    const req = signedRequest();
    const res = await post(req.headers, req.body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { deliveryId: req.id, duplicate: false } });
    const stored = await store.getDelivery(req.id);
    expect(Buffer.from(stored!.rawBody).equals(req.body)).toBe(true);
    expect(stored).toMatchObject({ signature: 'valid', secretIndex: 0, signatureTimestamp: T0, apiVersionKnown: true });
    expect(stored!.headers).toContainEqual(['x-service-delivery', req.id]);
    expect(seen[0]).toMatchObject({ outcome: 'accepted', status: 200, attemptHeader: 1, signatureTimestamp: T0, receivedAt: NOW_MS, deliveryId: req.id });
  });

  it('answers a repeated delivery id 2xx, records the attempt, and stores it once', async () => {
    const first = signedRequest({ attempt: 1 });
    const again = signedRequest({ id: first.id, attempt: 2, t: T0 + 1 });
    expect((await post(first.headers, first.body)).statusCode).toBe(200);
    const res = await post(again.headers, again.body);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.duplicate).toBe(true);
    expect((await store.listDeliveries({ limit: 10 })).items).toHaveLength(1);
    const attempts = await store.listAttempts({ deliveryId: first.id, limit: 10 });
    expect(attempts.map((a) => [a.outcome, a.attemptHeader, a.signatureTimestamp])).toEqual([['duplicate', 2, T0 + 1], ['accepted', 1, T0]]);
  });

  it('accepts a signature in uppercase hex, and notes it on the attempt record (stored and announced)', async () => {
    const req = signedRequest();
    const upper = req.headers['x-service-signature']!.replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    const res = await post({ ...req.headers, 'x-service-signature': upper }, req.body);
    expect(res.statusCode).toBe(200);
    const note = 'non-canonical signature encoding: uppercase hex';
    expect(seen).toMatchObject([{ outcome: 'accepted', reason: note }]);
    expect(await store.listAttempts({ deliveryId: req.id, limit: 10 })).toMatchObject([{ outcome: 'accepted', reason: note }]);
    // A lowercase signature (what the service sends) gets no note.
    const plain = signedRequest();
    await post(plain.headers, plain.body);
    expect(seen[1]).toMatchObject({ outcome: 'accepted', reason: null });
  });

  it('accepts a delivery signed with the second secret (rotation) and says which matched', async () => {
    app = build({ secrets: ['whsec_new', TEST_SECRET] });
    const req = signedRequest();
    expect((await post(req.headers, req.body)).statusCode).toBe(200);
    expect((await store.getDelivery(req.id))!.secretIndex).toBe(1);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['no content type', undefined],
    ['a bogus content type', 'application/x-nonsense; charset=ebcdic'],
  ])('does not reject on Content-Type before verifying (%s)', async (_name, type) => {
    const req = signedRequest();
    const headers = { ...req.headers };
    if (type === undefined) delete (headers as Record<string, string>)['content-type'];
    else headers['content-type'] = type;
    expect((await post(headers, req.body)).statusCode).toBe(200);
  });

  it('keeps a body with a BOM and invalid UTF-8 inside a string byte for byte', async () => {
    const id = 'bom-and-bad-bytes';
    const json = envelopeBody(id).toString().replace('"ar_1"', '"ar_\u00ff_X"');
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json.replace('X', '\u0000').split('\u0000')[0]!), Buffer.from([0xc3, 0x28]), Buffer.from(json.split('X')[1]!)]);
    const req = signedRequest({ id, body });
    const res = await post(req.headers, req.body);
    expect(res.statusCode).toBe(200);
    expect(Buffer.from((await store.getDelivery(id))!.rawBody).equals(body)).toBe(true);
  });

  it('accepts an unknown apiVersion but marks it', async () => {
    const id = 'future-version';
    const body = envelopeBody(id, 'trustcenter.access_requested', { apiVersion: '2099-01-01' });
    const req = signedRequest({ id, body });
    const res = await post(req.headers, req.body);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.apiVersionUnknown).toBe('2099-01-01');
    expect((await store.getDelivery(id))!.apiVersionKnown).toBe(false);
  });

  it('with --skip-verify accepts an unsigned delivery and marks it unverified', async () => {
    app = build({ skipVerify: true, secrets: [] });
    const req = signedRequest();
    const headers = { ...req.headers } as Record<string, string>;
    delete headers['x-service-signature'];
    expect((await post(headers, req.body)).statusCode).toBe(200);
    expect((await store.getDelivery(req.id))!.signature).toBe('skipped');
  });
});

describe('receiver: every refusal is a 4xx in the error envelope with a code naming the cause, and is recorded', () => {
  const cases: Array<[string, () => { headers: Record<string, string>; body: Buffer | string }, number, string]> = [
    ['body over the limit', () => signedRequest({ body: Buffer.alloc(5000, 0x20) }), 413, 'PAYLOAD_TOO_LARGE'],
    ['no signature header', () => { const r = signedRequest(); delete (r.headers as Record<string, string>)['x-service-signature']; return r; }, 400, 'SIGNATURE_MISSING'],
    ['malformed signature', () => { const r = signedRequest(); r.headers['x-service-signature'] = 't=abc,v1=00'; return r; }, 400, 'SIGNATURE_MALFORMED'],
    ['only a v0 signature', () => { const r = signedRequest(); r.headers['x-service-signature'] = `t=${T0},v0=${'a'.repeat(64)}`; return r; }, 400, 'SIGNATURE_NO_V1'],
    ['wrong secret', () => signedRequest({ secret: 'whsec_other' }), 400, 'SIGNATURE_MISMATCH'],
    ['body changed after signing', () => { const r = signedRequest(); return { headers: r.headers, body: Buffer.concat([r.body, Buffer.from(' ')]) }; }, 400, 'SIGNATURE_MISMATCH'],
    ['timestamp too old', () => signedRequest({ t: T0 - 400 }), 400, 'TIMESTAMP_TOO_OLD'],
    ['timestamp in the future', () => signedRequest({ t: T0 + 400 }), 400, 'TIMESTAMP_IN_FUTURE'],
    ['body not JSON', () => signedRequest({ body: Buffer.from('{"id":') }), 400, 'INVALID_JSON'],
    ['body a JSON array', () => signedRequest({ body: Buffer.from('[1,2]') }), 400, 'INVALID_ENVELOPE'],
    ['envelope without organizationId', () => { const id = 'x1'; const b = JSON.parse(envelopeBody(id).toString()); delete b.organizationId; return signedRequest({ id, body: Buffer.from(JSON.stringify(b)) }); }, 400, 'INVALID_ENVELOPE'],
    ['data not an object', () => signedRequest({ id: 'x2', body: envelopeBody('x2', 'trustcenter.access_requested', { data: 'str' }) }), 400, 'INVALID_ENVELOPE'],
    ['createdAt not a date-time', () => signedRequest({ id: 'x3', body: envelopeBody('x3', 'trustcenter.access_requested', { createdAt: 'yesterday' }) }), 400, 'INVALID_ENVELOPE'],
    ['x-service-delivery differs from body id', () => { const r = signedRequest(); r.headers['x-service-delivery'] = 'other'; return r; }, 400, 'DELIVERY_ID_MISMATCH'],
    ['x-service-delivery missing', () => { const r = signedRequest(); delete (r.headers as Record<string, string>)['x-service-delivery']; return r; }, 400, 'DELIVERY_ID_MISMATCH'],
    ['x-service-event differs from body type', () => { const r = signedRequest(); r.headers['x-service-event'] = 'vendor.rating_dropped'; return r; }, 400, 'EVENT_TYPE_MISMATCH'],
  ];

  it.each(cases)('%s → %i %s', async (_name, make, status, code) => {
    const req = make();
    const res = await post(req.headers, req.body);
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code });
    expect(typeof body.error).toBe('string');
    expect(body.error.length).toBeGreaterThan(5);
    expect(Date.parse(body.timestamp)).toBe(NOW_MS);
    expect((await store.listDeliveries({ limit: 10 })).items).toHaveLength(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ outcome: 'rejected', status, reason: code });
    const recorded = await store.listAttempts({ limit: 10 });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ outcome: 'rejected', status, reason: code, receivedAt: NOW_MS });
  });

  it('names several signature headers as the cause (over a real socket: inject cannot send two header lines)', async () => {
    const req = signedRequest();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const flat: string[] = [];
    for (const [name, value] of Object.entries(req.headers)) if (name !== 'x-service-signature') flat.push(name, value);
    flat.push('x-service-signature', req.headers['x-service-signature']!, 'x-service-signature', sign(TEST_SECRET, req.body, T0 + 1));
    const res = await request(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', headers: flat, body: req.body });
    const body = (await res.body.json()) as { code: string; error: string };
    expect(res.statusCode).toBe(400);
    expect(body.code).toBe('SIGNATURE_MALFORMED');
    expect(body.error).toMatch(/several x-service-signature headers/);
  });

  it('never echoes the secret in an error', async () => {
    const req = signedRequest({ secret: 'whsec_other' });
    const res = await post(req.headers, req.body);
    expect(res.body).not.toContain(TEST_SECRET);
  });
});

describe('receiver: store failure', () => {
  it('answers 503 and acknowledges nothing when the store cannot write', async () => {
    const failing: DeliveryStore = {
      ...createMemoryStore(),
      accept: async () => {
        throw new StoreUnavailableError('SQLITE_FULL: database or disk is full');
      },
    };
    store = failing;
    app = build();
    const req = signedRequest();
    const res = await post(req.headers, req.body);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ success: false, code: 'STORE_UNAVAILABLE' });
    expect(seen[0]).toMatchObject({ outcome: 'unavailable', status: 503 });
  });
});

describe('receiver: the rest of the listener', () => {
  it('serves /healthz', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { status: 'ok' } });
  });

  it('answers 405 with Allow for other methods on the path', async () => {
    const res = await app.inject({ method: 'GET', url: '/webhooks' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers 404 in the error envelope elsewhere, and serves no console', async () => {
    for (const url of ['/', '/api/status', '/api/deliveries', '/index.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
  });
});
