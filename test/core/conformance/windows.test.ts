import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveCheckOptions, type CheckOptions, type CheckOptionsInput } from '../../../src/core/conformance/options.js';
import type { AnswerClass, TimelineEntry } from '../../../src/core/conformance/types.js';
import { backoffWindow, nextRetryWindow, retryAfterWindow } from '../../../src/core/conformance/windows.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';

/** 2026-06-01T10:00:00.000Z */
const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);

function options(input: CheckOptionsInput = {}): CheckOptions {
  const resolved = resolveCheckOptions(input);
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  return resolved.options;
}

const policy = (p: Partial<RetryPolicy>): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, ...p });

/** The attempt before the retry being judged: what hookrelay answered and when it finished. */
function previous(status: number | null, retryAfter: string | null, answerClass: AnswerClass = status === 429 ? 'http_429' : 'http_5xx'): TimelineEntry {
  return {
    position: 1,
    attemptHeader: 1,
    deliveryId: 'evt_1',
    trigger: 'trustcenter.access_requested',
    receivedAt: T0 - 20,
    finishedAt: T0,
    endAt: T0,
    gapMs: null,
    durationMs: 20,
    signatureTimestamp: Math.floor(T0 / 1000),
    bodySha256: '0'.repeat(64),
    outcome: 'faulted',
    status,
    reason: null,
    retryAfter,
    answerClass,
    hops: 0,
    lastHopReceivedAt: T0 - 20,
    seqs: [1],
  };
}

describe('backoffWindow', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('is null for retry %s', (n) => {
    expect(backoffWindow(options(), n)).toBeNull();
  });

  // Spec 6.4 rule 4 with the default policy, the default slack (250 ms early, 1000 ms late).
  it.each([
    [1, 60, 48, 72, false],
    [2, 240, 192, 288, false],
    [3, 960, 768, 1152, false],
    [4, 3840, 3072, 4608, false],
    [5, 15360, 12288, 18432, false],
    [6, 21600, 21600, 21600, true],
  ])('default retry %i: nominal %i s, %i–%i s, capped %s', (n, nominal, min, max, capped) => {
    expect(backoffWindow(options(), n)).toEqual({
      nominalSeconds: nominal,
      minSeconds: min,
      maxSeconds: max,
      capped,
      lowMs: min * 1000 - 250,
      highMs: max * 1000 + 1000,
    });
  });

  it('scales the bounds by the time scale, not the slack, and rounds away float noise', () => {
    // 48 s × 0.01 = 480 ms exactly, not 480.00000000000006; LOCAL_SLACK is 100 ms early, 500 ms late.
    expect(backoffWindow(options({ timeScale: 0.01 }), 1)).toMatchObject({ minSeconds: 48, maxSeconds: 72, lowMs: 380, highMs: 1220 });
    expect(backoffWindow(options({ timeScale: 0.01 }), 3)).toMatchObject({ lowMs: 7580, highMs: 12020 });
  });

  it('uses a slack that was given', () => {
    expect(backoffWindow(options({ slack: { earlyMs: 0, lateMs: 0 } }), 1)).toMatchObject({ lowMs: 48_000, highMs: 72_000 });
  });

  it('marks a window capped as soon as the cap cuts its upper bound', () => {
    const opts = options({ policy: policy({ initialDelaySeconds: 100, maxDelaySeconds: 110 }) });
    expect(backoffWindow(opts, 1)).toMatchObject({ nominalSeconds: 100, minSeconds: 80, maxSeconds: 110, capped: true });
    const exact = options({ policy: policy({ initialDelaySeconds: 100, maxDelaySeconds: 120 }) });
    expect(backoffWindow(exact, 1)).toMatchObject({ maxSeconds: 120, capped: false });
  });

  it('gives fixed backoff the same window for every retry', () => {
    const opts = options({ policy: policy({ backoff: 'fixed', initialDelaySeconds: 30 }) });
    for (let n = 1; n <= 5; n++) expect(backoffWindow(opts, n)).toMatchObject({ nominalSeconds: 30, minSeconds: 24, maxSeconds: 36 });
  });

  const policyArb = fc
    .record({
      initialDelaySeconds: fc.integer({ min: 0, max: 3600 }),
      maxDelaySeconds: fc.integer({ min: 0, max: 86400 }),
      backoff: fc.constantFrom<'exponential' | 'fixed'>('exponential', 'fixed'),
    })
    .map(policy);
  const slackArb = fc.record({ earlyMs: fc.integer({ min: 0, max: 5000 }), lateMs: fc.integer({ min: 0, max: 5000 }) });
  const scaleArb = fc.constantFrom(1, 0.5, 0.01, 0.001, 2);

  it('keeps low ≤ high, min ≤ nominal ≤ max ≤ cap, and never shrinks from one retry to the next', () => {
    fc.assert(
      fc.property(policyArb, slackArb, scaleArb, (p, slack, timeScale) => {
        const opts = options({ policy: p, slack, timeScale });
        let before = backoffWindow(opts, 1)!;
        for (let n = 1; n <= 12; n++) {
          const w = backoffWindow(opts, n)!;
          expect(w.lowMs).toBeLessThanOrEqual(w.highMs);
          expect(w.minSeconds).toBeLessThanOrEqual(w.nominalSeconds);
          expect(w.nominalSeconds).toBeLessThanOrEqual(w.maxSeconds);
          expect(w.maxSeconds).toBeLessThanOrEqual(p.maxDelaySeconds);
          expect(w.highMs - w.lowMs).toBeGreaterThanOrEqual(slack.earlyMs + slack.lateMs - 1e-6);
          expect(w.lowMs).toBeGreaterThanOrEqual(before.lowMs);
          expect(w.highMs).toBeGreaterThanOrEqual(before.highMs);
          before = w;
        }
      }),
      { seed: 51, numRuns: 150 },
    );
  });

  it('widens the window by exactly the slack', () => {
    fc.assert(
      fc.property(policyArb, slackArb, fc.integer({ min: 1, max: 8 }), (p, slack, n) => {
        const tight = backoffWindow(options({ policy: p, slack: { earlyMs: 0, lateMs: 0 } }), n)!;
        const loose = backoffWindow(options({ policy: p, slack }), n)!;
        expect(loose.lowMs).toBe(tight.lowMs - slack.earlyMs);
        expect(loose.highMs).toBe(tight.highMs + slack.lateMs);
      }),
      { seed: 52, numRuns: 300 },
    );
  });
});

describe('retryAfterWindow', () => {
  it.each<[string, TimelineEntry]>([
    ['a 500 (Retry-After not honoured)', previous(500, '30')],
    ['a 502', previous(502, '30')],
    ['a 200', previous(200, '30', 'success')],
    ['a reset (no status)', previous(null, '30', 'network')],
    ['a 429 the sender never saw (timeout)', previous(429, '30', 'timeout')],
    ['a 503 the sender never saw (timeout)', previous(503, '30', 'timeout')],
    ['a 429 without Retry-After', previous(429, null)],
    ['a 429 with an empty Retry-After', previous(429, '  ')],
    ['a 429 with free text', previous(429, 'soon')],
    ['a 429 with a fraction', previous(429, '1.5')],
    ['a 429 with a negative', previous(429, '-5')],
  ])('is null after %s', (_, prev) => {
    expect(retryAfterWindow(options(), prev, 1)).toBeNull();
  });

  it.each([
    // value, retry, requested, clamped, min, max
    ['30', 1, 30, 30, 30, 72],
    ['100', 1, 100, 100, 100, 100],
    ['5', 1, 5, 10, 10, 72],
    ['0', 1, 0, 10, 10, 72],
    ['100000', 1, 100000, 21600, 21600, 21600],
    ['30', 3, 30, 30, 30, 1152],
    ['30', 0, 30, 30, 30, 30],
  ])('a 429 with Retry-After %s before retry %i asks %i s, clamped to %i: %i–%i s', (value, n, requested, clamped, min, max) => {
    expect(retryAfterWindow(options(), previous(429, value), n)).toEqual({
      requestedSeconds: requested,
      clampedSeconds: clamped,
      minSeconds: min,
      maxSeconds: max,
      lowMs: min * 1000 - 250,
      highMs: max * 1000 + 1000,
    });
  });

  it('reads an HTTP date relative to when the answer was sent', () => {
    const date = new Date(T0 + 120_000).toUTCString();
    expect(retryAfterWindow(options(), previous(503, date), 1)).toMatchObject({ requestedSeconds: 120, clampedSeconds: 120, maxSeconds: 120, lowMs: 119_750, highMs: 121_000 });
    const past = new Date(T0 - 60_000).toUTCString();
    expect(retryAfterWindow(options(), previous(503, past), 1)).toMatchObject({ requestedSeconds: 0, clampedSeconds: 10 });
  });

  it('scales the clamped wait by the time scale', () => {
    expect(retryAfterWindow(options({ timeScale: 0.01 }), previous(429, '30'), 1)).toMatchObject({ lowMs: 300 - 100, highMs: 720 + 500 });
  });

  it('always accepts at least the clamped value and at most the longer of it and the backoff', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 8 }), fc.constantFrom(429, 503), (requested, n, status) => {
        const opts = options();
        const w = retryAfterWindow(opts, previous(status, String(requested)), n)!;
        const backoff = backoffWindow(opts, n)!;
        expect(w.requestedSeconds).toBe(requested);
        expect(w.clampedSeconds).toBe(Math.min(Math.max(requested, 10), 21600));
        expect(w.minSeconds).toBe(w.clampedSeconds);
        expect(w.maxSeconds).toBe(Math.max(w.clampedSeconds, backoff.maxSeconds));
        expect(w.lowMs).toBeLessThan(w.highMs);
      }),
      { seed: 53, numRuns: 300 },
    );
  });
});

describe('nextRetryWindow', () => {
  it('is the Retry-After window when one is in effect', () => {
    const prev = previous(429, '30');
    expect(nextRetryWindow(options(), prev, 1)).toEqual(retryAfterWindow(options(), prev, 1));
    expect(nextRetryWindow(options(), prev, 1)).toMatchObject({ minSeconds: 30 });
  });

  it.each<[string, TimelineEntry]>([
    ['a 500 with Retry-After', previous(500, '30')],
    ['a 429 with an unreadable Retry-After', previous(429, 'later')],
    ['a timed-out 503', previous(503, '30', 'timeout')],
  ])('falls back to the backoff after %s', (_, prev) => {
    expect(nextRetryWindow(options(), prev, 2)).toEqual(backoffWindow(options(), 2));
  });

  it('is null when neither applies', () => {
    expect(nextRetryWindow(options(), previous(500, null), 0)).toBeNull();
  });
});
