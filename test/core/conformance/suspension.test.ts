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

  it('does not count deliveries still retrying', () => {
    const a = delivery({ id: 'a' }).attempt({ answer: 500 });
    const b = delivery({ id: 'b', start: T0 + 1000 }).attempt({ answer: 500 });
    const v = judgeRun(records(a, b), opts({ failureHandling: handling(2), complete: false }));
    expect(v.suspension.status).toBe('n/a');
    expect(v.summary.retrying).toBe(2);
  });
});
