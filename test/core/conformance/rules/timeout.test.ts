import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../../src/core/conformance/judge-run.js';
import { NO_SLACK, delivery, opts, records } from '../builder.js';
import { failingRules, ruleStatus } from '../verdict-helpers.js';

const hang = (durationMs: number, o = {}) => judgeRun(records(delivery().attempt({ answer: 'hang', durationMs }).attempt({ answer: 200, gapMs: 60_000 })), opts(o));

describe('timeout', () => {
  it.each([
    { durationMs: 9_000, pass: true },
    { durationMs: 8_999, pass: false },
    { durationMs: 10_000, pass: true },
    { durationMs: 12_000, pass: true },
    { durationMs: 12_001, pass: false },
    { durationMs: 60_000, pass: false },
  ])('a hang given up after $durationMs ms → $pass', ({ durationMs, pass }) => {
    const v = hang(durationMs);
    expect(ruleStatus(v.deliveries[0]!, 'timeout')).toBe(pass ? 'pass' : 'fail');
    expect(failingRules(v)).toEqual(pass ? [] : ['timeout']);
  });

  it('is not scaled by the time scale; attemptTimeoutSeconds sets it', () => {
    expect(ruleStatus(hang(10_000, { timeScale: 0.01, slack: { earlyMs: 0, lateMs: 100_000 } }).deliveries[0]!, 'timeout')).toBe('pass');
    expect(ruleStatus(hang(10_000, { attemptTimeoutSeconds: 5 }).deliveries[0]!, 'timeout')).toBe('fail');
    expect(ruleStatus(hang(5_000, { attemptTimeoutSeconds: 5 }).deliveries[0]!, 'timeout')).toBe('pass');
  });

  it('is n/a when nothing hung', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 'reset' }).attempt({ answer: 200, gapMs: 60_000 })), opts());
    expect(ruleStatus(v.deliveries[0]!, 'timeout')).toBe('n/a');
  });

  it('accepts a timeout counted over the whole attempt or over the hop that hung', () => {
    const whole = judgeRun(records(delivery().attempt({ answer: 'hang', hops: 2, durationMs: 9_990 })), opts());
    expect(ruleStatus(whole.deliveries[0]!, 'timeout')).toBe('pass');
    const hop = judgeRun(records(delivery().attempt({ answer: 'hang', hops: 2, durationMs: 11_995 })), opts());
    expect(whole.deliveries[0]!.timeline[0]!.durationMs).toBe(10_000);
    expect(hop.deliveries[0]!.timeline[0]!.durationMs).toBe(12_005);
    expect(ruleStatus(hop.deliveries[0]!, 'timeout')).toBe('pass');
  });
});

describe('timeout: a delay longer than the timeout, answered after it', () => {
  it('counts as a timeout the sender retries; the stored copy then answers the retry as a duplicate', () => {
    const d = delivery().attempt({ answer: 200, durationMs: 15_000, reason: 'fault:delay=15000' }).attempt({ answer: 200, gapMs: 55_000, outcome: 'duplicate' });
    const v = judgeRun(records(d), opts());
    expect(v.deliveries[0]!.timeline.map((a) => a.answerClass)).toEqual(['timeout', 'success']);
    expect(failingRules(v)).toEqual([]);
    expect(ruleStatus(v.deliveries[0]!, 'timeout')).toBe('n/a');
  });

  it('measures the next wait from when the sender gave up (arrival + 10 s), not from the late answer', () => {
    // The answer came 15 s after arrival; the sender's attempt ended at 10 s. Retry 1: 48–72 s.
    const at = (gapAfterAnswerMs: number) =>
      ruleStatus(judgeRun(records(delivery().attempt({ answer: 200, durationMs: 15_000 }).attempt({ answer: 200, gapMs: gapAfterAnswerMs })), opts({ slack: NO_SLACK })).deliveries[0]!, 'backoff');
    expect([at(43_000), at(42_999), at(67_000), at(67_001)]).toEqual(['pass', 'fail', 'pass', 'fail']);
  });

  it('ignores a Retry-After on an answer nobody received', () => {
    const d = delivery().attempt({ answer: 503, retryAfter: '600', durationMs: 15_000 }).attempt({ answer: 200, gapMs: 55_000 });
    const v = judgeRun(records(d), opts());
    expect(ruleStatus(v.deliveries[0]!, 'retry-after')).toBe('n/a');
    expect(failingRules(v)).toEqual([]);
  });

  it('a sender that waited for the late answer and stopped fails max-attempts', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 200, durationMs: 15_000 })), opts());
    expect(failingRules(v)).toEqual(['max-attempts']);
  });
});
