import { afterEach, describe, expect, it } from 'vitest';
import type { LookupFunction } from 'node:net';
import { verify } from '../../src/index.js';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { startTarget, type Target } from '../helpers/target-server.js';
import { startTestServer, type TestServer } from '../sender/helpers/test-server.js';
import { startEmulator, webhookBody, type Harness } from './helpers.js';

let h: Harness;
let targets: Target[] = [];
afterEach(async () => {
  await h?.close();
  await Promise.all(targets.map((t) => t.close()));
  targets = [];
});

async function target(answer: (index: number) => number): Promise<Target> {
  const t = await startTarget((_r, i) => answer(i));
  targets.push(t);
  return t;
}

async function createHook(endpoint: string, extra: Record<string, unknown> = {}) {
  const res = await h.api('POST', '/v1/webhooks', { body: webhookBody(endpoint, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { webhook: { id: string }; signingSecret?: string };
}

async function fire(extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await h.api('POST', '/v1/_emulator/events', { body: { type: 'control.drift_detected', ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.deliveries.map((d: { deliveryId: string }) => d.deliveryId);
}

const attemptOf = (deliveryId: string, n: number) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === deliveryId && e.attempt.attemptNumber === n;
const closedOf = (deliveryId: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === deliveryId && (e.delivery.status === 'succeeded' || e.delivery.status === 'failed');

async function deliveries(webhookId: string) {
  return (await h.api('GET', `/v1/webhooks/${webhookId}/deliveries`)).body.data as Array<Record<string, any>>;
}
async function webhook(id: string) {
  return (await h.api('GET', `/v1/webhooks/${id}`)).body.data as Record<string, any>;
}

const FAST = { retryPolicy: { initialDelaySeconds: 10, maxAttempts: 3 } };
// 3600 s × 0.001 = 3.6 s: long enough to act on a waiting retry.
const SLOW = { retryPolicy: { initialDelaySeconds: 3600, maxDelaySeconds: 3600, maxAttempts: 3 } };

describe('deliveries (spec 6.1, 6.3, 6.4) through the sender', () => {
  it('an event reaches the endpoint signed with the once-only secret, with the spec headers and the custom headers', async () => {
    h = await startEmulator();
    const t = await target(() => 204);
    const { webhook: w, signingSecret } = await createHook(t.url, { signingEnabled: true, customHeaders: [{ name: 'X-Api-Token', value: 'abc' }] });
    const [id] = await fire({ data: { controlId: '0b7a8b0e-7f0a-4a4e-9c55-3f3f1f0e2b11' } });
    await h.waitFor(closedOf(id!));
    const got = t.received[0]!;
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Service-Webhook/1',
      'x-service-event': 'control.drift_detected',
      'x-service-delivery': id,
      'x-service-delivery-attempt': '1',
      'x-service-api-version': '2026-06-01',
      'x-api-token': 'abc',
    });
    const body = JSON.parse(got.body.toString());
    expect(body).toMatchObject({ id, type: 'control.drift_detected', apiVersion: '2026-06-01', data: { controlId: '0b7a8b0e-7f0a-4a4e-9c55-3f3f1f0e2b11' } });
    expect(body.organizationId).toBe(h.app.keys.organizations[0]!.id);
    const verdict = verify(got.body, String(got.headers['x-service-signature']), { secrets: [signingSecret!], toleranceSeconds: 300 });
    expect(verify(got.body, String(got.headers['x-service-signature']), { secrets: ['whsec_another_secret_0000000000'], toleranceSeconds: 300 }).ok).toBe(false);
    expect(verdict.ok).toBe(true);
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ id, status: 'succeeded', attemptCount: 1, responseStatus: 204, isReplay: false, replayOfDeliveryId: null });
    expect(d!.attempts).toHaveLength(1);
    expect((await webhook(w.id)).lastSuccessAt).not.toBeNull();
  });

  it('retries with the same id and body and a fresh attempt number; attempts are listed oldest first', async () => {
    h = await startEmulator();
    const t = await target((i) => (i < 2 ? 503 : 200));
    const { webhook: w } = await createHook(t.url, FAST);
    const [id] = await fire();
    await h.waitFor(closedOf(id!));
    expect(t.received.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(t.received.map((r) => r.body.toString())).size).toBe(1);
    const [d] = await deliveries(w.id);
    expect(d!.status).toBe('succeeded');
    expect(d!.attempts.map((a: { attemptNumber: number; failureClass: string | null }) => [a.attemptNumber, a.failureClass])).toEqual([[1, 'http_5xx'], [2, 'http_5xx'], [3, null]]);
  });

  it('fire refuses an unknown trigger, data outside 6.2, and unknown fields (422); a trigger nobody subscribes to sends nothing', async () => {
    h = await startEmulator();
    for (const body of [{ type: 'nope' }, { type: 'control.drift_detected', data: { email: 'a@b.c' } }, { type: 'trustcenter.access_approved', data: { decidedBy: 'boss' } }, { type: 'control.drift_detected', extra: 1 }, { type: 'control.drift_detected', count: 0 }]) {
      const res = await h.api('POST', '/v1/_emulator/events', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const none = await h.api('POST', '/v1/_emulator/events', { body: { type: 'vendor.rating_dropped' } });
    expect(none.status).toBe(201);
    expect(none.body.data.deliveries).toEqual([]);
  });
});

describe('the webhook state table (spec 3)', () => {
  it('410 suspends the webhook at once and closes its waiting retries as webhook_inactive', async () => {
    h = await startEmulator();
    const t = await target((i) => (i === 0 ? 503 : 410));
    const { webhook: w } = await createHook(t.url, SLOW);
    const [first] = await fire();
    await h.waitFor(attemptOf(first!, 1));
    const [second] = await fire();
    await h.waitFor((e) => e.type === 'suspended');
    const hook = await webhook(w.id);
    expect(hook).toMatchObject({ status: 'suspended' });
    expect(hook.disabledReason).toContain('410');
    const list = await deliveries(w.id);
    expect(list.find((d) => d.id === second)).toMatchObject({ status: 'failed', lastFailureClass: 'http_410', attemptCount: 1 });
    expect(list.find((d) => d.id === first)).toMatchObject({ status: 'failed', lastFailureClass: 'webhook_inactive', nextAttemptAt: null, attemptCount: 1 });
    // Suspended sends nothing: a new event makes no delivery.
    expect(await fire()).toEqual([]);
  });

  it('with disableOnGone false a 410 fails the delivery and leaves the webhook active', async () => {
    h = await startEmulator();
    const t = await target(() => 410);
    const { webhook: w } = await createHook(t.url, { failureHandling: { disableOnGone: false } });
    const [id] = await fire();
    await h.waitFor(closedOf(id!));
    expect(await webhook(w.id)).toMatchObject({ status: 'active', consecutiveFailures: 1 });
  });

  it('autoDisableAfter consecutive failed deliveries suspend; a success resets the count; PATCH active clears the bookkeeping', async () => {
    h = await startEmulator();
    let answer = 500;
    const t = await target(() => answer);
    const { webhook: w } = await createHook(t.url, { retryPolicy: { maxAttempts: 2, initialDelaySeconds: 10 }, failureHandling: { autoDisableAfter: 2 } });
    const [a] = await fire();
    await h.waitFor(closedOf(a!));
    expect(await webhook(w.id)).toMatchObject({ status: 'active', consecutiveFailures: 1 });
    answer = 200;
    const [b] = await fire();
    await h.waitFor(closedOf(b!));
    expect((await webhook(w.id)).consecutiveFailures).toBe(0);
    answer = 500;
    const [c] = await fire();
    await h.waitFor(closedOf(c!));
    const [d] = await fire();
    await h.waitFor(closedOf(d!));
    const suspended = await webhook(w.id);
    expect(suspended).toMatchObject({ status: 'suspended', consecutiveFailures: 2 });
    // A delivery failing after two attempts counted once each: 4 attempts, 2 failures.
    expect(t.received.length).toBe(2 + 1 + 2 + 2);
    const patched = await h.api('PATCH', `/v1/webhooks/${w.id}`, { body: { status: 'active' } });
    expect(patched.body.data).toMatchObject({ status: 'active', consecutiveFailures: 0, disabledReason: null });
    answer = 200;
    const [e] = await fire();
    await h.waitFor(closedOf(e!));
    expect((await deliveries(w.id))[0]).toMatchObject({ id: e, status: 'succeeded' });
  });

  it('PATCH status disabled closes waiting retries as webhook_inactive; nothing more is sent', async () => {
    h = await startEmulator();
    const t = await target(() => 503);
    const { webhook: w } = await createHook(t.url, SLOW);
    const [id] = await fire();
    await h.waitFor(attemptOf(id!, 1));
    const res = await h.api('PATCH', `/v1/webhooks/${w.id}`, { body: { status: 'disabled' } });
    expect(res.body.data.status).toBe('disabled');
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'failed', lastFailureClass: 'webhook_inactive', nextAttemptAt: null });
    expect(await fire()).toEqual([]);
    expect(t.received).toHaveLength(1);
    // Re-enabling does not reopen closed deliveries.
    await h.api('PATCH', `/v1/webhooks/${w.id}`, { body: { status: 'active' } });
    expect((await deliveries(w.id))[0]!.status).toBe('failed');
  });

  it('a PATCHed endpoint receives the waiting retry', async () => {
    h = await startEmulator();
    const old = await target(() => 503);
    const fresh = await target(() => 200);
    const { webhook: w } = await createHook(old.url, { retryPolicy: { initialDelaySeconds: 600, maxDelaySeconds: 600 } });
    const [id] = await fire();
    await h.waitFor(attemptOf(id!, 1));
    await h.api('PATCH', `/v1/webhooks/${w.id}`, { body: { endpoint: fresh.url } });
    await h.waitFor(closedOf(id!));
    expect(old.received).toHaveLength(1);
    expect(fresh.received.map((r) => [r.headers['x-service-delivery'], r.headers['x-service-delivery-attempt']])).toEqual([[id, '2']]);
  });
});

describe('GET /webhooks/{id}/deliveries (spec 4.1) and replay', () => {
  it('newest first, signed cursors to the end; a tampered or foreign cursor is 400 INVALID_CURSOR; page is 400', async () => {
    h = await startEmulator();
    const t = await target(() => 200);
    const { webhook: w } = await createHook(t.url);
    const { webhook: other } = await createHook(t.url);
    const ids = await fire({ count: 5 });
    for (const id of ids) await h.waitFor(closedOf(id));
    const mine = (await deliveries(w.id)).map((d) => d.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await h.api('GET', `/v1/webhooks/${w.id}/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.cursor.limit).toBe(2);
      seen.push(...res.body.data.map((d: { id: string }) => d.id));
      cursor = res.body.cursor.nextCursor;
      expect(res.body.cursor.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(mine);
    expect(seen).toHaveLength(5);
    const first = await h.api('GET', `/v1/webhooks/${w.id}/deliveries?limit=2`);
    const good: string = first.body.cursor.nextCursor;
    const flipped = good.slice(0, 3) + (good[3] === 'A' ? 'B' : 'A') + good.slice(4);
    for (const bad of [flipped, `${good}x`, 'abc', good.split('.')[0]!, '']) {
      const res = await h.api('GET', `/v1/webhooks/${w.id}/deliveries?cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('INVALID_CURSOR');
    }
    const foreign = await h.api('GET', `/v1/webhooks/${other.id}/deliveries?cursor=${encodeURIComponent(good)}`);
    expect(foreign.body.code).toBe('INVALID_CURSOR');
    const page = await h.api('GET', `/v1/webhooks/${w.id}/deliveries?page=1`);
    expect(page.status).toBe(400);
    expect(page.body.code).toBe('BAD_REQUEST');
    for (const limit of ['0', '101', 'x']) expect((await h.api('GET', `/v1/webhooks/${w.id}/deliveries?limit=${limit}`)).status).toBe(400);
    expect((await h.api('GET', `/v1/webhooks/${w.id}/deliveries?limit=100`)).status).toBe(200);
  });

  it('replay creates a new delivery with isReplay and replayOfDeliveryId, and sends it', async () => {
    h = await startEmulator();
    const t = await target((i) => (i === 0 ? 404 : 200));
    const { webhook: w } = await createHook(t.url);
    const [id] = await fire();
    await h.waitFor(closedOf(id!));
    const res = await h.api('POST', `/v1/webhooks/${w.id}/deliveries/${id}/replay`);
    expect(res.status).toBe(201);
    const replay = res.body.data;
    expect(replay).toMatchObject({ isReplay: true, replayOfDeliveryId: id, status: 'pending', trigger: 'control.drift_detected' });
    expect(replay.id).not.toBe(id);
    await h.waitFor(closedOf(replay.id));
    expect(t.received[1]!.headers['x-service-delivery']).toBe(replay.id);
    expect(JSON.parse(t.received[1]!.body.toString()).data).toEqual(JSON.parse(t.received[0]!.body.toString()).data);
    expect((await deliveries(w.id))[0]).toMatchObject({ id: replay.id, status: 'succeeded', isReplay: true });
    expect((await h.api('POST', `/v1/webhooks/${w.id}/deliveries/${replay.id}/replay`, { key: h.keys.bFull })).status).toBe(404);
    expect((await h.api('POST', `/v1/webhooks/${w.id}/deliveries/00000000-0000-4000-8000-000000000000/replay`)).status).toBe(404);
    expect((await h.api('POST', `/v1/webhooks/${w.id}/deliveries/${id}/replay`, { body: { to: 'x' } })).status).toBe(422);
  });
});

describe('endpoint rules (SSRF)', () => {
  const fakeLookup = (table: Map<string, string>): LookupFunction =>
    ((host: string, options: { all?: boolean }, cb: (err: Error | null, address: unknown, family?: number) => void) => {
      const address = table.get(host);
      if (address === undefined) return cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), undefined);
      const family = address.includes(':') ? 6 : 4;
      return options.all ? cb(null, [{ address, family }]) : cb(null, address, family);
    }) as unknown as LookupFunction;

  const table = new Map([
    ['public.example.test', '93.184.216.34'],
    ['private.example.test', '10.1.2.3'],
    ['metadata.example.test', '169.254.169.254'],
    ['v6ula.example.test', 'fd00::1'],
    ['loop.example.test', '127.0.0.1'],
  ]);

  it.each<[string, 'strict' | 'loopback', boolean]>([
    ['https://public.example.test/hook', 'strict', true],
    ['http://public.example.test/hook', 'strict', false],
    ['https://private.example.test/hook', 'strict', false],
    ['https://metadata.example.test/hook', 'strict', false],
    ['https://v6ula.example.test/hook', 'strict', false],
    ['https://loop.example.test/hook', 'strict', false],
    ['https://127.0.0.1/hook', 'strict', false],
    ['http://127.0.0.1:4000/webhooks', 'strict', false],
    ['https://localhost/hook', 'strict', false],
    ['https://[::1]/hook', 'strict', false],
    ['https://10.0.0.1/hook', 'strict', false],
    ['https://172.16.0.1/hook', 'strict', false],
    ['https://192.168.1.1/hook', 'strict', false],
    ['https://169.254.169.254/latest/meta-data', 'strict', false],
    ['https://[fd00::1]/hook', 'strict', false],
    ['https://[fe80::1]/hook', 'strict', false],
    ['https://[::ffff:127.0.0.1]/hook', 'strict', false],
    ['https://93.184.216.34/hook', 'strict', true],
    ['https://[2606:4700::1111]/hook', 'strict', true],
    ['http://127.0.0.1:4000/webhooks', 'loopback', true],
    ['http://127.8.9.10:4000/webhooks', 'loopback', true],
    ['http://[::1]:4000/webhooks', 'loopback', true],
    ['http://localhost:4000/webhooks', 'loopback', true],
    ['https://localhost/hook', 'loopback', true],
    ['http://public.example.test/hook', 'loopback', false],
    ['https://169.254.169.254/hook', 'loopback', false],
    ['https://[fd00::1]/hook', 'loopback', false],
    ['https://private.example.test/hook', 'loopback', false],
    ['ftp://public.example.test/hook', 'loopback', false],
    ['https://user:pw@public.example.test/hook', 'loopback', false],
  ])('%s under --ssrf %s: allowed %s (create and PATCH)', async (endpoint, ssrf, allowed) => {
    h = await startEmulator({ ssrf }, { lookup: fakeLookup(table) });
    const res = await h.api('POST', '/v1/webhooks', { body: webhookBody(endpoint) });
    expect(res.status, JSON.stringify(res.body)).toBe(allowed ? 201 : 422);
    if (!allowed) expect(res.body.details[0].field).toBe('endpoint');
    const base = await h.api('POST', '/v1/webhooks', { body: webhookBody(ssrf === 'strict' ? 'https://public.example.test/x' : 'http://127.0.0.1:9/x') });
    const patched = await h.api('PATCH', `/v1/webhooks/${base.body.data.webhook.id}`, { body: { endpoint } });
    expect(patched.status).toBe(allowed ? 200 : 422);
  });

  it('every attempt resolves again: a name that now resolves to a refused address fails as blocked, never retried', async () => {
    const rebinding = new Map(table);
    h = await startEmulator({ ssrf: 'strict' }, { lookup: fakeLookup(rebinding) });
    const { webhook: w } = await createHook('https://rebind.example.test/hook'.replace('rebind', 'public'));
    rebinding.set('public.example.test', '169.254.169.254');
    const [id] = await fire();
    await h.waitFor(closedOf(id!));
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'failed', lastFailureClass: 'blocked', attemptCount: 1 });
  });
});

describe('redirect hops (spec 6.4) keep the custom headers to the endpoint\'s origin', () => {
  let servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });

  it('a 307 to another port gets the signed delivery without the custom headers', async () => {
    h = await startEmulator();
    const b = await startTestServer(() => ({ status: 204 }));
    const a = await startTestServer((arrival) => (arrival.path === '/hook' ? { status: 307, headers: { location: '/same' } } : { status: 307, headers: { location: b.url('/moved') } }));
    servers.push(a, b);
    const { signingSecret } = await createHook(a.url('/hook'), { signingEnabled: true, customHeaders: [{ name: 'X-Api-Token', value: 'tok_secret' }] });
    const [id] = await fire();
    const closed = await h.waitFor(closedOf(id!));
    expect(closed.type === 'attempt' && closed.delivery.status).toBe('succeeded');
    // The same origin keeps them; another port is another origin.
    expect(a.arrivals.map((x) => x.headers['x-api-token'])).toEqual(['tok_secret', 'tok_secret']);
    const moved = b.arrivals[0]!;
    expect(moved.headers['x-api-token']).toBeUndefined();
    expect(moved.headers['x-service-delivery']).toBe(id);
    expect(verify(moved.body, String(moved.headers['x-service-signature']), { secrets: [signingSecret!], toleranceSeconds: 300 }).ok).toBe(true);
  });
});
