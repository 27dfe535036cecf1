import { describe, expect, it } from 'vitest';
import { judgeDelivery } from '../../../src/core/conformance/judge-delivery.js';
import { DELIVERY_RULES } from '../../../src/core/conformance/types.js';
import { backoffWindow } from '../../../src/core/conformance/windows.js';
import { DEFAULT_RETRY_POLICY } from '../../../src/core/retry-policy/policy.js';
import { delivery, opts, records } from './builder.js';
import { statuses } from './verdict-helpers.js';

describe('judgeDelivery (one delivery, e.g. for GET /api/deliveries/:id)', () => {
  const d = delivery({ id: 'evt_x' }).attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000 });

  it('orders the records by arrival and reports every rule in a fixed order', () => {
    const v = judgeDelivery(records(d).reverse(), opts());
    expect(v.deliveryId).toBe('evt_x');
    expect(v.timeline.map((a) => a.attemptHeader)).toEqual([1, 2]);
    expect(v.rules.map((r) => r.rule)).toEqual(DELIVERY_RULES);
  });

  it('fails max-attempts for a sender that stopped, unless another delivery suspended the webhook before the retry was due', () => {
    const maxAttempts = (suspendedAt?: number) => statuses(judgeDelivery(records(d), opts(), suspendedAt))['max-attempts'];
    // Retry 2 is due 192–288 s after attempt 2 ended, + 1 s late slack.
    expect(maxAttempts()).toBe('fail');
    expect(maxAttempts(d.end + 1)).toBe('n/a');
    expect(maxAttempts(d.end + 288_999)).toBe('n/a');
    expect(maxAttempts(d.end + 289_000)).toBe('fail');
  });

  it('never throws on an empty list', () => {
    const v = judgeDelivery([], opts());
    expect(v.timeline).toEqual([]);
    expect(v.deliveryId).toBeNull();
  });
});

describe('backoffWindow', () => {
  it.each([
    { policy: DEFAULT_RETRY_POLICY, n: 1, expected: { nominalSeconds: 60, minSeconds: 48, maxSeconds: 72, capped: false, lowMs: 47_750, highMs: 73_000 } },
    { policy: { ...DEFAULT_RETRY_POLICY, maxDelaySeconds: 250 }, n: 2, expected: { nominalSeconds: 240, minSeconds: 192, maxSeconds: 250, capped: true } },
    { policy: { ...DEFAULT_RETRY_POLICY, maxDelaySeconds: 250 }, n: 3, expected: { nominalSeconds: 250, minSeconds: 250, maxSeconds: 250, capped: true } },
    { policy: { ...DEFAULT_RETRY_POLICY, backoff: 'fixed' as const, initialDelaySeconds: 30 }, n: 9, expected: { nominalSeconds: 30, minSeconds: 24, maxSeconds: 36, capped: false } },
  ])('retry $n of $policy.backoff capped at $policy.maxDelaySeconds', ({ policy, n, expected }) => {
    expect(backoffWindow(opts({ policy }), n)).toMatchObject(expected);
  });

  it('is null for a retry number below 1', () => {
    expect(backoffWindow(opts(), 0)).toBeNull();
  });
});
