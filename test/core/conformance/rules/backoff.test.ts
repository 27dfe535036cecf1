import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../../src/core/conformance/judge-run.js';
import { DEFAULT_SLACK } from '../../../../src/core/conformance/options.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../../../src/core/retry-policy/policy.js';
import { NO_SLACK, delivery, opts, records, type Answer } from '../builder.js';
import { failingRules, ruleStatus } from '../verdict-helpers.js';

interface PolicyCase {
  name: string;
  policy: RetryPolicy;
  answer: Answer;
  /** [min, max] seconds of retry 1, 2, … as the spec computes them by hand. */
  bounds: Array<[number, number]>;
}

const POLICIES: PolicyCase[] = [
  {
    name: 'exponential (spec default)',
    policy: DEFAULT_RETRY_POLICY,
    answer: 500,
    bounds: [[48, 72], [192, 288], [768, 1152], [3072, 4608], [12288, 18432]],
  },
  {
    name: 'fixed 30 s',
    policy: { ...DEFAULT_RETRY_POLICY, backoff: 'fixed', initialDelaySeconds: 30, maxAttempts: 4 },
    answer: 503,
    bounds: [[24, 36], [24, 36], [24, 36]],
  },
  {
    name: 'exponential capped at 250 s',
    policy: { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 60, maxDelaySeconds: 250, maxAttempts: 4 },
    answer: 'reset',
    bounds: [[48, 72], [192, 250], [250, 250]],
  },
  {
    name: 'custom: 10 s initial, 4 attempts, retryOn http_4xx + http_5xx',
    policy: { enabled: true, maxAttempts: 4, backoff: 'exponential', initialDelaySeconds: 10, maxDelaySeconds: 600, retryOn: ['http_4xx', 'http_5xx'] },
    answer: 404,
    bounds: [[8, 12], [32, 48], [128, 192]],
  },
];

type Edge = 'low edge' | 'just below' | 'high edge' | 'just above';
const EDGES: Array<{ edge: Edge; pass: boolean; gap: (minMs: number, maxMs: number) => number }> = [
  { edge: 'low edge', pass: true, gap: (min) => min },
  { edge: 'just below', pass: false, gap: (min) => min - 1 },
  { edge: 'high edge', pass: true, gap: (_, max) => max },
  { edge: 'just above', pass: false, gap: (_, max) => max + 1 },
];

/** Retries 1..n-1 at the middle of their windows, retry n at `gapMs`, then a 2xx if attempts remain. */
function timeline(c: PolicyCase, n: number, gapMs: number, scale = 1) {
  const d = delivery().attempt({ answer: c.answer });
  for (let k = 1; k < n; k += 1) {
    const [min, max] = c.bounds[k - 1]!;
    d.attempt({ answer: c.answer, gapMs: ((min + max) / 2) * 1000 * scale });
  }
  d.attempt({ answer: n + 1 < c.policy.maxAttempts ? 200 : c.answer, gapMs });
  return records(d);
}

const rows = POLICIES.flatMap((c) =>
  c.bounds.flatMap(([min, max], i) => EDGES.map((e) => ({ ...e, c, n: i + 1, min, max, label: `${c.name}: retry ${i + 1} [${min}, ${max}] s at the ${e.edge}` }))),
);

describe('backoff at the ±20% edges (no slack)', () => {
  it.each(rows)('$label → $pass', ({ c, n, min, max, gap, pass }) => {
    const gapMs = gap(min * 1000, max * 1000);
    const v = judgeRun(timeline(c, n, gapMs), opts({ policy: c.policy, slack: NO_SLACK }));
    const d = v.deliveries[0]!;
    expect(v.deliveries).toHaveLength(1);
    expect(ruleStatus(d, 'backoff')).toBe(pass ? 'pass' : 'fail');
    expect(failingRules(v)).toEqual(pass ? [] : ['backoff']);
    if (!pass) {
      const bad = d.rules.find((r) => r.rule === 'backoff')!.findings.filter((f) => !f.ok);
      expect(bad.map((f) => f.attempt)).toEqual([n + 1]);
      expect(bad[0]!.value).toBe(gapMs / 1000);
      expect(bad[0]!.bounds).toEqual({ min, max });
    }
  });
});

describe('backoff with --time-scale', () => {
  const c = POLICIES[0]!;
  const scaled = c.bounds.flatMap(([min, max], i) =>
    EDGES.map((e) => ({ ...e, n: i + 1, min: min * 10, max: max * 10, label: `× 0.01: retry ${i + 1} [${min * 10}, ${max * 10}] ms at the ${e.edge}` })),
  );
  it.each(scaled)('$label → $pass', ({ n, min, max, gap, pass }) => {
    const v = judgeRun(timeline(c, n, gap(min, max), 0.01), opts({ timeScale: 0.01, slack: NO_SLACK }));
    expect(failingRules(v)).toEqual(pass ? [] : ['backoff']);
  });

  it('an unscaled wait fails a compressed run, and a compressed wait fails an unscaled one', () => {
    const real = records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000 }));
    const fast = records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 600 }));
    expect(failingRules(judgeRun(real, opts({ timeScale: 0.01 })))).toEqual(['backoff']);
    expect(failingRules(judgeRun(fast, opts()))).toEqual(['backoff']);
    expect(failingRules(judgeRun(fast, opts({ timeScale: 0.01 })))).toEqual([]);
  });
});

describe('backoff slack (defaults: 250 ms early, 1000 ms late)', () => {
  it.each([
    { gapMs: 47_750, pass: true },
    { gapMs: 47_749, pass: false },
    { gapMs: 73_000, pass: true },
    { gapMs: 73_001, pass: false },
  ])('retry 1 of the default policy after $gapMs ms → $pass', ({ gapMs, pass }) => {
    const v = judgeRun(records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs })), opts());
    expect(ruleStatus(v.deliveries[0]!, 'backoff')).toBe(pass ? 'pass' : 'fail');
  });

  it('is not scaled by the time scale (latency is real time)', () => {
    // × 0.01: window 480–720 ms; with the default slack 230–1720 ms.
    const at = (gapMs: number) => ruleStatus(judgeRun(records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs })), opts({ timeScale: 0.01, slack: DEFAULT_SLACK })).deliveries[0]!, 'backoff');
    expect([at(230), at(229), at(1720), at(1721)]).toEqual(['pass', 'fail', 'pass', 'fail']);
  });

  it('defaults to the local slack (100 ms early, 500 ms late) for a scaled run', () => {
    // × 0.01: window 480–720 ms; with the local slack 380–1220 ms.
    const at = (gapMs: number) => ruleStatus(judgeRun(records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs })), opts({ timeScale: 0.01 })).deliveries[0]!, 'backoff');
    expect([at(380), at(379), at(1220), at(1221)]).toEqual(['pass', 'fail', 'pass', 'fail']);
  });
});

describe('backoff: which gaps it judges', () => {
  it('measures from the end of the previous attempt, so a 10 s hang does not eat into the wait', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 'hang' }).attempt({ answer: 200, gapMs: 60_000 })), opts({ slack: NO_SLACK }));
    expect(ruleStatus(v.deliveries[0]!, 'backoff')).toBe('pass');
    const fromStart = judgeRun(records(delivery().attempt({ answer: 'hang' }).attempt({ answer: 200, gapMs: 45_000 })), opts({ slack: NO_SLACK }));
    expect(ruleStatus(fromStart.deliveries[0]!, 'backoff')).toBe('fail');
  });

  it('is n/a for a single attempt, and for disabled retries', () => {
    const one = judgeRun(records(delivery().attempt({ answer: 500 })), opts({ policy: { ...DEFAULT_RETRY_POLICY, enabled: false } }));
    expect(ruleStatus(one.deliveries[0]!, 'backoff')).toBe('n/a');
    expect(failingRules(one)).toEqual([]);
    expect(ruleStatus(one.deliveries[0]!, 'max-attempts')).toBe('pass');
  });

  it('disabled policy: a second attempt fails max-attempts only, whatever its gap', () => {
    for (const gapMs of [0, 60_000, 1_000_000]) {
      const v = judgeRun(records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs })), opts({ policy: { ...DEFAULT_RETRY_POLICY, enabled: false } }));
      expect(failingRules(v)).toEqual(['max-attempts']);
      expect(ruleStatus(v.deliveries[0]!, 'backoff')).toBe('n/a');
    }
  });
});
