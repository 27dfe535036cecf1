/** The pacer: our own count of spec 8's budgets, and the service's RateLimit headers. */
import { expect, it } from 'vitest';
import { createPacer, headerInteger, pacedDurationMs } from '../../src/service/pacer.js';

it('keeps reads inside 300 a minute by its own count', () => {
  const pacer = createPacer();
  for (let i = 0; i < 300; i++) {
    expect(pacer.delayBefore('read', 1000 + i)).toBe(0);
    pacer.sent('read', 1000 + i);
  }
  expect(pacer.delayBefore('read', 2000)).toBe(1000 + 60_000 - 2000);
  expect(pacer.delayBefore('write', 2000)).toBe(0);
  expect(pacer.delayBefore('read', 61_000)).toBe(0);
});

it.each([
  [{ remaining: 0, resetSeconds: 5 }, 5000],
  [{ remaining: 0, retryAfterSeconds: 3 }, 3000],
  [{ remaining: 0 }, 1000],
  [{ remaining: 4, resetSeconds: 10 }, 2000],
  [{ remaining: 50, resetSeconds: 10 }, 0],
  [{}, 0],
])('after %j waits %i ms', (headers, ms) => {
  const pacer = createPacer();
  pacer.observe('read', headers, 0);
  expect(pacer.delayBefore('read', 0)).toBe(ms);
});

it.each([['12', 12], [' 3 ', 3], ['-1', undefined], ['1e3', undefined], ['9999999999', undefined], [undefined, undefined], [['7', '8'], 7]])('reads header %j as %j', (value, expected) => {
  expect(headerInteger(value as string | string[] | undefined)).toBe(expected);
});

it('says how long a paced run takes', () => {
  expect(pacedDurationMs(100, 'read')).toBe(0);
  expect(pacedDurationMs(301, 'read')).toBe(60_000);
  expect(pacedDurationMs(1000, 'write')).toBe(8 * 60_000);
});
