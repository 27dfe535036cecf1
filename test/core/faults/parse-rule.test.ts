import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFaultRule } from '../../../src/core/faults/format-rule.js';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';
import { arbitraryRule } from './arbitrary-rule.js';

const one = (n: number) => ({ from: n, to: n });

describe('parseFaultRule: valid rules', () => {
  it.each<[string, FaultRule]>([
    [
      '503 retry-after=120 attempt=1',
      { match: { attempt: one(1) }, answer: { kind: 'status', status: 503, retryAfter: { kind: 'seconds', seconds: 120 } } },
    ],
    ['hang attempt=2', { match: { attempt: one(2) }, answer: { kind: 'hang', slowHeaders: false } }],
    ['410 trigger=trustcenter.access_approved', { match: { trigger: 'trustcenter.access_approved' }, answer: { kind: 'status', status: 410 } }],
    ['reset p=0.3', { match: { p: 0.3 }, answer: { kind: 'reset' } }],
    ['reset p=30%', { match: { p: 0.3 }, answer: { kind: 'reset' } }],
    ['close p=.5', { match: { p: 0.5 }, answer: { kind: 'close' } }],
    ['redirect hops=4', { match: {}, answer: { kind: 'redirect', status: 307, hops: 4 } }],
    ['redirect status=308 hops=3', { match: {}, answer: { kind: 'redirect', status: 308, hops: 3 } }],
    ['redirect status=308 no-location', { match: {}, answer: { kind: 'redirect', status: 308, hops: null } }],
    ['redirect', { match: {}, answer: { kind: 'redirect', status: 307, hops: null } }],
    ['redirect status=301', { match: {}, answer: { kind: 'redirect', status: 301, hops: null } }],
    ['429 retry-after=+120s', { match: {}, answer: { kind: 'status', status: 429, retryAfter: { kind: 'relative', seconds: 120 } } }],
    ['429 retry-after=-30s', { match: {}, answer: { kind: 'status', status: 429, retryAfter: { kind: 'relative', seconds: -30 } } }],
    ['429 retry-after=-0s', { match: {}, answer: { kind: 'status', status: 429, retryAfter: { kind: 'relative', seconds: 0 } } }],
    [
      "429 retry-after='Wed, 21 Oct 2026 07:28:00 GMT'",
      { match: {}, answer: { kind: 'status', status: 429, retryAfter: { kind: 'date', date: 'Wed, 21 Oct 2026 07:28:00 GMT' } } },
    ],
    ['delay=2000', { match: {}, answer: { kind: 'delay', ms: 2000 } }],
    ['delay=2s', { match: {}, answer: { kind: 'delay', ms: 2000 } }],
    ['delay=250ms', { match: {}, answer: { kind: 'delay', ms: 250 } }],
    ['hang slow-headers', { match: {}, answer: { kind: 'hang', slowHeaders: true } }],
    ['500 times=3', { match: {}, answer: { kind: 'status', status: 500 }, limit: { times: 3 } }],
    [
      "418 header=x-foo:bar body='teapot'",
      { match: {}, answer: { kind: 'status', status: 418, headers: [['x-foo', 'bar']], body: 'teapot' } },
    ],
    ["418 header='x-foo: bar baz '", { match: {}, answer: { kind: 'status', status: 418, headers: [['x-foo', 'bar baz']] } }],
    ['302 header=location:', { match: {}, answer: { kind: 'status', status: 302, headers: [['location', '']] } }],
    ['503 header=retry-after:soon', { match: {}, answer: { kind: 'status', status: 503, headers: [['retry-after', 'soon']] } }],
    ["500 body=''", { match: {}, answer: { kind: 'status', status: 500, body: '' } }],
    ['500 body="say \\"hi\\"\\n\\t\\\\"', { match: {}, answer: { kind: 'status', status: 500, body: 'say "hi"\n\t\\' } }],
    ["500 body='\\u{1f600} \\u{0}'", { match: {}, answer: { kind: 'status', status: 500, body: '\u{1f600} \u0000' } }],
    ["500 body=a'b c'd", { match: {}, answer: { kind: 'status', status: 500, body: 'ab cd' } }],
    ['500 body=a=b', { match: {}, answer: { kind: 'status', status: 500, body: 'a=b' } }],
    ['accept times=1', { match: {}, answer: { kind: 'accept' }, limit: { times: 1 } }],
    ['503 pre-verify', { match: {}, answer: { kind: 'status', status: 503 }, beforeVerify: true }],
    ['attempt=2-4 503', { match: { attempt: { from: 2, to: 4 } }, answer: { kind: 'status', status: 503 } }],
    ['500 arrival=3-', { match: { arrival: { from: 3, to: null } }, answer: { kind: 'status', status: 500 } }],
    ['500 delivery=d-123 id=only-this', { id: 'only-this', match: { delivery: 'd-123' }, answer: { kind: 'status', status: 500 } }],
    ['HANG Attempt=2', { match: { attempt: one(2) }, answer: { kind: 'hang', slowHeaders: false } }],
    ['  \t 501   trigger=vendor.*\t', { match: { trigger: 'vendor.*' }, answer: { kind: 'status', status: 501 } }],
  ])('%s', (text, expected) => {
    expect(parseFaultRule(text)).toStrictEqual({ ok: true, rule: expected });
  });
});

describe('parseFaultRule: refused rules name the column and the reason', () => {
  it.each<[string, number, string]>([
    ['5O3', 1, 'status must be 3 digits'],
    ['50', 1, 'status must be 3 digits'],
    ['5031', 1, 'status must be 3 digits'],
    ['600', 1, 'status must be 100-599'],
    ['099', 1, 'status must be 100-599'],
    ['', 1, 'empty rule: give an answer such as 503, hang or reset'],
    ['   ', 1, 'empty rule: give an answer such as 503, hang or reset'],
    ['attempt=1', 1, 'rule has no answer: give a status (e.g. 503), accept, hang, reset, close, redirect or delay=MS'],
    ['503 bogus', 5, "unknown word 'bogus': expected a status (e.g. 503), accept, hang, reset, close, redirect, a flag (slow-headers, no-location, pre-verify) or key=value"],
    ['503 foo=1', 5, "unknown key 'foo': known keys are trigger, delivery, attempt, arrival, p, times, retry-after, header, body, status, hops, delay, id"],
    ['503 attempt=0', 5, 'attempt must use whole numbers from 1 to 1000000'],
    ['503 attempt=4-2', 5, 'attempt must not end (2) before it starts (4)'],
    ['503 attempt=-3', 5, 'attempt must be N, N-M or N- with 1 <= N <= M (e.g. 1, 2-4, 3-)'],
    ['503 arrival=x', 5, 'arrival must be N, N-M or N- with 1 <= N <= M (e.g. 1, 2-4, 3-)'],
    ['500 p=1.5', 5, 'p must be a number from 0 to 1'],
    ['500 p=-0.1', 5, 'p must be a number from 0 to 1'],
    ['500 p=150%', 5, 'p must be a number from 0 to 1'],
    ['500 p=half', 5, 'p must be a number from 0 to 1'],
    ['reset retry-after=120', 7, 'retry-after applies only to a status answer (e.g. 503), not to reset'],
    ['retry-after=120 reset', 1, 'retry-after applies only to a status answer (e.g. 503), not to reset'],
    ['hang body=x', 6, 'body applies only to a status answer (e.g. 503), not to hang'],
    ['reset slow-headers', 7, 'slow-headers applies only to hang, not to reset'],
    ['503 hops=2', 5, 'hops applies only to redirect, not to 503'],
    ['hang no-location', 6, 'no-location applies only to redirect, not to hang'],
    ['503 status=308', 5, 'status= is for redirect; for a status answer write the status alone (e.g. 503)'],
    ['503 hang', 5, 'conflicting answers: 503 and hang (a rule has one answer)'],
    ['delay=100 503', 11, 'conflicting answers: delay=100 and 503 (a rule has one answer)'],
    ['503 attempt=1 attempt=2', 15, 'duplicate key attempt'],
    ['503 pre-verify pre-verify', 16, 'duplicate flag pre-verify'],
    ['503 pre-verify=true', 5, 'pre-verify is a flag and takes no value'],
    ['503 attempt', 5, 'attempt needs a value: attempt=…'],
    ['503 attempt=', 5, 'attempt needs a value after ='],
    ["503 trigger=''", 5, 'trigger needs a value after ='],
    ["503 trigger='a\\u{1}b'", 5, 'trigger must not contain control characters'],
    ['503 times=0', 5, 'times must be an integer from 1 to 1000000000'],
    ['503 times=2.5', 5, 'times must be an integer from 1 to 1000000000'],
    ['delay=-5', 1, 'delay must be an integer number of milliseconds from 0 to 3600000'],
    ['delay=2h', 1, 'delay must be an integer number of milliseconds from 0 to 3600000'],
    ['redirect hops=0', 10, 'hops must be an integer from 1 to 20'],
    ['redirect hops=21', 10, 'hops must be an integer from 1 to 20'],
    ['redirect status=200', 10, 'status must be 301, 302, 303, 307 or 308'],
    ['attempt=1 status=500', 11, "status= sets a redirect's status (301, 302, 303, 307 or 308); to answer 500, write it on its own, e.g. '500 attempt=1'"],
    ['redirect status=302 hops=2', 21, 'redirect hops need status 307 or 308 (only they keep the POST), not 302'],
    ['redirect hops=2 status=302', 17, 'redirect hops need status 307 or 308 (only they keep the POST), not 302'],
    ['redirect hops=2 no-location', 17, 'hops and no-location conflict: a chain of hops has a Location'],
    ["500 body='abc", 10, "unterminated quote '"],
    ['500 body="abc', 10, 'unterminated quote "'],
    ["500 body='a\\qb'", 12, 'unknown escape \\q (use \\\\, \\\', \\", \\n, \\r, \\t or \\u{hex})'],
    ["500 body='a\\u{110000}'", 12, 'bad escape: \\u{…} needs 1-6 hex digits up to 10FFFF'],
    ['204 body=x', 5, 'a 204 answer has no body'],
    ['304 body=', 5, 'a 304 answer has no body'],
    ['500 header=x-foo', 5, 'header must be NAME:VALUE (e.g. header=x-foo:bar)'],
    ['500 header=content-length:5', 5, 'header name must not be content-length: hookrelay frames the response itself'],
    ['500 header=x\\y:1', 5, 'header name must be a header name of 1-128 token characters (letters, digits, -, _ …)'],
    ["500 header='x-a:b\\nc'", 5, 'header value must hold only tab, printable ASCII or Latin-1 characters (no line breaks)'],
    ['500 header=x-a:1 header=X-A:2', 18, 'duplicate header x-a'],
    ['500 header=42:x', 5, 'header name must not be all digits'],
    ['503 retry-after=soon', 5, "retry-after must be seconds (120), a date relative to the answer (+120s) or an HTTP date ('Wed, 21 Oct 2026 07:28:00 GMT')"],
    ['503 retry-after=120 header=retry-after:5', 21, 'Retry-After given twice: use retry-after= or header=retry-after:…, not both'],
    ["429 retry-after='Thu, 21 Oct 2026 07:28:00 GMT'", 5, 'retry-after is not a real date (check the weekday and the day of the month)'],
    ["429 retry-after='Wed, 31 Feb 2026 07:28:00 GMT'", 5, 'retry-after is not a real date (check the weekday and the day of the month)'],
    ['503 id=-x', 5, "id must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"],
    // Columns count code points, so an emoji is one column.
    ["418 body='\u{1f600}\u{1f600}' 5x0", 15, 'status must be 3 digits'],
  ])('%j → column %i', (text, column, reason) => {
    expect(parseFaultRule(text)).toStrictEqual({ ok: false, column, reason, message: `${reason} at column ${column}` });
  });

  it('says "status must be 3 digits at column 1" for 5O3, as the issue asks', () => {
    const result = parseFaultRule('5O3');
    expect(result.ok === false && result.message).toBe('status must be 3 digits at column 1');
  });

  it('refuses a non-string and an overlong rule without throwing', () => {
    expect(parseFaultRule(42 as unknown as string)).toMatchObject({ ok: false, column: 1 });
    expect(parseFaultRule(`500 body=${'x'.repeat(100_001)}`)).toMatchObject({ ok: false, column: 1 });
  });
});

describe('parseFaultRule: properties', () => {
  it('reads back every canonical rule it formats', () => {
    fc.assert(
      fc.property(arbitraryRule, (rule) => {
        expect(parseFaultRule(formatFaultRule(rule))).toStrictEqual({ ok: true, rule });
      }),
      { seed: 4, numRuns: 2000 },
    );
  });

  it('never throws on arbitrary text; a refusal points inside the text, an accepted rule formats to a fixed point', () => {
    const words = fc.constantFrom('503', 'hang', 'reset', 'redirect', 'hops=3', "body='", '"', '\\', 'p=0.5', 'attempt=2-', ' ', '=', 'status=308');
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(words, { maxLength: 8 }).map((w) => w.join(' ')));
    fc.assert(
      fc.property(text, (t) => {
        const result = parseFaultRule(t);
        if (!result.ok) {
          expect(result.column).toBeGreaterThanOrEqual(1);
          expect(result.column).toBeLessThanOrEqual(Math.max(1, Array.from(t).length));
          return;
        }
        const canonical = formatFaultRule(result.rule);
        const again = parseFaultRule(canonical);
        expect(again).toStrictEqual({ ok: true, rule: result.rule });
        expect(again.ok && formatFaultRule(again.rule)).toBe(canonical);
      }),
      { seed: 7, numRuns: 3000 },
    );
  });
});

describe('parseFaultRule: delay= is read in the duration grammar of core/duration.ts', () => {
  it.each<[string, number]>([
    ['delay=1.5s', 1500],
    ['delay=1m', 60_000],
    ['delay=2S', 2000],
    ["delay='250 ms'", 250],
  ])('%s → %d ms', (text, ms) => {
    expect(parseFaultRule(text)).toStrictEqual({ ok: true, rule: { match: {}, answer: { kind: 'delay', ms } } });
  });

  it.each(['delay=0.5ms', 'delay=61m', 'delay=1e3'])('refuses %s', (text) => {
    expect(parseFaultRule(text)).toMatchObject({ ok: false, column: 1, reason: 'delay must be an integer number of milliseconds from 0 to 3600000' });
  });
});
