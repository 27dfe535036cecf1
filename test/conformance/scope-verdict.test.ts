import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { judgeRun, resolveCheckOptions, type CheckOptions } from '../../src/core/conformance/index.js';
import { scopeToDelivery } from '../../src/conformance/scope-verdict.js';
import type { AttemptRecord } from '../../src/store/store.js';

const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);
let seq = 0;
function rec(id: string, header: number, receivedAt: number, status: number, bodyId = id): AttemptRecord {
  const body = JSON.stringify({ id: bodyId });
  seq += 1;
  return {
    seq, deliveryId: id, trigger: 'trustcenter.access_requested', receivedAt, finishedAt: receivedAt + 20, attemptHeader: header,
    signatureTimestamp: Math.floor(receivedAt / 1000), bodySha256: createHash('sha256').update(body).digest('hex'), bodyBytes: body.length,
    outcome: status < 300 ? 'accepted' : 'faulted', status, reason: null, retryAfter: null,
  };
}
const options = (): CheckOptions => {
  const r = resolveCheckOptions({ complete: true });
  if (!r.ok) throw new Error(r.problems.join());
  return r.options;
};

describe('scopeToDelivery', () => {
  it('keeps one delivery, recounts the summary, and finds it under another id it was sent under', () => {
    const run = judgeRun([rec('a', 1, T0, 200), rec('b', 1, T0 + 10, 500), rec('b2', 2, T0 + 1000, 200, 'b')], options());
    const a = scopeToDelivery(run, 'a')!;
    expect(a.deliveries.map((d) => d.deliveryId)).toEqual(['a']);
    expect(a.summary).toMatchObject({ deliveries: 1, passed: 1, failed: 0, failures: 0 });
    const b = scopeToDelivery(run, 'b2')!;
    expect(b.deliveries.map((d) => d.deliveryId)).toEqual(['b']);
    expect(b.summary.failures).toBeGreaterThan(0);
    expect(scopeToDelivery(run, 'zzz')).toBeNull();
  });

  it('keeps an n/a suspension as it is', () => {
    const run = judgeRun([rec('a', 1, T0, 200)], options());
    expect(scopeToDelivery(run, 'a')!.suspension).toEqual(run.suspension);
  });

  it('fails the suspension only for the delivery that arrived after it', () => {
    const run = judgeRun([rec('gone', 1, T0, 410), rec('late', 1, T0 + 60_000, 200), rec('later', 1, T0 + 120_000, 200)], options());
    expect(run.suspension.status).toBe('fail');
    const late = scopeToDelivery(run, 'late')!;
    expect(late.suspension).toMatchObject({ status: 'fail', cause: 'gone', causeDeliveryId: 'gone' });
    expect(late.suspension.findings.map((f) => f.deliveryId)).toEqual(['late']);
    expect(late.suspension.message).toMatch(/^suspended at 2026-06-01T10:00:00\.020Z \(410 to delivery gone\), yet this delivery's attempt 1 arrived after: delivery late attempt 1 arrived 59\.980 s after/);
    expect(late.summary.rules.suspension).toEqual({ pass: 0, fail: 1, 'n/a': 0 });
    const gone = scopeToDelivery(run, 'gone')!;
    expect(gone.suspension).toMatchObject({ status: 'pass', findings: [] });
    expect(gone.suspension.message).toContain('this delivery caused it');
    expect(gone.summary.failures).toBe(0);
  });

  it('passes the suspension for a delivery that ended before it', () => {
    const run = judgeRun([rec('first', 1, T0 - 60_000, 200), rec('gone', 1, T0, 410), rec('late', 1, T0 + 60_000, 200)], options());
    const first = scopeToDelivery(run, 'first')!;
    expect(first.suspension).toMatchObject({ status: 'pass' });
    expect(first.suspension.message).toContain('no attempt of this delivery arrived after');
  });
});
