import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../src/core/conformance/judge-run.js';
import { checkExitCode } from '../../../src/core/conformance/summary.js';
import { DEFAULT_RETRY_POLICY, RETRYABLE_CLASSES, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';
import type { AttemptRecord } from '../../../src/store/store.js';
import { T0, delivery, opts, records, sha } from './builder.js';
import { simulateDelivery, type Step } from './simulate.js';
import { failingRules, statuses } from './verdict-helpers.js';

describe('a fully conforming default-policy delivery', () => {
  // 503 + Retry-After 120, hang, reset, 429 + Retry-After as an HTTP date, 408, then 200.
  const d = delivery().attempt({ answer: 503, retryAfter: '120' });
  d.attempt({ answer: 'hang', gapMs: 120_400 });
  d.attempt({ answer: 'reset', gapMs: 240_000 });
  d.attempt({ answer: 429, gapMs: 960_000, retryAfter: new Date(d.end + 960_000 + 20 + 600_000).toUTCString() });
  d.attempt({ answer: 408, gapMs: 600_000 });
  d.attempt({ answer: 200, gapMs: 15_360_000 });
  const v = judgeRun(records(d), opts());

  it('passes every rule that applies, and exits 0', () => {
    expect(v.deliveries).toHaveLength(1);
    expect(statuses(v.deliveries[0]!)).toEqual({
      'attempt-sequence': 'pass',
      'same-delivery': 'pass',
      'fresh-signature': 'pass',
      backoff: 'pass',
      'retry-after': 'pass',
      'no-retry-after-final': 'pass',
      'max-attempts': 'pass',
      timeout: 'pass',
    });
    expect(v.suspension.status).toBe('n/a');
    expect(v.deliveries[0]!.state).toBe('succeeded');
    expect(checkExitCode(v)).toBe(0);
    expect(v.summary).toMatchObject({ deliveries: 1, passed: 1, failed: 0, retrying: 0, failures: 0 });
  });

  it('classifies every answer as the sender saw it', () => {
    expect(v.deliveries[0]!.timeline.map((a) => a.answerClass)).toEqual(['http_5xx', 'timeout', 'network', 'http_429', 'http_408', 'success']);
  });

  it('judges the waits after Retry-After by retry-after and the others by backoff', () => {
    const rules = Object.fromEntries(v.deliveries[0]!.rules.map((r) => [r.rule, r.findings.map((f) => f.attempt)]));
    expect(rules['retry-after']).toEqual([2, 5]);
    expect(rules.backoff).toEqual([3, 4, 6]);
  });
});

/** Broken senders: each breaks one behaviour and must fail exactly the rule for it. */
describe('deliberately broken senders fail exactly the rule they break', () => {
  const cases: Array<{ name: string; rule: string; build: () => AttemptRecord[]; options?: Parameters<typeof opts>[0] }> = [
    {
      name: 'reused timestamp',
      rule: 'fresh-signature',
      build: () => {
        const t = Math.floor(T0 / 1000);
        // 60 s apart: inside the 300 s tolerance, so only the reuse itself can fail it.
        return records(delivery().attempt({ answer: 500, t }).attempt({ answer: 200, gapMs: 60_000, t }));
      },
    },
    {
      name: 'no backoff',
      rule: 'backoff',
      build: () => records(delivery().attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 100 }).attempt({ answer: 200, gapMs: 100 })),
    },
    {
      name: 'too-long wait',
      rule: 'backoff',
      build: () => records(delivery().attempt({ answer: 503 }).attempt({ answer: 200, gapMs: 120_000 })),
    },
    {
      name: 'ignoring Retry-After',
      rule: 'retry-after',
      build: () => records(delivery().attempt({ answer: 429, retryAfter: '600' }).attempt({ answer: 200, gapMs: 60_000 })),
    },
    {
      name: 'retry after 410',
      rule: 'no-retry-after-final',
      build: () => records(delivery().attempt({ answer: 410 }).attempt({ answer: 200, gapMs: 60_000 })),
    },
    {
      name: 'retry after 404',
      rule: 'no-retry-after-final',
      build: () => records(delivery().attempt({ answer: 404 }).attempt({ answer: 200, gapMs: 60_000 })),
    },
    {
      name: 'one attempt too many',
      rule: 'max-attempts',
      build: () => {
        const d = delivery().attempt({ answer: 500 });
        for (const s of [60, 240, 960, 3840, 15360, 21600]) d.attempt({ answer: 500, gapMs: s * 1000 });
        return records(d);
      },
    },
    {
      name: 'attempt header skipping',
      rule: 'attempt-sequence',
      build: () => records(delivery().attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000, header: 3 }).attempt({ answer: 200, gapMs: 240_000, header: 4 })),
    },
    {
      name: 'body changed between attempts',
      rule: 'same-delivery',
      build: () => records(delivery().attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000, body: '{"id":"evt_1","type":"trustcenter.access_requested","data":{"x":1}}' })),
    },
    {
      name: 'delivery id changed (header no longer matches the body: refused DELIVERY_ID_MISMATCH)',
      rule: 'same-delivery',
      build: () => records(delivery().attempt({ answer: 503 }).attempt({ answer: 400, gapMs: 60_000, id: 'evt_2', outcome: 'rejected', reason: 'DELIVERY_ID_MISMATCH' })),
    },
    {
      name: 'delivery id dropped (no x-service-delivery, same body)',
      rule: 'same-delivery',
      build: () => records(delivery().attempt({ answer: 503 }).attempt({ answer: 400, gapMs: 60_000, id: null, outcome: 'rejected', reason: 'DELIVERY_ID_MISMATCH' })),
    },
    {
      name: 'sending after suspension (auto-disable after 2 failed deliveries)',
      rule: 'suspension',
      options: { policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2 }, failureHandling: { autoDisableAfter: 2, disableOnGone: true } },
      build: () => {
        const a = delivery({ id: 'evt_a' }).attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000 });
        const b = delivery({ id: 'evt_b', start: a.end + 1000 }).attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 60_000 });
        const c = delivery({ id: 'evt_c', start: b.end + 30_000 }).attempt({ answer: 200 });
        return records(a, b, c);
      },
    },
    {
      name: 'sending after suspension (410 with disableOnGone)',
      rule: 'suspension',
      build: () => {
        const a = delivery({ id: 'evt_a' }).attempt({ answer: 410 });
        const b = delivery({ id: 'evt_b', start: a.end + 5000 }).attempt({ answer: 200 });
        return records(a, b);
      },
    },
  ];

  it.each(cases)('$name → fails $rule only', ({ build, rule, options }) => {
    const v = judgeRun(build(), opts(options));
    expect(failingRules(v)).toEqual([rule]);
    expect(checkExitCode(v)).toBe(1);
  });

  it('a delivery id changed with the body (a new envelope id) shows as a delivery starting at attempt 2 and one stopping early', () => {
    const first = delivery({ id: 'evt_1' }).attempt({ answer: 503 });
    const second = delivery({ id: 'evt_9', start: first.end + 60_000 }).attempt({ answer: 200, header: 2 });
    const v = judgeRun(records(first, second), opts());
    expect(v.deliveries.map((d) => d.deliveryId)).toEqual(['evt_1', 'evt_9']);
    expect(statuses(v.deliveries[0]!)['max-attempts']).toBe('fail');
    // Its attempt 1 was not seen under this id: judged from attempt 2, and said so.
    expect(statuses(v.deliveries[1]!)['attempt-sequence']).toBe('pass');
    expect(v.deliveries[1]!.unseenAttempts).toBe(1);
  });

  it('the DELIVERY_ID_MISMATCH attempt joins its delivery by body and names the other id', () => {
    const v = judgeRun(cases[9]!.build(), opts());
    expect(v.deliveries).toHaveLength(1);
    expect(v.deliveries[0]!.deliveryId).toBe('evt_1');
    expect(v.deliveries[0]!.otherDeliveryIds).toEqual(['evt_2']);
    expect(v.deliveries[0]!.rules.find((r) => r.rule === 'same-delivery')!.message).toMatch(/evt_2.*DELIVERY_ID_MISMATCH/);
  });
});

describe('retry after success', () => {
  it('fails no-retry-after-final even when hookrelay answered the copy as a duplicate, and says so', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 200 }).attempt({ answer: 200, gapMs: 60_000, outcome: 'duplicate' })), opts());
    expect(failingRules(v)).toEqual(['no-retry-after-final']);
    expect(v.deliveries[0]!.rules.find((r) => r.rule === 'no-retry-after-final')!.message).toMatch(/duplicate.*no exceptions/);
  });
});

describe('redirects', () => {
  it('folds up to 3 followed hops into one attempt', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 500, hops: 3 }).attempt({ answer: 200, gapMs: 60_000, hops: 1 })), opts());
    const d = v.deliveries[0]!;
    expect(d.timeline.map((a) => [a.attemptHeader, a.hops, a.seqs.length])).toEqual([[1, 3, 4], [2, 1, 2]]);
    expect(failingRules(v)).toEqual([]);
    expect(statuses(d)['no-retry-after-final']).toBe('pass');
  });

  it('a 4th followed hop is a send after a redirect failure', () => {
    const v = judgeRun(records(delivery().attempt({ answer: 200, hops: 4 })), opts());
    expect(failingRules(v)).toEqual(['no-retry-after-final']);
  });

  it('an unfollowed 3xx is a redirect failure: final', () => {
    const ok = judgeRun(records(delivery().attempt({ answer: 307 })), opts());
    expect(ok.deliveries[0]!.timeline[0]!.answerClass).toBe('redirect');
    expect(failingRules(ok)).toEqual([]);
    const retried = judgeRun(records(delivery().attempt({ answer: 308 }).attempt({ answer: 200, gapMs: 60_000 })), opts());
    expect(failingRules(retried)).toEqual(['no-retry-after-final']);
  });
});

describe('several deliveries', () => {
  it('judges each delivery on its own, ordered by first arrival, whatever the record order', () => {
    const a = delivery({ id: 'evt_a' }).attempt({ answer: 500 }).attempt({ answer: 200, gapMs: 60_000 });
    const b = delivery({ id: 'evt_b', start: T0 + 10_000 }).attempt({ answer: 200 });
    const all = records(a, b).reverse();
    const v = judgeRun(all, opts());
    expect(v.deliveries.map((d) => [d.deliveryId, d.timeline.length, d.status])).toEqual([['evt_a', 2, 'pass'], ['evt_b', 1, 'pass']]);
  });

  it('judges nothing to exit 0', () => {
    const v = judgeRun([], opts());
    expect(v.deliveries).toEqual([]);
    expect(checkExitCode(v)).toBe(0);
  });
});

// --- properties -------------------------------------------------------------------------------

const policyArb: fc.Arbitrary<RetryPolicy> = fc
  .record({
    // Mostly enabled and retrying the usual classes, so runs are long enough to judge waits.
    enabled: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    maxAttempts: fc.integer({ min: 1, max: 10 }),
    backoff: fc.constantFrom('exponential' as const, 'fixed' as const),
    initialDelaySeconds: fc.integer({ min: 10, max: 3600 }),
    extra: fc.integer({ min: 0, max: 86_400 }),
    retryOn: fc.oneof(
      { weight: 3, arbitrary: fc.constant([...DEFAULT_RETRY_POLICY.retryOn]) },
      { weight: 2, arbitrary: fc.constant([...RETRYABLE_CLASSES]) },
      { weight: 1, arbitrary: fc.subarray([...RETRYABLE_CLASSES]) },
    ),
  })
  .map(({ extra, initialDelaySeconds, ...p }) => ({
    ...p,
    initialDelaySeconds,
    maxDelaySeconds: Math.min(86_400, Math.max(60, initialDelaySeconds + extra)),
  }));

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Step>({ answer: 500 }, { answer: 502 }, { answer: 503 }, { answer: 429 }, { answer: 408 }, { answer: 'hang' }, { answer: 'reset' }, { answer: 'close' }) },
  { weight: 2, arbitrary: fc.record({ answer: fc.constantFrom(429, 503), retryAfter: fc.integer({ min: 0, max: 100_000 }) }) },
  { weight: 1, arbitrary: fc.constantFrom<Step>({ answer: 200 }, { answer: 204 }, { answer: 404 }, { answer: 410 }, { answer: 501 }, { answer: 505 }, { answer: 400 }, { answer: 307 }) },
);

const simArb = fc.record({
  policy: policyArb,
  script: fc.array(stepArb, { minLength: 1, maxLength: 10 }),
  timeScale: fc.constantFrom(1, 0.1, 0.01),
  draws: fc.array(fc.double({ min: 0, max: 0.999_999, noNaN: true }), { minLength: 1, maxLength: 10 }),
  // Fractions of the late slack in effect (DEFAULT_SLACK at scale 1, LOCAL_SLACK otherwise).
  latencies: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 11 }),
});

describe('properties', () => {
  it('a simulated conforming sender passes every rule, for any policy, script and time scale', () => {
    const judged: Record<string, number> = {};
    fc.assert(
      fc.property(simArb, ({ policy, script, timeScale, draws, latencies }) => {
        const options = opts({ policy, timeScale });
        const real = latencies.map((f) => Math.floor(f * options.slack.lateMs));
        const d = simulateDelivery(policy, script, { timeScale, draws, latencies: real });
        const v = judgeRun(records(d), options);
        expect(failingRules(v)).toEqual([]);
        expect(v.deliveries[0]!.state).not.toBe('retrying');
        for (const r of v.deliveries[0]!.rules) if (r.status === 'pass') judged[r.rule] = (judged[r.rule] ?? 0) + 1;
      }),
      { seed: 7, numRuns: 400 },
    );
    // The property is not vacuous: the waits, Retry-After and timeouts were really judged.
    expect(judged.backoff).toBeGreaterThan(100);
    expect(judged['retry-after']).toBeGreaterThan(50);
    expect(judged.timeout).toBeGreaterThan(50);
  });

  it('the same run with one wait moved outside its window fails backoff, and only backoff', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 100_000 }),
        (n, early, byMs) => {
          const bounds = [[48, 72], [192, 288], [768, 1152], [3072, 4608], [12288, 18432]] as const;
          const d = delivery().attempt({ answer: 500 });
          for (let k = 1; k <= n; k += 1) {
            const [min, max] = bounds[k - 1]!;
            const off = k === n ? (early ? min * 1000 - 250 - byMs : max * 1000 + 1000 + byMs) : ((min + max) / 2) * 1000;
            d.attempt({ answer: k === n ? 200 : 500, gapMs: Math.max(0, off) });
          }
          const v = judgeRun(records(d), opts());
          expect(failingRules(v)).toEqual(['backoff']);
        },
      ),
      { seed: 11, numRuns: 200 },
    );
  });

  it('never throws on garbage records, and always yields a verdict per delivery', () => {
    const garbage = fc.record({
      seq: fc.oneof(fc.integer(), fc.constant(Number.NaN)),
      deliveryId: fc.option(fc.string({ maxLength: 8 })),
      trigger: fc.option(fc.string({ maxLength: 8 })),
      receivedAt: fc.oneof(fc.integer({ min: T0, max: T0 + 1e9 }), fc.double(), fc.constant(Number.NaN)),
      finishedAt: fc.oneof(fc.integer({ min: T0, max: T0 + 1e9 }), fc.double(), fc.constant(Number.POSITIVE_INFINITY)),
      attemptHeader: fc.option(fc.integer()),
      signatureTimestamp: fc.option(fc.oneof(fc.integer(), fc.double())),
      bodySha256: fc.constantFrom(sha('a'), sha('b'), ''),
      bodyBytes: fc.integer({ min: 0, max: 10 }),
      outcome: fc.constantFrom('accepted' as const, 'duplicate' as const, 'rejected' as const, 'faulted' as const, 'unavailable' as const),
      status: fc.option(fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.double())),
      reason: fc.option(fc.string({ maxLength: 20 })),
      retryAfter: fc.option(fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.date({ noInvalidDate: true }).map((x) => x.toUTCString()))),
    });
    fc.assert(
      fc.property(fc.array(garbage, { maxLength: 12 }), fc.boolean(), (recs, complete) => {
        const v = judgeRun(recs, opts({ complete, now: T0 }));
        expect(v.deliveries.length).toBeLessThanOrEqual(recs.length);
        expect(v.deliveries.length).toBeGreaterThanOrEqual(recs.length === 0 ? 0 : 1);
        expect(v.deliveries.reduce((n, d) => n + d.timeline.reduce((m, a) => m + a.seqs.length, 0), 0)).toBe(recs.length);
        expect(() => JSON.stringify(v)).not.toThrow();
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});
