/** The fault stage through inject(): where it sits, what it records, what it asks the store. */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import { FAULT_ERROR_CODE, FAULT_HEADER } from '../../src/core/faults/index.js';
import { createFaultRules, type FaultDecider } from '../../src/faults/rules-controller.js';
import { testReceiver } from '../helpers/test-receiver.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { AttemptRecord, DeliveryStore } from '../../src/store/store.js';
import { signedRequest, T0, TEST_SECRET } from '../helpers/signed-delivery.js';
import { rules } from './fault-helpers.js';

const NOW_MS = T0 * 1000 + 1500;

let store: DeliveryStore;
let hub: EventHub;
let app: FastifyInstance;
let seen: AttemptRecord[];

function build(faults: FaultDecider, storeOverride: DeliveryStore = store): FastifyInstance {
  app = testReceiver({
    path: '/webhooks',
    secrets: [TEST_SECRET],
    toleranceSeconds: 300,
    skipVerify: false,
    bodyLimitBytes: 4096,
    store: storeOverride,
    hub,
    clock: () => NOW_MS,
    faults,
    random: () => 0.5,
  });
  return app;
}

const withRules = (...lines: string[]) => build(createFaultRules({ rules: rules(...lines), seed: 1, hub }));

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  seen = [];
  hub.on('attempt', ({ attempt }) => seen.push(attempt));
});
afterEach(() => app?.close());

const post = (req: { headers: Record<string, string>; body: Buffer }, url = '/webhooks') => app.inject({ method: 'POST', url, headers: req.headers, payload: req.body });

describe('status answers', () => {
  it('sends the chosen status, headers in order, body and content-length, and names the fault', async () => {
    withRules("418 header=x-b:2 header=x-a:1 body='I am a teapot'");
    const res = await post(signedRequest());
    expect(res.statusCode).toBe(418);
    expect(res.body).toBe('I am a teapot');
    expect(res.headers['content-length']).toBe('13');
    const names = Object.keys(res.headers);
    expect(names.indexOf('x-b')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('x-b')).toBeLessThan(names.indexOf('x-a'));
    expect(res.headers[FAULT_HEADER]).toBe("fault:418 header=x-b:2 header=x-a:1 body='I am a teapot'");
  });

  it('gives a 4xx/5xx without a body the error envelope with code FAULT_INJECTED', async () => {
    withRules('503 retry-after=120');
    const res = await post(signedRequest());
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('120');
    expect(res.json()).toMatchObject({ success: false, code: FAULT_ERROR_CODE, details: { status: 503 } });
  });

  it('records the faulted attempt with the rule, status and Retry-After, and creates no dedupe entry', async () => {
    withRules('503 retry-after=120 times=1');
    const first = signedRequest({ attempt: 1 });
    expect((await post(first)).statusCode).toBe(503);
    expect(await store.getDelivery(first.id)).toBeUndefined();
    const retry = signedRequest({ id: first.id, attempt: 2, t: T0 + 1 });
    const res = await post(retry);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.duplicate).toBe(false);
    expect(seen.map((a) => [a.outcome, a.status, a.reason, a.retryAfter, a.attemptHeader, a.signatureTimestamp])).toEqual([
      ['faulted', 503, 'fault:503 retry-after=120 times=1', '120', 1, T0],
      ['accepted', 200, null, null, 2, T0 + 1],
    ]);
    const stored = await store.listAttempts({ deliveryId: first.id, limit: 10 });
    expect(stored.map((a) => a.outcome)).toEqual(['accepted', 'faulted']);
  });

  it('faults an arrival of a delivery already accepted (rules come before dedupe)', async () => {
    const req = signedRequest();
    withRules('500 attempt=2');
    expect((await post(req)).statusCode).toBe(200);
    expect((await post(signedRequest({ id: req.id, attempt: 2 }))).statusCode).toBe(500);
    expect(seen.map((a) => a.outcome)).toEqual(['accepted', 'faulted']);
  });
});

describe('stages', () => {
  it('decides ordinary rules after the signature and envelope checks', async () => {
    withRules('503');
    const unsigned = signedRequest();
    delete unsigned.headers['x-service-signature'];
    expect((await post(unsigned)).statusCode).toBe(400);
    const mismatched = signedRequest();
    mismatched.headers['x-service-delivery'] = 'another-id';
    expect((await post(mismatched)).json().code).toBe('DELIVERY_ID_MISMATCH');
    expect(seen.map((a) => a.outcome)).toEqual(['rejected', 'rejected']);
  });

  it('decides pre-verify rules before the signature check, with the header t on the record', async () => {
    withRules('401 pre-verify');
    const wrong = signedRequest({ secret: 'whsec_someone_else', t: T0 - 3 });
    expect((await post(wrong)).statusCode).toBe(401);
    expect(seen).toMatchObject([{ outcome: 'faulted', status: 401, signatureTimestamp: T0 - 3 }]);
  });

  it('consults the later rules only when no pre-verify rule fired', async () => {
    withRules('accept pre-verify times=1', '503');
    const first = signedRequest();
    expect((await post(first)).statusCode).toBe(200);
    expect((await post(signedRequest())).statusCode).toBe(503);
    expect(seen.map((a) => [a.outcome, a.reason])).toEqual([
      ['accepted', 'fault:accept times=1 pre-verify'],
      ['faulted', 'fault:503'],
    ]);
  });

  it('hands a delay on to normal handling, noting the rule on the accepted attempt', async () => {
    withRules('delay=5');
    expect((await post(signedRequest())).statusCode).toBe(200);
    expect(seen).toMatchObject([{ outcome: 'accepted', reason: 'fault:delay=5' }]);
  });
});

describe('hot path', () => {
  it('does no fault work at all when there are no rules', async () => {
    const decide = vi.fn();
    const read = vi.fn(() => false);
    const flags = () => ({ get any() { return read(); }, arrival: false });
    build({ stages: { pre: flags(), post: flags() }, decide });
    const countArrivals = vi.spyOn(store, 'countArrivals');
    expect((await post(signedRequest())).statusCode).toBe(200);
    expect(decide).not.toHaveBeenCalled();
    expect(read).toHaveBeenCalledTimes(2); // each stage asked once, and nothing more
    expect(countArrivals).not.toHaveBeenCalled();
  });

  it('asks the store for the arrival count only when a rule has arrival=, once per arrival', async () => {
    const countArrivals = vi.spyOn(store, 'countArrivals');
    withRules('503 attempt=9', '500 trigger=nothing');
    await post(signedRequest());
    expect(countArrivals).not.toHaveBeenCalled();
    await app.close();

    withRules('503 pre-verify arrival=9', '500 arrival=9');
    await post(signedRequest());
    expect(countArrivals).toHaveBeenCalledTimes(1);
  });

  it("counts arrivals whose records are not in the store yet (a hang's record comes late)", async () => {
    const lagging: DeliveryStore = { ...store, countArrivals: async () => 0 };
    build(createFaultRules({ rules: rules('503 arrival=1', '500 arrival=2'), seed: 1, hub }), lagging);
    const id = signedRequest().id;
    const statuses = [];
    for (const attempt of [1, 2, 3]) statuses.push((await post(signedRequest({ id, attempt }))).statusCode);
    expect(statuses).toEqual([503, 500, 200]);
  });
});

describe('redirect chains', () => {
  it('serves each hop at a relative Location under the receiver path, and handles the last normally', async () => {
    withRules('redirect hops=2');
    const req = signedRequest();
    const first = await post(req);
    expect(first.statusCode).toBe(307);
    const hop1 = first.headers.location as string;
    expect(hop1).toMatch(/^\/webhooks\/__hop\/1\/2-307-[a-z0-9]{10}$/);
    const second = await post(req, hop1);
    expect(second.statusCode).toBe(307);
    const hop2 = second.headers.location as string;
    expect(hop2).toBe(hop1.replace('/__hop/1/', '/__hop/2/'));
    const last = await post(req, hop2);
    expect(last.statusCode).toBe(200);
    expect(seen.map((a) => [a.outcome, a.status, a.reason])).toEqual([
      ['faulted', 307, 'fault:redirect hops=2'],
      ['faulted', 307, 'fault-hop:1/2'],
      ['accepted', 200, 'fault-hop:2/2'],
    ]);
  });

  it('joins the hop note and the uppercase-hex note on the record of the last hop', async () => {
    withRules('redirect hops=1');
    const req = signedRequest();
    req.headers['x-service-signature'] = req.headers['x-service-signature']!.replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
    const location = (await post(req)).headers.location as string;
    expect((await post(req, location)).statusCode).toBe(200);
    expect(seen.map((a) => [a.outcome, a.reason])).toEqual([
      ['faulted', 'fault:redirect hops=1'],
      ['accepted', 'fault-hop:1/1; non-canonical signature encoding: uppercase hex'],
    ]);
    const [stored] = await store.listAttempts({ deliveryId: req.id, limit: 1 });
    expect(stored!.reason).toBe('fault-hop:1/1; non-canonical signature encoding: uppercase hex');
  });

  it('still verifies the signature at the last hop', async () => {
    withRules('redirect hops=1');
    const req = signedRequest();
    const location = (await post(req)).headers.location as string;
    const tampered = { ...req, body: Buffer.from(req.body.toString().replace('ar_1', 'ar_2')) };
    expect((await post(tampered, location)).json().code).toBe('SIGNATURE_MISMATCH');
  });

  it('answers 404 to a path under __hop that is not a hop it serves', async () => {
    withRules('redirect hops=2');
    const res = await post(signedRequest(), '/webhooks/__hop/9/2-307-abc');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
    expect(seen).toEqual([]);
  });
});
