import { describe, expect, it } from 'vitest';
import { checkEnvelope } from '../../src/core/envelope.js';
import { attemptHeaders, buildDelivery, deliveryFromRawBody } from '../../src/sender/build-request.js';

const init = {
  id: '5b0e2b9e-8f5c-4c59-9d1f-0d8f7f2c1a11',
  trigger: 'trustcenter.access_approved',
  organizationId: '0f9c3a8e-1111-4a4a-8b8b-222222222222',
  createdAtMs: Date.UTC(2026, 5, 1, 10),
  data: { accessRequestId: 'a', visitorTokenId: 'v', decidedBy: 'api_client' },
};

describe('buildDelivery (spec 6.1)', () => {
  it('builds the envelope in spec order, serialised once', () => {
    const d = buildDelivery(init);
    expect(d.body.toString('utf8')).toBe(
      '{"id":"5b0e2b9e-8f5c-4c59-9d1f-0d8f7f2c1a11","type":"trustcenter.access_approved","apiVersion":"2026-06-01",' +
        '"createdAt":"2026-06-01T10:00:00.000Z","organizationId":"0f9c3a8e-1111-4a4a-8b8b-222222222222",' +
        '"data":{"accessRequestId":"a","visitorTokenId":"v","decidedBy":"api_client"}}',
    );
    expect(d).toMatchObject({ id: init.id, trigger: init.trigger, apiVersion: '2026-06-01' });
  });

  it('passes the receiver-side envelope check with its own headers', () => {
    const d = buildDelivery(init);
    const h = attemptHeaders(d, 1, null);
    expect(checkEnvelope(d.body, { deliveryId: h['x-service-delivery'], event: h['x-service-event'] })).toMatchObject({ ok: true, apiVersionKnown: true });
  });
});

describe('attemptHeaders', () => {
  it('carries the spec 6.1 headers, the attempt number and the signature when signing', () => {
    const d = buildDelivery(init);
    expect(attemptHeaders(d, 3, 't=1,v1=ff')).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Service-Webhook/1',
      'x-service-event': 'trustcenter.access_approved',
      'x-service-delivery': init.id,
      'x-service-delivery-attempt': '3',
      'x-service-api-version': '2026-06-01',
      'x-service-signature': 't=1,v1=ff',
    });
    expect(attemptHeaders(d, 1, null)).not.toHaveProperty('x-service-signature');
  });
});

describe('deliveryFromRawBody (--payload)', () => {
  it('keeps the bytes exactly, BOM and spacing included, and takes id, type and apiVersion from them', () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{ "id" : "abc", "type":"vendor.rating_dropped", "apiVersion":"2027-01-01", "data":{} }')]);
    const result = deliveryFromRawBody(raw, 'trustcenter.access_requested');
    if (!result.ok) throw new Error(result.reason);
    expect(result.delivery.body).toBe(raw);
    expect(result.delivery).toMatchObject({ id: 'abc', trigger: 'vendor.rating_dropped', apiVersion: '2027-01-01' });
  });

  it('falls back to the given trigger when the body has no type', () => {
    const result = deliveryFromRawBody(Buffer.from('{"id":"x"}'), 'sod.violation_detected');
    expect(result).toMatchObject({ ok: true, delivery: { trigger: 'sod.violation_detected', apiVersion: '2026-06-01' } });
  });

  it.each([
    ['not JSON', 'nope', 'not valid JSON'],
    ['an array', '[1]', 'must be a JSON object'],
    ['no id', '{"type":"x"}', 'needs a string "id"'],
    ['a numeric id', '{"id":5}', 'needs a string "id"'],
    ['an id a header cannot carry', '{"id":"a\\r\\nx-evil: 1"}', 'cannot carry'],
  ])('refuses %s', (_name, text, reason) => {
    const result = deliveryFromRawBody(Buffer.from(text), 'x');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});
