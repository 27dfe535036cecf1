import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../../src/core/retry-policy/classify-outcome.js';
import { closeAsInactive, createDelivery, finishAttempt, startAttempt, type Delivery } from '../../../src/core/retry-policy/delivery-state.js';
import { DEFAULT_RETRY_POLICY, type FailureHandling } from '../../../src/core/retry-policy/policy.js';
import { afterAttempt, afterDelivery, createWebhookState, type WebhookState } from '../../../src/core/retry-policy/webhook-state.js';

const T0 = Date.UTC(2026, 5, 1);
const handling: FailureHandling = { autoDisableAfter: 3, disableOnGone: true };

function closed(status: number, attempts = 1): Delivery {
  let d = createDelivery({ id: 'x', webhookId: 'w', trigger: 't', apiVersion: 'v', payload: {}, createdAtMs: T0 });
  const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: attempts };
  for (let i = 0; i < attempts; i++) {
    const s = startAttempt(d, T0 + i);
    if (!s.ok) throw new Error(s.reason);
    d = finishAttempt(s.delivery, { kind: 'response', status }, { policy, nowMs: T0 + i, random: () => 0.5 }).delivery;
  }
  return d;
}

describe('webhook auto-disable (spec 3)', () => {
  it('counts a delivery that failed after several attempts once', () => {
    const d = closed(500, 3);
    expect(d).toMatchObject({ status: 'failed', attemptCount: 3 });
    expect(afterDelivery(createWebhookState('w'), d, handling).webhook.consecutiveFailures).toBe(1);
  });

  it('suspends when consecutiveFailures reaches autoDisableAfter', () => {
    let webhook: WebhookState = createWebhookState('w');
    const reasons: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const change = afterDelivery(webhook, closed(404), handling);
      webhook = change.webhook;
      reasons.push(change.suspended);
    }
    expect(reasons).toEqual([null, null, 'consecutive_failures']);
    expect(webhook).toMatchObject({ status: 'suspended', consecutiveFailures: 3, disabledReason: '3 consecutive failed deliveries' });
  });

  it('resets the count on any success', () => {
    let webhook = createWebhookState('w');
    for (const status of [500, 500, 200, 500, 500]) webhook = afterDelivery(webhook, closed(status), handling).webhook;
    expect(webhook).toMatchObject({ status: 'active', consecutiveFailures: 2 });
  });

  it('does not count deliveries closed as webhook_inactive, nor open ones', () => {
    const webhook = createWebhookState('w');
    const inactive = closeAsInactive(createDelivery({ id: 'x', webhookId: 'w', trigger: 't', apiVersion: 'v', payload: {}, createdAtMs: T0 }));
    expect(afterDelivery(webhook, inactive, handling).webhook.consecutiveFailures).toBe(0);
    const retrying = closed(500, 1);
    const open = { ...retrying, status: 'retrying' as const };
    expect(afterDelivery(webhook, open, handling).webhook).toBe(webhook);
  });

  it('suspends on 410 when disableOnGone is true, at the attempt', () => {
    const change = afterAttempt(createWebhookState('w'), classifyOutcome({ kind: 'response', status: 410 }), handling, T0);
    expect(change.suspended).toBe('endpoint_gone');
    expect(change.webhook).toMatchObject({ status: 'suspended', disabledReason: 'endpoint answered 410 Gone', lastFailureAt: new Date(T0).toISOString() });
  });

  it('does not suspend on 410 when disableOnGone is false', () => {
    const change = afterAttempt(createWebhookState('w'), classifyOutcome({ kind: 'response', status: 410 }), { ...handling, disableOnGone: false }, T0);
    expect(change.suspended).toBeNull();
    expect(change.webhook.status).toBe('active');
  });

  it('stamps lastSuccessAt and lastFailureAt per attempt', () => {
    const ok = afterAttempt(createWebhookState('w'), classifyOutcome({ kind: 'response', status: 200 }), handling, T0);
    expect(ok.webhook.lastSuccessAt).toBe(new Date(T0).toISOString());
    const bad = afterAttempt(ok.webhook, classifyOutcome({ kind: 'timeout' }), handling, T0 + 1000);
    expect(bad.webhook).toMatchObject({ lastFailureAt: new Date(T0 + 1000).toISOString(), status: 'active' });
  });
});
