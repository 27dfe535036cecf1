/**
 * The client against a hostile API server (issue 17): 429 storms with Retry-After as seconds and
 * as dates, RateLimit-Remaining: 0, malformed JSON, a looping cursor, 5xx bursts, a slow body, an
 * HTML page from a proxy. Each ends in a clear message or the right answer, in bounded time: waits
 * go through an injected sleep that records them and returns at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatImfFixdate } from '../../src/core/http-date.js';
import { createApiClient, unauthorizedHint, type ApiClientOptions } from '../../src/service/api-client.js';
import { ServiceError } from '../../src/service/service-error.js';
import { createWebhooksApi } from '../../src/service/webhooks-api.js';
import { apiError, delivery, json, ok, raw, startHostile, webhook, type Handler, type HostileServer } from './hostile-server.js';

const KEY = 'hr_test_key_0123456789abcdef';
let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(script: (i: number) => Handler, options: Partial<ApiClientOptions> = {}) {
  server = await startHostile((i) => script(i));
  const waits: Array<{ reason: string; ms: number }> = [];
  const client = createApiClient({ baseUrl: server.baseUrl, apiKey: KEY, sleep: async () => {}, onWait: (n) => waits.push({ reason: n.reason, ms: n.ms }), random: () => 0.5, ...options });
  return { client, api: createWebhooksApi(client), waits, server };
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ServiceError);
  const e = err as ServiceError;
  expect(e.message).not.toContain(KEY);
  return e;
}

describe('429 and pacing', () => {
  it('waits for Retry-After in seconds through a 429 storm, then succeeds', async () => {
    const { api, waits, server } = await clientFor((i) => (i < 3 ? apiError(429, 'TOO_MANY_REQUESTS', 'slow down', undefined, { 'retry-after': '7', 'ratelimit-remaining': '0' }) : ok([webhook('wh-1')])));
    const { value } = await api.list();
    expect(value.map((w) => w.id)).toEqual(['wh-1']);
    expect(server.requests).toHaveLength(4);
    expect(waits.filter((w) => w.reason === 'retry_after').map((w) => w.ms)).toEqual([7000, 7000, 7000]);
  });

  it('waits for Retry-After given as an HTTP date', async () => {
    const { api, waits } = await clientFor((i) => (i === 0 ? apiError(429, 'TOO_MANY_REQUESTS', 'slow down', undefined, { 'retry-after': formatImfFixdate(Date.now() + 30_000) }) : ok([])));
    await api.list();
    const waited = waits.find((w) => w.reason === 'retry_after')!.ms;
    // An HTTP date has whole seconds: 30 s ahead reads as 29 to 30 s.
    expect(waited).toBeGreaterThan(28_000);
    expect(waited).toBeLessThanOrEqual(30_000);
  });

  it('gives up on an endless 429 storm with a message naming it, after a bounded number of requests', async () => {
    const { api, server } = await clientFor(() => apiError(429, 'TOO_MANY_REQUESTS', 'rate limit exceeded', undefined, { 'retry-after': '1' }), { max429: 4 });
    const e = await failure(api.list());
    expect(e.code).toBe('RATE_LIMITED');
    expect(e.message).toMatch(/429 TOO_MANY_REQUESTS: rate limit exceeded.*after 4 answers of 429/);
    expect(server.requests).toHaveLength(4);
  });

  it('refuses a Retry-After beyond its cap at once rather than hanging', async () => {
    const { api, server } = await clientFor(() => apiError(429, 'TOO_MANY_REQUESTS', 'come back tomorrow', undefined, { 'retry-after': '86400' }));
    const e = await failure(api.list());
    expect(e.message).toMatch(/Retry-After asks to wait 86400 s, more than the 120 s/);
    expect(server.requests).toHaveLength(1);
  });

  it('paces by RateLimit-Remaining: 0 and RateLimit-Reset before the next request', async () => {
    const { api, waits } = await clientFor((i) => ok(i === 0 ? [webhook('wh-1')] : [], {}, i === 0 ? { 'ratelimit-remaining': '0', 'ratelimit-reset': '12' } : {}));
    await api.list();
    expect(waits).toEqual([]);
    await api.list();
    expect(waits).toHaveLength(1);
    expect(waits[0]!.reason).toBe('rate_limit');
    expect(waits[0]!.ms).toBeGreaterThan(11_000);
    expect(waits[0]!.ms).toBeLessThanOrEqual(12_000);
  });

  it.each([
    ['11.6 days', '999999'],
    // 2^31 ms and more: a setTimeout that long fires after 1 ms.
    ['beyond the 2^31 ms of a timer', '2147484'],
  ])('refuses a RateLimit-Reset of %s beyond the Retry-After cap at once, before the next request', async (_name, reset) => {
    const slept: number[] = [];
    const { api, waits, server } = await clientFor((i) => ok(i === 0 ? [webhook('wh-1')] : [], {}, i === 0 ? { 'ratelimit-remaining': '0', 'ratelimit-reset': reset } : {}), { sleep: async (ms) => void slept.push(ms) });
    await api.list();
    const e = await failure(api.list());
    expect(e.code).toBe('RATE_LIMITED');
    expect(e.message).toContain(`ask to wait ${reset} s before the next read, more than the 120 s this command waits`);
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(slept).toEqual([]);
  });

  it('refuses a RateLimit-Reset beyond the cap that came with a 429, after its Retry-After', async () => {
    const { api, server } = await clientFor(() => apiError(429, 'TOO_MANY_REQUESTS', 'slow down', undefined, { 'retry-after': '7', 'ratelimit-remaining': '0', 'ratelimit-reset': '999999' }));
    const e = await failure(api.list());
    expect(e.code).toBe('RATE_LIMITED');
    expect(server.requests).toHaveLength(1);
  });

  it('still waits a RateLimit-Reset up to the cap (120 s)', async () => {
    const { api, waits } = await clientFor((i) => ok([], {}, i === 0 ? { 'ratelimit-remaining': '0', 'ratelimit-reset': '120' } : {}));
    await api.list();
    await api.list();
    expect(waits.map((w) => w.reason)).toEqual(['rate_limit']);
    expect(waits[0]!.ms).toBeGreaterThan(119_000);
    expect(waits[0]!.ms).toBeLessThanOrEqual(120_000);
  });
});

describe('bodies that are not the API\'s JSON', () => {
  it('names malformed JSON in a 200', async () => {
    const { api } = await clientFor(() => raw(200, '{"success": true, "data": [', { 'content-type': 'application/json' }));
    const e = await failure(api.list());
    expect(e.code).toBe('BAD_RESPONSE');
    expect(e.message).toMatch(/GET \/v1\/webhooks: the service answered 200 with malformed JSON/);
  });

  it('names an HTML error page from a proxy, after retrying the 502', async () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx; you sent Bearer ${KEY}</body></html>`;
    const { api, server } = await clientFor(() => raw(502, page, { 'content-type': 'text/html' }), { maxTries: 3 });
    const e = await failure(api.get('wh-1'));
    expect(e.code).toBe('BAD_RESPONSE');
    expect(e.message).toMatch(/answered 502 with an HTML page, not the API's JSON: a proxy or gateway.*"502 Bad Gateway".*after 3 tries/);
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a 2xx without the envelope\'s data, and a resource without its id', async () => {
    const { api } = await clientFor((i) => (i === 0 ? json(200, { success: true, webhooks: [] }) : ok([{ name: 'no id', status: 'active' }])));
    expect((await failure(api.list())).message).toMatch(/without the API's envelope: no "data" field/);
    expect((await failure(api.list())).message).toMatch(/webhook is not what spec 2.11 describes: "id" must be a non-empty string/);
  });

  it('ignores unknown fields (spec 9.2)', async () => {
    const { api } = await clientFor(() => ok(webhook('wh-1', { brandNewField: { nested: true }, status: 'active' }), { alsoNew: 1 }));
    const { value, data } = await api.get('wh-1');
    expect(value.id).toBe('wh-1');
    expect((data as Record<string, unknown>).brandNewField).toEqual({ nested: true });
  });
});

describe('the error envelope, verbatim', () => {
  it.each([
    [422, 'VALIDATION_ERROR', 'triggers contains an unknown trigger', [{ field: 'triggers', message: 'unknown' }], /answered 422 VALIDATION_ERROR: triggers contains an unknown trigger \(field: triggers\)/],
    [404, 'NOT_FOUND', 'webhook not found', undefined, /answered 404 NOT_FOUND: webhook not found \[request req-1\]/],
    [403, 'FORBIDDEN', 'the key lacks webhooks:write', { field: 'scope' }, /403 FORBIDDEN: the key lacks webhooks:write \(field: scope\)/],
  ])('%i %s', async (status, code, message, details, expected) => {
    const { api, server } = await clientFor(() => apiError(status, code, message, details));
    const e = await failure(api.get('wh-1'));
    expect(e.code).toBe('API_ERROR');
    expect(e.status).toBe(status);
    expect(e.envelope?.code).toBe(code);
    expect(e.message).toMatch(expected);
    expect(server.requests).toHaveLength(1);
  });

  it('scrubs the key from an envelope that echoes it', async () => {
    const { api } = await clientFor(() => apiError(401, 'UNAUTHORIZED', `key ${KEY} is not valid`));
    const e = await failure(api.list());
    expect(e.message).toContain('key [API key] is not valid');
    expect(JSON.stringify(e.envelope)).not.toContain(KEY);
  });

  it('scrubs the key from a 2xx answer that echoes it written with \\u escapes (whole only once parsed)', async () => {
    const escaped = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const { api } = await clientFor(() => raw(200, `{"success":true,"data":${JSON.stringify(webhook('wh_1')).replace(/}$/, `,"note":"${escaped}"}`)}}`, { 'content-type': 'application/json' }));
    const read = await api.get('wh_1');
    expect(JSON.stringify(read)).not.toContain(KEY);
    expect(JSON.stringify(read)).toContain('[API key]');
  });

  it('never echoes credentials of the base URL in its 404 hint', async () => {
    server = await startHostile(() => apiError(404, 'NOT_FOUND', 'no route'));
    const withCredentials = server.baseUrl.replace('http://', 'http://svc:hunter2pass@').replace(/\/v1$/, '/api');
    const client = createApiClient({ baseUrl: withCredentials, apiKey: KEY, sleep: async () => {}, random: () => 0.5 });
    const e = await failure(createWebhooksApi(client).list());
    expect(e.message).toMatch(/usually ends in \/v1/);
    expect(JSON.stringify([e.message, e.hint])).not.toContain('hunter2pass');
  });

  it('a 401 names the key sent by its hint, and on loopback where an emulator keeps its keys', async () => {
    const { api } = await clientFor(() => apiError(401, 'UNAUTHORIZED', 'invalid API key'));
    const e = await failure(api.list());
    expect(e.message).toMatch(/401 UNAUTHORIZED: invalid API key.*; this run sent the key …cdef \(--api-key or HOOKRELAY_API_KEY\); for `hookrelay emulate`, `hookrelay emulate keys` lists its keys$/);
    expect(e.message).not.toContain(KEY);
    expect(unauthorizedHint(KEY, 'https://api.example.com/v1')).toBe('; this run sent the key …cdef (--api-key or HOOKRELAY_API_KEY)');
  });
});

describe('5xx and network', () => {
  it('retries a 5xx burst with growing, capped backoff, then succeeds', async () => {
    const { api, waits } = await clientFor((i) => (i < 4 ? apiError(503, 'INTERNAL_ERROR', 'busy') : ok([])), { maxTries: 6, backoffBaseMs: 100, backoffCapMs: 400 });
    await api.list();
    expect(waits.map((w) => w.ms)).toEqual([100, 200, 400, 400]);
  });

  it('gives up after its cap with the last envelope', async () => {
    const { api, server } = await clientFor(() => apiError(500, 'INTERNAL_ERROR', 'database on fire'), { maxTries: 3 });
    const e = await failure(api.list());
    expect(e.message).toMatch(/500 INTERNAL_ERROR: database on fire.*after 3 tries/);
    expect(server.requests).toHaveLength(3);
  });

  it('never retries a create on 5xx: a second one would mint a second webhook and secret', async () => {
    const { api, server } = await clientFor(() => apiError(503, 'INTERNAL_ERROR', 'maybe created, maybe not'));
    await failure(api.create({ name: 'n', triggers: ['sod.violation_detected'], endpoint: 'https://example.com', signingEnabled: true }));
    expect(server.requests).toHaveLength(1);
  });

  it('times out a body that trickles in, and names it', async () => {
    const slow: Handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    };
    const { api } = await clientFor(() => slow, { requestTimeoutMs: 300, bodyTimeoutMs: 200, maxTries: 2 });
    const e = await failure(api.list());
    expect(e.code).toBe('TIMEOUT');
    expect(e.message).toMatch(/timed out \(no complete answer within 300 ms: a body arriving too slowly\?\) after 2 tries/);
  });

  it('times out a body that stalls', async () => {
    const stall: Handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,');
    };
    const { api } = await clientFor(() => stall, { bodyTimeoutMs: 150, maxTries: 1 });
    expect((await failure(api.list())).message).toMatch(/the body stalled for 150 ms/);
  });

  it('names a refused connection', async () => {
    const client = createApiClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: KEY, sleep: async () => {}, maxTries: 2 });
    const e = await failure(createWebhooksApi(client).list());
    expect(e.code).toBe('NETWORK');
    expect(e.message).toMatch(/could not reach the service \(ECONNREFUSED.*after 2 tries; is --api-url right/);
    await client.close();
  });

  it('does not follow a redirect (the key would go along)', async () => {
    const { api, server } = await clientFor(() => raw(302, '', { location: 'https://elsewhere.example/v1/webhooks' }));
    expect((await failure(api.list())).message).toMatch(/answered 302, a redirect to https:\/\/elsewhere.example.*Redirects are not followed/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('cursors (spec 4.1)', () => {
  const page = (ids: string[], nextCursor: string | null) => ok(ids.map((id) => delivery(id)), { cursor: { nextCursor, hasMore: nextCursor !== null, limit: 100 } });

  it('follows nextCursor until hasMore is false, passing it back as cursor', async () => {
    const { api, server } = await clientFor((i) => [page(['d1', 'd2'], 'c1'), page(['d3'], 'c2'), page(['d4'], null)][i]!);
    const ids: string[] = [];
    for await (const p of api.deliveries('wh-1')) ids.push(...p.items.map((d) => d.id));
    expect(ids).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('cursor'))).toEqual([null, 'c1', 'c2']);
    expect(server.requests.every((r) => !r.url.includes('page='))).toBe(true);
  });

  it('stops with a clear error on a cursor that loops back to an earlier page', async () => {
    const { api, server } = await clientFor((i) => [page(['d1'], 'c1'), page(['d2'], 'c2'), page(['d3'], 'c1')][i % 3]!);
    const read = async () => {
      for await (const _ of api.deliveries('wh-1')) void _;
    };
    const e = await failure(read());
    expect(e.code).toBe('CURSOR_LOOP');
    expect(e.message).toMatch(/the cursor after page 3 \(c1\) is the one that fetched page 2/);
    expect(server.requests).toHaveLength(3);
  });

  it('stops when fresh-looking cursors serve pages already read', async () => {
    const { api, server } = await clientFor((i) => (i === 0 ? page(['d1', 'd2'], 'c0') : page(['d1', 'd2'], `c${i}`)));
    const read = async () => {
      for await (const _ of api.deliveries('wh-1')) void _;
    };
    expect((await failure(read())).message).toMatch(/page 2 repeats only items of earlier pages/);
    expect(server.requests).toHaveLength(2);
  });

  it('refuses hasMore without a nextCursor', async () => {
    const { api } = await clientFor(() => ok([delivery('d1')], { cursor: { nextCursor: null, hasMore: true, limit: 100 } }));
    const read = async () => {
      for await (const _ of api.deliveries('wh-1')) void _;
    };
    expect((await failure(read())).message).toMatch(/says hasMore but gives no cursor.nextCursor/);
  });
});

describe('a base URL without its version', () => {
  it('says a 404 may come from an --api-url missing /v1, and only then', async () => {
    server = await startHostile(() => apiError(404, 'NOT_FOUND', 'no route GET /webhooks'));
    const listWith = (baseUrl: string) => failure(createWebhooksApi(createApiClient({ baseUrl, apiKey: KEY, sleep: async () => {} })).list());
    const withoutV1 = await listWith(server.baseUrl.replace(/\/v1$/, ''));
    expect(withoutV1.message).toMatch(/404 NOT_FOUND: no route GET \/webhooks.*; is --api-url the API's base URL\? It usually ends in \/v1 \(http:\/\/127\.0\.0\.1:\d+\/v1\)$/);
    const withV1 = await listWith(server.baseUrl);
    expect(withV1.message).not.toMatch(/ends in \/v1/);
  });
});
