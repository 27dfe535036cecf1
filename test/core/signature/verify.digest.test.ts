import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyBytes, findMatch, findMatchingSecret, matchesAny, signatureDigest } from '../../../src/core/signature/verify.js';
import { computeSignature } from '../../../src/core/signature/sign.js';

const BODY = Buffer.from('{"id":"evt_1"}');
const T = '1700000000';
const hex = (b: Buffer): string => b.toString('hex');
const digestOf = (secret: string, body: Uint8Array = BODY, t: string = T): Buffer => signatureDigest(secret, t, body);

describe('signatureDigest', () => {
  it('is the raw 32-byte HMAC-SHA256 of "<t>." and the body (openssl vector)', () => {
    const d = signatureDigest('whsec_test', T, BODY);
    expect(d).toBeInstanceOf(Buffer);
    expect(d.length).toBe(32);
    expect(hex(d)).toBe('c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925');
  });

  it('takes t exactly as the header carries it: "0170" is not "170"', () => {
    // printf '0170.x' | openssl dgst -sha256 -hmac k ; printf '170.x' | …
    expect(hex(signatureDigest('k', '0170', Buffer.from('x')))).toBe('dbf85c9e0095eb11ae0b98910ed9a3044122197ec5812ef85f62b9133f822c94');
    expect(hex(signatureDigest('k', '170', Buffer.from('x')))).toBe('9af46cb7bb962c9fb7951ffc4cd4171342b67c0f6631fc3af5e470a8055e3c09');
  });

  it('agrees with computeSignature for every integer t and body', () => {
    fc.assert(
      fc.property(fc.string(), fc.uint8Array({ maxLength: 200 }), fc.nat(), (secret, body, t) => {
        expect(hex(signatureDigest(secret, String(t), body))).toBe(computeSignature(secret, body, t));
      }),
      { seed: 131, numRuns: 300 },
    );
  });
});

describe('matchesAny', () => {
  const d = digestOf('a');
  const other = digestOf('b');

  it.each<[string, Buffer[], boolean]>([
    ['no candidates', [], false],
    ['the digest itself', [Buffer.from(d)], true],
    ['only another digest', [other], false],
    ['the digest after another', [other, Buffer.from(d)], true],
    ['the digest before another', [Buffer.from(d), other], true],
    ['a shorter prefix of it', [d.subarray(0, 31)], false],
    ['a longer extension of it', [Buffer.concat([d, Buffer.from([0])])], false],
    ['an empty candidate', [Buffer.alloc(0)], false],
    ['a mix of odd lengths and the digest', [Buffer.alloc(3), Buffer.alloc(64), Buffer.from(d)], true],
    ['the digest with one bit flipped', [Buffer.from(d.map((b, i) => (i === 31 ? b ^ 1 : b)))], false],
  ])('%s → %s', (_, candidates, expected) => {
    expect(matchesAny(d, candidates)).toBe(expected);
  });
});

describe('findMatchingSecret and findMatch', () => {
  const secrets = ['whsec_new', 'whsec_old', 'whsec_older'];
  const sig = (secret: string) => digestOf(secret);
  const junk = Buffer.alloc(32, 7);

  it.each<[string, string[], Buffer[], number]>([
    ['the first secret', secrets, [sig('whsec_new')], 0],
    ['a rotated-out secret', secrets, [sig('whsec_old')], 1],
    ['the last secret', secrets, [sig('whsec_older')], 2],
    ['no secret', secrets, [sig('whsec_other')], -1],
    ['no signatures', secrets, [], -1],
    ['no secrets', [], [sig('whsec_new')], -1],
    ['junk beside the old one', secrets, [junk, sig('whsec_old')], 1],
    ['both the new and the old one: the first secret wins', secrets, [sig('whsec_old'), sig('whsec_new')], 0],
    ['a repeated secret: its first place', ['x', 'x'], [sig('x')], 0],
    ['a hex string where bytes are due', secrets, [Buffer.from(hex(sig('whsec_new')))], -1],
  ])('finds %s', (_, list, signatures, index) => {
    expect(findMatchingSecret(list, T, BODY, signatures)).toBe(index);
  });

  it('says which signatures matched the first matching secret', () => {
    expect(findMatch(secrets, T, BODY, [sig('whsec_old'), junk, sig('whsec_old')])).toEqual({ secretIndex: 1, matched: [true, false, true] });
    expect(findMatch(secrets, T, BODY, [sig('whsec_old'), sig('whsec_new')])).toEqual({ secretIndex: 0, matched: [false, true] });
    expect(findMatch(secrets, T, BODY, [junk.subarray(0, 5), sig('whsec_older')])).toEqual({ secretIndex: 2, matched: [false, true] });
  });

  it('is null when nothing matches', () => {
    expect(findMatch(secrets, T, BODY, [junk])).toBeNull();
    expect(findMatch([], T, BODY, [junk])).toBeNull();
  });

  it('does not match a signature over another body or another t', () => {
    expect(findMatchingSecret(secrets, T, BODY, [digestOf('whsec_new', Buffer.from('{"id":"evt_2"}'))])).toBe(-1);
    expect(findMatchingSecret(secrets, T, BODY, [digestOf('whsec_new', BODY, '1700000001')])).toBe(-1);
  });

  it('finds the index of the secret that signed, for any list of distinct secrets', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 6 }), fc.nat(), fc.uint8Array({ maxLength: 64 }), (list, pick, body) => {
        const index = pick % list.length;
        const signed = signatureDigest(list[index]!, T, body);
        expect(findMatchingSecret(list, T, body, [signed])).toBe(index);
        expect(findMatch(list, T, body, [Buffer.alloc(32), signed])).toEqual({ secretIndex: index, matched: [false, true] });
      }),
      { seed: 132, numRuns: 200 },
    );
  });
});

describe('bodyBytes', () => {
  it('encodes a string as UTF-8', () => {
    expect(bodyBytes('Zoë ☃')).toEqual(Buffer.from([0x5a, 0x6f, 0xc3, 0xab, 0x20, 0xe2, 0x98, 0x83]));
    expect(bodyBytes('')).toEqual(Buffer.alloc(0));
  });

  it('hands bytes back as the very same object', () => {
    const buffer = Buffer.from('x');
    const view = new Uint8Array([1, 2, 3]);
    expect(bodyBytes(buffer)).toBe(buffer);
    expect(bodyBytes(view)).toBe(view);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a parsed object', { id: 'evt_1' }],
    ['an array of numbers', [1, 2, 3]],
    ['an ArrayBuffer', new ArrayBuffer(4)],
    ['a DataView', new DataView(new ArrayBuffer(4))],
    ['a Uint16Array', new Uint16Array(2)],
  ])('gives undefined for %s', (_, value) => {
    expect(bodyBytes(value)).toBeUndefined();
  });
});
