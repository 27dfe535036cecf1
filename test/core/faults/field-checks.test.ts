import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RESERVED_HEADERS,
  checkBody,
  checkDelayMs,
  checkGlob,
  checkHeaderName,
  checkHeaderValue,
  checkHops,
  checkId,
  checkProbability,
  checkRedirectStatus,
  checkStatus,
  checkTimes,
  keepsPost,
  statusAllowsBody,
  type Check,
} from '../../../src/core/faults/field-checks.js';
import {
  MAX_BODY_LENGTH,
  MAX_DELAY_MS,
  MAX_GLOB_LENGTH,
  MAX_HEADER_VALUE_LENGTH,
  MAX_HOPS,
  MAX_ID_LENGTH,
  MAX_TIMES,
  REDIRECT_STATUSES,
  type RedirectStatus,
} from '../../../src/core/faults/rule.js';

type Checker = (v: unknown) => Check<unknown>;

/** Each check with values it takes and values it refuses, and the phrase it refuses with. */
const TABLE: Array<[name: string, check: Checker, accepted: unknown[], refused: unknown[], problem: string]> = [
  ['checkStatus', checkStatus, [100, 200, 503, 599], [99, 600, 200.5, '200', Number.NaN, null, undefined, Number.POSITIVE_INFINITY], 'must be an integer 100-599'],
  ['checkRedirectStatus', checkRedirectStatus, [301, 302, 303, 307, 308], [300, 304, 305, 306, 309, '307', 307.5], 'must be 301, 302, 303, 307 or 308'],
  ['checkHops', checkHops, [1, 3, MAX_HOPS], [0, -1, MAX_HOPS + 1, 1.5, '3'], `must be an integer from 1 to ${MAX_HOPS}`],
  ['checkDelayMs', checkDelayMs, [0, 1, 250, MAX_DELAY_MS], [-1, MAX_DELAY_MS + 1, 0.5, '100', Number.NaN], `must be an integer number of milliseconds from 0 to ${MAX_DELAY_MS}`],
  ['checkTimes', checkTimes, [1, 2, MAX_TIMES], [0, -1, MAX_TIMES + 1, 2.5, '1'], `must be an integer from 1 to ${MAX_TIMES}`],
  ['checkProbability', checkProbability, [0, 0.25, 0.5, 1, Number.MIN_VALUE], [-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY, '0.5', null], 'must be a number from 0 to 1'],
  ['checkBody', checkBody, ['', 'hello', 'x'.repeat(MAX_BODY_LENGTH), '{"error":"é"}\n'], [null, 42, Buffer.from('x'), undefined], 'must be a text'],
];

describe.each(TABLE)('%s', (_name, check, accepted, refused, problem) => {
  it.each(accepted.map((v) => [v]))('accepts %j as it is', (value) => {
    expect(check(value)).toEqual({ ok: true, value });
  });
  it.each(refused.map((v) => [v]))('refuses %j', (value) => {
    expect(check(value)).toEqual({ ok: false, problem });
  });
});

describe('negative zero', () => {
  it.each<[string, Checker]>([
    ['checkDelayMs', checkDelayMs],
    ['checkProbability', checkProbability],
  ])('%s reads -0 as 0, so it prints back the same', (_, check) => {
    const result = check(-0);
    expect(result.ok).toBe(true);
    expect(Object.is(result.ok && result.value, 0)).toBe(true);
  });
});

describe('checkBody', () => {
  it('refuses a body one character too long', () => {
    expect(checkBody('x'.repeat(MAX_BODY_LENGTH + 1))).toEqual({ ok: false, problem: `must be at most ${MAX_BODY_LENGTH} characters` });
  });
});

describe('checkGlob', () => {
  it.each(['*', 'trustcenter.*', 'evt_?', 'g'.repeat(MAX_GLOB_LENGTH), 'café', '\u00a0', '☃ *'])('accepts %j', (glob) => {
    expect(checkGlob(glob)).toEqual({ ok: true, value: glob });
  });

  it.each([
    ['', 'must be a non-empty text'],
    [5, 'must be a non-empty text'],
    [null, 'must be a non-empty text'],
    [['*'], 'must be a non-empty text'],
    ['g'.repeat(MAX_GLOB_LENGTH + 1), `must be at most ${MAX_GLOB_LENGTH} characters`],
    ['a\tb', 'must not contain control characters'],
    ['a\nb', 'must not contain control characters'],
    ['\0', 'must not contain control characters'],
    ['\x1f', 'must not contain control characters'],
    ['\x7f', 'must not contain control characters'],
    ['\x80', 'must not contain control characters'],
    ['\x9f', 'must not contain control characters'],
  ])('refuses %j: %s', (glob, problem) => {
    expect(checkGlob(glob)).toEqual({ ok: false, problem });
  });
});

describe('checkId', () => {
  const problem = `must be 1-${MAX_ID_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or digit`;

  it.each(['a', '0', 'slow-503', 'A.b_c-d', 'r'.repeat(MAX_ID_LENGTH)])('accepts %j', (id) => {
    expect(checkId(id)).toEqual({ ok: true, value: id });
  });

  it.each(['', 'r'.repeat(MAX_ID_LENGTH + 1), '-a', '.a', '_a', 'a b', 'a/b', 'é', 'a\n', 5, null])('refuses %j', (id) => {
    expect(checkId(id)).toEqual({ ok: false, problem });
  });
});

describe('checkHeaderName', () => {
  const TOKEN = 'must be a header name of 1-128 token characters (letters, digits, -, _ …)';

  it.each(['X-Test', 'retry-after', "!#$%&'*+-.^_`|~", 'n'.repeat(128), 'x1', '1x', 'Content-Type'])('accepts %j', (name) => {
    expect(checkHeaderName(name)).toEqual({ ok: true, value: name });
  });

  it.each([
    ['', TOKEN],
    ['a b', TOKEN],
    ['a:b', TOKEN],
    ['x-é', TOKEN],
    ['n'.repeat(129), TOKEN],
    [5, TOKEN],
    [undefined, TOKEN],
    ['123', 'must not be all digits'],
    ['0', 'must not be all digits'],
    ['content-length', 'must not be content-length: hookrelay frames the response itself'],
    ['Content-Length', 'must not be content-length: hookrelay frames the response itself'],
    ['TRANSFER-ENCODING', 'must not be transfer-encoding: hookrelay frames the response itself'],
    ['Connection', 'must not be connection: hookrelay frames the response itself'],
    ['keep-alive', 'must not be keep-alive: hookrelay frames the response itself'],
    ['Upgrade', 'must not be upgrade: hookrelay frames the response itself'],
  ])('refuses %j: %s', (name, problem) => {
    expect(checkHeaderName(name)).toEqual({ ok: false, problem });
  });

  it('reserves exactly the framing headers', () => {
    expect([...RESERVED_HEADERS].sort()).toEqual(['connection', 'content-length', 'keep-alive', 'transfer-encoding', 'upgrade']);
  });
});

describe('checkHeaderValue', () => {
  const CHARS = 'must hold only tab, printable ASCII or Latin-1 characters (no line breaks)';
  const EDGES = 'must not start or end with whitespace';

  it.each(['', 'a', '30', 'a\tb', 'a b', 'café', '\xff', '\x80', 'v'.repeat(MAX_HEADER_VALUE_LENGTH), 'Wed, 21 Oct 2015 07:28:00 GMT'])('accepts %j', (value) => {
    expect(checkHeaderValue(value)).toEqual({ ok: true, value });
  });

  it.each([
    [5, 'must be a text'],
    [null, 'must be a text'],
    ['v'.repeat(MAX_HEADER_VALUE_LENGTH + 1), `must be at most ${MAX_HEADER_VALUE_LENGTH} characters`],
    ['a\r\nb', CHARS],
    ['a\nb', CHARS],
    ['a\0b', CHARS],
    ['a\x7fb', CHARS],
    ['€', CHARS],
    ['☃', CHARS],
    [' a', EDGES],
    ['a ', EDGES],
    ['\ta', EDGES],
    ['a\t', EDGES],
    [' ', EDGES],
  ])('refuses %j: %s', (value, problem) => {
    expect(checkHeaderValue(value)).toEqual({ ok: false, problem });
  });
});

describe('keepsPost', () => {
  it.each<[RedirectStatus, boolean]>([
    [301, false],
    [302, false],
    [303, false],
    [307, true],
    [308, true],
  ])('%i → %s', (status, keeps) => {
    expect(keepsPost(status)).toBe(keeps);
  });

  it('covers every redirect status a rule may use', () => {
    expect(REDIRECT_STATUSES.filter(keepsPost)).toEqual([307, 308]);
  });
});

describe('statusAllowsBody', () => {
  it.each([
    [100, false],
    [101, false],
    [199, false],
    [200, true],
    [201, true],
    [204, false],
    [205, false],
    [206, true],
    [302, true],
    [304, false],
    [404, true],
    [503, true],
    [599, true],
  ])('%i → %s', (status, allows) => {
    expect(statusAllowsBody(status)).toBe(allows);
  });
});

describe('every check', () => {
  const checks: Array<[string, Checker]> = [
    ...TABLE.map(([name, check]): [string, Checker] => [name, check]),
    ['checkGlob', checkGlob],
    ['checkId', checkId],
    ['checkHeaderName', checkHeaderName],
    ['checkHeaderValue', checkHeaderValue],
  ];

  it.each(checks)('%s never throws, and either keeps the value or says "must …"', (_, check) => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(null, undefined, true, [], {}, '', -0), fc.string({ unit: 'binary', maxLength: 140 }), fc.double(), fc.integer({ min: -1000, max: 1000 })), (value) => {
        const result = check(value);
        if (result.ok) expect(Object.is(result.value, value) || (Object.is(value, -0) && result.value === 0)).toBe(true);
        else expect(result.problem).toMatch(/^must /);
      }),
      { seed: 71, numRuns: 200 },
    );
  });

  it('checkStatus accepts exactly the integers 100-599', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 2000 }), (n) => {
        expect(checkStatus(n).ok).toBe(n >= 100 && n <= 599);
      }),
      { seed: 72, numRuns: 500 },
    );
  });
});
