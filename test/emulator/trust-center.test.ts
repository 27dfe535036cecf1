/**
 * The Trust Center and SoD endpoints of `hookrelay emulate`, from a strict reading of spec 2.10,
 * 4.1 to 4.4, 5, 6.2 and 7. Each assertion quotes the line it checks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Harness } from '../emulate/helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TC_TRIGGERS = ['trustcenter.access_requested', 'trustcenter.access_approved', 'trustcenter.access_rejected', 'trustcenter.resource_downloaded', 'sod.violation_detected'];

let h: Harness;
beforeEach(async () => {
  h = await startEmulator({ plan: 'premium' });
});
afterEach(async () => {
  await h.close();
});

async function subscribe(): Promise<string> {
  // Port 9 on loopback: nothing listens; the delivery and its payload are still recorded.
  const res = await h.api('POST', '/v1/webhooks', { body: { name: 'tc', triggers: TC_TRIGGERS, endpoint: 'http://127.0.0.1:9/hook' } });
  expect(res.status).toBe(201);
  return res.body.data.webhook.id;
}

async function firePending(): Promise<string> {
  const res = await h.api('POST', '/v1/_emulator/events', { body: { type: 'trustcenter.access_requested' } });
  expect(res.status).toBe(201);
  return res.body.data.recordIds[0];
}

async function payloads(webhookId: string): Promise<Array<{ type?: string; trigger?: string; data: Record<string, unknown> }>> {
  const res = await h.api('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`);
  return res.body.data.map((d: { payload: { data: Record<string, unknown> }; trigger: string }) => ({ trigger: d.trigger, data: d.payload.data }));
}

async function snapshot() {
  return JSON.stringify([
    (await h.api('GET', '/v1/trust-center/access-requests')).body.data,
    (await h.api('GET', '/v1/trust-center/visitor-tokens')).body.data,
  ]);
}

describe('access requests, from the state change of emulate fire', () => {
  it('fire trustcenter.access_requested makes a pending request whose id resolves, and the event carries it', async () => {
    const hook = await subscribe();
    const id = await firePending();
    const detail = await h.api('GET', `/v1/trust-center/access-requests/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.status).toBe('pending');
    // spec 2.10: "The single-request read adds decidedByApiClientName string? …, ndaSignedAt date-time?, and requestedResources[] {id uuid, title string? …, isPublished boolean, isRestricted boolean}"
    expect(detail.body.data).toHaveProperty('decidedByApiClientName', null);
    expect(detail.body.data).toHaveProperty('ndaSignedAt', null);
    expect(detail.body.data.requestedResources.length).toBeGreaterThan(0);
    for (const r of detail.body.data.requestedResources) expect(Object.keys(r).sort()).toEqual(['id', 'isPublished', 'isRestricted', 'title']);
    // spec 4.4: "the access-request list also carries requestedResourceIds"
    const list = await h.api('GET', '/v1/trust-center/access-requests');
    expect(list.body.data[0].requestedResourceIds).toEqual(detail.body.data.requestedResourceIds);
    expect(list.body.data[0]).not.toHaveProperty('requestedResources');
    // spec 6.2: "trustcenter.access_requested | accessRequestId"
    const sent = await payloads(hook);
    expect(sent).toEqual([{ trigger: 'trustcenter.access_requested', data: { accessRequestId: id } }]);
  });

  it("another organization's request is 404, never 403", async () => {
    const id = await firePending();
    // spec 4.2: "a request of another organization is 404"
    const res = await h.api('GET', `/v1/trust-center/access-requests/${id}`, { key: h.keys.bFull });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const approve = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { key: h.keys.bFull, body: {} });
    expect(approve.status).toBe(404);
    expect((await h.api('GET', `/v1/trust-center/access-requests/${id}`)).body.data.status).toBe('pending');
  });
});

describe('approve (spec 4.3)', () => {
  it('records decidedVia api, the client and the reference, mints a token never returned raw, and emits access_approved', async () => {
    const hook = await subscribe();
    const id = await firePending();
    const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { reference: 'TICKET-1', ttlDays: 7 } });
    expect(res.status).toBe(200);
    // spec 4.3: "Response data: {request: access request, visitorToken: visitor token, emailSent: boolean}"
    expect(Object.keys(res.body.data).sort()).toEqual(['emailSent', 'request', 'visitorToken']);
    expect(typeof res.body.data.emailSent).toBe('boolean');
    // spec 4.3: "The request records decidedVia `api`, decidedByApiClientId and decisionReference."
    const { request, visitorToken } = res.body.data;
    expect(request.decidedVia).toBe('api');
    expect(request.decidedByApiClientId).toMatch(UUID);
    expect(request.decisionReference).toBe('TICKET-1');
    expect(request.decidedByApiClientName).toBe('a-full');
    expect(request.visitorTokenId).toBe(visitorToken.id);
    // spec 2.10: "The raw token is never returned by the API." Only the listed fields.
    expect(Object.keys(visitorToken).sort()).toEqual(['companyName', 'createdAt', 'expiresAt', 'id', 'lastUsedAt', 'organizationId', 'origin', 'revokedAt', 'status', 'tokenSuffix', 'updatedAt', 'visitorEmail', 'visitorName']);
    // spec 4.3: "ttlDays … 1 to 365"
    expect(Date.parse(visitorToken.expiresAt) - Date.parse(visitorToken.createdAt)).toBe(7 * 86_400_000);
    // spec 4.4: GET /trust-center/visitor-tokens lists it
    const tokens = await h.api('GET', '/v1/trust-center/visitor-tokens');
    expect(tokens.body.data.map((t: { id: string }) => t.id)).toEqual([visitorToken.id]);
    // spec 6.2: "trustcenter.access_approved | accessRequestId, visitorTokenId, decidedBy"; "`api_client` (an API key through the approve or reject endpoints)"
    const sent = await payloads(hook);
    expect(sent[0]).toEqual({ trigger: 'trustcenter.access_approved', data: { accessRequestId: id, visitorTokenId: visitorToken.id, decidedBy: 'api_client' } });
  });

  it('a retry of a landed decision is 409 ACCESS_REQUEST_ALREADY_DECIDED and changes nothing, for approve and reject', async () => {
    const hook = await subscribe();
    const id = await firePending();
    expect((await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} })).status).toBe(200);
    const before = await snapshot();
    const deliveriesBefore = (await payloads(hook)).length;
    // spec 4.3: "any decision call answers 409 ACCESS_REQUEST_ALREADY_DECIDED and changes nothing (this is also what a retry of a landed decision receives)"
    for (const [path, body] of [['approve', {}], ['reject', { reason: 'no' }]] as const) {
      const again = await h.api('POST', `/v1/trust-center/access-requests/${id}/${path}`, { body });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'ACCESS_REQUEST_ALREADY_DECIDED' });
    }
    expect(await snapshot()).toBe(before);
    expect((await payloads(hook)).length).toBe(deliveriesBefore);
  });

  it('refuses unknown fields (sendEmail included), bad ttlDays, long reference, bad scope: 422 naming the field, nothing changed', async () => {
    const id = await firePending();
    const before = await snapshot();
    const cases: Array<[unknown, string]> = [
      // spec 4.3: "unknown fields, including `sendEmail`, give 422 naming the field"
      [{ sendEmail: false }, 'sendEmail'],
      [{ foo: 1 }, 'foo'],
      // spec 4.3: "ttlDays | integer | 1 to 365"
      [{ ttlDays: 0 }, 'ttlDays'],
      [{ ttlDays: 366 }, 'ttlDays'],
      [{ ttlDays: 1.5 }, 'ttlDays'],
      [{ ttlDays: '30' }, 'ttlDays'],
      // spec 4.3: "reference | string | at most 500 chars"
      [{ reference: 'x'.repeat(501) }, 'reference'],
      [{ reference: 5 }, 'reference'],
      [{ scope: 'everything' }, 'scope'],
      [{ resourceIds: 'abc' }, 'resourceIds'],
      [{ resourceIds: ['not-a-uuid'] }, 'resourceIds'],
    ];
    for (const [body, field] of cases) {
      const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    // at the bound: ttlDays 365 and a 500-char reference are accepted
    const ok = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { ttlDays: 365, reference: 'r'.repeat(500) } });
    expect(ok.status).toBe(200);
    expect(before).not.toBe(await snapshot());
  });

  it('an unpublished or unknown resource id refuses the whole approval', async () => {
    const id = await firePending();
    const resources = (await h.api('GET', '/v1/trust-center/resources')).body.data as Array<{ id: string; isPublished: boolean }>;
    const unpublished = resources.find((r) => !r.isPublished)!;
    const before = await snapshot();
    // spec 4.3: "an unpublished or unknown id refuses the whole approval"
    for (const rid of [unpublished.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { scope: 'selected', resourceIds: [rid] } });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe('resourceIds');
    }
    expect(await snapshot()).toBe(before);
  });

  it('scope all grants gated non-restricted documents; all_gated_plus_selected adds a named restricted one; selected grants only the named', async () => {
    const resources = (await h.api('GET', '/v1/trust-center/resources')).body.data as Array<{ id: string; isPublished: boolean; isGated: boolean; isRestricted: boolean }>;
    const standard = resources.filter((r) => r.isPublished && r.isGated && !r.isRestricted).map((r) => r.id).sort();
    const restricted = resources.find((r) => r.isRestricted && r.isPublished)!.id;
    const granted = async (body: unknown) => {
      const id = await firePending();
      const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body });
      expect(res.status).toBe(200);
      const ids: string[] = [];
      for (const rid of resources.map((r) => r.id)) {
        const d = await h.api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id, resourceId: rid } });
        if (d.status === 201) ids.push(rid);
      }
      return ids.sort();
    };
    // spec 4.3: "all (default; every gated, non-restricted document)"
    expect(await granted({})).toEqual(standard);
    // spec 4.3: "all_gated_plus_selected (adds restricted documents named in resourceIds)"
    expect(await granted({ scope: 'all_gated_plus_selected', resourceIds: [restricted] })).toEqual([...standard, restricted].sort());
    // spec 4.3: "selected (only those named)"
    expect(await granted({ scope: 'selected', resourceIds: [standard[0]] })).toEqual([standard[0]]);
  });
});

describe('reject (spec 4.3)', () => {
  it('stores the reason, records the decision, emits access_rejected with decidedBy api_client', async () => {
    const hook = await subscribe();
    const id = await firePending();
    const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body: { reason: 'unknown company', reference: 'T-2' } });
    expect(res.status).toBe(200);
    // spec 4.3: "`reason` string (required; internal note stored for reviewers, never sent to the visitor)"
    expect(res.body.data.rejectionReason).toBe('unknown company');
    expect(res.body.data.decidedVia).toBe('api');
    expect(res.body.data.decisionReference).toBe('T-2');
    // spec 3: "Approve mints a visitor credential; reject mints none."
    expect(res.body.data.visitorTokenId).toBeNull();
    expect((await h.api('GET', '/v1/trust-center/visitor-tokens')).body.data).toEqual([]);
    expect((await payloads(hook))[0]).toEqual({ trigger: 'trustcenter.access_rejected', data: { accessRequestId: id, decidedBy: 'api_client' } });
  });

  it('a missing reason or an unknown field is 422 naming it, nothing changed', async () => {
    const id = await firePending();
    const before = await snapshot();
    for (const [body, field] of [[{}, 'reason'], [{ reason: 7 }, 'reason'], [{ reason: 'x', sendEmail: true }, 'sendEmail'], [{ reason: 'x', reference: 'y'.repeat(501) }, 'reference']] as const) {
      const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/reject`, { body });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('decisions made in the emulator, and downloads', () => {
  it('a reviewer decision emits decidedBy reviewer; a download records one access event and emits resource_downloaded with ids that resolve', async () => {
    const hook = await subscribe();
    const id = await firePending();
    const decided = await h.api('POST', `/v1/_emulator/trust-center/access-requests/${id}/decide`, { body: { decision: 'approve', as: 'reviewer' } });
    expect(decided.status).toBe(200);
    expect(decided.body.data.request.decidedVia).toBe('app');
    const dl = await h.api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id } });
    expect(dl.status).toBe(201);
    const sent = await payloads(hook);
    const approved = sent.find((s) => s.trigger === 'trustcenter.access_approved')!;
    expect(approved.data.decidedBy).toBe('reviewer');
    const downloaded = sent.find((s) => s.trigger === 'trustcenter.resource_downloaded')!;
    // spec 6.2: "accessEventId (the id of the access event), resourceId, visitorTokenId, channel, watermarked, occurredAt"
    expect(Object.keys(downloaded.data).sort()).toEqual(['accessEventId', 'channel', 'occurredAt', 'resourceId', 'visitorTokenId', 'watermarked']);
    const events = await h.api('GET', `/v1/trust-center/access-events?visitorTokenId=${downloaded.data.visitorTokenId}`);
    expect(events.body.data.map((e: { id: string }) => e.id)).toEqual([downloaded.data.accessEventId]);
    // spec 2.10: "ipPrefix string? (only a /24 or /48 prefix is stored)"
    expect(events.body.data[0].ipPrefix).toMatch(/\/(24|48)$/);
    const resources = (await h.api('GET', '/v1/trust-center/resources')).body.data.map((r: { id: string }) => r.id);
    expect(resources).toContain(downloaded.data.resourceId);
  });

  it('an access_rule rejection emits decidedBy access_rule', async () => {
    const hook = await subscribe();
    const id = await firePending();
    expect((await h.api('POST', `/v1/_emulator/trust-center/access-requests/${id}/decide`, { body: { decision: 'reject', as: 'access_rule', reason: 'blocked domain' } })).status).toBe(200);
    expect((await payloads(hook))[0]).toEqual({ trigger: 'trustcenter.access_rejected', data: { accessRequestId: id, decidedBy: 'access_rule' } });
  });
});

describe('access events list (spec 4.1, 4.2)', () => {
  it('pages newest first with a signed cursor; bad cursors, page, and out-of-bound filters are 400', async () => {
    const id = await firePending();
    await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} });
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.unshift((await h.api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id } })).body.data.id);
    // spec 4.1: "Ordering is newest-first." "Pass cursor.nextCursor back as cursor; stop when hasMore is false."
    const first = await h.api('GET', '/v1/trust-center/access-events?limit=2');
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual(made.slice(0, 2));
    expect(first.body.cursor.hasMore).toBe(true);
    const second = await h.api('GET', `/v1/trust-center/access-events?limit=2&cursor=${encodeURIComponent(first.body.cursor.nextCursor)}`);
    expect(second.body.data.map((e: { id: string }) => e.id)).toEqual(made.slice(2));
    expect(second.body.cursor).toMatchObject({ hasMore: false, nextCursor: null });
    // spec 4.1: "a tampered or malformed cursor answers 400 INVALID_CURSOR"
    const cursor = first.body.cursor.nextCursor as string;
    for (const bad of [cursor.slice(0, -2), `x${cursor}`, 'a'.repeat(5000), 'not.acursor']) {
      const res = await h.api('GET', `/v1/trust-center/access-events?limit=2&cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_CURSOR');
    }
    // Another organization cannot use it either.
    expect((await h.api('GET', `/v1/trust-center/access-events?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: h.keys.bFull })).body.code).toBe('INVALID_CURSOR');
    // spec 4.1: "The legacy page parameter on a cursor endpoint answers 400."
    expect((await h.api('GET', '/v1/trust-center/access-events?page=1')).status).toBe(400);
    // spec 4.2: "limit (default 50, 1 to 500)", "search (… 1 to 255 chars)", "arrays at most 100 items"
    for (const q of ['limit=0', 'limit=501', 'limit=abc', `search=${'a'.repeat(256)}`, 'search=', 'eventType=resource_print', 'channel=email', 'resourceId=nope', 'visitorTokenId=1', 'occurredFrom=yesterday', `eventType=${Array(101).fill('resource_view').join(',')}`]) {
      const res = await h.api('GET', `/v1/trust-center/access-events?${q}`);
      expect(res.status, q.slice(0, 60)).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect((await h.api('GET', '/v1/trust-center/access-events?limit=500')).status).toBe(200);
  });

  it('filters: eventType, channel, resourceId, search, and a bare date covering the whole day', async () => {
    const id = await firePending();
    await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} });
    const ev = (await h.api('POST', '/v1/_emulator/trust-center/downloads', { body: { accessRequestId: id, channel: 'bulk_zip' } })).body.data;
    const count = async (q: string) => (await h.api('GET', `/v1/trust-center/access-events?${q}`)).body.data.length;
    expect(await count('eventType=resource_download')).toBe(1);
    expect(await count('eventType=resource_view')).toBe(0);
    expect(await count('channel=bulk_zip&channel=viewer')).toBe(1);
    expect(await count('channel=viewer')).toBe(0);
    expect(await count(`resourceId=${ev.resourceId}`)).toBe(1);
    expect(await count('resourceId=00000000-0000-4000-8000-000000000000')).toBe(0);
    expect(await count(`search=${encodeURIComponent(ev.visitorEmail.slice(0, 5))}`)).toBe(1);
    expect(await count('search=nobody-like-this')).toBe(0);
    // spec 4.2: "occurredFrom, occurredTo (a bare date covers the whole day …)"
    const day = ev.occurredAt.slice(0, 10);
    expect(await count(`occurredFrom=${day}&occurredTo=${day}`)).toBe(1);
    expect(await count(`occurredTo=${encodeURIComponent(`${day}T00:00:00Z`)}`)).toBe(ev.occurredAt.slice(11, 19) === '00:00:00' ? 1 : 0);
  });
});

describe('scopes, 401 and hostile input (spec 5, 7)', () => {
  it('401 without a key, 403 without the scope, malformed ids 400, never a 5xx', async () => {
    const id = await firePending();
    // spec 5: "A missing or invalid key gives 401 UNAUTHORIZED."
    expect((await h.api('GET', '/v1/trust-center/resources', { key: null })).status).toBe(401);
    expect((await h.api('GET', '/v1/sod/violations', { key: 'hrk_wrong' })).status).toBe(401);
    // spec 5: "A valid key lacking the endpoint's scope gives 403 FORBIDDEN." (a-read has no trust-center-access:write)
    const res = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { key: h.keys.aRead, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect((await h.api('GET', `/v1/trust-center/access-requests/${id}`)).body.data.status).toBe('pending');
    for (const [method, path, body] of [
      ['GET', '/v1/trust-center/access-requests/not-a-uuid', undefined],
      ['POST', `/v1/trust-center/access-requests/${id}/approve`, [1, 2]],
      ['POST', `/v1/trust-center/access-requests/${id}/approve`, 'text'],
      ['POST', `/v1/trust-center/access-requests/${id}/reject`, { reason: 'x'.repeat(200_000) }],
      ['GET', '/v1/sod/violations?status=bogus', undefined],
      ['GET', '/v1/sod/violations?ruleId=1', undefined],
    ] as const) {
      const r = await h.api(method, path, body === undefined ? {} : { body });
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
      expect(r.body.success).toBe(false);
    }
    const raw = await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { raw: '{"ttlDays":', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    expect((await h.api('GET', `/v1/trust-center/access-requests/${id}`)).body.data.status).toBe('pending');
  });
});

describe('SoD violations (spec 4.4)', () => {
  it('filters by status, ruleId, subjectType, subjectId; accepted and resolved are terminal; a recurrence is a new violation', async () => {
    const fired = await h.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected' } });
    const vid = fired.body.data.recordIds[0];
    const list = await h.api('GET', '/v1/sod/violations?status=open');
    expect(list.body.data.map((v: { id: string }) => v.id)).toEqual([vid]);
    const v = list.body.data[0];
    // spec 4.4: "enforcement rung is read from evidence.enforcementAtDetection"
    expect(typeof v.evidence.enforcementAtDetection).toBe('string');
    expect((await h.api('GET', `/v1/sod/violations?ruleId=${v.ruleId}&subjectType=${v.subjectType}&subjectId=${v.subjectId}`)).body.data.length).toBe(1);
    expect((await h.api('GET', '/v1/sod/violations?subjectType=vendor')).body.data.length).toBe(0);
    expect((await h.api('POST', `/v1/_emulator/sod/violations/${vid}/close`, { body: { status: 'accepted' } })).status).toBe(200);
    // spec 4.4: "accepted and resolved are terminal"
    const again = await h.api('POST', `/v1/_emulator/sod/violations/${vid}/close`, { body: { status: 'resolved' } });
    expect(again.status).toBe(409);
    expect((await h.api('GET', '/v1/sod/violations?status=accepted')).body.data.length).toBe(1);
    // spec 4.4: "a recurrence is a new violation"
    const recur = await h.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected' } });
    expect(recur.body.data.recordIds[0]).not.toBe(vid);
    expect((await h.api('GET', '/v1/sod/violations')).body.data.length).toBe(2);
    // scope sod:read: organization B sees none of A's
    expect((await h.api('GET', '/v1/sod/violations', { key: h.keys.bFull })).body.data).toEqual([]);
  });
});

describe('durability', () => {
  it('requests and decisions survive a restart', async () => {
    const id = await firePending();
    await h.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: { reference: 'R' } });
    const dir = h.dir;
    await h.app.close();
    const again = await startEmulator({ plan: 'premium' }, {}, dir);
    try {
      const res = await again.api('GET', `/v1/trust-center/access-requests/${id}`);
      expect(res.body.data).toMatchObject({ status: 'approved', decisionReference: 'R' });
      expect((await again.api('POST', `/v1/trust-center/access-requests/${id}/approve`, { body: {} })).status).toBe(409);
    } finally {
      await again.app.close();
    }
  });
});
