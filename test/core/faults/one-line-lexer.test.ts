import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteValue, tokenize, type Token } from '../../../src/core/faults/one-line-lexer.js';

const word = (column: number, value: string): Token => ({ column, key: null, value });
const pair = (column: number, key: string, value: string): Token => ({ column, key, value });

describe('tokenize', () => {
  it.each<[string, Token[]]>([
    ['', []],
    ['   \t ', []],
    ['reset', [word(1, 'reset')]],
    ['status=503', [pair(1, 'status', '503')]],
    ['  status=503  ', [pair(3, 'status', '503')]],
    ['hang  reset', [word(1, 'hang'), word(7, 'reset')]],
    ['a\tb\nc', [word(1, 'a'), word(3, 'b'), word(5, 'c')]],
    ['Status=503 Body=ABC', [pair(1, 'status', '503'), pair(12, 'body', 'ABC')]],
    ['k=v=w', [pair(1, 'k', 'v=w')]],
    ['=v', [pair(1, '', 'v')]],
    ['k=', [pair(1, 'k', '')]],
    ["k=''", [pair(1, 'k', '')]],
    ["body='hello world' times=2", [pair(1, 'body', 'hello world'), pair(20, 'times', '2')]],
    ['body="say \\"hi\\""', [pair(1, 'body', 'say "hi"')]],
    ["body='it\\'s'", [pair(1, 'body', "it's")]],
    ["body='a\"b'", [pair(1, 'body', 'a"b')]],
    ['body="a\'b"', [pair(1, 'body', "a'b")]],
    ["x='\\n\\r\\t\\\\'", [pair(1, 'x', '\n\r\t\\')]],
    ["x='\\u{41}\\u{1F600}\\u{0}'", [pair(1, 'x', 'A\u{1F600}\0')]],
    ["x='\\u{d800}'", [pair(1, 'x', '\ud800')]],
    ["x='\\u{10FFFF}'", [pair(1, 'x', '\u{10ffff}')]],
    // Quotes may sit in the middle of a token and join what surrounds them.
    ['a"b c"d', [word(1, 'ab cd')]],
    ["h='X-A'='1'", [pair(1, 'h', 'X-A=1')]],
    // The key is the text before the first `=` only when that prefix is unquoted.
    ["'a=b'=c", [word(1, 'a=b=c')]],
    ["'k'=v", [word(1, 'k=v')]],
    ["K'E'Y=v", [word(1, 'KEY=v')]],
    // Backslashes outside quotes are plain characters.
    ['path=a\\nb', [pair(1, 'path', 'a\\nb')]],
    // Columns count code points.
    ['\u{1F600} x', [word(1, '\u{1F600}'), word(3, 'x')]],
    ['é=1 b=2', [pair(1, 'é', '1'), pair(5, 'b', '2')]],
    ['ÉCLAIR=1', [pair(1, 'éclair', '1')]],
    // Any Unicode white space separates.
    ['a\u00a0b\u2028c\u3000d', [word(1, 'a'), word(3, 'b'), word(5, 'c'), word(7, 'd')]],
    ["x=' \u00a0 '", [pair(1, 'x', ' \u00a0 ')]],
  ])('%j', (text, tokens) => {
    expect(tokenize(text)).toEqual({ ok: true, tokens });
  });

  const ESCAPES = '(use \\\\, \\\', \\", \\n, \\r, \\t or \\u{hex})';
  const BAD_U = 'bad escape: \\u{…} needs 1-6 hex digits up to 10FFFF';

  it.each([
    ["a='abc", 3, "unterminated quote '"],
    ['a="abc', 3, 'unterminated quote "'],
    ["'", 1, "unterminated quote '"],
    ["ok=1 body='x y", 11, "unterminated quote '"],
    ["\u{1F600} x='", 5, "unterminated quote '"],
    ["a='x\"", 3, "unterminated quote '"],
    ["x='\\q'", 4, `unknown escape \\q ${ESCAPES}`],
    ["x='\\0'", 4, `unknown escape \\0 ${ESCAPES}`],
    ["x='ab\\u41'", 6, `unknown escape \\u ${ESCAPES}`],
    ["x='\\", 4, 'backslash at the end of the rule'],
    ["x='\\u{110000}'", 4, BAD_U],
    ["x='\\u{}'", 4, BAD_U],
    ["x='\\u{1234567}'", 4, BAD_U],
    ["x='\\u{zz}'", 4, BAD_U],
    ["x='\\u{-1}'", 4, BAD_U],
    ["x='\\u{41'", 4, BAD_U],
    ["x='\\u{41' y='}'", 4, BAD_U],
  ])('refuses %j at column %i: %s', (text, column, reason) => {
    expect(tokenize(text)).toEqual({ ok: false, column, reason });
  });
});

describe('quoteValue', () => {
  it.each([
    ['plain', 'plain'],
    ['503', '503'],
    ['a=b', 'a=b'],
    ['café', 'café'],
    ['\u{1F600}', '\u{1F600}'],
    ['', "''"],
    ['a b', "'a b'"],
    ["it's", "'it\\'s'"],
    ['say "hi"', '\'say "hi"\''],
    ['a\\b', "'a\\\\b'"],
    ['a\nb', "'a\\nb'"],
    ['a\r\nb', "'a\\r\\nb'"],
    ['a\tb', "'a\\tb'"],
    ['\0', "'\\u{0}'"],
    ['\x7f', "'\\u{7f}'"],
    ['\u00a0', "'\\u{a0}'"],
    ['\u2028', "'\\u{2028}'"],
    ['\u200b', "'\\u{200b}'"],
    ['\ufeff', "'\\u{feff}'"],
    ['\ud800', "'\\u{d800}'"],
  ])('%j → %s', (value, written) => {
    expect(quoteValue(value)).toBe(written);
  });

  const hostileChar = fc.constantFrom(
    ' ', '\t', '\n', '\r', '\v', '\f', '\0', '\x7f', '\x85', '\u00a0', '\u1680', '\u2028', '\u2029', '\u3000', '\ufeff', '\u200b', '\u200e',
    '\ud800', '\udbff', '\udc00', '\udfff', "'", '"', '\\', '=', '{', '}', 'u', '\u{1F600}', 'é', 'a', '1',
  );
  const valueArb = fc.oneof(
    fc.string({ unit: hostileChar, maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ unit: fc.oneof(hostileChar, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 30 }),
  );

  it('writes what tokenize reads back unchanged, for any value after key=', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(tokenize(`body=${quoteValue(value)}`)).toEqual({ ok: true, tokens: [pair(1, 'body', value)] });
      }),
      { seed: 81, numRuns: 2000 },
    );
  });

  it('keeps several quoted values apart, with their columns', () => {
    fc.assert(
      fc.property(valueArb, valueArb, (a, b) => {
        const first = `a=${quoteValue(a)}`;
        const result = tokenize(`${first} b=${quoteValue(b)}`);
        expect(result).toEqual({ ok: true, tokens: [pair(1, 'a', a), pair(Array.from(first).length + 2, 'b', b)] });
      }),
      { seed: 82, numRuns: 1000 },
    );
  });

  it('leaves a value bare only when it is one plain token', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const written = quoteValue(value);
        if (written === value) {
          expect(value.length).toBeGreaterThan(0);
          expect(tokenize(value)).toMatchObject({ ok: true, tokens: [{ column: 1 }] });
        } else {
          expect(written.startsWith("'") && written.endsWith("'")).toBe(true);
        }
      }),
      { seed: 83, numRuns: 1000 },
    );
  });
});

describe('tokenize on anything', () => {
  it('never throws, and refuses only with a column inside the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("'", '"', '\\', 'u', '{', '}', '4', '1', 'x', '=', ' ', '\u{1F600}'), maxLength: 40 }), (text) => {
        const result = tokenize(text);
        if (!result.ok) {
          expect(result.column).toBeGreaterThanOrEqual(1);
          expect(result.column).toBeLessThanOrEqual(Array.from(text).length);
          expect(result.reason.length).toBeGreaterThan(0);
        } else {
          for (const token of result.tokens) expect(token.column).toBeLessThanOrEqual(Array.from(text).length);
        }
      }),
      { seed: 84, numRuns: 2000 },
    );
  });
});
