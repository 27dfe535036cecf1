/** hookrelay/client's Trust Center and SoD reads against a scripted, hostile service (port 0): typed answers, paging, the error class. */
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient, ServiceError, type ServiceClient } from '../../src/client/index.js';
import { startHostile, stamp, type Handler, type HostileServer } from './hostile-server.js';

const KEY = 'hr_test_trust_center_key_0123456789';
let server: HostileServer | null = null;
let client: ServiceClient | null = null;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = null;
});

const json = (status: number, body: unknown): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const request = (id: string, extra: Record<string, unknown> = {}) => ({ id, organizationId: 'o', visitorEmail: `${id}@example.com`, status: 'pending', requestedResourceIds: [], createdAt: stamp(), ...extra });

async function serve(script: (i: number) => Handler): Promise<ServiceClient> {
  server = await startHostile((i) => script(i));
  client = createServiceClient({ baseUrl: server.baseUrl, apiKey: KEY, sleep: async () => {}, random: () => 0 });
  return client;
}

describe('hookrelay/client: Trust Center', () => {
  it('walks a page-based list to its last page, asking for each page by number', async () => {
    const c = await serve((i) => json(200, { success: true, data: [request(`r${i + 1}`)], pagination: { page: i + 1, limit: 100, total: 3, totalPages: 3 } }));
    const ids: string[] = [];
    for await (const r of c.trustCenter.accessRequests({ status: 'pending' })) ids.push(r.id);
    expect(ids).toEqual(['r1', 'r2', 'r3']);
    expect(server!.requests.map((r) => r.url)).toEqual([1, 2, 3].map((p) => `/v1/trust-center/access-requests?status=pending&page=${p}&limit=100`));
    expect(server!.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('follows the access events cursor, with list filters joined, and stops on a cursor that loops', async () => {
    const event = (id: string) => ({ id, occurredAt: stamp(), eventType: 'resource_download' });
    const c = await serve((i) => json(200, { success: true, data: [event(`e${i}`)], cursor: { hasMore: true, nextCursor: 'same' } }));
    const seen: string[] = [];
    const walk = (async () => {
      for await (const e of c.trustCenter.accessEvents({ eventType: ['resource_view', 'resource_download'] }, { limit: 2 })) seen.push(e.id);
    })();
    await expect(walk).rejects.toMatchObject({ name: 'ServiceError', code: 'CURSOR_LOOP' });
    expect(seen).toEqual(['e0', 'e1']);
    expect(decodeURIComponent(server!.requests[0]!.url)).toBe('/v1/trust-center/access-events?eventType=resource_view,resource_download&limit=2');
    expect(server!.requests[1]!.url).toContain('cursor=same');
  });

  it('stops a cursor that only ever leads to empty pages claiming more, after a bounded number of them', async () => {
    const c = await serve((i) => json(200, { success: true, data: [], cursor: { hasMore: true, nextCursor: `c${i}` } }));
    const walk = (async () => {
      for await (const _ of c.trustCenter.accessEvents()) void _;
    })();
    await expect(walk).rejects.toMatchObject({ name: 'ServiceError', code: 'CURSOR_LOOP', message: expect.stringContaining('empty pages in a row') });
    expect(server!.requests.length).toBe(11);
  });

  it('stops a page-based list whose service ignores `page` (the same page again) instead of yielding it forever', async () => {
    const c = await serve(() => json(200, { success: true, data: [request('r1')], pagination: { page: 1, limit: 100, total: 1e9, totalPages: 1e7 } }));
    const ids: string[] = [];
    const walk = (async () => {
      for await (const r of c.trustCenter.accessRequests()) ids.push(r.id);
    })();
    await expect(walk).rejects.toMatchObject({ name: 'ServiceError', code: 'BAD_RESPONSE', message: expect.stringContaining('ignores `page`') });
    expect(ids).toEqual(['r1']);
  });

  it('refuses a request without its id or status as BAD_RESPONSE naming the field, never a crash later', async () => {
    const c = await serve(() => json(200, { success: true, data: { organizationId: 'o', visitorEmail: 'a@b.test', status: 'pending' } }));
    await expect(c.trustCenter.accessRequest('x')).rejects.toMatchObject({ code: 'BAD_RESPONSE', message: expect.stringContaining('"id"') });
  });

  it('a 409 is one ServiceError with the envelope verbatim, its code and requestId, and the key nowhere', async () => {
    const c = await serve(() => json(409, { success: false, error: `request already decided (sent with ${KEY})`, code: 'ACCESS_REQUEST_ALREADY_DECIDED', timestamp: stamp(), requestId: 'req-1', extra: KEY }));
    const err = (await c.trustCenter.reject('r1', { reason: 'no' }).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'API_ERROR', status: 409, apiCode: 'ACCESS_REQUEST_ALREADY_DECIDED', requestId: 'req-1', hint: null });
    expect(err.envelope?.raw).toMatchObject({ code: 'ACCESS_REQUEST_ALREADY_DECIDED', extra: '[API key]' });
    expect(JSON.stringify([err.message, err.envelope, err.hint])).not.toContain(KEY);
    // A POST that landed is not sent again.
    expect(server!.requests).toHaveLength(1);
  });

  it('a 401 carries its hint (the key by its short hint only)', async () => {
    const c = await serve(() => json(401, { success: false, error: 'invalid API key', code: 'UNAUTHORIZED', timestamp: stamp() }));
    const err = (await c.sod.violations().next().catch((e: unknown) => e)) as ServiceError;
    expect(err).toMatchObject({ status: 401, apiCode: 'UNAUTHORIZED', requestId: null });
    expect(err.hint).toMatch(/this run sent the key/);
    expect(err.hint).not.toContain(KEY);
  });

  it('approve answers the request, the token and emailSent, typed', async () => {
    const c = await serve(() => json(200, { success: true, data: { request: request('r1', { status: 'approved', requestedResources: [] }), visitorToken: { id: 't1', tokenSuffix: 'abcd' }, emailSent: false } }));
    const result = await c.trustCenter.approve('r1', { reference: 'T-1', ttlDays: 14 });
    expect(result).toMatchObject({ request: { id: 'r1', status: 'approved' }, visitorToken: { id: 't1' }, emailSent: false });
  });

  it('refuses options without a base URL or a key at once', () => {
    expect(() => createServiceClient({ baseUrl: 'localhost:4100', apiKey: 'k' })).toThrow(/baseUrl/);
    expect(() => createServiceClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: '' })).toThrow(/apiKey/);
  });
});
