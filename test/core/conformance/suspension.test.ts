import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../src/core/conformance/judge-run.js';
import { DEFAULT_RETRY_POLICY } from '../../../src/core/retry-policy/policy.js';
import { T0, delivery, opts, records, type DeliveryBuilder } from './builder.js';
import { failingRules } from './verdict-helpers.js';

const oneShot = { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 };
const handling = (autoDisableAfter: number, disableOnGone = true) => ({ autoDisableAfter, disableOnGone });

/** Deliveries one after another, `spacingMs` apart, each answered once. */
function series(answers: Array<number | 'hang'>, spacingMs = 5_000): DeliveryBuilder[] {
  let start = T0;
  return answers.map((answer, i) => {
    const d = delivery({ id: `evt_${i + 1}`, start }).attempt({ answer });
    start = d.end + spacingMs;
    return d;
  });
}

describe('suspension', () => {
  it('passes when nothing arrives after autoDisableAfter consecutive failed deliveries', () => {
    const v = judgeRun(records(...series([500, 500, 500])), opts({ policy: oneShot, failureHandling: handling(3) }));
    expect(v.suspension).toMatchObject({ status: 'pass', cause: 'consecutive-failures', causeDeliveryId: 'evt_3' });
    expect(v.suspension.suspendedAt).toBe(v.deliveries[2]!.timeline[0]!.finishedAt);
  });

  it('fails a delivery arriving after it', () => {
    const v = judgeRun(records(...series([500, 500, 500, 200])), opts({ policy: oneShot, failureHandling: handling(3) }));
    expect(failingRules(v)).toEqual(['suspension']);
    expect(v.suspension.findings).toEqual([expect.objectContaining({ deliveryId: 'evt_4', attempt: 1, ok: false })]);
  });

  it('a success resets the count', () => {
    const v = judgeRun(records(...series([500, 500, 200, 500, 500, 200])), opts({ policy: oneShot, failureHandling: handling(3) }));
    expect(v.suspension.status).toBe('n/a');
    expect(v.suspension.message).toMatch(/longest run of failed deliveries 2 < 3/);
  });

  it('a delivery failing after several attempts counts once', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 };
    const a = delivery({ id: 'a' }).attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000 }).attempt({ answer: 500, gapMs: 240_000 });
    const b = delivery({ id: 'b', start: a.end + 1 }).attempt({ answer: 200 });
    const v = judgeRun(records(a, b), opts({ policy, failureHandling: handling(2) }));
    expect(v.suspension.status).toBe('n/a');
    expect(failingRules(v)).toEqual([]);
  });

  it('a 410 suspends with disableOnGone, not without', () => {
    const list = records(...series([410, 200]));
    expect(judgeRun(list, opts()).suspension).toMatchObject({ status: 'fail', cause: 'gone', causeDeliveryId: 'evt_1' });
    expect(judgeRun(list, opts({ failureHandling: handling(15, false) })).suspension.status).toBe('n/a');
  });

  it('a 410 counts as a failed delivery towards auto-disable when disableOnGone is false', () => {
    const v = judgeRun(records(...series([410, 404])), opts({ failureHandling: handling(2, false) }));
    expect(v.suspension).toMatchObject({ status: 'pass', cause: 'consecutive-failures', causeDeliveryId: 'evt_2' });
  });

  it('fails retries of another delivery that continue after it', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 };
    const retrying = delivery({ id: 'retrying' }).attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000 });
    const gone = delivery({ id: 'gone', start: T0 + 30_000 }).attempt({ answer: 410 });
    const v = judgeRun(records(retrying, gone), opts({ policy }));
    expect(failingRules(v)).toEqual(['suspension']);
    expect(v.suspension.findings.map((f) => [f.deliveryId, f.attempt])).toEqual([['retrying', 2]]);
  });

  it('leaves later attempts of the delivery that caused it to that delivery\'s rules', () => {
    const v = judgeRun(records(...series([410]).map((d) => d.attempt({ answer: 200, gapMs: 60_000 }))), opts());
    expect(failingRules(v)).toEqual(['no-retry-after-final']);
    expect(v.suspension.status).toBe('pass');
  });

  it('tolerates a request already on its way (within the late slack)', () => {
    const gone = delivery({ id: 'gone' }).attempt({ answer: 410 });
    const inFlight = delivery({ id: 'in-flight', start: gone.end + 1000 }).attempt({ answer: 200 });
    expect(judgeRun(records(gone, inFlight), opts()).suspension.status).toBe('pass');
    const after = delivery({ id: 'after', start: gone.end + 1001 }).attempt({ answer: 200 });
    expect(judgeRun(records(gone, after), opts()).suspension.status).toBe('fail');
  });

  it('says what the late slack let through, and that nothing came later', () => {
    const gone = delivery({ id: 'gone' }).attempt({ answer: 410 });
    const inFlight = delivery({ id: 'in-flight', start: gone.end + 1500 }).attempt({ answer: 200 });
    const v = judgeRun(records(gone, inFlight), opts({ slack: { earlyMs: 250, lateMs: 2000 } }));
    expect(v.suspension.status).toBe('pass');
    expect(v.suspension.message).toBe(
      'suspended at 2026-06-01T10:00:00.020Z (delivery gone was answered 410 (disableOnGone)); 1 arrival within the 2 s late slack was already in flight (delivery in-flight attempt 1, 1.500 s after), nothing arrived later',
    );
    expect(v.suspension.message).not.toContain('nothing arrived after');
    expect(v.suspension.expected).toContain('but for a request already in flight (within the 2 s late slack)');
    expect(v.suspension.observed).toBe('0 attempts after the suspension beyond the 2 s late slack, 1 within it');
    expect(v.suspension.findings).toEqual([
      {
        attempt: 1,
        deliveryId: 'in-flight',
        ok: true,
        expected: 'nothing after 2026-06-01T10:00:00.020Z + the 2 s late slack',
        observed: 'delivery in-flight attempt 1 arrived 1.500 s after the suspension, within the 2 s late slack: already in flight',
        bounds: { min: null, max: 2 },
        value: 1.5,
      },
    ]);
  });

  it('counts several arrivals in flight, and keeps "nothing arrived after" when there were none', () => {
    const gone = delivery({ id: 'gone' }).attempt({ answer: 410 });
    const a = delivery({ id: 'a', start: gone.end + 100 }).attempt({ answer: 200 });
    const b = delivery({ id: 'b', start: gone.end + 400 }).attempt({ answer: 200 });
    const v = judgeRun(records(gone, a, b), opts({ timeScale: 0.01 })); // the local slack: 500 ms
    expect(v.suspension.message).toContain('; 2 arrivals within the 0.5 s late slack were already in flight (delivery a attempt 1, 0.100 s after; delivery b attempt 1, 0.400 s after), nothing arrived later');
    expect(v.suspension.findings.map((f) => [f.deliveryId, f.ok])).toEqual([['a', true], ['b', true]]);
    const alone = judgeRun(records(delivery({ id: 'gone' }).attempt({ answer: 410 })), opts());
    expect(alone.suspension.message).toBe('suspended at 2026-06-01T10:00:00.020Z (delivery gone was answered 410 (disableOnGone)); nothing arrived after');
    expect(alone.suspension.findings).toEqual([expect.objectContaining({ attempt: 0, ok: true, observed: 'nothing arrived' })]);
  });

  it('names the slack when an arrival came after it, and the one it let through', () => {
    const gone = delivery({ id: 'gone' }).attempt({ answer: 410 });
    const inFlight = delivery({ id: 'in-flight', start: gone.end + 500 }).attempt({ answer: 200 });
    const after = delivery({ id: 'after', start: gone.end + 5000 }).attempt({ answer: 200 });
    const v = judgeRun(records(gone, inFlight, after), opts());
    expect(v.suspension.status).toBe('fail');
    expect(v.suspension.message).toContain('yet 1 attempt arrived after, beyond the 1 s late slack: delivery after attempt 1 arrived 5.000 s after the suspension; 1 arrival within the 1 s late slack was already in flight (delivery in-flight attempt 1, 0.500 s after)');
    expect(v.suspension.findings.map((f) => [f.deliveryId, f.ok])).toEqual([['after', false], ['in-flight', true]]);
  });

  it('does not count deliveries still retrying', () => {
    const a = delivery({ id: 'a' }).attempt({ answer: 500 });
    const b = delivery({ id: 'b', start: T0 + 1000 }).attempt({ answer: 500 });
    const v = judgeRun(records(a, b), opts({ failureHandling: handling(2), complete: false }));
    expect(v.suspension.status).toBe('n/a');
    expect(v.summary.retrying).toBe(2);
  });
});
