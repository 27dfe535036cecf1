import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatch } from '../../../src/core/faults/glob.js';

/** A pattern with no wildcard: it matches exactly one value. */
const isLiteralGlob = (pattern: string) => !pattern.includes('*') && !pattern.includes('?');

describe('globMatch', () => {
  it.each<[string, string, boolean]>([
    ['trustcenter.*', 'trustcenter.access_approved', true],
    ['trustcenter.*', 'trustcenter.', true],
    ['trustcenter.*', 'trustcenter', false],
    ['trustcenter.*', 'xtrustcenter.a', false],
    ['*', '', true],
    ['*', 'anything', true],
    ['', '', true],
    ['', 'a', false],
    ['?', 'a', true],
    ['?', '', false],
    ['?', '\u{1f600}', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['*.rating_*', 'vendor.rating_dropped', true],
    ['*a*b', 'xaxxbxb', true],
    ['*a*b', 'xaxxbx', false],
    ['d-1', 'd-1', true],
    ['d-1', 'D-1', false],
    ['a.b', 'aXb', false],
    ['[a]', '[a]', true],
    ['(x+)+', '(x+)+', true],
  ])('%j vs %j → %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });

  it('answers a pathological pattern against a long value without backtracking blow-up', () => {
    expect(globMatch('*a*a*a*a*a*a*a*a*b', 'a'.repeat(20_000))).toBe(false);
  });

  it('matches a literal pattern only to itself, and * to everything', () => {
    const text = fc.string({ unit: 'binary', maxLength: 20 });
    fc.assert(
      fc.property(text.filter(isLiteralGlob), text, (literal, other) => {
        expect(globMatch(literal, literal)).toBe(true);
        expect(globMatch(literal, other)).toBe(literal === other);
        expect(globMatch('*', other)).toBe(true);
        expect(globMatch(`${literal}*`, literal + other)).toBe(true);
      }),
      { seed: 1, numRuns: 500 },
    );
  });
});
