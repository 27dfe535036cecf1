import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseSignatureFields } from '../../../src/core/signature/verify-verdict.js';
import { type ParsedSignatureHeader, parseSignatureHeader, type SignatureHeaderFailure } from '../../../src/core/signature/verify.js';

const HEX_A = 'a'.repeat(64);
const HEX_B = '0123456789abcdef'.repeat(4);
const T = 1_767_225_600;

type Header = Parameters<typeof parseSignatureHeader>[0];

/** A valid header padded with an ignored scheme to exactly `length` characters. */
function padTo(length: number): string {
  const base = `t=${T},v1=${HEX_A},x=`;
  const header = base + 'y'.repeat(length - base.length);
  if (header.length !== length) throw new Error(`padTo: built ${header.length} characters, wanted ${length}`);
  return header;
}

describe('parseSignatureHeader: accepted', () => {
  it.each<[string, Header, Partial<ParsedSignatureHeader> & { signatureHex?: string[] }]>([
    ['one v1', `t=${T},v1=${HEX_A}`, { timestamp: T, timestampText: `${T}`, signatureHex: [HEX_A], malformedV1: 0, ignoredSchemes: [] }],
    ['v1 before t', `v1=${HEX_A},t=${T}`, { timestamp: T, signatureHex: [HEX_A] }],
    ['two v1', `t=${T},v1=${HEX_A},v1=${HEX_B}`, { signatureHex: [HEX_A, HEX_B] }],
    ['uppercase hex decodes to the same bytes', `t=${T},v1=${HEX_B.toUpperCase()}`, { signatureHex: [HEX_B] }],
    ['which v1 was written in uppercase, one flag per signature', `t=${T},v1=${HEX_A},v1=${HEX_B.toUpperCase()},v1=junk,v1=${HEX_A.slice(0, 63)}A,v1=${'0'.repeat(64)}`, { uppercaseHex: [false, true, true, false], malformedV1: 1 }],
    ['junk v1 skipped and counted', `t=${T},v1=junk,v1=${HEX_A},v1=${HEX_A}0`, { signatureHex: [HEX_A], malformedV1: 2 }],
    ['v1 value containing "="', `t=${T},v1=${HEX_A},v1=ab=cd`, { signatureHex: [HEX_A], malformedV1: 1 }],
    ['other schemes listed once each, in order', `t=${T},v2=x,v1=${HEX_A},v0=y,v2=z`, { ignoredSchemes: ['v2', 'v0'] }],
    ['t=0', `t=0,v1=${HEX_A}`, { timestamp: 0, timestampText: '0' }],
    ['zero-padded t keeps its text', `t=00${T},v1=${HEX_A}`, { timestamp: T, timestampText: `00${T}` }],
    ['15-digit t', `t=${'9'.repeat(15)},v1=${HEX_A}`, { timestamp: 999_999_999_999_999 }],
    ['array of one', [`t=${T},v1=${HEX_A}`], { timestamp: T, signatureHex: [HEX_A] }],
    ['exactly 4096 characters', padTo(4096), { signatureHex: [HEX_A] }],
    ['8 v1 entries', `t=${T},${Array<string>(8).fill(`v1=${HEX_A}`).join(',')}`, { malformedV1: 0 }],
  ])('%s', (_name, header, expected) => {
    const result = parseSignatureHeader(header);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { signatureHex, ...fields } = expected;
    expect(result.header).toMatchObject(fields);
    if (signatureHex) expect(result.header.signatures.map((s) => s.toString('hex'))).toEqual(signatureHex);
    for (const signature of result.header.signatures) expect(signature).toHaveLength(32);
  });
});

describe('parseSignatureHeader: refused', () => {
  it.each<[string, Header, SignatureHeaderFailure, RegExp, number?]>([
    ['undefined', undefined, 'missing', /^no x-service-signature header$/],
    ['null', null, 'missing', /^no x-service-signature header$/],
    ['empty string', '', 'missing', /is empty/],
    ['empty array', [], 'missing', /^no x-service-signature header$/],
    ['array of one empty string', [''], 'missing', /is empty/],
    ['two headers', [`t=${T},v1=${HEX_A}`, `t=${T},v1=${HEX_B}`], 'malformed', /several x-service-signature headers \(2\)/],
    ['a non-string value', [42 as unknown as string], 'malformed', /not a string \(got number\)/],
    ['t only', `t=${T}`, 'no_signatures', /^no v1 signature$/, T],
    ['v0 only', `t=${T},v0=${HEX_A}`, 'no_signatures', /only "v0", which are not verified/, T],
    ['v0 and v2', `t=${T},v0=${HEX_A},v2=${HEX_A}`, 'no_signatures', /only "v0", "v2"/, T],
    ['no t', `v1=${HEX_A}`, 'malformed', /no t \(timestamp\) part/],
    ['"T" is not t', `T=${T},v1=${HEX_A}`, 'malformed', /no t \(timestamp\) part/],
    ['t=', `t=,v1=${HEX_A}`, 'malformed', /part 1 "t=" has an empty value/],
    ['t=abc', `t=abc,v1=${HEX_A}`, 'malformed', /t must be 1 to 15 plain decimal digits .* got "abc"/],
    ['t=123abc', `t=123abc,v1=${HEX_A}`, 'malformed', /got "123abc"/],
    ['t=+N', `t=+${T},v1=${HEX_A}`, 'malformed', /got "\+1767225600"/],
    ['t=N.0', `t=${T}.0,v1=${HEX_A}`, 'malformed', /got "1767225600\.0"/],
    ['t=1e9', `t=1e9,v1=${HEX_A}`, 'malformed', /got "1e9"/],
    ['t=0x10', `t=0x10,v1=${HEX_A}`, 'malformed', /got "0x10"/],
    ['t=Infinity', `t=Infinity,v1=${HEX_A}`, 'malformed', /got "Infinity"/],
    ['negative t', `t=-${T},v1=${HEX_A}`, 'malformed', /got "-1767225600"/],
    ['16 digits', `t=${'1'.repeat(16)},v1=${HEX_A}`, 'malformed', /got "1111111111111111"/],
    ['full-width digits', `t=１２３,v1=${HEX_A}`, 'malformed', /got "１２３"/],
    ['duplicate t', `t=${T},v1=${HEX_A},t=${T}`, 'malformed', /t appears more than once \(again in part 3\)/, T],
    ['bare v1', `t=${T},v1`, 'malformed', /part 2 "v1" has no '='/, T],
    ['empty v1', `t=${T},v1=`, 'malformed', /part 2 "v1=" has an empty value/, T],
    ['empty name', `t=${T},=${HEX_A}`, 'malformed', /part 2 "=a+…" has no name before '='/, T],
    ['leading comma', `,t=${T},v1=${HEX_A}`, 'malformed', /part 1 is empty/],
    ['doubled comma', `t=${T},,v1=${HEX_A}`, 'malformed', /part 2 is empty/, T],
    ['trailing comma', `t=${T},v1=${HEX_A},`, 'malformed', /part 3 is empty/, T],
    ['63-char v1 alone', `t=${T},v1=${HEX_A.slice(1)}`, 'malformed', /the v1 value is not 64 hex characters/, T],
    ['65-char v1 alone', `t=${T},v1=${HEX_A}a`, 'malformed', /the v1 value is not 64 hex characters/, T],
    ['non-hex v1 alone', `t=${T},v1=${'x'.repeat(64)}`, 'malformed', /the v1 value is not 64 hex characters/, T],
    ['9 v1 entries', `t=${T},${Array<string>(9).fill(`v1=${HEX_A}`).join(',')}`, 'malformed', /more than 8 v1 signatures/, T],
    ['9 v1 entries, most of them junk', `t=${T},${Array<string>(8).fill('v1=x').join(',')},v1=${HEX_A}`, 'malformed', /more than 8/, T],
    ['space after a comma', `t=${T}, v1=${HEX_A}`, 'malformed', /whitespace \(a space\) at character 14 after a comma/],
    ['space around "="', `t = ${T},v1=${HEX_A}`, 'malformed', /whitespace \(a space\) at character 2;/],
    ['leading space', ` t=${T},v1=${HEX_A}`, 'malformed', /a space\) at character 1/],
    ['tab', `t=${T},\tv1=${HEX_A}`, 'malformed', /a tab/],
    ['CRLF at the end', `t=${T},v1=${HEX_A}\r\n`, 'malformed', /a carriage return/],
    ['no-break space', `t=${T},\u00a0v1=${HEX_A}`, 'malformed', /U\+00A0/],
    ['4097 characters', padTo(4097), 'malformed', /4097 characters long, more than the limit of 4096/],
    ['not key=value at all', 'hello', 'malformed', /part 1 "hello" has no '='/],
  ])('%s', (_name, header, reason, message, timestamp) => {
    const result = parseSignatureHeader(header);
    expect(result).toMatchObject({ ok: false, reason });
    if (result.ok) return;
    expect(result.message).toMatch(message);
    expect(result.timestamp).toBe(timestamp);
  });

  it('quotes hostile parts escaped and cut short', () => {
    const result = parseSignatureHeader(`t=${'\u0000'.repeat(100)}`);
    expect(result.ok).toBe(false);
    const message = result.ok ? '' : result.message;
    expect(message).not.toContain('\u0000');
    expect(message).toContain('\\u0000…"');
    expect(message.length).toBeLessThan(400);
  });
});

describe('parseSignatureFields: the one-match path for what the service sends', () => {
  // `t=…,v1=…` takes the one match; the same parts in the other order take the part-by-part parse.
  // Both must give the same fields, for every timestamp and hex the match accepts or refuses.
  const digits = fc.stringMatching(/^[0-9]{1,16}$/);
  const hex = fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.stringMatching(/^[0-9a-fA-F]{63,65}$/));
  it('gives what the part-by-part parse gives', () => {
    fc.assert(
      fc.property(digits, hex, (t, v1) => {
        expect(parseSignatureFields(`t=${t},v1=${v1}`)).toEqual(parseSignatureFields(`v1=${v1},t=${t}`));
      }),
      { numRuns: 500 },
    );
  });
});
