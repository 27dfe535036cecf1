import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatReport, safeText } from '../../../src/core/conformance/format-report.js';
import { judgeRun } from '../../../src/core/conformance/judge-run.js';
import { T0, delivery, opts, records } from './builder.js';

describe('formatReport', () => {
  const d = delivery({ id: 'evt_report' }).attempt({ answer: 503, retryAfter: '120' });
  d.attempt({ answer: 'hang', gapMs: 120_500 });
  d.attempt({ answer: 200, gapMs: 1_000 });
  const options = opts();
  const v = judgeRun(records(d), options);
  const text = formatReport(v, { options });

  it('prints the settings, the timeline, every rule, the run and the summary', () => {
    expect(text).toContain('hookrelay check');
    expect(text).toContain('policy    exponential backoff, 6 attempts, initial 60 s, max 21600 s, retryOn timeout, network, http_408, http_429, http_5xx');
    expect(text).toMatch(/delivery evt_report {2}trustcenter\.access_requested {2}succeeded {2}FAIL/);
    expect(text).toMatch(/1 +1 +2026-06-01T10:00:00\.000Z +— +0\.020 s +\d+ +503 Retry-After: 120 \(fault:status 503\) +http_5xx/);
    expect(text).toMatch(/2 +2 +\S+ +120\.500 s +10\.000 s +\d+ +no response \(fault:hang attempt=2\) +timeout/);
    for (const rule of ['attempt-sequence', 'same-delivery', 'fresh-signature', 'backoff', 'retry-after', 'no-retry-after-final', 'max-attempts', 'timeout', 'suspension']) {
      expect(text).toContain(rule);
    }
    expect(text).toMatch(/FAIL {2}backoff/);
    expect(text).toMatch(/pass {2}retry-after/);
    expect(text).toMatch(/n\/a {3}suspension/);
  });

  it('gives the failing finding\'s expected vs observed numbers', () => {
    expect(text).toContain('FAIL  backoff               attempt 3: waited 1.000 s after attempt 2 ended, expected retry 2: 192 s–288 s (240 s nominal ±20%); accepted 191.750 s–289.000 s with slack');
    expect(text).toContain('expected: exponential backoff from 60 s, ±20%, capped at 21600 s · observed: 0 of 1 waits inside');
  });

  it('lists each failing finding on its own line when a rule failed several times', () => {
    const x = delivery().attempt({ answer: 500 }).attempt({ answer: 500, gapMs: 10 }).attempt({ answer: 200, gapMs: 10 });
    const out = formatReport(judgeRun(records(x), options));
    expect(out).toContain('FAIL  attempt 2: expected retry 1: 48 s–72 s (60 s nominal ±20%); accepted 47.750 s–73.000 s with slack; observed waited 0.010 s after attempt 1 ended');
    expect(out).toContain('FAIL  attempt 3: expected retry 2: 192 s–288 s');
  });

  it('ends with the summary and the exit decision', () => {
    expect(text).toContain('summary: 1 delivery: 0 passed, 1 failed, 0 still retrying; rules: 7 pass, 1 fail, 1 n/a (failed: backoff ×1)');
    expect(text.trimEnd().split('\n').at(-1)).toBe('result: FAIL (exit 1)');
    const ok = judgeRun(records(delivery().attempt({ answer: 200 })), options);
    expect(formatReport(ok).trimEnd().split('\n').at(-1)).toBe('result: PASS (exit 0)');
  });

  it('prints every finding with verbose', () => {
    const verbose = formatReport(v, { verbose: true });
    expect(verbose).toContain('ok    attempt 2: expected Retry-After 120');
    expect(verbose.length).toBeGreaterThan(formatReport(v).length);
  });

  it('says in the run section what the late slack let through after a suspension', () => {
    const gone = delivery({ id: 'gone' }).attempt({ answer: 410 });
    const inFlight = delivery({ id: 'in-flight', start: gone.end + 800 }).attempt({ answer: 200 });
    const out = formatReport(judgeRun(records(gone, inFlight), options), { options });
    expect(out).toContain('slack −250/+1000 ms');
    expect(out).toMatch(/pass {2}suspension {12}suspended at \S+ \(delivery gone was answered 410 \(disableOnGone\)\); 1 arrival within the 1 s late slack was already in flight \(delivery in-flight attempt 1, 0\.800 s after\), nothing arrived later/);
    expect(out).not.toContain('nothing arrived after');
  });

  it('says so when there is nothing to judge', () => {
    expect(formatReport(judgeRun([], options))).toContain('no deliveries to judge');
  });

  it('escapes control characters and bidi overrides from recorded values', () => {
    const hostile = delivery({ id: 'evt_\u001b[2J\u202e', trigger: 'x\r\ny' }).attempt({ answer: 500, reason: 'bad\u0007\u0000', retryAfter: '\u001b]0;pwn\u0007' });
    const out = formatReport(judgeRun(records(hostile), options));
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(out).toContain('evt_\\u001b[2J\\u202e');
    expect(out).toContain('x\\u000d\\u000ay');
  });

  it('never throws and never emits control characters, for any recorded strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), (id, reason) => {
        const x = delivery({ id, start: T0 }).attempt({ answer: 500, reason }).attempt({ answer: 200, gapMs: 5, reason });
        const out = formatReport(judgeRun(records(x), options), { verbose: true, options });
        expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      }),
      { seed: 9, numRuns: 200 },
    );
  });
});

describe('safeText', () => {
  it('cuts long values', () => {
    expect(safeText('a'.repeat(50), 10)).toBe(`${'a'.repeat(9)}…`);
  });
});
