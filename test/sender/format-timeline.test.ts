import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../src/core/retry-policy/classify-outcome.js';
import { createDelivery, finishAttempt, startAttempt, type Delivery } from '../../src/core/retry-policy/delivery-state.js';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retry-policy/policy.js';
import { createWebhookState } from '../../src/core/retry-policy/webhook-state.js';
import { describeDecision, formatEvent, formatSummary } from '../../src/sender/format-timeline.js';

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const ctx = { total: 1, timeScale: 1, policy: DEFAULT_RETRY_POLICY };

function judged(status: number, retryAfter?: string, random = 0.5) {
  const d = createDelivery({ id: 'd-1', webhookId: 'w', trigger: 't', apiVersion: 'v', payload: {}, createdAtMs: T0 });
  const s = startAttempt(d, T0);
  if (!s.ok) throw new Error(s.reason);
  return finishAttempt(s.delivery, { kind: 'response', status, retryAfter }, { policy: DEFAULT_RETRY_POLICY, nowMs: T0 + 41, random: () => random, timeScale: 0.001 });
}

describe('the send timeline', () => {
  it('shows attempt, time, status, class, duration and the next wait with its reason', () => {
    const f = judged(503);
    const [line] = formatEvent(
      { type: 'attempt_finished', index: 0, deliveryId: 'd-1', attempt: f.delivery.attempts[0]!, outcome: f.outcome, decision: f.decision, scaledWaitMs: f.scaledWaitMs, delivery: f.delivery },
      { ...ctx, timeScale: 0.001 },
    );
    expect(line).toContain('#1');
    expect(line).toContain('12:00:00.000Z');
    expect(line).toContain('503');
    expect(line).toContain('http_5xx');
    expect(line).toContain('41 ms');
    expect(line).toContain('→ retry 1 in 1 min: backoff 1 min ±20% (48 s – 1 min 12 s); ×0.001 → 60 ms');
  });

  it.each([
    [429, '5', 'Retry-After 5 s, raised to the 10 s floor'],
    [503, '99999', 'Retry-After 1 d 4 h, capped at maxDelaySeconds 21600'],
    [429, '120', 'Retry-After 2 min'],
  ])('explains a %i with Retry-After %s', (status, value, text) => {
    const f = judged(status, value);
    expect(describeDecision(f.decision, f.outcome, ctx, f.scaledWaitMs)).toContain(text);
  });

  it.each([
    [410, 'http_410 is never retried'],
    [404, 'http_4xx is not in retryOn'],
    [200, '✓ delivered'],
  ])('explains the end after %i', (status, text) => {
    const f = judged(status);
    expect(describeDecision(f.decision, f.outcome, ctx, f.scaledWaitMs)).toContain(text);
  });

  it('labels deliveries when there are several', () => {
    expect(formatEvent({ type: 'attempt_started', index: 2, deliveryId: 'd-3', attemptNumber: 1, startedAt: '' }, { ...ctx, total: 5 })).toEqual(['→ [3/5] delivery d-3']);
    expect(formatEvent({ type: 'attempt_started', index: 2, deliveryId: 'd-3', attemptNumber: 2, startedAt: '' }, { ...ctx, total: 5 })).toEqual([]);
  });

  it('summarises statuses, failure classes, attempts, the webhook and the seed', () => {
    const ok = { ...judged(200).delivery };
    const gone: Delivery = { ...judged(410).delivery, id: 'd-2' };
    const webhook = { ...createWebhookState('w'), status: 'suspended' as const, disabledReason: 'endpoint answered 410 Gone' };
    const text = formatSummary({ url: 'http://x/', deliveries: [ok, gone], webhook, elapsedMs: 1500, seed: 42 }).join('\n');
    expect(text).toContain('2 deliveries to http://x/: 1 succeeded, 1 failed (http_410 1)');
    expect(text).toContain('2 attempts in 1.5 s; webhook suspended (endpoint answered 410 Gone); seed 42');
    expect(classifyOutcome({ kind: 'timeout' }).failureClass).toBe('timeout');
  });
});
