import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../../src/core/conformance/judge-run.js';
import { DEFAULT_RETRY_POLICY } from '../../../../src/core/retry-policy/policy.js';
import { delivery, opts, records } from '../builder.js';
import { failingRules, ruleStatus } from '../verdict-helpers.js';

const two = (second: Parameters<ReturnType<typeof delivery>['attempt']>[0], first: Parameters<ReturnType<typeof delivery>['attempt']>[0] = { answer: 500 }) =>
  judgeRun(records(delivery().attempt(first).attempt({ gapMs: 60_000, ...second })), opts());

describe('attempt-sequence', () => {
  it.each([
    { what: 'a repeat', first: 1, second: 1 },
    { what: 'a skip', first: 1, second: 3 },
    { what: 'a start at 0', first: 0, second: 1 },
    { what: 'a missing header', first: 1, second: null },
  ])('fails $what', ({ first, second }) => {
    const v = two({ answer: 200, header: second }, { answer: 500, header: first });
    expect(failingRules(v)).toEqual(['attempt-sequence']);
  });

  it('judges from the first attempt seen when it is not 1, and says the earlier ones were not seen here', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 500, header: 2 }).attempt({ answer: 200, header: 3, gapMs: 240_000 })), opts());
    const d = v.deliveries[0]!;
    expect(failingRules(v)).toEqual([]);
    expect(d.unseenAttempts).toBe(1);
    expect(d.timeline.map((a) => a.position)).toEqual([2, 3]);
    expect(d.rules.find((r) => r.rule === 'attempt-sequence')!.message).toMatch(/attempt 1 was not seen here \(the receiver was down, or they went elsewhere\): judged from attempt 2/);
    // The gap before attempt 3 is judged as retry 2's (4 × 60 s), not retry 1's.
    const early = judgeRun(records(delivery().attempt({ answer: 500, header: 2 }).attempt({ answer: 200, header: 3, gapMs: 60_000 })), opts());
    expect(failingRules(early)).toEqual(['backoff']);
  });

  it('reports expected vs observed', () => {
    const rule = two({ answer: 200, header: 3 }).deliveries[0]!.rules.find((r) => r.rule === 'attempt-sequence')!;
    expect([rule.expected, rule.observed]).toEqual(['1,2', '1,3']);
  });
});

describe('same-delivery', () => {
  it('fails a changed trigger', () => {
    expect(failingRules(two({ answer: 200, trigger: 'vendor.rating_dropped' }))).toEqual(['same-delivery']);
  });

  it('fails an EVENT_TYPE_MISMATCH refusal', () => {
    expect(failingRules(two({ answer: 400, reason: 'EVENT_TYPE_MISMATCH', outcome: 'rejected' }))).toEqual(['same-delivery']);
  });

  it('passes a single attempt', () => {
    expect(ruleStatus(judgeRun(records(delivery().attempt({ answer: 200 })), opts()).deliveries[0]!, 'same-delivery')).toBe('pass');
  });
});

describe('no-retry-after-final', () => {
  it.each([
    { answer: 200, fails: true },
    { answer: 410, fails: true },
    { answer: 501, fails: true },
    { answer: 505, fails: true },
    { answer: 400, fails: true },
    { answer: 403, fails: true },
    { answer: 302, fails: true },
    { answer: 500, fails: false },
    { answer: 429, fails: false },
    { answer: 408, fails: false },
    { answer: 'hang' as const, fails: false },
    { answer: 'close' as const, fails: false },
  ])('a retry after $answer → fails: $fails', ({ answer, fails }) => {
    const v = two({ answer: 200 }, { answer });
    expect(failingRules(v)).toEqual(fails ? ['no-retry-after-final'] : []);
  });

  it('allows a retry after a 4xx when http_4xx is in retryOn, and forbids one after a timeout when it is not', () => {
    const custom = { ...DEFAULT_RETRY_POLICY, retryOn: ['http_4xx' as const] };
    const after404 = judgeRun(records(delivery().attempt({ answer: 404 }).attempt({ answer: 200, gapMs: 60_000 })), opts({ policy: custom }));
    expect(failingRules(after404)).toEqual([]);
    const afterHang = judgeRun(records(delivery().attempt({ answer: 'hang' }).attempt({ answer: 200, gapMs: 60_000 })), opts({ policy: custom }));
    expect(failingRules(afterHang)).toEqual(['no-retry-after-final']);
  });

  it('is n/a when no final answer was given', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 500 })), opts({ complete: false }));
    expect(ruleStatus(v.deliveries[0]!, 'no-retry-after-final')).toBe('n/a');
  });
});
