import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideFault,
  emptyFaultState,
  faultRuleKey,
  type FaultArrival,
  type FaultDecision,
  type FaultState,
} from '../../../src/core/faults/match-rule.js';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';
import { mulberry32 } from '../../../src/core/seeded-random.js';

function rules(...texts: string[]): FaultRule[] {
  return texts.map((t) => {
    const parsed = parseFaultRule(t);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.rule;
  });
}

function arrival(over: Partial<FaultArrival> = {}): FaultArrival {
  return { trigger: 'trustcenter.access_approved', deliveryId: 'd-1', attemptHeader: 1, arrivalCount: 1, verified: true, ...over };
}

const noRandom = () => {
  throw new Error('random must not be drawn here');
};

/** Which rule index answers, or null. */
function pick(list: FaultRule[], a: FaultArrival, random: () => number = noRandom): number | null {
  const d = decideFault(list, a, emptyFaultState(), random);
  return d.matched ? d.index : null;
}

describe('decideFault: attempt ranges by header and by own count', () => {
  it.each<[string, number | null, boolean]>([
    ['attempt=2-4', 1, false],
    ['attempt=2-4', 2, true],
    ['attempt=2-4', 4, true],
    ['attempt=2-4', 5, false],
    ['attempt=3-', 2, false],
    ['attempt=3-', 3, true],
    ['attempt=3-', 999, true],
    ['attempt=1', 1, true],
    ['attempt=1', null, false],
  ])('%s with attempt header %s → %s', (cond, header, matches) => {
    expect(pick(rules(`503 ${cond}`), arrival({ attemptHeader: header }))).toBe(matches ? 0 : null);
  });

  it.each<[string, number, boolean]>([
    ['arrival=2', 1, false],
    ['arrival=2', 2, true],
    ['arrival=2-3', 3, true],
    ['arrival=2-', 7, true],
    ['arrival=2-3', 4, false],
  ])('%s with arrival count %i → %s', (cond, count, matches) => {
    expect(pick(rules(`503 ${cond}`), arrival({ arrivalCount: count }))).toBe(matches ? 0 : null);
  });

  it('tells the header from its own count: a sender that repeats attempt 1 is caught by arrival=, not by attempt=', () => {
    const list = rules('500 attempt=2', '503 arrival=2');
    expect(pick(list, arrival({ attemptHeader: 1, arrivalCount: 2 }))).toBe(1);
    expect(pick(list, arrival({ attemptHeader: 2, arrivalCount: 1 }))).toBe(0);
  });

  it('never matches a condition on a field the arrival lacks', () => {
    expect(pick(rules('503 arrival=1'), arrival({ deliveryId: null }))).toBeNull();
    expect(pick(rules('503 delivery=*'), arrival({ deliveryId: null }))).toBeNull();
    expect(pick(rules('503 trigger=*'), arrival({ trigger: null }))).toBeNull();
    expect(pick(rules('503'), arrival({ trigger: null, deliveryId: null, attemptHeader: null }))).toBe(0);
  });

  it('does not throw or match ranges on hostile numbers', () => {
    expect(pick(rules('503 attempt=1-', '500 arrival=1-'), arrival({ attemptHeader: Number.NaN, arrivalCount: Number.NaN }))).toBeNull();
  });
});

describe('decideFault: globs', () => {
  it.each<[string, string | null, string | null, boolean]>([
    ['trigger=trustcenter.*', 'trustcenter.access_approved', 'd-1', true],
    ['trigger=trustcenter.*', 'vendor.rating_dropped', 'd-1', false],
    ['trigger=trustcenter.access_?????ed', 'trustcenter.access_approved', 'd-1', false],
    ['trigger=trustcenter.access_re?ected', 'trustcenter.access_rejected', 'd-1', true],
    ['trigger=*.access_*', 'trustcenter.access_requested', 'd-1', true],
    ['delivery=d-1', 'x', 'd-1', true],
    ['delivery=d-1', 'x', 'd-10', false],
    ['delivery=d-1*', 'x', 'd-10', true],
    ['trigger=vendor.* delivery=d-1', 'vendor.rating_dropped', 'd-2', false],
  ])('%s on (%s, %s) → %s', (cond, trigger, deliveryId, matches) => {
    expect(pick(rules(`410 ${cond}`), arrival({ trigger, deliveryId }))).toBe(matches ? 0 : null);
  });
});

describe('decideFault: probability', () => {
  function fireSequence(seed: number, n: number): boolean[] {
    const list = rules('500 p=0.3');
    const random = mulberry32(seed);
    let state: FaultState = emptyFaultState();
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) {
      const d = decideFault(list, arrival({ arrivalCount: i + 1 }), state, random);
      state = d.state;
      out.push(d.matched);
    }
    return out;
  }

  it('fires about 30% of the time for p=0.3', () => {
    const fired = fireSequence(42, 2000).filter(Boolean).length;
    expect(fired).toBeGreaterThan(500);
    expect(fired).toBeLessThan(700);
  });

  it('repeats exactly under the same seed and differs under another', () => {
    expect(fireSequence(1234, 200)).toEqual(fireSequence(1234, 200));
    expect(fireSequence(1234, 200)).not.toEqual(fireSequence(4321, 200));
  });

  it('fires when the draw is below p, not when it is at or above', () => {
    expect(pick(rules('500 p=0.3'), arrival(), () => 0.29)).toBe(0);
    expect(pick(rules('500 p=0.3'), arrival(), () => 0.3)).toBeNull();
  });

  it('draws only for rules that got through stage, cap and conditions with 0 < p < 1', () => {
    let draws = 0;
    const counting = () => {
      draws++;
      return 0.99;
    };
    const list = rules('500 p=1', '500 p=0', '500 p=0.5 attempt=9', '500 p=0.5 pre-verify', '500 p=0.5', '503 p=0.5');
    const d = decideFault(list, arrival(), emptyFaultState(), counting);
    expect(d.matched).toBe(true);
    expect(d.matched && d.index).toBe(0);
    expect(draws).toBe(0);

    const without = list.slice(1);
    expect(decideFault(without, arrival(), emptyFaultState(), counting).matched).toBe(false);
    // Only '500 p=0.5' and '503 p=0.5' drew.
    expect(draws).toBe(2);
  });

  it('never fires a p=0 rule', () => {
    expect(pick(rules('500 p=0'), arrival(), () => 0)).toBeNull();
  });
});

describe('decideFault: caps and first match', () => {
  it('first matching rule wins', () => {
    expect(pick(rules('500 attempt=3', '503', '429'), arrival({ attemptHeader: 1 }))).toBe(1);
  });

  it('stops firing a capped rule once it has fired `times` times, and the next rule takes over', () => {
    const list = rules('500 times=2', '503');
    let state = emptyFaultState();
    const statuses: Array<number | null> = [];
    for (let i = 1; i <= 4; i++) {
      const d: FaultDecision = decideFault(list, arrival({ arrivalCount: i, attemptHeader: i }), state, noRandom);
      state = d.state;
      statuses.push(d.matched && d.rule.answer.kind === 'status' ? d.rule.answer.status : null);
    }
    expect(statuses).toEqual([500, 500, 503, 503]);
    expect(state.firedCounts.get(faultRuleKey(list[0]!))).toBe(2);
    expect(state.firedCounts.get(faultRuleKey(list[1]!))).toBe(2);
  });

  it('counts a firing only when the rule is chosen: passed-over rules keep their count', () => {
    const list = rules('500 attempt=2 times=1', '503 times=5');
    const d1 = decideFault(list, arrival({ attemptHeader: 1 }), emptyFaultState(), noRandom);
    expect(d1.matched && d1.index).toBe(1);
    expect(d1.state.firedCounts.has(faultRuleKey(list[0]!))).toBe(false);
    const d2 = decideFault(list, arrival({ attemptHeader: 2 }), d1.state, noRandom);
    expect(d2.matched && [d2.index, d2.fired]).toEqual([0, 1]);
  });

  it('counts accept and delay firings too', () => {
    const list = rules('accept times=1', '500');
    const d1 = decideFault(list, arrival(), emptyFaultState(), noRandom);
    expect(d1.matched && d1.rule.answer.kind).toBe('accept');
    const d2 = decideFault(list, arrival(), d1.state, noRandom);
    expect(d2.matched && d2.index).toBe(1);
  });

  it('leaves the given state untouched', () => {
    const state = emptyFaultState();
    decideFault(rules('500'), arrival(), state, noRandom);
    expect(state.firedCounts.size).toBe(0);
  });

  it('keys counts by id when there is one, else by canonical form (two spellings share a count)', () => {
    const [a, b, c] = rules('500 times=1 attempt=1', 'attempt=1 500 times=1', '500 times=1 attempt=1 id=first');
    expect(faultRuleKey(a!)).toBe('rule:500 attempt=1 times=1');
    expect(faultRuleKey(b!)).toBe(faultRuleKey(a!));
    expect(faultRuleKey(c!)).toBe('id:first');
  });

  it('a capped rule never fires more than `times` times, whatever the arrivals', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 30 }), (times, attempts) => {
        const list = rules(`500 attempt=1-2 times=${times}`);
        let state = emptyFaultState();
        let fired = 0;
        for (const attemptHeader of attempts) {
          const d = decideFault(list, arrival({ attemptHeader }), state, noRandom);
          state = d.state;
          if (d.matched) fired++;
        }
        expect(fired).toBe(Math.min(times, attempts.filter((a) => a <= 2).length));
      }),
      { seed: 2, numRuns: 300 },
    );
  });
});

describe('decideFault: beforeVerify staging', () => {
  const list = rules('400 pre-verify trigger=unsigned.*', '503');

  it('considers only pre-verify rules before verification', () => {
    expect(pick(list, arrival({ verified: false, trigger: 'unsigned.test' }))).toBe(0);
    expect(pick(list, arrival({ verified: false, trigger: 'trustcenter.access_approved' }))).toBeNull();
  });

  it('considers only the other rules after verification', () => {
    expect(pick(list, arrival({ verified: true, trigger: 'unsigned.test' }))).toBe(1);
  });
});

describe('decideFault: the three-step story of the issue', () => {
  it('503 with Retry-After on attempt 1, hang on attempt 2, normal handling on attempt 3', () => {
    const list = rules('503 retry-after=120 attempt=1', 'hang attempt=2');
    let state = emptyFaultState();
    const answers = [1, 2, 3].map((attemptHeader) => {
      const d = decideFault(list, arrival({ attemptHeader, arrivalCount: attemptHeader }), state, noRandom);
      state = d.state;
      return d.matched ? d.rule.answer.kind : 'normal';
    });
    expect(answers).toEqual(['status', 'hang', 'normal']);
  });
});
