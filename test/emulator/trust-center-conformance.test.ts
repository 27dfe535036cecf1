/**
 * An independent conformance check of the emulator's Trust Center (issue 40, items 1 and 2) against
 * spec 2.10, 3, 4.1 to 4.4, 5, 6.2, 7 and 8, written from the spec's text. Each test names the section
 * it checks. Two deviations it found (an impossible date rolled over; null taken for an omitted field)
 * are mended, and their tests pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Harness } from '../emulate/helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DAY = 86_400_000;
const TC_TRIGGERS = ['trustcenter.access_requested', 'trustcenter.access_approved', 'trustcenter.access_rejected', 'trustcenter.resource_downloaded'];
const ZERO = '00000000-0000-4000-8000-000000000000';

// Spec 2.10, field lists copied from the spec text.
const REQUEST_FIELDS = ['id', 'organizationId', 'visitorEmail', 'visitorName', 'companyName', 'reason', 'rejectionReason', 'status', 'decidedByUserId', 'decidedByApiClientId', 'decidedAt', 'decidedVia', 'decisionReference', 'autoRuleId', 'visitorTokenId', 'requestCountryCode', 'requestCity', 'requestedResourceIds', 'createdAt'];
const DETAIL_FIELDS = [...REQUEST_FIELDS, 'decidedByApiClientName', 'ndaSignedAt', 'requestedResources'];
const TOKEN_FIELDS = ['id', 'organizationId', 'origin', 'visitorEmail', 'visitorName', 'companyName', 'tokenSuffix', 'status', 'expiresAt', 'revokedAt', 'lastUsedAt', 'createdAt', 'updatedAt'];
const EVENT_FIELDS = ['id', 'occurredAt', 'eventType', 'channel', 'watermarked', 'resourceId', 'resourceTitle', 'resourceFileName', 'resourceContentHash', 'snapshotReconstructed', 'resourceDeleted', 'visitorTokenId', 'visitorEmail', 'visitorName', 'visitorCompany', 'visitorTokenOrigin', 'ipPrefix', 'country', 'userAgentFamily'];
// Spec 7: {success: false, error: string, code: string, details (any, optional), timestamp: date-time, requestId: string (optional)}
const ERROR_FIELDS = ['success', 'error', 'code', 'details', 'timestamp', 'requestId'];

const EXTRA_KEYS = [
  { name: 'content-read', scopes: ['trust-center-content:read'] },
  { name: 'access-read', scopes: ['trust-center-access:read'] },
  { name: 'access-write', scopes: ['trust-center-access:write'] },
  { name: 'analytics-read', scopes: ['trust-center-analytics:read'] },
  { name: 'sod-read', scopes: ['sod:read'] },
  { name: 'webhooks-only', scopes: ['webhooks:read', 'webhooks:write'] },
  { name: 'second-writer', scopes: ['trust-center-access:read', 'trust-center-access:write'] },
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(config: Record<string, unknown> = {}): Promise<Harness> {
  h = await startEmulator({ plan: 'premium', extraKeys: EXTRA_KEYS, ...config });
  return h;
}
const keyOf = (name: string) => h!.app.keys.keys.find((k) => k.name === name)!.key;
const api = (...args: Parameters<Harness['api']>) => h!.api(...args);

async function firePending(): Promise<string> {
  const res = await api('POST', '/v1/_emulator/events', { body: { type: 'trustcenter.access_requested' } });
  expect(res.status).toBe(201);
  return res.body.data.recordIds[0];
}

async function subscribe(): Promise<string> {
  const res = await api('POST', '/v1/webhooks', { body: { name: 'tc', triggers: TC_TRIGGERS, endpoint: 'http://127.0.0.1:9/hook' } });
  expect(res.status).toBe(201);
  return res.body.data.webhook.id;
}

async function sent(webhookId: string): Promise<Array<{ trigger: string; data: Record<string, unknown> }>> {
  const res = await api('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.map((d: { trigger: string; payload: { data: Record<string, unknown> } }) => ({ trigger: d.trigger, data: d.payload.data }));
}

async function state(key?: string): Promise<string> {
  const opts = key === undefined ? {} : { key };
  return JSON.stringify([
    (await api('GET', '/v1/trust-center/access-requests', opts)).body.data,
    (await api('GET', '/v1/trust-center/visitor-tokens', opts)).body.data,
    (await api('GET', '/v1/trust-center/access-events', opts)).body.data,
  ]);
}

type Res = { id: string; isPublished: boolean; isGated: boolean; isRestricted: boolean };
async function resources(key?: string): Promise<Res[]> {
  return (await api('GET', '/v1/trust-center/resources', key === undefined ? {} : { key })).body.data;
}

/** The documents an approved request can read: each one tried through the emulator's download surface. */
async function grantedOf(requestId: string, all: Res[]): Promise<string[]> {
  const ids: string[] = [];
  for (const r of all) {
    const d = await api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: requestId, resourceId: r.id } });
    if (d.status === 201) ids.push(r.id);
  }
  return ids.sort();
}

function expectErrorEnvelope(res: { status: number; body: any }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.code).toBe(code);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.timestamp).toMatch(ISO);
  for (const k of Object.keys(res.body)) expect(ERROR_FIELDS, `unexpected envelope field ${k}`).toContain(k);
  if (res.body.requestId !== undefined) expect(typeof res.body.requestId).toBe('string');
}

describe('records (spec 2.10)', () => {
  it('spec 2.10/4.4: list and detail forms of an access request carry exactly the listed fields, with their types', async () => {
    await start();
    const id = await firePending();
    const list = await api('GET', '/v1/trust-center/access-requests');
    expect(list.status).toBe(200);
    const row = list.body.data.find((r: { id: string }) => r.id === id);
    expect(Object.keys(row).sort()).toEqual([...REQUEST_FIELDS].sort());
    const detail = (await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data;
    expect(Object.keys(detail).sort()).toEqual([...DETAIL_FIELDS].sort());
    expect(detail.id).toMatch(UUID);
    expect(detail.organizationId).toMatch(UUID);
    expect(typeof detail.visitorEmail).toBe('string');
    expect(typeof detail.status).toBe('string');
    expect(detail.createdAt).toMatch(ISO);
    expect(Array.isArray(detail.requestedResourceIds)).toBe(true);
    for (const rid of detail.requestedResourceIds) expect(rid).toMatch(UUID);
    // "requestedResources[] {id uuid, title string? …, isPublished boolean, isRestricted boolean}"
    const all = await resources();
    expect(detail.requestedResources.map((r: { id: string }) => r.id)).toEqual(detail.requestedResourceIds);
    for (const r of detail.requestedResources) {
      const res = all.find((x) => x.id === r.id)!;
      expect(r).toMatchObject({ isPublished: res.isPublished, isRestricted: res.isRestricted });
      expect(typeof r.title).toBe('string');
    }
  });

  it('spec 2.10: resources carry the flags isGated, isRestricted, ndaRequired, downloadAllowed as booleans, and a restricted document is gated', async () => {
    await start();
    const all = (await api('GET', '/v1/trust-center/resources')).body.data as Array<Record<string, unknown>>;
    expect(all.length).toBeGreaterThan(0);
    for (const r of all) {
      for (const flag of ['isGated', 'isRestricted', 'ndaRequired', 'downloadAllowed', 'isPublished']) expect(typeof r[flag], flag).toBe('boolean');
      // "isGated (true also for restricted documents)"
      if (r.isRestricted) expect(r.isGated).toBe(true);
    }
  });

  it('spec 2.10: a document access event carries exactly the listed fields; one event per document; ipPrefix is a /24 or /48 prefix', async () => {
    await start();
    const id = await firePending();
    expect((await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} })).status).toBe(200);
    const dl = await api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id, channel: 'viewer' } });
    expect(dl.status).toBe(201);
    const events = (await api('GET', '/v1/trust-center/access-events')).body.data;
    expect(events).toHaveLength(1);
    const e = events[0];
    expect(Object.keys(e).sort()).toEqual([...EVENT_FIELDS].sort());
    expect(['resource_view', 'resource_download']).toContain(e.eventType);
    expect(e.channel).toBe('viewer');
    expect(typeof e.snapshotReconstructed).toBe('boolean');
    expect(typeof e.resourceDeleted).toBe('boolean');
    expect(e.occurredAt).toMatch(ISO);
    expect(e.ipPrefix).toMatch(/^(\d{1,3}\.){3}0\/24$|::\/48$|\/48$/);
  });
});

describe('approve (spec 4.3)', () => {
  it("spec 4.3: ttlDays defaults to the organization's access window (30 days, docs/emulate.md), and 1 is accepted", async () => {
    await start();
    const a = await api('POST', `/v1/trust-center/access-requests/${await firePending()}/approve`, { body: {} });
    expect(a.status).toBe(200);
    const t = a.body.data.visitorToken;
    expect(Date.parse(t.expiresAt) - Date.parse(t.createdAt)).toBe(30 * DAY);
    const b = await api('POST', `/v1/trust-center/access-requests/${await firePending()}/approve`, { body: { ttlDays: 1 } });
    expect(b.status).toBe(200);
    expect(Date.parse(b.body.data.visitorToken.expiresAt) - Date.parse(b.body.data.visitorToken.createdAt)).toBe(DAY);
  });

  it('spec 4.3: the answer is {request, visitorToken, emailSent}; request equals the stored detail; the token is listed and never raw', async () => {
    await start();
    const id = await firePending();
    const res = await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { reference: 'https://tickets.example/T-9' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['emailSent', 'request', 'visitorToken']);
    expect(typeof res.body.data.emailSent).toBe('boolean');
    const { request, visitorToken } = res.body.data;
    const stored = (await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data;
    expect(request).toEqual(stored);
    expect(stored.status).not.toBe('pending');
    expect(stored.decidedAt).toMatch(ISO);
    expect(stored.decidedByUserId).toBeNull();
    expect(stored.decisionReference).toBe('https://tickets.example/T-9');
    expect(Object.keys(visitorToken).sort()).toEqual([...TOKEN_FIELDS].sort());
    expect(visitorToken.status).toBe('active');
    // "The raw token is never returned by the API": only a short suffix of it.
    expect(visitorToken.tokenSuffix.length).toBeLessThanOrEqual(8);
    const listed = (await api('GET', '/v1/trust-center/visitor-tokens')).body.data;
    expect(listed).toEqual([visitorToken]);
  });

  it('spec 4.3/5 rule 4: decidedByApiClientId identifies the deciding key as an API client (two keys, two ids; the detail names the key)', async () => {
    await start();
    const a = (await api('POST', `/v1/trust-center/access-requests/${await firePending()}/approve`, { body: {} })).body.data.request;
    const b = (await api('POST', `/v1/trust-center/access-requests/${await firePending()}/reject`, { key: keyOf('second-writer'), body: { reason: 'r' } })).body.data;
    expect(a.decidedVia).toBe('api');
    expect(b.decidedVia).toBe('api');
    expect(a.decidedByApiClientId).toMatch(UUID);
    expect(b.decidedByApiClientId).toMatch(UUID);
    expect(a.decidedByApiClientId).not.toBe(b.decidedByApiClientId);
    expect(a.decidedByApiClientName).toBe('a-full');
    expect(b.decidedByApiClientName).toBe('second-writer');
  });

  it("spec 4.3: a resourceId of another organization's document is unknown here and refuses the whole approval; nothing changes, no event", async () => {
    await start();
    const hook = await subscribe();
    const foreign = (await resources(h!.keys.bFull)).find((r) => r.isPublished)!.id;
    const id = await firePending();
    const before = await state();
    const eventsBefore = (await sent(hook)).length;
    const mine = (await resources()).find((r) => r.isPublished && r.isGated && !r.isRestricted)!.id;
    for (const scope of ['all', 'all_gated_plus_selected', 'selected']) {
      const res = await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { scope, resourceIds: [mine, foreign] } });
      expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('resourceIds');
    }
    expect(await state()).toBe(before);
    expect((await sent(hook)).length).toBe(eventsBefore);
  });

  it('spec 2.10/4.3: a restricted document is never part of a standard approval, even when named with scope all; selected grants it by name only', async () => {
    await start();
    const all = await resources();
    const restricted = all.find((r) => r.isRestricted && r.isPublished)!.id;
    const standard = all.filter((r) => r.isPublished && r.isGated && !r.isRestricted).map((r) => r.id).sort();
    const one = await firePending();
    expect((await api('POST', `/v1/trust-center/access-requests/${one}/approve`, { body: { scope: 'all', resourceIds: [restricted] } })).status).toBe(200);
    expect(await grantedOf(one, all)).toEqual(standard);
    const two = await firePending();
    expect((await api('POST', `/v1/trust-center/access-requests/${two}/approve`, { body: { scope: 'selected', resourceIds: [restricted] } })).status).toBe(200);
    expect(await grantedOf(two, all)).toEqual([restricted]);
  });
});

describe('one decision only (spec 3, 4.3)', () => {
  it('spec 3/4.3: after a reject, approve and reject answer 409 ACCESS_REQUEST_ALREADY_DECIDED; no token is minted, no event is sent', async () => {
    await start();
    const hook = await subscribe();
    const id = await firePending();
    expect((await api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: { reason: 'no' } })).status).toBe(200);
    const before = await state();
    const eventsBefore = (await sent(hook)).length;
    for (const [path, body] of [['approve', {}], ['approve', { ttlDays: 5, scope: 'all' }], ['reject', { reason: 'no' }], ['reject', { reason: 'other', reference: 'X' }]] as const) {
      expectErrorEnvelope(await api('POST', `/v1/trust-center/access-requests/${id}/${path}`, { body }), 409, 'ACCESS_REQUEST_ALREADY_DECIDED');
    }
    expect(await state()).toBe(before);
    expect((await api('GET', '/v1/trust-center/visitor-tokens')).body.data).toEqual([]);
    expect((await sent(hook)).length).toBe(eventsBefore);
  });

  it('spec 3: a request decided by a person or an auto rule answers 409 to the API and keeps its decision', async () => {
    await start();
    for (const [decision, as] of [['approve', 'reviewer'], ['reject', 'access_rule']] as const) {
      const id = await firePending();
      const decided = await api('POST', `/v1/_emulator/trust-center/access-requests/${id}/decide`, { body: { decision, as, ...(decision === 'reject' ? { reason: 'rule' } : {}) } });
      expect(decided.status).toBe(200);
      const before = (await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data;
      expectErrorEnvelope(await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} }), 409, 'ACCESS_REQUEST_ALREADY_DECIDED');
      expectErrorEnvelope(await api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: { reason: 'x' } }), 409, 'ACCESS_REQUEST_ALREADY_DECIDED');
      expect((await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data).toEqual(before);
      expect(before.decidedVia).toBe('app');
      expect(before.decidedByApiClientId).toBeNull();
    }
  });

  it('spec 3: two decisions racing on one request: exactly one lands, the other gets 409; one token, one event', async () => {
    await start();
    const hook = await subscribe();
    const id = await firePending();
    const answers = await Promise.all([
      api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} }),
      api('POST', `/v1/trust-center/access-requests/${id}/approve`, { key: keyOf('second-writer'), body: {} }),
      api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: { reason: 'race' } }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const tokens = (await api('GET', '/v1/trust-center/visitor-tokens')).body.data;
    const decisions = (await sent(hook)).filter((s) => s.trigger !== 'trustcenter.access_requested');
    expect(decisions).toHaveLength(1);
    expect(tokens).toHaveLength(decisions[0]!.trigger === 'trustcenter.access_approved' ? 1 : 0);
  });
});

describe('reject (spec 4.3) and the events (spec 6.1, 6.2)', () => {
  it('spec 4.3: reject stores the reason for reviewers; reference of 500 chars accepted; the answer is the access request', async () => {
    await start();
    const hook = await subscribe();
    const id = await firePending();
    const res = await api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: { reason: 'unknown company', reference: 'r'.repeat(500) } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(expect.arrayContaining(REQUEST_FIELDS));
    const stored = (await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data;
    expect(stored).toMatchObject({ rejectionReason: 'unknown company', decisionReference: 'r'.repeat(500), decidedVia: 'api', visitorTokenId: null });
    expect(stored.decidedByApiClientId).toMatch(UUID);
    // spec 6.1: data carries identifiers only; spec 6.2: access_rejected | accessRequestId, decidedBy
    const rejected = (await sent(hook)).filter((s) => s.trigger === 'trustcenter.access_rejected');
    expect(rejected).toEqual([{ trigger: 'trustcenter.access_rejected', data: { accessRequestId: id, decidedBy: 'api_client' } }]);
  });

  it('spec 6.2: an approval through the API emits access_approved with decidedBy api_client, whatever key decided; every id resolves', async () => {
    await start();
    const hook = await subscribe();
    const id = await firePending();
    const res = await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { key: keyOf('access-write'), body: {} });
    expect(res.status).toBe(200);
    const approved = (await sent(hook)).filter((s) => s.trigger === 'trustcenter.access_approved');
    expect(approved).toEqual([{ trigger: 'trustcenter.access_approved', data: { accessRequestId: id, visitorTokenId: res.body.data.visitorToken.id, decidedBy: 'api_client' } }]);
    expect((await api('GET', `/v1/trust-center/access-requests/${id}`)).status).toBe(200);
    const tokens = (await api('GET', '/v1/trust-center/visitor-tokens')).body.data.map((t: { id: string }) => t.id);
    expect(tokens).toContain(approved[0]!.data.visitorTokenId);
  });
});

describe('tenancy (spec 1 rule 1, 4.2)', () => {
  it("spec 1/4.2: another organization's request is 404 NOT_FOUND, indistinguishable from an unknown id, on read, approve and reject; nothing leaks into its lists", async () => {
    await start();
    const id = await firePending();
    expect((await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} })).status).toBe(200);
    await api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id } });
    const b = h!.keys.bFull;
    for (const [method, suffix, body] of [['GET', '', undefined], ['POST', '/approve', {}], ['POST', '/reject', { reason: 'x' }]] as const) {
      const foreign = await api(method, `/v1/trust-center/access-requests/${id}${suffix}`, body === undefined ? { key: b } : { key: b, body });
      const unknown = await api(method, `/v1/trust-center/access-requests/${ZERO}${suffix}`, body === undefined ? { key: b } : { key: b, body });
      expectErrorEnvelope(foreign, 404, 'NOT_FOUND');
      expect(foreign.body.error).toBe(unknown.body.error);
    }
    expect(JSON.parse(await state(b))).toEqual([[], [], []]);
  });
});

describe('scopes and authentication (spec 5)', () => {
  const endpoints = async (): Promise<Array<{ method: string; path: string; scope: string; body?: unknown }>> => {
    const id = await firePending();
    const id2 = await firePending();
    return [
      { method: 'GET', path: '/v1/trust-center/resources', scope: 'content-read' },
      { method: 'GET', path: '/v1/trust-center/access-requests', scope: 'access-read' },
      { method: 'GET', path: `/v1/trust-center/access-requests/${id}`, scope: 'access-read' },
      { method: 'GET', path: '/v1/trust-center/visitor-tokens', scope: 'access-read' },
      { method: 'GET', path: '/v1/trust-center/access-events', scope: 'analytics-read' },
      { method: 'GET', path: '/v1/sod/violations', scope: 'sod-read' },
      { method: 'POST', path: `/v1/trust-center/access-requests/${id}/approve`, scope: 'access-write', body: {} },
      { method: 'POST', path: `/v1/trust-center/access-requests/${id2}/reject`, scope: 'access-write', body: { reason: 'r' } },
    ];
  };

  it('spec 5: each endpoint opens to its own scope only; any other key gets 403 FORBIDDEN and changes nothing', async () => {
    await start();
    const list = await endpoints();
    const names = ['content-read', 'access-read', 'access-write', 'analytics-read', 'sod-read', 'webhooks-only'];
    const before = await state();
    for (const e of list) {
      for (const name of names) {
        if (name === e.scope) continue;
        const res = await api(e.method, e.path, { key: keyOf(name), ...(e.body === undefined ? {} : { body: e.body }) });
        expectErrorEnvelope(res, 403, 'FORBIDDEN');
      }
    }
    expect(await state()).toBe(before);
    for (const e of list) {
      const res = await api(e.method, e.path, { key: keyOf(e.scope), ...(e.body === undefined ? {} : { body: e.body }) });
      expect(res.status, `${e.method} ${e.path} with ${e.scope}`).toBe(200);
    }
  });

  it('spec 5/7: a missing or invalid key is 401 UNAUTHORIZED on every Trust Center endpoint, and a decision is not made', async () => {
    await start();
    const list = await endpoints();
    for (const e of list) {
      for (const key of [null, 'hrk_not-a-key', '']) {
        const res = await api(e.method, e.path, { key, ...(e.body === undefined ? {} : { body: e.body }) });
        expectErrorEnvelope(res, 401, 'UNAUTHORIZED');
      }
    }
    const rows = (await api('GET', '/v1/trust-center/access-requests')).body.data;
    expect(rows.every((r: { status: string }) => r.status === 'pending')).toBe(true);
  });
});

describe('lists and paging (spec 2.1, 4.1, 4.2, 8)', () => {
  it('spec 4.1/4.2/8: access events default to 50 a page, newest first, and cursor.nextCursor walks to the end', async () => {
    await start();
    const id = await firePending();
    expect((await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} })).status).toBe(200);
    const made: string[] = [];
    for (let i = 0; i < 53; i++) made.unshift((await api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id } })).body.data.id);
    const first = await api('GET', '/v1/trust-center/access-events');
    expect(first.body.data).toHaveLength(50);
    expect(first.body.cursor).toEqual({ nextCursor: expect.any(String), hasMore: true, limit: 50 });
    const second = await api('GET', `/v1/trust-center/access-events?cursor=${encodeURIComponent(first.body.cursor.nextCursor)}`);
    expect(second.status).toBe(200);
    expect(second.body.cursor).toEqual({ nextCursor: null, hasMore: false, limit: 50 });
    expect([...first.body.data, ...second.body.data].map((e: { id: string }) => e.id)).toEqual(made);
    // "cursor (opaque, at least 1 character)": an empty one is refused with 400
    expect((await api('GET', '/v1/trust-center/access-events?cursor=')).status).toBe(400);
  });

  it('spec 2.1: page-based lists carry pagination {page, limit, total, totalPages} as integers', async () => {
    await start();
    for (let i = 0; i < 3; i++) await firePending();
    const res = await api('GET', '/v1/trust-center/access-requests?page=2&limit=2');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(res.body.data).toHaveLength(1);
    expect(res.body.timestamp).toMatch(ISO);
    expect(res.body.success).toBe(true);
  });

  it('spec 4.2/8: access-event filters: repeatable resourceId, visitorTokenId, a 255-char search accepted and 100-item arrays accepted', async () => {
    await start();
    const id = await firePending();
    const approved = (await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} })).body.data;
    const all = await resources();
    const granted = await grantedOf(id, all);
    expect(granted.length).toBeGreaterThanOrEqual(2);
    const count = async (q: string) => {
      const res = await api('GET', `/v1/trust-center/access-events?${q}`);
      expect(res.status, q.slice(0, 80)).toBe(200);
      return res.body.data.length as number;
    };
    expect(await count(`resourceId=${granted[0]}&resourceId=${granted[1]}`)).toBe(2);
    expect(await count(`resourceId=${granted[0]}`)).toBe(1);
    expect(await count(`visitorTokenId=${approved.visitorToken.id}`)).toBe(granted.length);
    expect(await count(`visitorTokenId=${ZERO}`)).toBe(0);
    expect(await count(`search=${'a'.repeat(255)}`)).toBe(0);
    expect(await count(`resourceId=${Array(100).fill(granted[0]).join(',')}`)).toBe(1);
    expect((await api('GET', `/v1/trust-center/access-events?resourceId=${Array(101).fill(granted[0]).join(',')}`)).status).toBe(400);
  });

  it('spec 4.2/7: an impossible calendar date in occurredFrom or occurredTo is a 400 validation error, not rolled over into the next month', async () => {
    await start();
    for (const q of ['occurredTo=2026-02-30', 'occurredFrom=2026-02-31T00:00:00Z', 'occurredFrom=2026-04-31', 'occurredTo=2026-02-28T24:00:00Z']) {
      const res = await api('GET', `/v1/trust-center/access-events?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
  });
});

describe('strict bodies (spec 4.3, notation of section 0)', () => {
  it('spec 4.3 + notation "T? means the value may be JSON null": ttlDays, reference, scope and resourceIds are not nullable, so null is a 422 naming the field', async () => {
    await start();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['approve', { ttlDays: null }, 'ttlDays'],
      ['approve', { reference: null }, 'reference'],
      ['approve', { scope: null }, 'scope'],
      ['approve', { resourceIds: null }, 'resourceIds'],
      ['reject', { reason: 'r', reference: null }, 'reference'],
    ];
    for (const [path, body, field] of cases) {
      const id = await firePending();
      const res = await api('POST', `/v1/trust-center/access-requests/${id}/${path}`, { body });
      expect(res.status, `${path} ${field}: null`).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect((await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data.status).toBe('pending');
    }
  });

  it('spec 4.3: unknown fields are refused on reject and approve together with the bad ones, each named; nothing changes', async () => {
    await start();
    const id = await firePending();
    const before = await state();
    const a = await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { sendEmail: true, notify: 1, ttlDays: 0 } });
    expectErrorEnvelope(a, 422, 'VALIDATION_ERROR');
    expect(a.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['notify', 'sendEmail', 'ttlDays']);
    const r = await api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: { reason: 'r', sendEmail: false } });
    expectErrorEnvelope(r, 422, 'VALIDATION_ERROR');
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual(['sendEmail']);
    expect(await state()).toBe(before);
  });
});

describe('rate limits (spec 8)', () => {
  it('spec 8: reads report RateLimit-Remaining; the 121st write of a minute is 429 TOO_MANY_REQUESTS with Retry-After, and no decision is made', { timeout: 60_000 }, async () => {
    await start({ rateLimitScale: 1 });
    const id = await firePending();
    const r1 = await api('GET', '/v1/trust-center/resources');
    const r2 = await api('GET', '/v1/trust-center/access-events');
    expect(Number(r1.headers['ratelimit-remaining'])).toBe(299);
    expect(Number(r2.headers['ratelimit-remaining'])).toBe(298);
    for (let i = 0; i < 120; i++) {
      const res = await api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: {} });
      expect(res.status).toBe(422);
    }
    const over = await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} });
    expectErrorEnvelope(over, 429, 'TOO_MANY_REQUESTS');
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await api('GET', `/v1/trust-center/access-requests/${id}`)).body.data.status).toBe('pending');
    // Per API client: another key's write budget is untouched.
    expect((await api('POST', `/v1/trust-center/access-requests/${id}/approve`, { key: keyOf('access-write'), body: {} })).status).toBe(200);
  });
});
