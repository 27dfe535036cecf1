import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyVariants, isCompactJson } from '../../../src/core/signature/body-variants.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const b = (text: string): Buffer => Buffer.from(text, 'utf8');

const ADDED_NEWLINE = 'with a trailing newline added';
const ADDED_CRLF = 'with a trailing CRLF added';
const REMOVED_NEWLINE = 'with its trailing newline removed';
const REMOVED_CRLF = 'with its trailing CRLF removed';
const ADDED_BOM = 'with a UTF-8 BOM added in front';
const REMOVED_BOM = 'with its leading UTF-8 BOM removed';
const COMPACT = 're-serialised with JSON.stringify';
const PRETTY = 'pretty-printed with JSON.stringify(…, null, 2)';

describe('bodyVariants', () => {
  it.each<[string, Buffer, Array<[string, Buffer]>]>([
    [
      'compact JSON',
      b('{"a":1}'),
      [
        [ADDED_NEWLINE, b('{"a":1}\n')],
        [ADDED_CRLF, b('{"a":1}\r\n')],
        [ADDED_BOM, Buffer.concat([BOM, b('{"a":1}')])],
        // Re-serialising gives the body itself: left out.
        [PRETTY, b('{\n  "a": 1\n}')],
      ],
    ],
    [
      'spaced JSON',
      b('{"a": 1}'),
      [
        [ADDED_NEWLINE, b('{"a": 1}\n')],
        [ADDED_CRLF, b('{"a": 1}\r\n')],
        [ADDED_BOM, Buffer.concat([BOM, b('{"a": 1}')])],
        [COMPACT, b('{"a":1}')],
        [PRETTY, b('{\n  "a": 1\n}')],
      ],
    ],
    [
      // Removing the newline and re-serialising give the same bytes: the simpler edit names the cause.
      'JSON with a trailing newline',
      b('{"a":1}\n'),
      [
        [REMOVED_NEWLINE, b('{"a":1}')],
        [ADDED_BOM, Buffer.concat([BOM, b('{"a":1}\n')])],
        [PRETTY, b('{\n  "a": 1\n}')],
      ],
    ],
    [
      'JSON with a trailing CRLF',
      b('{"a":1}\r\n'),
      [
        [REMOVED_CRLF, b('{"a":1}')],
        [ADDED_BOM, Buffer.concat([BOM, b('{"a":1}\r\n')])],
        [PRETTY, b('{\n  "a": 1\n}')],
      ],
    ],
    [
      'JSON behind a BOM',
      Buffer.concat([BOM, b('{"a":1}')]),
      [
        [ADDED_NEWLINE, Buffer.concat([BOM, b('{"a":1}\n')])],
        [ADDED_CRLF, Buffer.concat([BOM, b('{"a":1}\r\n')])],
        [REMOVED_BOM, b('{"a":1}')],
        [PRETTY, b('{\n  "a": 1\n}')],
      ],
    ],
    [
      'pretty JSON',
      b('{\n  "a": 1\n}'),
      [
        [ADDED_NEWLINE, b('{\n  "a": 1\n}\n')],
        [ADDED_CRLF, b('{\n  "a": 1\n}\r\n')],
        [ADDED_BOM, Buffer.concat([BOM, b('{\n  "a": 1\n}')])],
        [COMPACT, b('{"a":1}')],
      ],
    ],
    [
      'text that is not JSON',
      b('hello'),
      [
        [ADDED_NEWLINE, b('hello\n')],
        [ADDED_CRLF, b('hello\r\n')],
        [ADDED_BOM, Buffer.concat([BOM, b('hello')])],
      ],
    ],
    [
      'an empty body',
      Buffer.alloc(0),
      [
        [ADDED_NEWLINE, b('\n')],
        [ADDED_CRLF, b('\r\n')],
        [ADDED_BOM, BOM],
      ],
    ],
    [
      'a lone newline',
      b('\n'),
      [
        [REMOVED_NEWLINE, Buffer.alloc(0)],
        [ADDED_BOM, Buffer.concat([BOM, b('\n')])],
      ],
    ],
    [
      'an empty JSON array',
      b('[]'),
      [
        [ADDED_NEWLINE, b('[]\n')],
        [ADDED_CRLF, b('[]\r\n')],
        [ADDED_BOM, Buffer.concat([BOM, b('[]')])],
      ],
    ],
    [
      'JSON with an escaped character',
      b('{"n":"\\u00e9"}'),
      [
        [ADDED_NEWLINE, b('{"n":"\\u00e9"}\n')],
        [ADDED_CRLF, b('{"n":"\\u00e9"}\r\n')],
        [ADDED_BOM, Buffer.concat([BOM, b('{"n":"\\u00e9"}')])],
        [COMPACT, b('{"n":"é"}')],
        [PRETTY, b('{\n  "n": "é"\n}')],
      ],
    ],
  ])('%s', (_, body, expected) => {
    const variants = bodyVariants(body);
    expect(variants.map((v) => v.description)).toEqual(expected.map(([d]) => d));
    variants.forEach((v, i) => expect(v.bytes.equals(expected[i]![1]), v.description).toBe(true));
  });

  it.each([
    [ADDED_NEWLINE, 'something between sender and verifier changed the line ending; pass the raw request body bytes'],
    [ADDED_BOM, 'the byte-order mark was stripped after signing (text decoding does this); pass the raw request body bytes, not a decoded string'],
    [PRETTY, 'pass the raw request body bytes, not a parsed and re-encoded object'],
  ])('advises on %s', (description, advice) => {
    expect(bodyVariants(b('{"a":1}')).find((v) => v.description === description)?.advice).toBe(advice);
  });

  it('advises on a removed BOM', () => {
    expect(bodyVariants(Buffer.concat([BOM, b('x')])).find((v) => v.description === REMOVED_BOM)?.advice).toBe('a byte-order mark was added after signing; pass the raw request body bytes');
  });

  it('makes no JSON guess for nesting too deep to parse, and does not throw', () => {
    const deep = b('['.repeat(100_000) + ']'.repeat(100_000));
    expect(bodyVariants(deep).map((v) => v.description)).toEqual([ADDED_NEWLINE, ADDED_CRLF, ADDED_BOM]);
  });

  it('leaves the body it was given untouched', () => {
    const body = b('{"a": 1}\r\n');
    const copy = Buffer.from(body);
    bodyVariants(body);
    expect(body.equals(copy)).toBe(true);
  });

  const bodyArb = fc.oneof(
    fc.uint8Array({ maxLength: 60 }).map((x) => Buffer.from(x)),
    fc.jsonValue().map((v) => b(JSON.stringify(v))),
    fc.jsonValue().map((v) => b(JSON.stringify(v, null, 2))),
    fc.tuple(fc.jsonValue(), fc.constantFrom('', '\n', '\r\n'), fc.boolean()).map(([v, end, bom]) => Buffer.concat([bom ? BOM : Buffer.alloc(0), b(JSON.stringify(v) + end)])),
  );

  it('gives only variants that differ from the body and from each other, each explained', () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const variants = bodyVariants(body);
        expect(variants.length).toBeGreaterThanOrEqual(2);
        expect(variants.length).toBeLessThanOrEqual(5);
        variants.forEach((v, i) => {
          expect(v.bytes.equals(body)).toBe(false);
          for (let j = 0; j < i; j++) expect(v.bytes.equals(variants[j]!.bytes)).toBe(false);
          expect(v.description.length).toBeGreaterThan(0);
          expect(v.advice).toMatch(/raw request body/);
        });
      }),
      { seed: 141, numRuns: 500 },
    );
  });

  it('always offers the newline edit first and the BOM edit, each undone by the opposite edit', () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const variants = bodyVariants(body);
        const first = variants[0]!;
        if (body.length > 0 && body[body.length - 1] === 0x0a) {
          expect(first.description).toMatch(/removed$/);
          expect(body.subarray(0, first.bytes.length).equals(first.bytes)).toBe(true);
        } else {
          expect(first.description).toBe(ADDED_NEWLINE);
          expect(first.bytes.equals(Buffer.concat([body, b('\n')]))).toBe(true);
        }
        const bom = variants.find((v) => v.description === ADDED_BOM || v.description === REMOVED_BOM);
        expect(bom).toBeDefined();
        if (bom!.description === ADDED_BOM) expect(bom!.bytes.subarray(3).equals(body)).toBe(true);
        else expect(Buffer.concat([BOM, bom!.bytes]).equals(body)).toBe(true);
      }),
      { seed: 142, numRuns: 500 },
    );
  });
});

describe('isCompactJson', () => {
  it.each<[string, Uint8Array, boolean]>([
    ['a compact object', b('{"a":1,"b":[true,null]}'), true],
    ['a number', b('1'), true],
    ['a string with é', b('"é"'), true],
    ['an empty array', b('[]'), true],
    ['spaces after the colon', b('{"a": 1}'), false],
    ['a trailing newline', b('{"a":1}\n'), false],
    ['a leading BOM', Buffer.concat([BOM, b('{"a":1}')]), false],
    ['pretty JSON', b('{\n  "a": 1\n}'), false],
    ['an escaped é', b('"\\u00e9"'), false],
    ['an exponent JSON.stringify would not write', b('1e2'), false],
    ['-0, which JSON.stringify writes as 0', b('-0'), false],
    ['a duplicate key', b('{"a":1,"a":2}'), false],
    ['not JSON', b('hello'), false],
    ['empty', new Uint8Array(0), false],
    ['invalid UTF-8 in a string', Buffer.from([0x22, 0xff, 0x22]), false],
  ])('%s → %s', (_, body, expected) => {
    expect(isCompactJson(body)).toBe(expected);
  });

  it('reads only the bytes of a view into a larger buffer', () => {
    const whole = b('xx{"a":1}yy');
    expect(isCompactJson(whole.subarray(2, 9))).toBe(true);
    expect(isCompactJson(new Uint8Array(whole.buffer, whole.byteOffset + 2, 7))).toBe(true);
    expect(isCompactJson(whole.subarray(1, 9))).toBe(false);
  });

  it('is true for what JSON.stringify writes, and false for its pretty form when that differs', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const compact = JSON.stringify(value);
        expect(isCompactJson(b(compact))).toBe(true);
        const pretty = JSON.stringify(value, null, 2);
        expect(isCompactJson(b(pretty))).toBe(pretty === compact);
      }),
      { seed: 143, numRuns: 500 },
    );
  });
});
