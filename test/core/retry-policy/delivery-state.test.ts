import { describe, expect, it } from 'vitest';
import type { AttemptObservation } from '../../../src/core/retry-policy/classify-outcome.js';
import {
  closeAsInactive,
  createDelivery,
  finishAttempt,
  startAttempt,
  type Delivery,
} from '../../../src/core/retry-policy/delivery-state.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';

const T0 = Date.UTC(2026, 5, 1, 9, 0, 0);
const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 };
const fresh = (): Delivery =>
  createDelivery({ id: 'd-1', webhookId: 'w-1', trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', payload: { id: 'd-1' }, createdAtMs: T0 });

function attempt(delivery: Delivery, atMs: number, tookMs: number, observation: AttemptObservation, timeScale = 1) {
  const started = startAttempt(delivery, atMs);
  if (!started.ok) throw new Error(started.reason);
  return finishAttempt(started.delivery, observation, { policy, nowMs: atMs + tookMs, random: () => 0.5, timeScale });
}

describe('the Delivery record (spec 2.11)', () => {
  it('has exactly the spec fields, pending with no attempts', () => {
    const d = fresh();
    expect(Object.keys(d).sort()).toEqual(
      [
        'id', 'webhookId', 'trigger', 'apiVersion', 'status', 'payload', 'responseStatus', 'errorMessage', 'durationMs', 'sentAt',
        'attemptCount', 'nextAttemptAt', 'lastFailureClass', 'attempts', 'isReplay', 'replayOfDeliveryId', 'createdAt',
      ].sort(),
    );
    expect(d).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [], nextAttemptAt: null, lastFailureClass: null, isReplay: false, createdAt: '2026-06-01T09:00:00.000Z' });
  });

  it('records each attempt with the spec Attempt fields', () => {
    const { delivery } = attempt(fresh(), T0, 37, { kind: 'response', status: 503 });
    expect(delivery.attempts).toEqual([
      {
        attemptNumber: 1,
        startedAt: '2026-06-01T09:00:00.000Z',
        finishedAt: '2026-06-01T09:00:00.037Z',
        responseStatus: 503,
        failureClass: 'http_5xx',
        errorMessage: 'responded with a status',
        durationMs: 37,
      },
    ]);
    expect(delivery).toMatchObject({ attemptCount: 1, responseStatus: 503, durationMs: 37, sentAt: '2026-06-01T09:00:00.000Z', lastFailureClass: 'http_5xx' });
  });
});

describe('delivery transitions (spec 3)', () => {
  it('pending → succeeded on 2xx', () => {
    const { delivery, decision } = attempt(fresh(), T0, 5, { kind: 'response', status: 204 });
    expect(decision).toEqual({ action: 'succeed' });
    expect(delivery).toMatchObject({ status: 'succeeded', nextAttemptAt: null, lastFailureClass: null });
  });

  it('pending → retrying → retrying → failed when attempts run out, with nextAttemptAt after each wait', () => {
    let d = fresh();
    const first = attempt(d, T0, 10, { kind: 'timeout' });
    expect(first.delivery).toMatchObject({ status: 'retrying', nextAttemptAt: new Date(T0 + 10 + 60_000).toISOString() });
    d = first.delivery;
    const second = attempt(d, T0 + 60_010, 10, { kind: 'network', cause: 'reset' });
    expect(second.delivery).toMatchObject({ status: 'retrying', attemptCount: 2, nextAttemptAt: new Date(T0 + 60_020 + 240_000).toISOString() });
    const third = attempt(second.delivery, T0 + 300_020, 10, { kind: 'response', status: 500 });
    expect(third.decision).toEqual({ action: 'fail', why: 'attempts_exhausted' });
    expect(third.delivery).toMatchObject({ status: 'failed', attemptCount: 3, nextAttemptAt: null, lastFailureClass: 'http_5xx' });
    expect(third.delivery.attempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3]);
  });

  it('retrying → succeeded keeps the earlier failure class on record', () => {
    const first = attempt(fresh(), T0, 1, { kind: 'response', status: 429 });
    const second = attempt(first.delivery, T0 + 60_001, 1, { kind: 'response', status: 200 });
    expect(second.delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, responseStatus: 200, errorMessage: null, lastFailureClass: 'http_429' });
  });

  it('pending → failed at once on a non-retryable class', () => {
    const { delivery } = attempt(fresh(), T0, 1, { kind: 'response', status: 410 });
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, lastFailureClass: 'http_410' });
  });

  it('scales nextAttemptAt by the time scale', () => {
    const { delivery, scaledWaitMs } = attempt(fresh(), T0, 0, { kind: 'response', status: 500 }, 0.001);
    expect(scaledWaitMs).toBe(60);
    expect(delivery.nextAttemptAt).toBe(new Date(T0 + 60).toISOString());
  });

  it('retrying → failed with webhook_inactive when the webhook stops', () => {
    const { delivery } = attempt(fresh(), T0, 1, { kind: 'response', status: 500 });
    expect(closeAsInactive(delivery)).toMatchObject({ status: 'failed', nextAttemptAt: null, lastFailureClass: 'webhook_inactive', attemptCount: 1 });
    expect(closeAsInactive(fresh())).toMatchObject({ status: 'failed', lastFailureClass: 'webhook_inactive', attemptCount: 0 });
  });

  it('leaves closed and in-flight deliveries alone', () => {
    const done = attempt(fresh(), T0, 1, { kind: 'response', status: 200 }).delivery;
    expect(closeAsInactive(done)).toBe(done);
    const started = startAttempt(fresh(), T0);
    if (!started.ok) throw new Error('expected a start');
    expect(closeAsInactive(started.delivery)).toBe(started.delivery);
  });

  it('refuses to open an attempt on a closed delivery or while one is open', () => {
    const done = attempt(fresh(), T0, 1, { kind: 'response', status: 200 }).delivery;
    expect(startAttempt(done, T0 + 5)).toEqual({ ok: false, reason: 'closed' });
    const started = startAttempt(fresh(), T0);
    if (!started.ok) throw new Error('expected a start');
    expect(startAttempt(started.delivery, T0 + 1)).toEqual({ ok: false, reason: 'in_flight' });
  });
});
