/**
 * A rejected or faulted attempt keeps what was sent (headers and raw body, bounded by --body-limit),
 * and a rejection keeps `hookrelay verify`'s hints on it (issue 13, item 8). The announced record
 * leaves the request out, as every list of attempts does.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { createFaultRules } from '../../src/faults/rules-controller.js';
import { MAX_KEPT_REFUSED_BODY } from '../../src/ingest/store-step.js';
import { testReceiver } from '../helpers/test-receiver.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { AttemptRecord, DeliveryStore } from '../../src/store/store.js';
import { envelopeBody, signedRequest, T0, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rules } from './fault-helpers.js';

const NOW_MS = T0 * 1000 + 1500;
const BODY_LIMIT = 4096;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const stores: Array<[string, () => Promise<DeliveryStore>]> = [
  ['memory', async () => createMemoryStore()],
  [
    'sqlite',
    async () => {
      const dir = tempDir();
      cleanups.push(dir.remove);
      const store = await createSqliteStore(join(dir.dir, 'kept.db'));
      cleanups.push(() => store.close());
      return store;
    },
  ],
];

describe.each(stores)('rejected and faulted attempts keep their request (%s store)', (_name, openStore) => {
  async function receiver(faultLines: string[] = [], bodyLimitBytes = BODY_LIMIT): Promise<{ app: FastifyInstance; store: DeliveryStore; announced: AttemptRecord[] }> {
    const store = await openStore();
    const hub = createEventHub();
    const announced: AttemptRecord[] = [];
    hub.on('attempt', ({ attempt }) => announced.push(attempt));
    const app = testReceiver({
      path: '/webhooks', secrets: [TEST_SECRET], toleranceSeconds: 300, skipVerify: false, bodyLimitBytes, store, hub, clock: () => NOW_MS,
      ...(faultLines.length > 0 ? { faults: createFaultRules({ rules: rules(...faultLines), seed: 1, hub }) } : {}),
    });
    cleanups.push(() => app.close());
    return { app, store, announced };
  }
  const kept = async (store: DeliveryStore, id: string) => (await store.listAttempts({ deliveryId: id, limit: 10, withRequest: true }))[0]!;

  it('a wrong-secret delivery keeps every header and the body byte for byte, with the hint beside its code', async () => {
    const { app, store, announced } = await receiver();
    // The sender's copy of the secret has a trailing newline; the body has a BOM and invalid UTF-8.
    const id = 'wrong-secret-1';
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), envelopeBody(id).subarray(0, -1), Buffer.from(',"x":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const req = signedRequest({ id, secret: `${TEST_SECRET}\n`, body });
    const res = await app.inject({ method: 'POST', url: '/webhooks', headers: { ...req.headers, 'x-odd': 'a: b' }, payload: req.body });
    expect(res.json()).toMatchObject({ code: 'SIGNATURE_MISMATCH' });
    expect(res.headers['x-hookrelay-error']).toBe('SIGNATURE_MISMATCH');

    const attempt = await kept(store, id);
    expect(attempt).toMatchObject({ outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' });
    expect(attempt.hints).toEqual([expect.stringMatching(/^the signature matches secret #1 with a trailing newline added/)]);
    expect(Buffer.from(attempt.request!.body!).equals(body)).toBe(true);
    const headers = Object.fromEntries(attempt.request!.headers);
    expect(headers).toMatchObject({ ...req.headers, 'x-odd': 'a: b' });
    // The announcement carries the hints, never the request.
    expect(announced).toHaveLength(1);
    expect('request' in announced[0]!).toBe(false);
    expect(announced[0]!.hints).toEqual(attempt.hints);
  });

  it.each([
    ['a clock skew of N s', { t: T0 - 400 }, 'TIMESTAMP_TOO_OLD', /^clock skew: t is 401\.5 s behind this receiver's clock \(tolerance 300 s both ways\)/],
    ['a re-serialised body', { pretty: true }, 'SIGNATURE_MISMATCH', /^the body was changed after signing: it matches the body re-serialised with JSON\.stringify/],
  ])('names %s beside the code', async (_label, options, code, hint) => {
    const { app, store } = await receiver();
    const id = `hint-${code}`;
    const compact = envelopeBody(id);
    const signed = signedRequest({ id, body: compact, t: 't' in options ? options.t : T0 });
    const sent = 'pretty' in options ? Buffer.from(JSON.stringify(JSON.parse(compact.toString()), null, 2)) : compact;
    await app.inject({ method: 'POST', url: '/webhooks', headers: signed.headers, payload: sent });
    const attempt = await kept(store, id);
    expect(attempt.reason).toBe(code);
    expect(attempt.hints![0]).toMatch(hint);
  });

  it('an envelope that disagrees with the headers names the missing header', async () => {
    const { app, store } = await receiver();
    const req = signedRequest({ id: 'no-delivery-header' });
    const { 'x-service-delivery': _dropped, ...headers } = req.headers;
    await app.inject({ method: 'POST', url: '/webhooks', headers, payload: req.body });
    const [attempt] = await store.listAttempts({ outcomes: ['rejected'], limit: 1, withRequest: true });
    expect(attempt!.reason).toBe('DELIVERY_ID_MISMATCH');
    expect(attempt!.hints).toEqual(['the request has no x-service-delivery header: the service sends x-service-delivery, x-service-event, x-service-delivery-attempt and x-service-signature with every delivery']);
    expect(Buffer.from(attempt!.request!.body!).equals(req.body)).toBe(true);
  });

  it('is bounded by --body-limit: a body at the limit is kept whole, one over it is never read (headers only)', async () => {
    const { app, store } = await receiver();
    const atLimit = Buffer.alloc(BODY_LIMIT, 0x61);
    const over = Buffer.alloc(BODY_LIMIT + 1, 0x62);
    for (const [id, body] of [['at-limit', atLimit], ['over-limit', over]] as const) {
      await app.inject({ method: 'POST', url: '/webhooks', headers: { 'content-type': 'application/json', 'x-service-delivery': id, 'x-service-signature': sign(TEST_SECRET, Buffer.from('other'), T0) }, payload: body });
    }
    const whole = await kept(store, 'at-limit');
    expect(whole.reason).toBe('SIGNATURE_MISMATCH');
    expect(Buffer.from(whole.request!.body!).equals(atLimit)).toBe(true);
    const refused = await kept(store, 'over-limit');
    expect(refused).toMatchObject({ reason: 'PAYLOAD_TOO_LARGE', status: 413, bodyBytes: BODY_LIMIT + 1 });
    expect(refused.request!.body).toBeNull();
    expect(Object.fromEntries(refused.request!.headers)).toMatchObject({ 'x-service-delivery': 'over-limit' });
    expect(refused.hints).toEqual([`the body is ${BODY_LIMIT + 1} bytes, over the receiver's --body-limit of ${BODY_LIMIT} bytes`]);
  });

  it('keeps only the first 64 KiB of a refused body: strangers cannot fill the disk with refused requests', async () => {
    const { app, store } = await receiver([], 1 << 20);
    const big = Buffer.alloc(MAX_KEPT_REFUSED_BODY * 3, 0x63);
    await app.inject({ method: 'POST', url: '/webhooks', headers: { 'content-type': 'application/json', 'x-service-delivery': 'big-refused', 'x-service-signature': sign(TEST_SECRET, Buffer.from('other'), T0) }, payload: big });
    const refused = await kept(store, 'big-refused');
    expect(refused).toMatchObject({ reason: 'SIGNATURE_MISMATCH', bodyBytes: big.length });
    expect(Buffer.from(refused.request!.body!).equals(big.subarray(0, MAX_KEPT_REFUSED_BODY))).toBe(true);
  });

  it('a faulted attempt keeps its request; the accepted retry keeps none of its own (its delivery holds it)', async () => {
    const { app, store } = await receiver(['503 retry-after=120 attempt=1']);
    const first = signedRequest({ id: 'faulted-1', attempt: 1 });
    expect((await app.inject({ method: 'POST', url: '/webhooks', headers: first.headers, payload: first.body })).statusCode).toBe(503);
    const retry = signedRequest({ id: 'faulted-1', attempt: 2 });
    expect((await app.inject({ method: 'POST', url: '/webhooks', headers: retry.headers, payload: retry.body })).statusCode).toBe(200);
    const [accepted, faulted] = await store.listAttempts({ deliveryId: 'faulted-1', limit: 10, withRequest: true });
    expect(faulted).toMatchObject({ outcome: 'faulted', status: 503 });
    expect(Object.fromEntries(faulted!.request!.headers)).toMatchObject({ 'x-service-delivery-attempt': '1' });
    expect(Buffer.from(faulted!.request!.body!).equals(first.body)).toBe(true);
    expect(faulted!.hints).toBeUndefined();
    expect(accepted).toMatchObject({ outcome: 'accepted', request: null });
  });
});
