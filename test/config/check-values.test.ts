import { describe, expect, it } from 'vitest';
import { parseDurationMs, parseMoment, parseMsPair, parsePositive } from '../../src/config/check-values.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

describe('parseMoment (--since)', () => {
  it.each([
    ['2026-06-01T10:00:00Z', Date.UTC(2026, 5, 1, 10, 0, 0)],
    ['2026-06-01T10:00:00.250Z', Date.UTC(2026, 5, 1, 10, 0, 0, 250)],
    ['2026-06-01T10:00:00+02:00', Date.UTC(2026, 5, 1, 8, 0, 0)],
    ['2026-06-01 10:00Z', Date.UTC(2026, 5, 1, 10, 0, 0)],
    ['2026-06-01', Date.UTC(2026, 5, 1)],
    ['90s', NOW - 90_000],
    ['10m', NOW - 600_000],
    ['2h', NOW - 7_200_000],
    ['1d', NOW - 86_400_000],
    ['1.5h', NOW - 5_400_000],
    ['500ms', NOW - 500],
    [' 10m ago ', NOW - 600_000],
    ['10M', NOW - 600_000],
  ])('reads %j', (text, expected) => {
    expect(parseMoment(text, NOW)).toEqual({ ok: true, value: expected });
  });

  it('reads a date-time without a zone as local time', () => {
    expect(parseMoment('2026-06-01T10:00:00', NOW)).toEqual({ ok: true, value: new Date(2026, 5, 1, 10, 0, 0).getTime() });
  });

  it.each(['', 'yesterday', '10', '-10m', '10 minutes', '2026-13-01', '2026-06-01T25:00:00Z', '1', 'now', '10m ago ago'])('refuses %j, saying what it takes', (text) => {
    const parsed = parseMoment(text, NOW);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain('ISO date-time such as 2026-06-01T10:00:00Z, or a time ago such as 90s, 10m');
  });
});

describe('parseDurationMs (--timeout)', () => {
  it.each([
    ['10000', 10_000],
    ['500ms', 500],
    ['10s', 10_000],
    ['0.5s', 500],
    [' 300 ', 300],
    // The one duration grammar (src/core/duration.ts): minutes read too, within the bounds.
    ['10m', 600_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDurationMs(text, 1, 600_000)).toEqual({ ok: true, value: ms });
  });

  it.each(['0', '-5', 'x', '11m', '600001', '', '1e3'])('refuses %j', (text) => {
    expect(parseDurationMs(text, 1, 600_000)).toMatchObject({ ok: false, message: expect.stringContaining('must be milliseconds from 1 to 600000') });
  });
});

describe('parseMsPair (--slack)', () => {
  it.each([
    ['250,1000', { earlyMs: 250, lateMs: 1000 }],
    [' 0 , 0 ', { earlyMs: 0, lateMs: 0 }],
    ['100.5,2', { earlyMs: 100.5, lateMs: 2 }],
  ])('reads %j', (text, value) => {
    expect(parseMsPair(text)).toEqual({ ok: true, value });
  });

  it.each(['100', '1,2,3', '-1,2', 'a,b', ''])('refuses %j', (text) => {
    expect(parseMsPair(text).ok).toBe(false);
  });
});

describe('parsePositive (--time-scale)', () => {
  it.each([['1', 1], ['0.01', 0.01], ['1e-3', 0.001], ['2', 2]])('reads %j', (text, n) => {
    expect(parsePositive(text)).toEqual({ ok: true, value: n });
  });

  it.each(['0', '-1', '', ' ', 'x', 'Infinity', 'NaN'])('refuses %j', (text) => {
    expect(parsePositive(text).ok).toBe(false);
  });
});
