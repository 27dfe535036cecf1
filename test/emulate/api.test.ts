import { readFileSync, existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { key } from '../../src/emulator/routes-webhooks.js';
import { startEmulator, webhookBody, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const ENDPOINT = 'http://127.0.0.1:9/hook';

async function create(extra: Record<string, unknown> = {}, key?: string) {
  return h.api('POST', '/v1/webhooks', { body: webhookBody(ENDPOINT, extra), ...(key ? { key } : {}) });
}

describe('authentication and scopes (spec 5)', () => {
  it('401 without a key, with a malformed header and with an unknown key; the key is never echoed', async () => {
    h = await startEmulator();
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer hrk_not-a-key-at-all' }] as Array<Record<string, string>>) {
      const res = await h.api('GET', '/v1/webhooks', { key: null, headers });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expect(res.body.requestId).toMatch(/^req_/);
      expect(JSON.stringify(res.body)).not.toContain('not-a-key');
    }
  });

  it('a read-only key reads but gets 403 FORBIDDEN on every write', async () => {
    h = await startEmulator();
    const id = (await create()).body.data.webhook.id;
    expect((await h.api('GET', '/v1/webhooks', { key: h.keys.aRead })).status).toBe(200);
    expect((await h.api('GET', `/v1/webhooks/${id}`, { key: h.keys.aRead })).status).toBe(200);
    expect((await h.api('GET', '/v1/webhooks/triggers', { key: h.keys.aRead })).status).toBe(200);
    expect((await h.api('GET', `/v1/webhooks/${id}/deliveries`, { key: h.keys.aRead })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/v1/webhooks', webhookBody(ENDPOINT)],
      ['PATCH', `/v1/webhooks/${id}`, { name: 'x' }],
      ['DELETE', `/v1/webhooks/${id}`, undefined],
      ['POST', '/v1/_emulator/events', { type: 'control.drift_detected' }],
    ] as const) {
      const res = await h.api(method, path, { key: h.keys.aRead, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });

  it("another organization's webhook answers 404, never 403 (spec 1.1)", async () => {
    h = await startEmulator();
    const id = (await create()).body.data.webhook.id;
    for (const [method, path] of [['GET', `/v1/webhooks/${id}`], ['PATCH', `/v1/webhooks/${id}`], ['DELETE', `/v1/webhooks/${id}`], ['GET', `/v1/webhooks/${id}/deliveries`]] as const) {
      const res = await h.api(method, path, { key: h.keys.bFull, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await h.api('GET', '/v1/webhooks', { key: h.keys.bFull })).body.data).toEqual([]);
  });

  it.each([
    ['GET', '/%76%31/webhooks', '/v1/webhooks', undefined],
    ['GET', '/%76%31/webhooks/triggers', '/v1/webhooks/triggers', undefined],
    ['GET', '/v1/%77ebhooks', '/v1/webhooks', undefined],
    ['POST', '/%76%31/_emulator/events', '/v1/_emulator/events', { type: 'control.drift_detected' }],
    ['POST', '/v1/%5Femulator/events', '/v1/_emulator/events', { type: 'control.drift_detected' }],
  ] as const)('a percent-encoded path is authenticated like the plain one: %s %s', async (method, encoded, plain, body) => {
    h = await startEmulator();
    const opts = body === undefined ? {} : { body };
    const keyless = await h.api(method, encoded, { key: null, ...opts });
    expect(keyless.status).toBe(401);
    expect(keyless.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    const withKey = await h.api(method, encoded, opts);
    const plainAnswer = await h.api(method, plain, opts);
    expect(withKey.status).toBe(plainAnswer.status);
    expect(withKey.status).toBeLessThan(300);
    expect(Object.keys(withKey.body.data)).toEqual(Object.keys(plainAnswer.body.data));
  });

  it('a percent-encoded path spends the rate-limit budget (spec 8)', async () => {
    h = await startEmulator({ rateLimitScale: 1 });
    const res = await h.api('GET', '/%76%31/webhooks');
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.headers['ratelimit-remaining']).toBe('299');
  });

  it('key() answers 401, never a TypeError, when no key was authenticated', () => {
    expect(() => key({ apiKey: null } as FastifyRequest)).toThrow(expect.objectContaining({ status: 401, code: 'UNAUTHORIZED' }));
  });

  it('an unknown path is 404 NOT_FOUND in the error envelope', async () => {
    h = await startEmulator();
    const res = await h.api('GET', '/v1/vendors');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect(typeof res.body.timestamp).toBe('string');
  });
});

describe('the trigger catalogue (spec 2.11, 6.2)', () => {
  it.each([
    ['core', false],
    ['premium', true],
  ] as const)('on --plan %s the Trust Center triggers are entitled: %s', async (plan, entitled) => {
    h = await startEmulator({ plan });
    const res = await h.api('GET', '/v1/webhooks/triggers');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(7);
    for (const entry of res.body.data) {
      expect(Object.keys(entry).sort()).toEqual(['description', 'entitled', 'status', 'tier', 'trigger']);
      expect(entry.entitled).toBe(entry.tier === 'core' ? true : entitled);
    }
    expect(res.body.data.filter((e: { tier: string }) => e.tier === 'premium').map((e: { trigger: string }) => e.trigger)).toEqual([
      'trustcenter.access_requested', 'trustcenter.access_approved', 'trustcenter.access_rejected', 'trustcenter.resource_downloaded',
    ]);
  });
});

describe('POST /webhooks (spec 4.3)', () => {
  it('returns the signing secret once; reads show only its hint; omitted policy fields take the defaults of 6.4', async () => {
    h = await startEmulator();
    const res = await create({ signingEnabled: true, retryPolicy: { maxAttempts: 3 }, customHeaders: [{ name: 'X-Api-Token', value: 'tok_0123456789abcdefXYZW' }] });
    expect(res.status).toBe(201);
    const { webhook, signingSecret } = res.body.data;
    expect(signingSecret).toMatch(/^whsec_/);
    expect(webhook).toMatchObject({
      status: 'active',
      apiVersion: '2026-06-01',
      consecutiveFailures: 0,
      retryPolicy: { enabled: true, maxAttempts: 3, backoff: 'exponential', initialDelaySeconds: 60, maxDelaySeconds: 21600, retryOn: ['timeout', 'network', 'http_408', 'http_429', 'http_5xx'] },
      failureHandling: { autoDisableAfter: 15, disableOnGone: true },
      signing: { enabled: true, secretHint: `whsec_…${signingSecret.slice(-4)}` },
      customHeaders: [{ name: 'X-Api-Token', valueHint: '…XYZW' }],
    });
    const read = await h.api('GET', `/v1/webhooks/${webhook.id}`);
    const list = await h.api('GET', '/v1/webhooks');
    const patched = await h.api('PATCH', `/v1/webhooks/${webhook.id}`, { body: { name: 'renamed' } });
    for (const text of [JSON.stringify(read.body), JSON.stringify(list.body), JSON.stringify(patched.body)]) {
      expect(text).not.toContain(signingSecret);
      expect(text).not.toContain('signingSecret');
      expect(text).not.toContain('tok_0123456789abcdefXYZW');
    }
    expect(read.body.data.signing.secretHint).toBe(webhook.signing.secretHint);
  });

  it('without signingEnabled there is no secret and no hint', async () => {
    h = await startEmulator();
    const res = await create();
    expect(res.body.data.signingSecret).toBeUndefined();
    expect(res.body.data.webhook.signing).toEqual({ enabled: false, secretHint: null });
  });

  it('recreating a webhook mints a new secret', async () => {
    h = await startEmulator();
    const first = await create({ signingEnabled: true });
    await h.api('DELETE', `/v1/webhooks/${first.body.data.webhook.id}`);
    const second = await create({ signingEnabled: true });
    expect(second.body.data.signingSecret).not.toBe(first.body.data.signingSecret);
  });

  it('an unknown trigger is 422 naming triggers, a premium one on core is 403; nothing is created (no subset)', async () => {
    h = await startEmulator();
    const unknown = await create({ triggers: ['control.drift_detected', 'vendor.created'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('VALIDATION_ERROR');
    expect(unknown.body.details.map((d: { field: string }) => d.field)).toContain('triggers');
    const premium = await create({ triggers: ['control.drift_detected', 'trustcenter.access_approved'] });
    expect(premium.status).toBe(403);
    expect(premium.body.code).toBe('FORBIDDEN');
    expect((await h.api('GET', '/v1/webhooks')).body.pagination.total).toBe(0);
  });

  it('a premium trigger is accepted on --plan premium', async () => {
    h = await startEmulator({ plan: 'premium' });
    expect((await create({ triggers: ['trustcenter.access_approved'] })).status).toBe(201);
  });

  it('over --webhook-cap is 409', async () => {
    h = await startEmulator({ webhookCap: 2 });
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(201);
    const third = await create();
    expect(third.status).toBe(409);
    expect(third.body.success).toBe(false);
    // The cap is per organization.
    expect((await create({}, h.keys.bFull)).status).toBe(201);
  });

  it.each([
    ['status', { status: 'active' }],
    ['secret', { secret: 'x' }],
    ['retryPolicy.jitter', { retryPolicy: { jitter: 0.1 } }],
    ['customHeaders[0].extra', { customHeaders: [{ name: 'X-A', value: 'b', extra: 1 }] }],
  ])('an unknown field is 422 naming %s', async (field, extra) => {
    h = await startEmulator();
    const res = await create(extra);
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each([
    ['name', 'name'],
    ['triggers', 'triggers'],
    ['endpoint', 'endpoint'],
  ])('a missing %s is 422 naming it', async (field) => {
    h = await startEmulator();
    const body: Record<string, unknown> = webhookBody(ENDPOINT);
    delete body[field];
    const res = await h.api('POST', '/v1/webhooks', { body });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('bad JSON is 400 BAD_REQUEST, another content type 415, never a 5xx', async () => {
    h = await startEmulator();
    const bad = await h.api('POST', '/v1/webhooks', { raw: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_REQUEST');
    const text = await h.api('POST', '/v1/webhooks', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(text.status).toBe(415);
    for (const raw of ['null', '[]', '"x"', '12']) {
      const res = await h.api('POST', '/v1/webhooks', { raw, headers: { 'content-type': 'application/json' } });
      expect(res.status, raw).toBe(422);
    }
    const empty = await h.api('POST', '/v1/webhooks', { headers: { 'content-type': 'application/json' }, raw: '' });
    expect(empty.status).toBe(422);
  });
});

describe('bounds of 4.3 and section 8, at the limit and one beyond', () => {
  const s = (n: number) => 'a'.repeat(n);
  const headers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `X-H${i}`, value: 'v' }));
  const allTriggers = ['control.drift_detected', 'vendor.rating_dropped', 'sod.violation_detected'];
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ['name 1..120', { name: s(120) }, { name: s(121) }, 'name'],
    ['name not empty', { name: s(1) }, { name: '' }, 'name'],
    ['triggers at least 1', { triggers: allTriggers }, { triggers: [] }, 'triggers'],
    ['triggers at most 50', { triggers: allTriggers }, { triggers: Array.from({ length: 51 }, () => 'control.drift_detected') }, 'triggers'],
    ['endpoint at most 2048', { endpoint: `http://127.0.0.1:9/${s(2048 - 'http://127.0.0.1:9/'.length)}` }, { endpoint: `http://127.0.0.1:9/${s(2049 - 'http://127.0.0.1:9/'.length)}` }, 'endpoint'],
    ['customHeaders at most 20', { customHeaders: headers(20) }, { customHeaders: headers(21) }, 'customHeaders'],
    ['header name 1..128', { customHeaders: [{ name: `X-${s(126)}`, value: 'v' }] }, { customHeaders: [{ name: `X-${s(127)}`, value: 'v' }] }, 'customHeaders[0].name'],
    ['header value at most 4096', { customHeaders: [{ name: 'X-A', value: s(4096) }] }, { customHeaders: [{ name: 'X-A', value: s(4097) }] }, 'customHeaders[0].value'],
    ['maxAttempts 1..10 (high)', { retryPolicy: { maxAttempts: 10 } }, { retryPolicy: { maxAttempts: 11 } }, 'retryPolicy.maxAttempts'],
    ['maxAttempts 1..10 (low)', { retryPolicy: { maxAttempts: 1 } }, { retryPolicy: { maxAttempts: 0 } }, 'retryPolicy.maxAttempts'],
    ['initialDelaySeconds 10..3600 (low)', { retryPolicy: { initialDelaySeconds: 10 } }, { retryPolicy: { initialDelaySeconds: 9 } }, 'retryPolicy.initialDelaySeconds'],
    ['initialDelaySeconds 10..3600 (high)', { retryPolicy: { initialDelaySeconds: 3600 } }, { retryPolicy: { initialDelaySeconds: 3601 } }, 'retryPolicy.initialDelaySeconds'],
    ['maxDelaySeconds 60..86400 (low)', { retryPolicy: { maxDelaySeconds: 60 } }, { retryPolicy: { maxDelaySeconds: 59 } }, 'retryPolicy.maxDelaySeconds'],
    ['maxDelaySeconds 60..86400 (high)', { retryPolicy: { maxDelaySeconds: 86400 } }, { retryPolicy: { maxDelaySeconds: 86401 } }, 'retryPolicy.maxDelaySeconds'],
    ['retryOn at most 6', { retryPolicy: { retryOn: ['timeout', 'network', 'http_408', 'http_429', 'http_5xx', 'http_4xx'] } }, { retryPolicy: { retryOn: ['timeout', 'network', 'http_408', 'http_429', 'http_5xx', 'http_4xx', 'timeout'] } }, 'retryPolicy.retryOn'],
    ['autoDisableAfter 1..100 (high)', { failureHandling: { autoDisableAfter: 100 } }, { failureHandling: { autoDisableAfter: 101 } }, 'failureHandling.autoDisableAfter'],
    ['autoDisableAfter 1..100 (low)', { failureHandling: { autoDisableAfter: 1 } }, { failureHandling: { autoDisableAfter: 0 } }, 'failureHandling.autoDisableAfter'],
  ])('%s: on create and on PATCH', async (_name, atLimit, beyond, field) => {
    h = await startEmulator();
    const ok = await create(atLimit);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
    const refused = await create(beyond);
    expect(refused.status).toBe(422);
    expect(refused.body.details.map((d: { field: string }) => d.field)).toContain(field);
    const id = ok.body.data.webhook.id;
    const patched = await h.api('PATCH', `/v1/webhooks/${id}`, { body: atLimit });
    expect(patched.status).toBe(200);
    const patchRefused = await h.api('PATCH', `/v1/webhooks/${id}`, { body: beyond });
    expect(patchRefused.status).toBe(422);
    expect(patchRefused.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('GET /webhooks (page-based) and PATCH, DELETE', () => {
  it('pages with page and limit ≤ 100; bad values are 400 naming the parameter; unknown parameters are ignored', async () => {
    h = await startEmulator();
    for (let i = 0; i < 3; i++) await create({ name: `hook ${i}` });
    const page2 = await h.api('GET', '/v1/webhooks?page=2&limit=2&whatever=1');
    expect(page2.status).toBe(200);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(page2.body.data.map((w: { name: string }) => w.name)).toEqual(['hook 2']);
    for (const q of ['limit=101', 'limit=0', 'page=0', 'page=x', 'limit=1.5']) {
      const res = await h.api('GET', `/v1/webhooks?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.error).toContain(q.split('=')[0]);
    }
    expect((await h.api('GET', '/v1/webhooks?limit=100')).status).toBe(200);
  });

  it('PATCH: policy objects are partial, status accepts only active or disabled', async () => {
    h = await startEmulator();
    const id = (await create({ retryPolicy: { maxAttempts: 4, backoff: 'fixed', initialDelaySeconds: 30 } })).body.data.webhook.id;
    const res = await h.api('PATCH', `/v1/webhooks/${id}`, { body: { retryPolicy: { maxAttempts: 2 }, failureHandling: { disableOnGone: false } } });
    expect(res.status).toBe(200);
    expect(res.body.data.retryPolicy).toMatchObject({ maxAttempts: 2, backoff: 'fixed', initialDelaySeconds: 30 });
    expect(res.body.data.failureHandling).toEqual({ autoDisableAfter: 15, disableOnGone: false });
    for (const status of ['suspended', 'paused', 1]) {
      const bad = await h.api('PATCH', `/v1/webhooks/${id}`, { body: { status } });
      expect(bad.status).toBe(422);
      expect(bad.body.details[0].field).toBe('status');
    }
    const premium = await h.api('PATCH', `/v1/webhooks/${id}`, { body: { triggers: ['trustcenter.access_requested'] } });
    expect(premium.status).toBe(403);
    const unknown = await h.api('PATCH', `/v1/webhooks/${id}`, { body: { triggers: ['nope'] } });
    expect(unknown.status).toBe(422);
    expect((await h.api('PATCH', `/v1/webhooks/${id}`, { body: { signingEnabled: true } })).status).toBe(422);
    const disabled = await h.api('PATCH', `/v1/webhooks/${id}`, { body: { status: 'disabled' } });
    expect(disabled.body.data.status).toBe('disabled');
  });

  it('DELETE answers {deleted: true}; the webhook is gone; a malformed id is 400', async () => {
    h = await startEmulator();
    const id = (await create()).body.data.webhook.id;
    const res = await h.api('DELETE', `/v1/webhooks/${id}`);
    expect(res.body).toMatchObject({ success: true, data: { deleted: true } });
    expect((await h.api('GET', `/v1/webhooks/${id}`)).status).toBe(404);
    expect((await h.api('DELETE', `/v1/webhooks/${id}`)).status).toBe(404);
    expect((await h.api('GET', '/v1/webhooks/not-a-uuid')).status).toBe(400);
  });
});

describe('rate limits (section 8)', () => {
  it('300 reads and 120 writes per key per window, then 429 with Retry-After and the RateLimit headers', async () => {
    h = await startEmulator({ rateLimitScale: 1 });
    let last;
    for (let i = 0; i < 300; i++) last = await h.api('GET', '/v1/webhooks/triggers');
    expect(last!.status).toBe(200);
    expect(last!.headers['ratelimit-limit']).toBe('300');
    expect(last!.headers['ratelimit-remaining']).toBe('0');
    const refused = await h.api('GET', '/v1/webhooks/triggers');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe(refused.headers['retry-after']);
    // Writes have their own budget; another key has its own.
    const write = await h.api('PATCH', `/v1/webhooks/00000000-0000-4000-8000-000000000000`, { body: {} });
    expect(write.status).toBe(404);
    expect(write.headers['ratelimit-limit']).toBe('120');
    expect(write.headers['ratelimit-remaining']).toBe('119');
    expect((await h.api('GET', '/v1/webhooks/triggers', { key: h.keys.aRead })).status).toBe(200);
  });

  it('writes stop at 120', async () => {
    h = await startEmulator({ rateLimitScale: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await h.api('PATCH', '/v1/webhooks/00000000-0000-4000-8000-000000000000', { body: {} })).status);
    expect(statuses.slice(0, 120).every((s) => s === 404)).toBe(true);
    expect(statuses[120]).toBe(429);
  });
});

describe('secrets at rest (spec 2.11)', () => {
  it('neither the signing secret nor a custom header value is in the database files', async () => {
    h = await startEmulator();
    const headerValue = 'hv_secret_value_0123456789_abcdef';
    const res = await create({ signingEnabled: true, customHeaders: [{ name: 'X-Token', value: headerValue }] });
    const secret: string = res.body.data.signingSecret;
    const files = [h.dbPath, `${h.dbPath}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f));
    expect(files.length).toBeGreaterThan(0);
    // The row is there (the test can see plain data); the secrets are not.
    expect(files.some((b) => b.includes(Buffer.from('test hook')))).toBe(true);
    for (const bytes of files) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(bytes.includes(Buffer.from(secret.slice('whsec_'.length)))).toBe(false);
      expect(bytes.includes(Buffer.from(headerValue))).toBe(false);
    }
  });
});
