import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../../src/core/conformance/judge-run.js';
import { T0, delivery, opts, records } from '../builder.js';
import { failingRules, ruleStatus } from '../verdict-helpers.js';

const t0 = Math.floor(T0 / 1000);
const judge = (d: ReturnType<typeof delivery>, o = {}) => judgeRun(records(d), opts(o));

describe('fresh-signature', () => {
  it('passes a new t per attempt', () => {
    expect(ruleStatus(judge(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000 })).deliveries[0]!, 'fresh-signature')).toBe('pass');
  });

  it.each([
    { what: '300 s in the past', t: t0 - 300, pass: true },
    { what: '301 s in the past', t: t0 - 301, pass: false },
    { what: '300 s in the future', t: t0 + 300, pass: true },
    { what: '301 s in the future', t: t0 + 301, pass: false },
  ])('a t $what is judged against the tolerance both ways → $pass', ({ t, pass }) => {
    const v = judge(delivery().attempt({ answer: 200, t }));
    expect(failingRules(v)).toEqual(pass ? [] : ['fresh-signature']);
  });

  it('uses the tolerance given', () => {
    expect(failingRules(judge(delivery().attempt({ answer: 200, t: t0 - 10 }), { toleranceSeconds: 5 }))).toEqual(['fresh-signature']);
  });

  it('fails a missing t when other attempts were signed', () => {
    const v = judge(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000, t: null }));
    expect(failingRules(v)).toEqual(['fresh-signature']);
  });

  it('is n/a when no attempt was signed', () => {
    const v = judge(delivery().attempt({ answer: 500, t: null }).attempt({ answer: 200, gapMs: 60_000, t: null }));
    expect(ruleStatus(v.deliveries[0]!, 'fresh-signature')).toBe('n/a');
  });

  it.each(['SIGNATURE_MISMATCH', 'SIGNATURE_MISSING', 'SIGNATURE_MALFORMED', 'SIGNATURE_NO_V1', 'TIMESTAMP_TOO_OLD', 'TIMESTAMP_IN_FUTURE'])(
    'fails an attempt whose signature hookrelay refused (%s)',
    (reason) => {
      const v = judge(delivery().attempt({ answer: 503 }).attempt({ answer: 400, gapMs: 60_000, outcome: 'rejected', reason }));
      expect(failingRules(v)).toEqual(['fresh-signature']);
      expect(v.deliveries[0]!.rules.find((r) => r.rule === 'fresh-signature')!.message).toContain(`refused by hookrelay: ${reason}`);
    },
  );

  it('fails an unsigned sender against a receiver that verifies', () => {
    const v = judge(delivery().attempt({ answer: 400, t: null, outcome: 'rejected', reason: 'SIGNATURE_MISSING' }));
    expect(failingRules(v)).toEqual(['fresh-signature']);
  });

  it('does not take other rejections for signature refusals', () => {
    const v = judge(delivery().attempt({ answer: 400, outcome: 'rejected', reason: 'INVALID_ENVELOPE' }));
    expect(failingRules(v)).toEqual([]);
  });

  it('fails a t going back', () => {
    const v = judge(delivery().attempt({ answer: 500, t: t0 + 5 }).attempt({ answer: 200, gapMs: 100, t: t0 + 4 }), { timeScale: 0.001 });
    expect(failingRules(v)).toEqual(['fresh-signature']);
  });

  it('accepts a shared second only for arrivals closer than 1 s + late slack (compressed runs)', () => {
    // × 0.01: retry 1 may come 480–720 ms after the end; default slack: 230–1720 ms.
    const close = judge(delivery().attempt({ answer: 500, t: t0 }).attempt({ answer: 200, gapMs: 1979, t: t0 }), { timeScale: 0.01, slack: { lateMs: 1000 } });
    expect(failingRules(close)).toEqual(['backoff']); // 1999 ms apart: sharing t is allowed, the wait is not
    const apart = judge(delivery().attempt({ answer: 500, t: t0 }).attempt({ answer: 200, gapMs: 1980, t: t0 }), { timeScale: 0.01, slack: { lateMs: 1000 } });
    expect(failingRules(apart)).toEqual(['backoff', 'fresh-signature']);
    const tight = judge(delivery().attempt({ answer: 500, t: t0 }).attempt({ answer: 200, gapMs: 600, t: t0 }), { timeScale: 0.01 });
    expect(failingRules(tight)).toEqual([]);
  });
});
