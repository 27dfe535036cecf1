import { describe, expect, it } from 'vitest';
import type { DeliveryEvent } from '../../src/core/retry-policy/delivery-events.js';
import type { Delivery } from '../../src/core/retry-policy/delivery-state.js';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY } from '../../src/core/retry-policy/policy.js';
import { retryWindow } from '../../src/core/retry-policy/schedule.js';
import { simulateDeliveries, type SimulatedAnswer } from '../../bench/simulate-deliveries.js';
import { mulberry32 } from '../../src/core/seeded-random.js';

const T0 = Date.UTC(2026, 5, 1);
const status = (s: number, durationMs = 20, retryAfter?: string): SimulatedAnswer => ({ observation: { kind: 'response', status: s, retryAfter }, durationMs });

/** Gaps (seconds) from the end of attempt n to the start of attempt n+1. */
function gaps(delivery: Delivery): number[] {
  return delivery.attempts.slice(1).map((a, i) => (Date.parse(a.startedAt) - Date.parse(delivery.attempts[i]!.finishedAt!)) / 1000);
}

describe('simulateDeliveries', () => {
  it('runs one delivery through the whole default schedule, each wait inside its window', () => {
    const { deliveries, endMs } = simulateDeliveries({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: DEFAULT_FAILURE_HANDLING,
      count: 1,
      startMs: T0,
      random: mulberry32(1),
      respond: () => status(503),
    });
    const d = deliveries[0]!;
    expect(d).toMatchObject({ status: 'failed', attemptCount: 6, lastFailureClass: 'http_5xx', nextAttemptAt: null });
    gaps(d).forEach((gap, i) => {
      const w = retryWindow(DEFAULT_RETRY_POLICY, i + 1);
      expect(gap).toBeGreaterThanOrEqual(w.min - 0.001);
      expect(gap).toBeLessThanOrEqual(w.max + 0.001);
    });
    const total = (endMs - T0) / 1000;
    expect(total).toBeGreaterThan(16368);
    expect(total).toBeLessThan(24552 + 1);
  });

  it('honours Retry-After on the virtual clock', () => {
    const { deliveries } = simulateDeliveries({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: DEFAULT_FAILURE_HANDLING,
      count: 1,
      startMs: T0,
      random: mulberry32(1),
      respond: (_i, n) => (n === 1 ? status(429, 0, '120') : n === 2 ? status(503, 0, '99999') : status(200, 0)),
    });
    expect(gaps(deliveries[0]!)).toEqual([120, 21600]);
    expect(deliveries[0]!.status).toBe('succeeded');
  });

  const fullSchedule = (count: number, seed: number) =>
    simulateDeliveries({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: DEFAULT_FAILURE_HANDLING,
      count,
      startMs: T0,
      intervalMs: 5,
      random: mulberry32(seed),
      respond: (_i, n) => (n < 6 ? status(500, 15) : status(200, 15)),
    });

  it('pushes 10,000 deliveries through the full default schedule', () => {
    const result = fullSchedule(10_000, 99);
    expect(result.attempts).toBe(60_000);
    expect(result.deliveries.every((d) => d.status === 'succeeded' && d.attemptCount === 6)).toBe(true);
    expect(result.webhook).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    for (const d of result.deliveries.filter((_, i) => i % 50 === 0)) {
      gaps(d).forEach((gap, i) => {
        const w = retryWindow(DEFAULT_RETRY_POLICY, i + 1);
        expect(gap).toBeGreaterThanOrEqual(w.min - 0.001);
        expect(gap).toBeLessThanOrEqual(w.max + 0.001);
      });
    }
  });

  it('repeats exactly under one seed and differs under another', () => {
    const times = (r: ReturnType<typeof fullSchedule>) => r.deliveries.map((d) => d.attempts.map((x) => x.startedAt));
    const a = fullSchedule(300, 5);
    expect(times(fullSchedule(300, 5))).toEqual(times(a));
    expect(times(fullSchedule(300, 6))).not.toEqual(times(a));
  });

  it('suspends after autoDisableAfter failed deliveries; later deliveries close as webhook_inactive unsent', () => {
    const events: DeliveryEvent[] = [];
    const { deliveries, webhook } = simulateDeliveries({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: DEFAULT_FAILURE_HANDLING,
      count: 20,
      startMs: T0,
      intervalMs: 1000,
      random: mulberry32(2),
      respond: () => status(404),
      onEvent: (e) => events.push(e),
    });
    expect(deliveries.slice(0, 15).every((d) => d.lastFailureClass === 'http_4xx' && d.attemptCount === 1)).toBe(true);
    expect(deliveries.slice(15).every((d) => d.status === 'failed' && d.lastFailureClass === 'webhook_inactive' && d.attemptCount === 0)).toBe(true);
    expect(webhook).toMatchObject({ status: 'suspended', consecutiveFailures: 15 });
    expect(events.filter((e) => e.type === 'webhook_suspended')).toHaveLength(1);
  });

  it('a 410 suspends the webhook and closes waiting retries as webhook_inactive', () => {
    const { deliveries, webhook } = simulateDeliveries({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: DEFAULT_FAILURE_HANDLING,
      count: 2,
      startMs: T0,
      intervalMs: 1000,
      random: mulberry32(3),
      respond: (i) => (i === 0 ? status(500) : status(410)),
    });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'webhook_inactive', nextAttemptAt: null });
    expect(deliveries[1]).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'http_410' });
    expect(webhook).toMatchObject({ status: 'suspended', consecutiveFailures: 1, disabledReason: 'endpoint answered 410 Gone' });
  });

  it('with disableOnGone false a 410 fails only its own delivery', () => {
    const { deliveries, webhook } = simulateDeliveries({
      policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2 },
      failureHandling: { ...DEFAULT_FAILURE_HANDLING, disableOnGone: false },
      count: 2,
      startMs: T0,
      intervalMs: 1000,
      random: mulberry32(3),
      respond: (i, n) => (i === 1 ? status(410) : n === 1 ? status(500) : status(200)),
    });
    expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'failed']);
    expect(webhook.status).toBe('active');
  });

  it('lets an attempt in flight at suspension finish, then closes it as webhook_inactive instead of retrying', () => {
    const { deliveries } = simulateDeliveries({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: DEFAULT_FAILURE_HANDLING,
      count: 2,
      startMs: T0,
      random: mulberry32(4),
      // Delivery 0 is slow (in flight when delivery 1 meets the 410) and then fails retryably.
      respond: (i) => (i === 0 ? status(500, 5000) : status(410, 10)),
    });
    expect(deliveries[0]!.attempts[0]).toMatchObject({ responseStatus: 500, durationMs: 5000 });
    expect(deliveries[0]).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'webhook_inactive' });
  });
});
