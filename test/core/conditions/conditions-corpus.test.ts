/**
 * The condition language of route filters and `--where`, judged on a corpus of bodies: types,
 * missing fields, arrays, unicode, huge numbers kept exact, `__proto__`, a body that is not JSON.
 */
import { describe, expect, it } from 'vitest';
import { factsOf, meetsAll } from '../../../src/core/conditions/judge-conditions.js';
import { parseConditions } from '../../../src/core/conditions/parse-conditions.js';

function judge(conditions: string, body: string | Buffer, headers: Array<[string, string]> = []): boolean {
  const parsed = parseConditions(conditions);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return meetsAll(parsed.conditions, factsOf({ rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body), headers }));
}

const BODY = JSON.stringify({
  type: 'vendor.rating_dropped',
  data: {
    decision: 'approved',
    risk: 70,
    ratio: 0.5,
    ok: true,
    none: null,
    tags: ['a', 'b'],
    items: [{ id: 'i0' }, { id: 'i1' }],
    'a/b': 'slash',
    'm~n': 'tilde',
    'odd.key': 'dot',
    'café': 'crème ☕ 𝄞',
    at: '2026-03-01T10:00:00.250+01:00',
  },
});

describe('conditions on the body', () => {
  it.each([
    ['/data/decision = approved', true],
    ['/data/decision = Approved', false],
    ['data.decision = approved', true],
    ['$.data.decision = approved', true],
    ['/data/decision != denied', true],
    ['/data/decision != approved', false],
    ['/data/missing != approved', true],
    ['/data/decision in denied,approved', true],
    ['/data/decision in \'["denied", "approved,x"]\'', false],
    ['/data/risk in 69,70', true],
    ['/data/risk = 70', true],
    ['/data/risk = 70.0', true],
    ['/data/risk = 7e1', true],
    ['/data/risk = "70"', true],
    ['/data/risk prefix 7', false],
    ['/data/decision prefix appr', true],
    ['/data/ok = true', true],
    ['/data/none = null', true],
    ['/data/none exists', true],
    ['/data/missing exists', false],
    ['/data/missing not-exists', true],
    ['/data/missing not exists', true],
    ['/data/risk >= 70', true],
    ['/data/risk > 70', false],
    ['/data/risk < 70.0000000000000000000001', true],
    ['/data/ratio < 1', true],
    ['/data/ratio > -1e5', true],
    ['/data/decision > 1', false],
    ['/data/tags = \'["a","b"]\'', true],
    ['/data/tags/1 = b', true],
    ['/data/tags/2 exists', false],
    ['/data/tags/01 exists', false],
    ['/data/items/1/id = i1', true],
    ['data.items[1].id = i1', true],
    ['/data/a~1b = slash', true],
    ['/data/m~0n = tilde', true],
    ['data["odd.key"] = dot', true],
    ['/data/café = \'crème ☕ 𝄞\'', true],
    ['/data/café prefix crème', true],
    ['/data/at > 2026-03-01T09:00:00.25Z', false],
    ['/data/at >= 2026-03-01T09:00:00.25Z', true],
    ['/data/at < 2026-03-01T09:00:00.2500001Z', true],
    ['/data/at > 2025-12-31T23:59:59Z and /data/at < 2027-01-01T00:00:00Z', true],
    ['/data/decision > 2020-01-01T00:00:00Z', false],
    ['/data/risk >= 70 and /data/decision = approved', true],
    ['/data/risk >= 70 and /data/decision = denied', false],
    ['/type = vendor.rating_dropped', true],
  ])('%s → %s', (conditions, expected) => {
    expect(judge(conditions, BODY)).toBe(expected);
  });

  it('compares huge numbers exactly, never as floats', () => {
    const body = '{"n": 9007199254740993, "big": 123456789012345678901234567890, "tiny": 1e-400, "huge": 1E+400}';
    expect(judge('/n > 9007199254740992', body)).toBe(true);
    expect(judge('/n = 9007199254740992', body)).toBe(false);
    expect(judge('/n = 9007199254740993', body)).toBe(true);
    expect(judge('/big = 123456789012345678901234567890', body)).toBe(true);
    expect(judge('/big < 123456789012345678901234567891', body)).toBe(true);
    expect(judge('/big > 1.23456789012345678901234567889e29', body)).toBe(true);
    expect(judge('/tiny > 0', body)).toBe(true);
    expect(judge('/tiny < 1e-399', body)).toBe(true);
    expect(judge('/huge > 1e399', body)).toBe(true);
    expect(judge('/huge = 10e399', body)).toBe(true);
    expect(judge('/huge < -1', body)).toBe(false);
  });

  it('reads __proto__ and constructor as ordinary keys, and never an inherited one', () => {
    const body = '{"__proto__": {"polluted": "yes"}, "constructor": "c", "data": {}}';
    expect(judge('/__proto__/polluted = yes', body)).toBe(true);
    expect(judge('/constructor = c', body)).toBe(true);
    expect(judge('/data/constructor exists', body)).toBe(false);
    expect(judge('/data/toString exists', body)).toBe(false);
    expect(judge('/data/__proto__ exists', body)).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('meets no body condition, not even not-exists or !=, when the body is not JSON', () => {
    for (const body of ['not json', '{"a":1', '', Buffer.from([0xff, 0xfe, 0x00])]) {
      expect(judge('/a not-exists', body)).toBe(false);
      expect(judge('/a != 1', body)).toBe(false);
      expect(judge('/a exists', body)).toBe(false);
    }
  });

  it('survives deep nesting: too deep is not JSON for conditions, never a crash', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(judge('/0 exists', deep)).toBe(false);
    const fine = `${'{"a":'.repeat(500)}1${'}'.repeat(500)}`;
    expect(judge(`/${Array(500).fill('a').join('/')} = 1`, fine)).toBe(true);
  });

  it('reads a body with a UTF-8 byte order mark', () => {
    expect(judge('/a = 1', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))).toBe(true);
  });
});

describe('conditions on headers', () => {
  const headers: Array<[string, string]> = [
    ['X-Service-Event', 'vendor.rating_dropped'],
    ['X-Tag', 'a'],
    ['x-tag', 'b'],
    ['X-Count', '42'],
  ];
  it.each([
    ['header:x-service-event = vendor.rating_dropped', true],
    ['HEADER:X-SERVICE-EVENT prefix vendor.', true],
    ['header:x-tag = \'a, b\'', true],
    ['header:x-count > 41', true],
    ['header:x-count < 41', false],
    ['header:x-missing not-exists', true],
    ['header:x-missing exists', false],
    ['header:x-service-event exists and /a = 1', true],
  ])('%s → %s', (conditions, expected) => {
    expect(judge(conditions, '{"a":1}', headers)).toBe(expected);
  });

  it('reads headers held as pairs, as a flat list or as header lines alike', () => {
    const parsed = parseConditions('header:x-tag = \'a, b\' and header:x-count >= 42');
    if (!parsed.ok) throw new Error('parse');
    const body = Buffer.from('{}');
    for (const held of [headers, headers.flat(), headers.map(([n, v]) => `${n}: ${v}\n`).join('')]) {
      expect(meetsAll(parsed.conditions, factsOf({ rawBody: body, headers: held }))).toBe(true);
    }
    expect(meetsAll(parsed.conditions, factsOf({ rawBody: body, headers: [] }))).toBe(false);
  });

  it('judges header conditions when the body is not JSON', () => {
    expect(judge('header:x-tag exists', 'not json', headers)).toBe(true);
  });
});

describe('parse problems', () => {
  it('lists every problem at once, each with its column', () => {
    const text = '/a >= x and b ~ 1 and and /c exists 3 and /d in ,';
    const parsed = parseConditions(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.map((p) => p.column)).toEqual([text.indexOf('x') + 1, text.indexOf('~') + 1, text.indexOf('and and') + 5, text.indexOf(' 3') + 2, text.indexOf(' ,') + 2]);
  });

  it.each([
    ['', /no condition/],
    ['/a', /needs an operator/],
    ['/a=1', /write spaces around the operator: '\/a = 1'/],
    ['/a = 1 2', /one value after =/],
    ['/a exists 1', /exists takes no value/],
    ['/a ~0x = 1', /unknown operator/],
    ['/a~2 = 1', /"~" not followed by 0 or 1/],
    ['header:bad name = 1', /unknown operator/],
    ['header:b@d = 1', /is not a header name/],
    ["/a = 'open", /unterminated quote/],
    ['/a < 2026-02-30T00:00:00Z', /compares with a number .* or an RFC 3339 time/],
    ['/a in \'[{"x":1}]\'', /not arrays or objects/],
    ['/a in \'[]\'', /at least one value/],
  ])('refuses %j', (text, reason) => {
    const parsed = parseConditions(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems[0]!.reason).toMatch(reason);
  });

  it('keeps the case of a path and value holding "=" when quoted whole', () => {
    const parsed = parseConditions("/Data/Key = 'A=B'");
    expect(parsed.ok && parsed.conditions[0]).toMatchObject({ operand: { path: ['Data', 'Key'] }, values: ['A=B'] });
  });
});
