/** jsonText is JSON.stringify's text for any value, its quick paths (plain ASCII strings, numbers, null) included. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/core/json-text.js';

// Lone surrogates inside other text too ('binary' units leave them out).
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('a', '\ud800', '\udc00', '"', '\\', '\n', '\u2028') }),
  fc.constantFrom('"', '\\', '\u2028', '\u0000', '</script>', '\ud800'),
);
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(Number.NaN, Infinity));

describe('jsonText', () => {
  it('is JSON.stringify for any value', () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) });
    const value = fc.oneof(text, ascii, number, fc.constantFrom(-0, 1e21, -1e-7, Number.MAX_SAFE_INTEGER), fc.constant(null), fc.boolean(), fc.array(text, { maxLength: 3 }));
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonText(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 2000 },
    );
  });
});
