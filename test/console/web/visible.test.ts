import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitVisible, visibleString } from '../../../web/src/visible.js';

describe('visibleString', () => {
  it.each([
    ['plain text', 'plain text'],
    ['rtl \u202Egnp.exe', 'rtl \\u202Egnp.exe'],
    ['ansi \u001b[31mred\u001b[0m', 'ansi \\u001B[31mred\\u001B[0m'],
    ['a\nb\tc\rd', 'a\\nb\\tc\\rd'],
    ['zero\u200Bwidth\uFEFF', 'zero\\u200Bwidth\\uFEFF'],
    ['isolate \u2066x\u2069', 'isolate \\u2066x\\u2069'],
    ['tag \u{E0041}', 'tag \\u{E0041}'],
    ['bell \u0007 del \u007f c1 \u009b', 'bell \\u0007 del \\u007F c1 \\u009B'],
    ['lone \ud800 surrogate', 'lone \\uD800 surrogate'],
    ['<script>alert(1)</script>', '<script>alert(1)</script>'],
    ['Zoë 日本 🎉', 'Zoë 日本 🎉'],
  ])('%j → %j', (input, expected) => {
    expect(visibleString(input)).toBe(expected);
  });

  it('keeps line feeds and tabs in multiline mode, but not carriage returns', () => {
    expect(visibleString('a\nb\tc\r\n', true)).toBe('a\nb\tc\\r\n');
  });

  it('never lets a control, bidi or invisible character through', () => {
    const risky = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const out = splitVisible(text, true);
        return out.every((s) => s.escaped || !risky.test(s.text));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('loses no plain character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const plain = splitVisible(text, true).filter((s) => !s.escaped).map((s) => s.text).join('');
        return [...plain].every((ch) => text.includes(ch));
      }),
      { seed: 42 },
    );
  });
});
