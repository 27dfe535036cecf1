/**
 * Properties of the condition language: parsing any text never throws and every problem has a
 * column inside the text; judging any parsed conditions against any bytes never throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factsOf, meetsAll } from '../../../src/core/conditions/judge-conditions.js';
import { parseConditions } from '../../../src/core/conditions/parse-conditions.js';
import { parseWhere } from '../../../src/core/delivery-filter.js';
import { parseRoute } from '../../../src/core/routes.js';

/** Texts near the language: its words, operators, paths and quotes, and any unicode. */
const piece = fc.oneof(
  fc.constantFrom('and', 'AND', 'not', 'exists', 'not-exists', 'in', 'prefix', '=', '!=', '<', '<=', '>', '>=', '~', '~0', '~1', '/', '/data/x', 'data.x', 'data["a.b"]', 'header:x-kind', 'header:', '__proto__', 'constructor', "'", '"', '\\', '[', ']', ',', '1e400', '-0', '2026-01-01T00:00:00Z', ' ', '  ', '\t'),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join(' '));

describe('the condition parser', () => {
  it('never throws, and every problem has a column inside the text (property)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const parsed = parseConditions(t);
        if (parsed.ok) return parsed.conditions.length > 0 && parsed.conditions.every((c) => c.column >= 1 && c.column <= Array.from(t).length);
        const width = Array.from(t).length + 1;
        return parsed.problems.length > 0 && parsed.problems.every((p) => Number.isInteger(p.column) && p.column >= 1 && p.column <= width && p.reason.length > 0);
      }),
      { seed: 41, numRuns: 3000 },
    );
  });

  it('never throws through --where and --route either (property)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const where = parseWhere(t);
        const route = parseRoute(`vendor.* where ${t} = http://127.0.0.1:3001/`);
        return (where.ok || where.message.length > 0) && (route.ok || /column \d+/.test(route.message));
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  it('judges parsed conditions against any bytes without throwing (property)', () => {
    const json = fc.json({ maxDepth: 4 });
    const body = fc.oneof(json, fc.string(), fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')));
    const condition = fc.constantFrom('/a = 1', '/a/0 exists', 'a[0].b != x', '/a > 1e3', '/a < 2026-01-01T00:00:00Z', '/a in 1,2,x', '/a prefix x', 'header:x-a exists', '/__proto__ not-exists');
    fc.assert(
      fc.property(fc.array(condition, { minLength: 1, maxLength: 3 }), body, (conds, b) => {
        const parsed = parseConditions(conds.join(' and '));
        if (!parsed.ok) return false;
        const result = meetsAll(parsed.conditions, factsOf({ rawBody: Buffer.from(b), headers: [['X-A', '1']] }));
        return typeof result === 'boolean';
      }),
      { seed: 43, numRuns: 2000 },
    );
    expect(true).toBe(true);
  });
});
