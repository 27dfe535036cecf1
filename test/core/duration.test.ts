import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDurationText, parseDuration, type DurationRules } from '../../src/core/duration.js';

describe('parseDuration: one grammar', () => {
  it.each<[string, DurationRules, number]>([
    ['30d', {}, 30 * 86_400_000],
    ['72h', {}, 72 * 3_600_000],
    ['90m', {}, 90 * 60_000],
    ['3600s', {}, 3_600_000],
    ['250ms', {}, 250],
    ['2w', {}, 14 * 86_400_000],
    [' 7D ', {}, 7 * 86_400_000],
    ['10 s', {}, 10_000],
    ['2MS', {}, 2],
    ['0.5s', {}, 500],
    ['1.5h', {}, 5_400_000],
    ['0.1h', {}, 360_000], // no float noise
    ['2000', { bare: 'ms' }, 2000],
    ['20', { bare: 's' }, 20_000],
    ['2s', { bare: 'ms' }, 2000],
    ['0', { bare: 'ms' }, 0],
    ['60000', { bare: 'ms', min: 60_000, max: 60_000 }, 60_000],
  ])('%j with %j → %d ms', (text, rules, ms) => {
    expect(parseDuration(text, rules)).toEqual({ ok: true, ms });
  });

  it.each<[string, DurationRules, string]>([
    ['', {}, 'malformed'],
    ['30', {}, 'malformed'], // a unit is required unless the caller says what a bare number is
    ['d', {}, 'malformed'],
    ['-1d', {}, 'malformed'],
    ['+1d', {}, 'malformed'],
    ['1e3', { bare: 'ms' }, 'malformed'],
    ['.5s', {}, 'malformed'],
    ['5.s', {}, 'malformed'],
    ['30 days', {}, 'malformed'],
    ['1h30m', {}, 'malformed'],
    ['10m ago', {}, 'malformed'],
    ['1.5d', { whole: true }, 'fraction'],
    ['0.5ms', {}, 'fraction'],
    ['1.0005s', {}, 'fraction'],
    ['10s', { min: 60_000 }, 'too_short'],
    ['2h', { max: 3_600_000 }, 'too_long'],
    ['9'.repeat(400), { bare: 'ms' }, 'too_long'],
  ])('%j with %j is refused: %s', (text, rules, reason) => {
    expect(parseDuration(text, rules)).toEqual({ ok: false, reason });
  });

  it('refuses a non-string without throwing', () => {
    expect(parseDuration(42 as unknown as string)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('formatDurationText', () => {
  it.each([
    [30 * 86_400_000, '30d'],
    [72 * 3_600_000, '3d'],
    [5 * 3_600_000, '5h'],
    [14 * 86_400_000, '2w'],
    [90_000, '90s'],
    [1500, '1500ms'],
  ])('%d → %s', (ms, text) => {
    expect(formatDurationText(ms)).toBe(text);
  });

  it('is read back to the same milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 }), (ms) => {
        expect(parseDuration(formatDurationText(ms), { whole: true })).toEqual({ ok: true, ms });
      }),
      { seed: 3, numRuns: 2000 },
    );
  });
});
