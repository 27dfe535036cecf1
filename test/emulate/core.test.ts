import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/core/emulator/cursor.js';
import { checkEventData } from '../../src/core/emulator/event-data.js';
import { catalogueFor, judgeTriggers } from '../../src/core/emulator/trigger-catalogue.js';
import { validateCreateBody } from '../../src/core/emulator/webhook-body.js';

const KEY = Buffer.alloc(32, 7);
const W = '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60';

describe('the deliveries cursor (spec 4.1)', () => {
  it('round-trips any position', () => {
    fc.assert(fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (seq) => {
      const decoded = decodeCursor(encodeCursor({ webhookId: W, beforeSeq: seq }, KEY), KEY, W);
      expect(decoded).toEqual({ ok: true, position: { webhookId: W, beforeSeq: seq } });
    }));
  });

  it('refuses any single-character change, another key and another webhook', () => {
    const good = encodeCursor({ webhookId: W, beforeSeq: 42 }, KEY);
    fc.assert(fc.property(fc.nat({ max: good.length - 1 }), fc.constantFrom(...'ABCxyz019-_.='.split('')), (i, ch) => {
      fc.pre(good[i] !== ch);
      expect(decodeCursor(good.slice(0, i) + ch + good.slice(i + 1), KEY, W).ok).toBe(false);
    }));
    expect(decodeCursor(good, Buffer.alloc(32, 8), W).ok).toBe(false);
    expect(decodeCursor(good, KEY, '00000000-0000-4000-8000-000000000000').ok).toBe(false);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 600 }), (text) => {
      expect(decodeCursor(text, KEY, W).ok).toBe(false);
    }));
  });
});

describe('webhook bodies (spec 4.3)', () => {
  it('never throws, whatever the JSON', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const checked = validateCreateBody(value);
      if (!checked.ok) expect(checked.problems.length).toBeGreaterThan(0);
    }));
  });

  it.each(['X-Service-Delivery', 'content-type', 'Host', 'x-hookrelay-time-scale'])('refuses the reserved header %s', (name) => {
    const checked = validateCreateBody({ name: 'n', triggers: ['sod.violation_detected'], endpoint: 'https://e.example/h', customHeaders: [{ name, value: 'v' }] });
    expect(checked.ok).toBe(false);
  });

  it('refuses a header value with a line break without echoing it', () => {
    const checked = validateCreateBody({ name: 'n', triggers: ['sod.violation_detected'], endpoint: 'https://e.example/h', customHeaders: [{ name: 'X-A', value: 'sec\r\nret' }] });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(JSON.stringify(checked.problems)).not.toContain('sec');
  });
});

describe('triggers and event data (spec 6.2)', () => {
  it('core plans are not entitled to the premium triggers', () => {
    expect(judgeTriggers(['trustcenter.access_requested', 'sod.violation_detected', 'nope'], 'core')).toEqual({ unknown: ['nope'], notEntitled: ['trustcenter.access_requested'] });
    expect(catalogueFor('premium').every((e) => e.entitled)).toBe(true);
  });

  it.each<[string, unknown, boolean]>([
    ['trustcenter.access_approved', { decidedBy: 'api_client' }, true],
    ['trustcenter.access_approved', { decidedBy: 'boss' }, false],
    ['trustcenter.access_approved', { email: 'a@b.c' }, false],
    ['trustcenter.resource_downloaded', { occurredAt: 'yesterday' }, false],
    ['trustcenter.resource_downloaded', { watermarked: 'yes' }, false],
    ['control.drift_detected', { controlId: '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60' }, true],
    ['control.drift_detected', { controlName: 'MFA' }, false],
    ['control.drift_detected', { controlId: 'MFA' }, false],
    ['control.drift_detected', [], false],
  ])('%s with %j: accepted %s', (trigger, data, ok) => {
    const sample = { accessRequestId: W, visitorTokenId: W, decidedBy: 'reviewer', accessEventId: W, resourceId: W, channel: 'viewer', watermarked: false, occurredAt: '2026-06-01T00:00:00Z' };
    expect(checkEventData(trigger as 'control.drift_detected', data, sample).ok).toBe(ok);
  });
});
