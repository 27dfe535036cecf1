import { describe, expect, it } from 'vitest';
import {
  formatRetryAfterText,
  isImfFixdate,
  parseRetryAfterText,
  resolveRetryAfter,
} from '../../../src/core/faults/retry-after.js';
import type { RetryAfterSpec } from '../../../src/core/faults/rule.js';

describe('parseRetryAfterText', () => {
  it.each<[string, RetryAfterSpec]>([
    ['0', { kind: 'seconds', seconds: 0 }],
    ['120', { kind: 'seconds', seconds: 120 }],
    ['+120s', { kind: 'relative', seconds: 120 }],
    ['-30s', { kind: 'relative', seconds: -30 }],
    ['Wed, 21 Oct 2026 07:28:00 GMT', { kind: 'date', date: 'Wed, 21 Oct 2026 07:28:00 GMT' }],
    ['Sun, 06 Nov 1994 08:49:37 GMT', { kind: 'date', date: 'Sun, 06 Nov 1994 08:49:37 GMT' }],
  ])('%s', (text, spec) => {
    expect(parseRetryAfterText(text)).toEqual({ ok: true, value: spec });
    expect(formatRetryAfterText(spec)).toBe(text);
  });

  it.each([
    '',
    '-1',
    '1.5',
    '120s',
    '+120',
    '99999999999',
    'Sunday, 06-Nov-94 08:49:37 GMT', // RFC 850: senders must read it, but hookrelay sends only IMF-fixdate (use header= for others)
    'Sun Nov  6 08:49:37 1994',
    'Mon, 06 Nov 1994 08:49:37 GMT', // wrong weekday
    'Sun, 06 Nov 1994 08:49:37 UTC',
  ])('refuses %j', (text) => {
    expect(parseRetryAfterText(text).ok).toBe(false);
  });
});

describe('isImfFixdate', () => {
  it('accepts only the exact IMF-fixdate form with a true weekday', () => {
    expect(isImfFixdate('Fri, 02 Jan 2026 03:04:05 GMT')).toBe(true);
    expect(isImfFixdate('Thu, 02 Jan 2026 03:04:05 GMT')).toBe(false);
    expect(isImfFixdate('Fri, 2 Jan 2026 03:04:05 GMT')).toBe(false);
    expect(isImfFixdate('Fri, 02 Jan 2026 24:04:05 GMT')).toBe(false);
  });
});

describe('resolveRetryAfter', () => {
  const now = Date.UTC(2026, 0, 2, 3, 4, 5, 0);

  it('sends seconds and fixed dates as given', () => {
    expect(resolveRetryAfter({ kind: 'seconds', seconds: 120 }, now)).toBe('120');
    expect(resolveRetryAfter({ kind: 'date', date: 'Wed, 21 Oct 2026 07:28:00 GMT' }, now)).toBe('Wed, 21 Oct 2026 07:28:00 GMT');
  });

  it('turns a relative spec into the HTTP date that many seconds after the injected now', () => {
    expect(resolveRetryAfter({ kind: 'relative', seconds: 120 }, now)).toBe('Fri, 02 Jan 2026 03:06:05 GMT');
    expect(resolveRetryAfter({ kind: 'relative', seconds: -65 }, now)).toBe('Fri, 02 Jan 2026 03:03:00 GMT');
  });

  it('rounds a date up to the next whole second, so the wait asked for is never shorter', () => {
    expect(resolveRetryAfter({ kind: 'relative', seconds: 120 }, now + 1)).toBe('Fri, 02 Jan 2026 03:06:06 GMT');
    expect(resolveRetryAfter({ kind: 'relative', seconds: 120 }, now + 999)).toBe('Fri, 02 Jan 2026 03:06:06 GMT');
  });
});
