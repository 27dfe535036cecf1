/** The exact JSON reader accepts what JSON.parse accepts, keeps number texts, and builds no prototypes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactJson, parseExactJson } from '../../../src/core/conditions/exact-json.js';

const accepts = (t: string): boolean => {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
};

describe('parseExactJson', () => {
  it('accepts exactly the texts JSON.parse accepts (property)', () => {
    const near = fc.oneof(fc.json({ maxDepth: 3 }), fc.json({ maxDepth: 3 }).map((j) => j.slice(0, -1)), fc.string({ maxLength: 12 }), fc.constantFrom('1.', '.5', '01', '-', '1e', '"\\x"', '"\t"', '[1,]', '{"a":1,}', ' true ', 'nul', '"\\ud800"'));
    fc.assert(fc.property(near, (t) => accepts(t) === (parseExactJson(t) !== undefined)), { seed: 44, numRuns: 3000 });
  });

  it('gives back the same compact JSON as JSON.stringify when numbers are plain (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
        const text = JSON.stringify(v);
        return compactJson(parseExactJson(text)!) === text;
      }),
      { seed: 45, numRuns: 1000 },
    );
  });

  it('keeps a number as written and a __proto__ key as an own key', () => {
    expect(parseExactJson('[123456789012345678901234567890, 1.50, -0]')).toEqual([{ jsonNumber: '123456789012345678901234567890' }, { jsonNumber: '1.50' }, { jsonNumber: '-0' }]);
    const obj = parseExactJson('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBeNull();
    expect(Object.keys(obj)).toEqual(['__proto__']);
  });
});
