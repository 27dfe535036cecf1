import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeSignature, sign } from '../../../src/core/signature/sign.js';
import { UPPERCASE_HEX_NOTE, verify, verifyExplained } from '../../../src/core/signature/verify.js';
import type { VerifyFailure, VerifyOptions } from '../../../src/core/signature/verify.js';
import { verify as libraryVerify } from '../../../src/kit/verify-now.js';

const SECRET = 'whsec_current_7d1f4e9a';
const OLD_SECRET = 'whsec_previous_2b8c0d31';
const NOW = 1_767_225_600;
const BODY =
  '{"id":"dlv_01","type":"trustcenter.access_requested","apiVersion":"2026-06-01","createdAt":"2026-01-01T00:00:00Z","organizationId":"org_1","data":{"accessRequestId":"ar_1"}}';
const PRETTY_BODY = JSON.stringify(JSON.parse(BODY), null, 2);
// What e.g. Python's json.dumps writes: spaces after ':' and ','. No re-serialisation of the compact form gets back to it.
const SPACED_BODY = BODY.replace(/":/g, '": ').replace(/,"/g, ', "');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BOM_BODY = Buffer.concat([BOM, Buffer.from(BODY)]);
const INVALID_UTF8_BODY = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d]);

const v1 = (secret: string, body: Buffer | string, t: number): string => computeSignature(secret, body, t);
const JUNK_V1 = 'v1=junk';
/** Every other letter upper-cased: still the same bytes. */
const mixedCase = (hex: string): string => [...hex].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('');

type Body = Buffer | Uint8Array | string;
type Header = string | readonly string[] | undefined | null;

interface Row {
  name: string;
  body: Body;
  header: Header;
  options?: Partial<VerifyOptions>;
  ok?: { secretIndex: number; skewSeconds: number; notes?: string[] };
  fail?: VerifyFailure;
  message?: RegExp;
  /** Asserted with `explain: true`: some hint matches. */
  hint?: RegExp;
}

const at = (t: number, ...parts: string[]): string => [`t=${t}`, ...parts].join(',');

const rows: Row[] = [
  { name: 'valid', body: BODY, header: sign(SECRET, BODY, NOW), ok: { secretIndex: 0, skewSeconds: 0 } },
  { name: 'valid, body as a Buffer', body: Buffer.from(BODY), header: sign(SECRET, BODY, NOW), ok: { secretIndex: 0, skewSeconds: 0 } },
  {
    name: 'valid, body as a plain Uint8Array',
    body: new Uint8Array(Buffer.from(BODY)),
    header: sign(SECRET, BODY, NOW),
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  { name: 'header given as an array of one', body: BODY, header: [sign(SECRET, BODY, NOW)], ok: { secretIndex: 0, skewSeconds: 0 } },

  // Tolerance: |now - t| <= 300 accepted, one second beyond refused, both ways.
  { name: 't exactly 300 s old', body: BODY, header: sign(SECRET, BODY, NOW - 300), ok: { secretIndex: 0, skewSeconds: -300 } },
  { name: 't exactly 300 s ahead', body: BODY, header: sign(SECRET, BODY, NOW + 300), ok: { secretIndex: 0, skewSeconds: 300 } },
  {
    name: 't 301 s old',
    body: BODY,
    header: sign(SECRET, BODY, NOW - 301),
    fail: 'timestamp_too_old',
    message: /^signature valid but t is 301 s old, beyond the tolerance of 300 s$/,
    hint: /301 s behind/,
  },
  {
    name: 't 301 s ahead',
    body: BODY,
    header: sign(SECRET, BODY, NOW + 301),
    fail: 'timestamp_in_future',
    message: /^signature valid but t is 301 s in the future, beyond the tolerance of 300 s$/,
    hint: /301 s ahead/,
  },
  {
    name: 'custom tolerance 10: 10 s old accepted',
    body: BODY,
    header: sign(SECRET, BODY, NOW - 10),
    options: { toleranceSeconds: 10 },
    ok: { secretIndex: 0, skewSeconds: -10 },
  },
  {
    name: 'custom tolerance 10: 11 s ahead refused',
    body: BODY,
    header: sign(SECRET, BODY, NOW + 11),
    options: { toleranceSeconds: 10 },
    fail: 'timestamp_in_future',
    message: /11 s in the future, beyond the tolerance of 10 s/,
  },
  {
    name: 'fractional clock: 300.5 s old refused',
    body: BODY,
    header: sign(SECRET, BODY, NOW - 300),
    options: { nowSeconds: NOW + 0.5 },
    fail: 'timestamp_too_old',
    message: /t is 300\.5 s old/,
  },
  {
    name: 'an old t with a wrong signature is a mismatch, not an old timestamp',
    body: BODY,
    header: at(NOW - 10_000, `v1=${v1('other', BODY, NOW - 10_000)}`),
    fail: 'mismatch',
  },

  // Body changes.
  { name: 'one changed byte', body: BODY.replace('dlv_01', 'dlv_02'), header: sign(SECRET, BODY, NOW), fail: 'mismatch', message: /signature mismatch/ },
  {
    name: 'body re-serialised with JSON.stringify(JSON.parse(body))',
    body: JSON.stringify(JSON.parse(SPACED_BODY)),
    header: sign(SECRET, SPACED_BODY, NOW),
    fail: 'mismatch',
    hint: /raw request body.*re-encoded/,
  },
  {
    name: 'pretty-printed body, verified after JSON.stringify(JSON.parse(body))',
    body: JSON.stringify(JSON.parse(PRETTY_BODY)),
    header: sign(SECRET, PRETTY_BODY, NOW),
    fail: 'mismatch',
    hint: /changed after signing: it matches the body pretty-printed with JSON\.stringify\(…, null, 2\): pass the raw request body bytes/,
  },
  {
    name: 'compact body, verified after pretty-printing',
    body: PRETTY_BODY,
    header: sign(SECRET, BODY, NOW),
    fail: 'mismatch',
    hint: /^the body was changed after signing: it matches the body re-serialised with JSON\.stringify: pass the raw request body bytes, not a parsed and re-encoded object$/,
  },
  { name: 'body with a trailing newline appended', body: `${BODY}\n`, header: sign(SECRET, BODY, NOW), fail: 'mismatch', hint: /trailing newline removed/ },
  { name: 'body whose trailing newline was stripped', body: BODY, header: sign(SECRET, `${BODY}\n`, NOW), fail: 'mismatch', hint: /trailing newline added/ },
  { name: 'raw bytes with a BOM, signed raw', body: BOM_BODY, header: sign(SECRET, BOM_BODY, NOW), ok: { secretIndex: 0, skewSeconds: 0 } },
  {
    name: 'raw bytes with invalid UTF-8, signed raw',
    body: INVALID_UTF8_BODY,
    header: sign(SECRET, INVALID_UTF8_BODY, NOW),
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  {
    name: 'invalid UTF-8 decoded to a string before verifying',
    body: INVALID_UTF8_BODY.toString('utf8'),
    header: sign(SECRET, INVALID_UTF8_BODY, NOW),
    fail: 'mismatch',
    hint: /given as a string.*pass the Buffer/,
  },
  { name: 'BOM stripped after signing', body: BODY, header: sign(SECRET, BOM_BODY, NOW), fail: 'mismatch', hint: /with a UTF-8 BOM added/ },
  { name: 'BOM added after signing', body: BOM_BODY, header: sign(SECRET, BODY, NOW), fail: 'mismatch', hint: /leading UTF-8 BOM removed/ },

  // Secrets.
  {
    name: 'wrong secret',
    body: BODY,
    header: sign('whsec_someone_else', BODY, NOW),
    fail: 'mismatch',
    hint: /are you passing the raw request body.*is this the right secret/,
  },
  {
    name: 'configured secret has a trailing newline',
    body: BODY,
    header: sign(SECRET, BODY, NOW),
    options: { secrets: `${SECRET}\n` },
    fail: 'mismatch',
    hint: /^secret #1 has a trailing newline; the signature matches it with the whitespace trimmed/,
  },
  {
    name: "sender's secret has a trailing newline",
    body: BODY,
    header: sign(`${SECRET}\n`, BODY, NOW),
    fail: 'mismatch',
    hint: /matches secret #1 with a trailing newline added/,
  },
  {
    name: 'second configured secret has surrounding spaces',
    body: BODY,
    header: sign(SECRET, BODY, NOW),
    options: { secrets: [OLD_SECRET, ` ${SECRET} `] },
    fail: 'mismatch',
    hint: /^secret #2 has leading whitespace and trailing whitespace/,
  },
  {
    name: 'rotation: signed with the old secret',
    body: BODY,
    header: sign(OLD_SECRET, BODY, NOW),
    options: { secrets: [SECRET, OLD_SECRET] },
    ok: { secretIndex: 1, skewSeconds: 0 },
  },
  {
    name: 'rotation: signed with the new secret',
    body: BODY,
    header: sign(SECRET, BODY, NOW),
    options: { secrets: [SECRET, OLD_SECRET] },
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  {
    name: 'rotation: two signatures, one per secret',
    body: BODY,
    header: at(NOW, `v1=${v1('whsec_retired', BODY, NOW)}`, `v1=${v1(OLD_SECRET, BODY, NOW)}`),
    options: { secrets: [SECRET, OLD_SECRET] },
    ok: { secretIndex: 1, skewSeconds: 0 },
  },

  // Signature entries.
  { name: 'v1=junk,v1=<good>', body: BODY, header: at(NOW, JUNK_V1, `v1=${v1(SECRET, BODY, NOW)}`), ok: { secretIndex: 0, skewSeconds: 0 } },
  { name: 'v1=<good>,v1=junk', body: BODY, header: at(NOW, `v1=${v1(SECRET, BODY, NOW)}`, JUNK_V1), ok: { secretIndex: 0, skewSeconds: 0 } },
  {
    name: 'v1=junk,v1=<wrong> is a mismatch, with the skipped entry mentioned',
    body: BODY,
    header: at(NOW, JUNK_V1, `v1=${v1('nope', BODY, NOW)}`),
    fail: 'mismatch',
    hint: /1 malformed v1 entry was skipped/,
  },
  { name: 'uppercase hex', body: BODY, header: at(NOW, `v1=${v1(SECRET, BODY, NOW).toUpperCase()}`), ok: { secretIndex: 0, skewSeconds: 0, notes: [UPPERCASE_HEX_NOTE] } },
  { name: 'mixed-case hex', body: BODY, header: at(NOW, `v1=${mixedCase(v1(SECRET, BODY, NOW))}`), ok: { secretIndex: 0, skewSeconds: 0, notes: [UPPERCASE_HEX_NOTE] } },
  {
    name: 'uppercase hex next to the same MAC in lowercase: no note',
    body: BODY,
    header: at(NOW, `v1=${v1(SECRET, BODY, NOW).toUpperCase()}`, `v1=${v1(SECRET, BODY, NOW)}`),
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  {
    name: 'an uppercase v1 that does not match next to a good lowercase one: no note',
    body: BODY,
    header: at(NOW, `v1=${v1('nope', BODY, NOW).toUpperCase()}`, `v1=${v1(SECRET, BODY, NOW)}`),
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  {
    name: 'a lowercase v1 that does not match next to a good uppercase one: noted',
    body: BODY,
    header: at(NOW, `v1=${v1('nope', BODY, NOW)}`, `v1=${v1(SECRET, BODY, NOW).toUpperCase()}`),
    ok: { secretIndex: 0, skewSeconds: 0, notes: [UPPERCASE_HEX_NOTE] },
  },
  {
    name: 'uppercase hex matching the second secret (rotation): noted',
    body: BODY,
    header: at(NOW, `v1=${v1(OLD_SECRET, BODY, NOW).toUpperCase()}`),
    options: { secrets: [SECRET, OLD_SECRET] },
    ok: { secretIndex: 1, skewSeconds: 0, notes: [UPPERCASE_HEX_NOTE] },
  },
  {
    name: 'v0 and v2 next to a good v1 are ignored',
    body: BODY,
    header: at(NOW, 'v0=abc', `v1=${v1(SECRET, BODY, NOW)}`, 'v2=def'),
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  {
    name: 'v0 only (even a "correct" one)',
    body: BODY,
    header: at(NOW, `v0=${v1(SECRET, BODY, NOW)}`),
    fail: 'no_signatures',
    message: /no v1 signature \(only "v0"/,
    hint: /only v1/,
  },
  { name: 'v2 only', body: BODY, header: at(NOW, `v2=${v1(SECRET, BODY, NOW)}`), fail: 'no_signatures', message: /only "v2"/ },
  { name: 't only', body: BODY, header: `t=${NOW}`, fail: 'no_signatures', message: /^no v1 signature$/ },
  { name: '63-char v1 alone', body: BODY, header: at(NOW, `v1=${v1(SECRET, BODY, NOW).slice(0, 63)}`), fail: 'malformed', message: /the v1 value is not 64 hex characters/ },
  { name: '65-char v1 alone', body: BODY, header: at(NOW, `v1=${v1(SECRET, BODY, NOW)}0`), fail: 'malformed', message: /not 64 hex characters/ },
  { name: 'non-hex v1 alone', body: BODY, header: at(NOW, `v1=${'g'.repeat(64)}`), fail: 'malformed', message: /not 64 hex characters/ },
  {
    name: 'two malformed v1 entries',
    body: BODY,
    header: at(NOW, JUNK_V1, 'v1=zz'),
    fail: 'malformed',
    message: /none of the 2 v1 values is 64 hex characters/,
  },
  { name: 'bare v1', body: BODY, header: at(NOW, 'v1'), fail: 'malformed', message: /part 2 "v1" has no '='/, hint: /must look like/ },
  { name: 'empty v1 value', body: BODY, header: at(NOW, 'v1='), fail: 'malformed', message: /part 2 "v1=" has an empty value/ },
  {
    name: 'nine v1 entries',
    body: BODY,
    header: at(NOW, ...Array<string>(8).fill(JUNK_V1), `v1=${v1(SECRET, BODY, NOW)}`),
    fail: 'malformed',
    message: /more than 8 v1 signatures/,
  },
  {
    name: 'eight v1 entries, the last one good',
    body: BODY,
    header: at(NOW, ...Array<string>(7).fill(JUNK_V1), `v1=${v1(SECRET, BODY, NOW)}`),
    ok: { secretIndex: 0, skewSeconds: 0 },
  },

  // Header shape.
  { name: 'missing header (undefined)', body: BODY, header: undefined, fail: 'missing', message: /no x-service-signature header/, hint: /signing turned on/ },
  { name: 'missing header (null)', body: BODY, header: null, fail: 'missing' },
  { name: 'missing header (empty array)', body: BODY, header: [], fail: 'missing' },
  { name: 'empty header', body: BODY, header: '', fail: 'missing', message: /header is empty/ },
  { name: 'array of one empty header', body: BODY, header: [''], fail: 'missing' },
  {
    name: 'two signature headers',
    body: BODY,
    header: [sign(SECRET, BODY, NOW), sign(SECRET, BODY, NOW)],
    fail: 'malformed',
    message: /several x-service-signature headers/,
  },
  { name: 't=', body: BODY, header: `t=,v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /part 1 "t=" has an empty value/ },
  { name: 't=abc', body: BODY, header: `t=abc,v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /t must be .*plain decimal digits.*got "abc"/ },
  { name: 't=123abc', body: BODY, header: `t=123abc,v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /got "123abc"/ },
  { name: 't=+N', body: BODY, header: `t=+${NOW},v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /no sign, dot or exponent.*got "\+1767225600"/ },
  { name: 't=N.0', body: BODY, header: `t=${NOW}.0,v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /got "1767225600\.0"/ },
  { name: 't=1e9', body: BODY, header: `t=1e9,v1=${v1(SECRET, BODY, 1e9)}`, fail: 'malformed', message: /got "1e9"/ },
  { name: 'negative t', body: BODY, header: `t=-${NOW},v1=${v1(SECRET, BODY, -NOW)}`, fail: 'malformed', message: /got "-1767225600"/ },
  { name: '16-digit t', body: BODY, header: `t=${'1'.repeat(16)},v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /1 to 15/ },
  {
    name: 'duplicate t',
    body: BODY,
    header: `t=${NOW},t=${NOW},v1=${v1(SECRET, BODY, NOW)}`,
    fail: 'malformed',
    message: /t appears more than once/,
  },
  { name: 'no t', body: BODY, header: `v1=${v1(SECRET, BODY, NOW)}`, fail: 'malformed', message: /no t \(timestamp\) part/ },
  {
    name: 'space after the comma',
    body: BODY,
    header: `t=${NOW}, v1=${v1(SECRET, BODY, NOW)}`,
    fail: 'malformed',
    message: /whitespace \(a space\) at character 14 after a comma/,
  },
  { name: 'trailing newline on the header', body: BODY, header: `${sign(SECRET, BODY, NOW)}\n`, fail: 'malformed', message: /a newline/ },
  { name: 'trailing comma', body: BODY, header: `${sign(SECRET, BODY, NOW)},`, fail: 'malformed', message: /part 3 is empty/ },
  {
    name: 'header over 4096 characters',
    body: BODY,
    header: `${sign(SECRET, BODY, NOW)},x=${'a'.repeat(4096)}`,
    fail: 'malformed',
    message: /more than the limit of 4096/,
  },
  {
    name: 'zero-padded t is hashed as written',
    body: BODY,
    header: `t=0${NOW},v1=${createHmacHex(SECRET, `0${NOW}.${BODY}`)}`,
    ok: { secretIndex: 0, skewSeconds: 0 },
  },
  {
    name: 'zero-padded t signed over the unpadded digits does not match',
    body: BODY,
    header: `t=0${NOW},v1=${v1(SECRET, BODY, NOW)}`,
    fail: 'mismatch',
  },
];

function createHmacHex(secret: string, message: string): string {
  // Independent of the module under test: the spec's definition, spelled out.
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

const run = (row: Row, explain: boolean) =>
  verify(row.body, row.header, { secrets: SECRET, nowSeconds: NOW, ...row.options, explain });

describe('verify', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const result = run(row, false);
    if (row.ok) {
      expect(result).toEqual({ ok: true, timestamp: NOW + row.ok.skewSeconds, ...row.ok });
      return;
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe(row.fail);
    if (row.message) expect(result.message).toMatch(row.message);
    expect(result.hints).toEqual([]);
  });

  const explained = rows.filter((row) => row.hint);
  it.each(explained.map((row) => [row.name, row] as const))('explain: %s', (_name, row) => {
    const result = run(row, true);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.hints.some((hint) => row.hint?.test(hint)), JSON.stringify(result.hints)).toBe(true);
  });

  it.each(rows.map((row) => [row.name, row] as const))('explain changes only the hints, which never show a secret: %s', (_name, row) => {
    const plain = run(row, false);
    const result = run(row, true);
    if (plain.ok || result.ok) {
      expect(result).toEqual(plain);
      return;
    }
    expect({ ...result, hints: [] }).toEqual(plain);
    const text = [result.message, ...result.hints].join('\n');
    for (const secret of [SECRET, OLD_SECRET, SECRET.slice(6)]) expect(text).not.toContain(secret);
  });

  it.each(rows.map((row) => [row.name, row] as const))('the public result is the explained one with each hint as its text: %s', (_name, row) => {
    const options = { secrets: SECRET, nowSeconds: NOW, ...row.options, explain: true };
    const result = verify(row.body, row.header, options);
    const explained = verifyExplained(row.body, row.header, options);
    if (result.ok || explained.ok) {
      expect(result).toEqual(explained);
      return;
    }
    expect(result).toEqual({ ...explained, hints: explained.hints.map((hint) => hint.text) });
    for (const hint of explained.hints) expect(hint.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('reports timestamp and skew on a mismatch and on a header that has a t', () => {
    const mismatch = verify(BODY, sign('nope', BODY, NOW - 7), { secrets: SECRET, nowSeconds: NOW });
    expect(mismatch).toMatchObject({ ok: false, reason: 'mismatch', timestamp: NOW - 7, skewSeconds: -7 });
    const noV1 = verify(BODY, `t=${NOW + 5},v0=ab`, { secrets: SECRET, nowSeconds: NOW });
    expect(noV1).toMatchObject({ ok: false, reason: 'no_signatures', timestamp: NOW + 5, skewSeconds: 5 });
    const missing = verify(BODY, undefined, { secrets: SECRET, nowSeconds: NOW });
    expect(missing).not.toHaveProperty('timestamp');
  });

  it('explains a stale signature with the skew in seconds and its direction', () => {
    const past = verify(BODY, sign(SECRET, BODY, NOW - 900), { secrets: SECRET, nowSeconds: NOW, explain: true });
    expect(past).toMatchObject({ ok: false, reason: 'timestamp_too_old', skewSeconds: -900 });
    expect(past.ok ? [] : past.hints).toEqual([expect.stringMatching(/^clock skew: t is 900 s behind this receiver's clock \(tolerance 300 s both ways\)/)]);
    const future = verify(BODY, sign(SECRET, BODY, NOW + 900), { secrets: SECRET, nowSeconds: NOW, explain: true });
    expect(future.ok ? [] : future.hints).toEqual([expect.stringMatching(/^clock skew: t is 900 s ahead of this receiver's clock/)]);
  });

  it('gives a mismatch, not an exception, for a body that is not bytes', () => {
    const parsed = JSON.parse(BODY) as unknown as string;
    const result = verify(parsed, sign(SECRET, BODY, NOW), { secrets: SECRET, nowSeconds: NOW, explain: true });
    expect(result).toMatchObject({ ok: false, reason: 'mismatch', hints: [expect.stringMatching(/given as object: pass the raw request body bytes/)] });
  });

  it('skips body guesses for bodies over 256 KiB', () => {
    const big = `{"pad":"${'x'.repeat(256 * 1024)}"}`;
    const result = verify(`${big}\n`, sign(SECRET, big, NOW), { secrets: SECRET, nowSeconds: NOW, explain: true });
    expect(result.ok).toBe(false);
    const hints = result.ok ? [] : result.hints;
    expect(hints.some((h) => /larger than 256 KiB/.test(h))).toBe(true);
    expect(hints.some((h) => /changed after signing/.test(h))).toBe(false);
  });

  it("the library's verify uses the system clock when no clock is given (the core reads none)", () => {
    const t = Math.floor(Date.now() / 1000);
    expect(libraryVerify(BODY, sign(SECRET, BODY, t), { secrets: SECRET }).ok).toBe(true);
    expect(libraryVerify(BODY, sign(SECRET, BODY, t - 3600), { secrets: SECRET })).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
  });
});

describe('verify options (programmer configuration)', () => {
  const header = sign(SECRET, BODY, NOW);
  it.each([
    ['tolerance 0', { toleranceSeconds: 0 }, /toleranceSeconds must be a finite number/],
    ['negative tolerance', { toleranceSeconds: -1 }, /toleranceSeconds/],
    ['NaN tolerance', { toleranceSeconds: Number.NaN }, /got NaN/],
    ['infinite tolerance', { toleranceSeconds: Number.POSITIVE_INFINITY }, /got Infinity/],
    ['tolerance as a string', { toleranceSeconds: '300' as unknown as number }, /toleranceSeconds/],
    ['NaN clock', { nowSeconds: Number.NaN }, /nowSeconds/],
    ['no secrets', { secrets: [] }, /at least one secret/],
    ['empty secret', { secrets: '' }, /secret #1 must be a non-empty string/],
    ['empty second secret', { secrets: [SECRET, ''] }, /secret #2/],
  ] as const)('%s throws a RangeError', (_name, options, message) => {
    expect(() => verify(BODY, header, { secrets: SECRET, nowSeconds: NOW, ...options })).toThrow(RangeError);
    expect(() => verify(BODY, header, { secrets: SECRET, nowSeconds: NOW, ...options })).toThrow(message);
  });

  it('accepts a fractional tolerance', () => {
    expect(verify(BODY, sign(SECRET, BODY, NOW - 1), { secrets: SECRET, nowSeconds: NOW, toleranceSeconds: 1.5 }).ok).toBe(true);
  });
});
