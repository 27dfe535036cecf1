import { describe, expect, it } from 'vitest';
import { formatFaultRule } from '../../../src/core/faults/format-rule.js';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';

function canonical(text: string): string {
  const parsed = parseFaultRule(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return formatFaultRule(parsed.rule);
}

describe('formatFaultRule', () => {
  it.each([
    ['503 retry-after=120 attempt=1', '503 retry-after=120 attempt=1'],
    ['attempt=1 retry-after=120 503', '503 retry-after=120 attempt=1'],
    ['redirect', 'redirect no-location'],
    ['redirect status=307 hops=2', 'redirect hops=2'],
    ['redirect hops=4 status=308', 'redirect status=308 hops=4'],
    ['delay=2s', 'delay=2000'],
    ['reset p=30%', 'reset p=0.3'],
    ['hang slow-headers attempt=2', 'hang slow-headers attempt=2'],
    ["418 body='teapot'", '418 body=teapot'],
    ["500 body='a b'", "500 body='a b'"],
    ["500 body=''", "500 body=''"],
    [`500 body="it's"`, "500 body='it\\'s'"],
    ["500 body='line\\nbreak\\ttab \\\\'", "500 body='line\\nbreak\\ttab \\\\'"],
    ["500 body='\\u{2028}\\u{a0}\\u{7f}'", "500 body='\\u{2028}\\u{a0}\\u{7f}'"],
    ["500 body='caf\u00e9 \u{1f600}'", "500 body='caf\u00e9 \u{1f600}'"],
    ["500 header='x-a:  b '", '500 header=x-a:b'],
    ["500 header='x-a:b c'", "500 header='x-a:b c'"],
    ['302 header=location:', '302 header=location:'],
    [
      'id=x pre-verify 500 times=2 p=0.5 arrival=2- attempt=1-3 delivery=d* trigger=t.*',
      '500 trigger=t.* delivery=d* attempt=1-3 arrival=2- p=0.5 times=2 pre-verify id=x',
    ],
    ['429 retry-after=+120s', '429 retry-after=+120s'],
    ["429 retry-after='Wed, 21 Oct 2026 07:28:00 GMT'", "429 retry-after='Wed, 21 Oct 2026 07:28:00 GMT'"],
  ])('%s → %s', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it('writes the three-step story of the issue as it is typed', () => {
    const rules: FaultRule[] = [
      { match: { attempt: { from: 1, to: 1 } }, answer: { kind: 'status', status: 503, retryAfter: { kind: 'seconds', seconds: 120 } } },
      { match: { attempt: { from: 2, to: 2 } }, answer: { kind: 'hang', slowHeaders: false } },
    ];
    expect(rules.map(formatFaultRule)).toEqual(['503 retry-after=120 attempt=1', 'hang attempt=2']);
  });
});
