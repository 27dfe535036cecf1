/** Durations as the page shows them (issue 36, item 12): under a second in milliseconds, "0.000 s" never. */
import { describe, expect, it } from 'vitest';
import { formatDuration, formatSkew } from '../../../web/src/format.js';

describe('formatDuration', () => {
  it.each([
    [0, '<1 ms'],
    [0.4, '<1 ms'],
    [1, '1 ms'],
    [3, '3 ms'],
    [3.4, '3 ms'],
    [120, '120 ms'],
    [999, '999 ms'],
    [999.6, '1.000 s'],
    [1000, '1.000 s'],
    [1204, '1.204 s'],
    [9_999, '9.999 s'],
    [42_000, '42.0 s'],
    [303_000, '5m 03s'],
    [5_100_000, '1h 25m'],
    [-3, '−3 ms'],
    [-2000, '−2.000 s'],
  ])('%s ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatSkew', () => {
  it.each([
    [0, 'signed at arrival'],
    [0.25, 'signed 250 ms before arrival'],
    [2, 'signed 2.000 s before arrival'],
    [-0.003, 'signed 3 ms after arrival (sender clock ahead)'],
  ])('%s s reads %s', (skew, text) => {
    expect(formatSkew(skew)).toBe(text);
  });
});
