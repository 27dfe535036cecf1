import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSignature, sign } from '../../../src/core/signature/sign.js';

// Worked out with `printf '<t>.<body>' | openssl dgst -sha256 -hmac <secret>`, independently of node:crypto.
const VECTORS: Array<[secret: string, body: Buffer | string, t: number, hex: string]> = [
  ['whsec_test', '{"id":"evt_1"}', 1_700_000_000, 'c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925'],
  ['whsec_test', Buffer.from('\xef\xbb\xbf{"id":"evt_1"}', 'latin1'), 1_700_000_000, 'da39a209e71d25225eb1e11ad7b096531846b0668cd1acdce228fedc3bbae3c0'],
  ['s', '', 0, '2572e102ebbc88d57bc0ef48471ee28bb7fc8c6e9c0558b3c8e5d276f84ac9c3'],
  ['', '', 0, 'b849d5a581847b281957065739df36df2463d1977ea8d6e1e4e6cf33fadc68c3'],
  // Invalid UTF-8 is signed as the byte it is, not as the U+FFFD a decoder would make of it.
  ['s', Buffer.from([0xff]), 1, '4e2476812a35b1a0d5d4d015750dce3a3bb96786d4ff4d95f3cad31c93b2adc9'],
  ['s', '\ufffd', 1, 'a52acc64fa4214d6557a63d14c887895d0b9f74a0ae59e1d65fea825a9fd10ca'],
];

describe('computeSignature (spec 6.3)', () => {
  it.each(VECTORS)('HMAC-SHA256 keyed %j of "<t>." + %j at t=%i', (secret, body, t, hex) => {
    expect(computeSignature(secret, body, t)).toBe(hex);
  });

  it('signs a string as its UTF-8 bytes, and a Buffer or Uint8Array as they are', () => {
    const text = '{"name":"Zoë ☃"}';
    const bytes = Buffer.from(text, 'utf8');
    const expected = computeSignature('k', bytes, 5);
    expect(computeSignature('k', text, 5)).toBe(expected);
    expect(computeSignature('k', new Uint8Array(bytes), 5)).toBe(expected);
    // A view into a larger buffer signs only its own bytes.
    const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
    expect(computeSignature('k', padded.subarray(2, 2 + bytes.length), 5)).toBe(expected);
  });

  it('changes with the secret, the timestamp and every body byte', () => {
    const base = computeSignature('k', 'body', 100);
    expect(computeSignature('K', 'body', 100)).not.toBe(base);
    expect(computeSignature('k', 'body', 101)).not.toBe(base);
    expect(computeSignature('k', 'Body', 100)).not.toBe(base);
    expect(computeSignature('k', 'body\n', 100)).not.toBe(base);
    // The '.' separates t from the body: "10" + "0body" is not "100" + "body".
    expect(computeSignature('k', '0body', 10)).not.toBe(base);
  });
});

describe('sign', () => {
  it.each(VECTORS)('writes t=<seconds>,v1=<hex> for %j', (secret, body, t, hex) => {
    expect(sign(secret, body, t)).toBe(`t=${t},v1=${hex}`);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1_700_000_000_000.5])('refuses timestamp %s with a RangeError naming it', (t) => {
    expect(() => sign('k', 'b', t)).toThrow(RangeError);
    expect(() => sign('k', 'b', t)).toThrow(`timestamp must be a non-negative integer number of seconds, got ${t}`);
  });

  it.each([0, 1, Number.MAX_SAFE_INTEGER])('accepts timestamp %i', (t) => {
    expect(sign('k', 'b', t)).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
  });

  it('is a lower-case 64-digit hex HMAC of exactly its own t, for any input', () => {
    fc.assert(
      fc.property(fc.string(), fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 0, max: 4_102_444_800 }), (secret, body, t) => {
        const header = sign(secret, body, t);
        const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
        expect(m).not.toBeNull();
        expect(Number(m![1])).toBe(t);
        expect(m![2]).toBe(computeSignature(secret, Buffer.from(body), t));
      }),
      { seed: 121, numRuns: 150 },
    );
  });
});
