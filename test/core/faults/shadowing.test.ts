import { describe, expect, it } from 'vitest';
import { parseFaultRule } from '../../../src/core/faults/parse-rule.js';
import type { FaultRule } from '../../../src/core/faults/rule.js';
import { shadowingRule } from '../../../src/core/faults/shadowing.js';

const rules = (...lines: string[]): FaultRule[] =>
  lines.map((line) => {
    const parsed = parseFaultRule(line);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.rule;
  });

describe('shadowingRule', () => {
  it.each([
    { what: 'a rule with no conditions hides every later one', lines: ['503', '429 trigger=vendor.*'], hiddenBy: 0 },
    { what: 'the same trigger glob', lines: ['503 trigger=vendor.*', '500 trigger=vendor.*'], hiddenBy: 0 },
    { what: 'a glob matching a later literal trigger', lines: ['503 trigger=trustcenter.*', '500 trigger=trustcenter.access_requested'], hiddenBy: 0 },
    { what: 'a wider attempt range', lines: ['503 attempt=1-', '500 attempt=2-3'], hiddenBy: 0 },
    { what: 'the second of three, hidden by the first', lines: ['reset trigger=sod.*', 'close', '500 trigger=sod.violation_detected'], hiddenBy: 0 },
    { what: 'a narrower earlier attempt range', lines: ['503 attempt=1', '500 attempt=1-2'], hiddenBy: null },
    { what: 'a different trigger', lines: ['503 trigger=vendor.*', '500 trigger=control.*'], hiddenBy: null },
    { what: 'an earlier rule that fires only sometimes (p)', lines: ['503 p=0.5', '500'], hiddenBy: null },
    { what: 'an earlier rule with a cap (times)', lines: ['503 times=2', '500'], hiddenBy: null },
    { what: 'different stages (pre-verify)', lines: ['503 pre-verify', '500'], hiddenBy: null },
    { what: 'a later glob the earlier one may not cover', lines: ['503 trigger=trust*', '500 trigger=*center*'], hiddenBy: null },
    { what: 'an earlier condition the later rule does not have', lines: ['503 arrival=1', '500'], hiddenBy: null },
  ])('$what', ({ lines, hiddenBy }) => {
    expect(shadowingRule(rules(...lines), lines.length - 1)).toBe(hiddenBy);
  });

  it('says nothing about the first rule or an index out of range', () => {
    const list = rules('503', '500');
    expect(shadowingRule(list, 0)).toBeNull();
    expect(shadowingRule(list, 5)).toBeNull();
  });
});
