/** fast-check arbitraries of canonical fault rules (the shape the parsers produce). */
import fc from 'fast-check';
import { checkGlob, RESERVED_HEADERS, statusAllowsBody } from '../../../src/core/faults/field-checks.js';
import { formatImfFixdate } from '../../../src/core/faults/retry-after.js';
import {
  MAX_HOPS,
  MAX_RANGE_VALUE,
  MAX_RETRY_AFTER_SECONDS,
  MAX_TIMES,
  type AttemptRange,
  type FaultAnswer,
  type FaultMatch,
  type FaultRule,
  type RetryAfterSpec,
} from '../../../src/core/faults/rule.js';

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split('');

const glob = fc.oneof(
  fc.stringMatching(/^[a-z*?][a-z._*?-]{0,30}$/),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => checkGlob(s).ok),
  fc.constantFrom("it's", 'a b', 'x"y', 'back\\slash', '=', "'", '\u00a0nbsp'),
);

const range: fc.Arbitrary<AttemptRange> = fc
  .tuple(fc.integer({ min: 1, max: MAX_RANGE_VALUE }), fc.oneof(fc.constant('single'), fc.constant('open'), fc.nat({ max: 1000 })))
  .map(([from, to]) => ({
    from,
    to: to === 'single' ? from : to === 'open' ? null : Math.min(MAX_RANGE_VALUE, from + to),
  }));

const probability = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }).filter((p) => !Object.is(p, -0)), fc.constantFrom(0, 1, 0.3, 1e-7));

export const arbitraryMatch: fc.Arbitrary<FaultMatch> = fc.record(
  { trigger: glob, delivery: glob, attempt: range, arrival: range, p: probability },
  { requiredKeys: [], noNullPrototype: true },
);

const retryAfter: fc.Arbitrary<RetryAfterSpec> = fc.oneof(
  fc.integer({ min: 0, max: MAX_RETRY_AFTER_SECONDS }).map((seconds) => ({ kind: 'seconds' as const, seconds })),
  fc
    .integer({ min: -MAX_RETRY_AFTER_SECONDS, max: MAX_RETRY_AFTER_SECONDS })
    .map((seconds) => ({ kind: 'relative' as const, seconds: seconds === 0 ? 0 : seconds })),
  fc.integer({ min: 0, max: 253402300799000 }).map((ms) => ({ kind: 'date' as const, date: formatImfFixdate(ms) })),
);

const headerName = fc
  .array(fc.constantFrom(...TOKEN_CHARS), { minLength: 1, maxLength: 16 })
  .map((cs) => cs.join(''))
  .filter((n) => !RESERVED_HEADERS.includes(n.toLowerCase()) && !/^[0-9]+$/.test(n));

const headerValue = fc
  .string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c < 0x7f || c >= 0x80).map((c) => String.fromCharCode(c)), maxLength: 30 })
  .map((s) => s.trim());

const statusAnswer: fc.Arbitrary<FaultAnswer> = fc
  .record({
    status: fc.integer({ min: 100, max: 599 }),
    headers: fc.uniqueArray(fc.tuple(headerName, headerValue), { maxLength: 4, selector: ([n]) => n.toLowerCase() }),
    body: fc.option(fc.string({ unit: 'binary', maxLength: 40 }), { nil: undefined }),
    retryAfter: fc.option(retryAfter, { nil: undefined }),
  })
  .map(({ status, headers, body, retryAfter: ra }) => {
    const answer: FaultAnswer = { kind: 'status', status };
    const kept = ra === undefined ? headers : headers.filter(([n]) => n.toLowerCase() !== 'retry-after');
    if (kept.length > 0) answer.headers = kept.map(([n, v]) => [n, v]);
    if (body !== undefined && statusAllowsBody(status)) answer.body = body;
    if (ra !== undefined) answer.retryAfter = ra;
    return answer;
  });

export const arbitraryAnswer: fc.Arbitrary<FaultAnswer> = fc.oneof(
  statusAnswer,
  fc.integer({ min: 0, max: 3_600_000 }).map((ms) => ({ kind: 'delay' as const, ms })),
  fc.boolean().map((slowHeaders) => ({ kind: 'hang' as const, slowHeaders })),
  fc.constantFrom<FaultAnswer>({ kind: 'reset' }, { kind: 'close' }, { kind: 'accept' }),
  fc.constantFrom(301, 302, 303, 307, 308).map((status) => ({ kind: 'redirect' as const, status, hops: null })),
  fc
    .tuple(fc.constantFrom(307, 308), fc.integer({ min: 1, max: MAX_HOPS }))
    .map(([status, hops]) => ({ kind: 'redirect' as const, status, hops })),
);

export const arbitraryRule: fc.Arbitrary<FaultRule> = fc
  .record({
    id: fc.option(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/), { nil: undefined }),
    match: arbitraryMatch,
    answer: arbitraryAnswer,
    times: fc.option(fc.integer({ min: 1, max: MAX_TIMES }), { nil: undefined }),
    beforeVerify: fc.boolean(),
  })
  .map(({ id, match, answer, times, beforeVerify }) => {
    const rule: FaultRule = { match, answer };
    if (id !== undefined) rule.id = id;
    if (times !== undefined) rule.limit = { times };
    if (beforeVerify) rule.beforeVerify = true;
    return rule;
  });
