/** Typed events: a union on `type` over the seven triggers of spec 6.2; unknown triggers stay the generic envelope. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { TRIGGER_CATALOGUE } from '../../src/core/triggers.js';
import { isEvent, isKnownEvent, type EventOf, type KnownEvent, type WebhookEvent } from '../../src/kit/events.js';

const base = { id: 'd', apiVersion: '2026-06-01', createdAt: '2026-06-01T10:00:00Z', organizationId: 'org_1' };

describe('typed events', () => {
  it('narrows with isEvent, data included', () => {
    const event: WebhookEvent = { ...base, type: 'trustcenter.resource_downloaded', data: { accessEventId: 'a', resourceId: 'r', visitorTokenId: 'v', channel: 'viewer', watermarked: true, occurredAt: '2026-06-01T10:00:00Z' } };
    expect(isEvent(event, 'trustcenter.resource_downloaded')).toBe(true);
    expect(isEvent(event, 'trustcenter.access_approved')).toBe(false);
    if (isEvent(event, 'trustcenter.resource_downloaded')) {
      expectTypeOf(event.data.channel).toEqualTypeOf<'detail' | 'viewer' | 'download' | 'bulk_zip' | 'external_link'>();
      expectTypeOf(event.data.watermarked).toEqualTypeOf<boolean>();
    }
    expectTypeOf<EventOf<'trustcenter.access_rejected'>['data']>().toEqualTypeOf<{ accessRequestId: string; decidedBy: 'reviewer' | 'access_rule' | 'api_client' }>();
  });

  it('covers the seven triggers of the catalogue, and a switch narrows after isKnownEvent', () => {
    expectTypeOf<KnownEvent['type']>().toEqualTypeOf<(typeof TRIGGER_CATALOGUE)[number]['trigger']>();
    const seen: string[] = [];
    for (const { trigger } of TRIGGER_CATALOGUE) {
      const event = { ...base, type: trigger, data: {} } as WebhookEvent;
      expect(isKnownEvent(event)).toBe(true);
      if (!isKnownEvent(event)) continue;
      switch (event.type) {
        case 'trustcenter.access_approved':
          expectTypeOf(event.data.visitorTokenId).toEqualTypeOf<string>();
          break;
        case 'control.drift_detected':
          expectTypeOf(event.data).toEqualTypeOf<Record<string, unknown>>();
          break;
      }
      seen.push(event.type);
    }
    expect(seen).toHaveLength(7);
  });

  it('keeps a trigger added later (spec 9.2) as the generic envelope, and refuses what is not an event', () => {
    const future: WebhookEvent = { ...base, type: 'contract.renewal_due', data: { contractId: 'c' } };
    expect(isKnownEvent(future)).toBe(false);
    expect(isEvent(future, 'trustcenter.access_requested')).toBe(false);
    expect(future.data['contractId']).toBe('c');
    expect(isEvent(null, 'trustcenter.access_requested')).toBe(false);
    expect(isKnownEvent(undefined)).toBe(false);
  });
});
