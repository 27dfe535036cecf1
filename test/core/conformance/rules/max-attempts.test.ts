import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../../src/core/conformance/judge-run.js';
import { DEFAULT_RETRY_POLICY } from '../../../../src/core/retry-policy/policy.js';
import { delivery, opts, records } from '../builder.js';
import { failingRules, ruleStatus } from '../verdict-helpers.js';

/** Three 500s of the default policy, retries at the nominal waits: the sender owes retry 3. */
const stopped = () => delivery().attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000 }).attempt({ answer: 500, gapMs: 240_000 });
// Retry 3 may come 768–1152 s after attempt 3 ended; + 1 s late slack.
const dueBy = (d: ReturnType<typeof stopped>) => d.end + 1_152_000 + 1000;

describe('max-attempts', () => {
  it('passes all 6 attempts failing with retried classes (exhausted)', () => {
    const d = delivery().attempt({ answer: 500 });
    for (const s of [60, 240, 960, 3840, 15360]) d.attempt({ answer: 'reset', gapMs: s * 1000 });
    const v = judgeRun(records(d), opts());
    expect(failingRules(v)).toEqual([]);
    expect(v.deliveries[0]!.state).toBe('failed');
  });

  it('fails a sender that stopped while attempts remained (run complete)', () => {
    const v = judgeRun(records(stopped()), opts({ complete: true }));
    expect(failingRules(v)).toEqual(['max-attempts']);
    expect(v.deliveries[0]!.rules.find((r) => r.rule === 'max-attempts')!.message).toMatch(/stopped after 3 of 6 attempts.*retry 3 was due by/);
  });

  it("is n/a while the owed retry may still come ('auto' with now), and fails once it is overdue", () => {
    const d = stopped();
    const at = (now: number) => judgeRun(records(d), opts({ complete: 'auto', now }));
    expect(ruleStatus(at(dueBy(d) - 1).deliveries[0]!, 'max-attempts')).toBe('n/a');
    expect(at(dueBy(d) - 1).deliveries[0]!.state).toBe('retrying');
    expect(at(dueBy(d) - 1).summary.retrying).toBe(1);
    expect(ruleStatus(at(dueBy(d)).deliveries[0]!, 'max-attempts')).toBe('fail');
  });

  it("takes the run as over with 'auto' and no now; as in progress with complete false", () => {
    expect(ruleStatus(judgeRun(records(stopped()), opts({ complete: 'auto' })).deliveries[0]!, 'max-attempts')).toBe('fail');
    expect(ruleStatus(judgeRun(records(stopped()), opts({ complete: false })).deliveries[0]!, 'max-attempts')).toBe('n/a');
  });

  it('uses the Retry-After of the last answer for the due time', () => {
    const d = delivery().attempt({ answer: 503, retryAfter: '3600' });
    const v = (now: number) => judgeRun(records(d), opts({ complete: 'auto', now }));
    expect(ruleStatus(v(d.end + 3_600_000).deliveries[0]!, 'max-attempts')).toBe('n/a');
    expect(ruleStatus(v(d.end + 3_601_000).deliveries[0]!, 'max-attempts')).toBe('fail');
  });

  it('a final answer ends the delivery in time: no retry owed', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 404 })), opts({ complete: false }));
    expect(ruleStatus(v.deliveries[0]!, 'max-attempts')).toBe('pass');
    expect(v.deliveries[0]!.state).toBe('failed');
  });

  it('with http_4xx in retryOn, a 404 is owed a retry', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 404 })), opts({ policy: { ...DEFAULT_RETRY_POLICY, retryOn: ['http_4xx'] } }));
    expect(failingRules(v)).toEqual(['max-attempts']);
  });

  it('disabled policy: one attempt is all', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 'hang' })), opts({ policy: { ...DEFAULT_RETRY_POLICY, enabled: false } }));
    expect(failingRules(v)).toEqual([]);
    expect(ruleStatus(v.deliveries[0]!, 'max-attempts')).toBe('pass');
  });

  it('is n/a when another delivery suspended the webhook before the owed retry was due', () => {
    const handling = { autoDisableAfter: 1, disableOnGone: true };
    const a = stopped();
    const gone = delivery({ id: 'evt_gone', start: a.end + 1000 }).attempt({ answer: 404 });
    const v = judgeRun(records(a, gone), opts({ failureHandling: handling, complete: true }));
    expect(v.suspension.causeDeliveryId).toBe('evt_gone');
    expect(ruleStatus(v.deliveries[0]!, 'max-attempts')).toBe('n/a');
    expect(v.deliveries[0]!.rules.find((r) => r.rule === 'max-attempts')!.message).toMatch(/suspended/);
    expect(failingRules(v)).toEqual([]);
  });

  it('is not excused by a suspension after the retry was due', () => {
    const handling = { autoDisableAfter: 1, disableOnGone: true };
    const a = stopped();
    const late = delivery({ id: 'evt_late', start: dueBy(a) + 10 }).attempt({ answer: 404 });
    const v = judgeRun(records(a, late), opts({ failureHandling: handling, complete: true }));
    expect(failingRules(v)).toEqual(['max-attempts']);
  });
});
