/** `--where PATH=VALUE` as `events wait` and tests read it: paths that parse, and refusals that say why. */
import { describe, expect, it } from 'vitest';
import { matchesFilter, parseWhere } from '../../src/core/delivery-filter.js';

describe('parseWhere', () => {
  it.each([
    ['data.accessRequestId=ar_1', ['data', 'accessRequestId'], 'ar_1'],
    ['$.data.items[0].id=x', ['data', 'items', 0, 'id'], 'x'],
    ['data["odd.key"]=1', ['data', 'odd.key'], '1'],
    ['data["say \\"hi\\""]=1', ['data', 'say "hi"'], '1'],
    ['data["\\u00e9"]=1', ['data', 'é'], '1'],
  ])('reads %s', (text, path, value) => {
    expect(parseWhere(text)).toMatchObject({ ok: true, value: [{ text, operand: { kind: 'body', path }, op: '=', values: [value] }] });
  });

  it.each([
    ['data["\\x"]=1', /cannot read the name in .*\\\\x.*JSON string escapes/],
    ['data["\\u12"]=1', /cannot read the name in .*\\\\u12/],
    ['data["tab\there"]=1', /cannot read the name in /],
    ['noequals', /needs an operator .* at column 1/],
    ['a..b=1', /cannot read the path "a\.\.b"/],
  ])('refuses %s with a usage message, never a throw', (text, message) => {
    const parsed = parseWhere(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });
});

describe('matchesFilter', () => {
  it('holds on a quoted name with an escape', () => {
    const where = parseWhere('data["say \\"hi\\""]=yes');
    if (!where.ok) throw new Error(where.message);
    const rawBody = Buffer.from(JSON.stringify({ data: { 'say "hi"': 'yes' } }));
    expect(matchesFilter({ where: where.value }, { id: 'd1', trigger: 't', rawBody })).toBe(true);
  });
});
