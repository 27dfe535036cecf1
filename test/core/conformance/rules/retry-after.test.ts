import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../../src/core/conformance/judge-run.js';
import { DEFAULT_RETRY_POLICY } from '../../../../src/core/retry-policy/policy.js';
import { NO_SLACK, delivery, opts, records } from '../builder.js';
import { failingRules, ruleStatus } from '../verdict-helpers.js';

const after = (status: number, retryAfter: string, gapMs: number) =>
  records(delivery().attempt({ answer: status, retryAfter }).attempt({ answer: 200, gapMs }));

describe('retry-after', () => {
  it.each([
    { what: 'Retry-After 120 on a 503, waited 120 s', status: 503, ra: '120', gapMs: 120_000, pass: true },
    { what: 'Retry-After 120 on a 503, waited 119.999 s', status: 503, ra: '120', gapMs: 119_999, pass: false },
    { what: 'Retry-After 120 on a 429, waited 60 s (backoff only)', status: 429, ra: '120', gapMs: 60_000, pass: false },
    { what: 'Retry-After 3 lifted to the 10 s floor, waited 10 s', status: 429, ra: '3', gapMs: 10_000, pass: true },
    { what: 'Retry-After 3 lifted to the 10 s floor, waited 3 s', status: 429, ra: '3', gapMs: 3_000, pass: false },
    { what: 'Retry-After 3, waited the backoff instead (72 s, the longer)', status: 429, ra: '3', gapMs: 72_000, pass: true },
    { what: 'Retry-After 3, waited past the backoff too', status: 429, ra: '3', gapMs: 72_001, pass: false },
    { what: 'Retry-After 100000 capped at 21600 s, waited 21600 s', status: 503, ra: '100000', gapMs: 21_600_000, pass: true },
    { what: 'Retry-After 100000 capped at 21600 s, waited 21600.001 s', status: 503, ra: '100000', gapMs: 21_600_001, pass: false },
  ])('$what → $pass', ({ status, ra, gapMs, pass }) => {
    const v = judgeRun(after(status, ra, gapMs), opts({ slack: NO_SLACK }));
    expect(ruleStatus(v.deliveries[0]!, 'retry-after')).toBe(pass ? 'pass' : 'fail');
    expect(ruleStatus(v.deliveries[0]!, 'backoff')).toBe('n/a');
    expect(failingRules(v)).toEqual(pass ? [] : ['retry-after']);
  });

  it('says why a wait above the "at least" failed: too late, past the longer of the Retry-After and the backoff', () => {
    const rule = (gapMs: number) => judgeRun(after(429, '3', gapMs), opts({ slack: NO_SLACK })).deliveries[0]!.rules.find((r) => r.rule === 'retry-after')!;
    const late = rule(72_001);
    expect(late.message).toContain('waited 72.001 s after attempt 1\'s 429, too late');
    expect(late.message).toContain('at least 10.000 s and at most 72.000 s, the backoff\'s upper bound 72 s');
    const early = rule(9_999);
    expect(early.message).toContain('too early');
    expect(rule(30_000).message).not.toMatch(/too (early|late)/);
  });

  it('reads an HTTP date relative to hookrelay\'s answer', () => {
    const answeredAt = delivery().attempt({ answer: 503 }).end; // T0 + the builder's 20 ms answer
    const date = new Date(answeredAt + 300_000).toUTCString(); // whole seconds: cut to T0 + 300 s
    const requested = (Date.parse(date) - answeredAt) / 1000;
    expect(requested).toBe(299.98);
    const build = (gapMs: number) => {
      const x = delivery().attempt({ answer: 503, retryAfter: date }).attempt({ answer: 200, gapMs });
      return judgeRun(records(x), opts({ slack: NO_SLACK }));
    };
    expect(ruleStatus(build(requested * 1000).deliveries[0]!, 'retry-after')).toBe('pass');
    expect(ruleStatus(build(requested * 1000 - 1).deliveries[0]!, 'retry-after')).toBe('fail');
  });

  it('scales with the time scale', () => {
    expect(failingRules(judgeRun(after(503, '120', 1200), opts({ timeScale: 0.01, slack: NO_SLACK })))).toEqual([]);
    expect(failingRules(judgeRun(after(503, '120', 1199), opts({ timeScale: 0.01, slack: NO_SLACK })))).toEqual(['retry-after']);
  });

  it('is not in effect on a 500 (spec 6.4 names 429 and 503): backoff judges that wait', () => {
    const v = judgeRun(after(500, '600', 60_000), opts());
    expect(ruleStatus(v.deliveries[0]!, 'retry-after')).toBe('n/a');
    expect(ruleStatus(v.deliveries[0]!, 'backoff')).toBe('pass');
  });

  it('is not in effect when unreadable', () => {
    const v = judgeRun(after(503, 'later', 60_000), opts());
    expect(ruleStatus(v.deliveries[0]!, 'retry-after')).toBe('n/a');
    expect(ruleStatus(v.deliveries[0]!, 'backoff')).toBe('pass');
  });

  it('is n/a when http_429 is not retried by the policy (the retry is a final-answer violation instead)', () => {
    const v = judgeRun(after(429, '120', 120_000), opts({ policy: { ...DEFAULT_RETRY_POLICY, retryOn: ['http_5xx'] } }));
    expect(ruleStatus(v.deliveries[0]!, 'retry-after')).toBe('n/a');
    expect(failingRules(v)).toEqual(['no-retry-after-final']);
  });

  it('names the numbers in the finding', () => {
    const v = judgeRun(after(429, '600', 60_000), opts());
    const rule = v.deliveries[0]!.rules.find((r) => r.rule === 'retry-after')!;
    expect(rule.findings[0]).toMatchObject({ attempt: 2, ok: false, value: 60, bounds: { min: 599.75, max: 601 } });
    expect(rule.message).toContain('Retry-After 600');
    expect(rule.message).toContain('waited 60.000 s');
  });
});
