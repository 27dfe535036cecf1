import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, UPPERCASE_HEX_NOTE, verify, type VerifyFailure } from '../../../src/core/signature/verify.js';
import { computeSignature, sign } from '../../../src/core/signature/sign.js';

const RUNS = { seed: 20260601, numRuns: 300 };
const FAILURES: readonly VerifyFailure[] = ['missing', 'malformed', 'no_signatures', 'mismatch', 'timestamp_too_old', 'timestamp_in_future'];

const bodies = fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes));
const secrets = fc.string({ minLength: 1, maxLength: 64, unit: 'binary' });
const timestamps = fc.integer({ min: 0, max: 99_999_999_999 });

/** Flips one bit of one byte of `text` (as latin1), at `index` modulo its length. */
function flipBit(text: string, index: number, bit: number): string {
  const bytes = Buffer.from(text, 'latin1');
  const at = index % bytes.length;
  bytes[at] = (bytes[at] as number) ^ (1 << bit);
  return bytes.toString('latin1');
}

describe('verify, properties', () => {
  it('a body of any bytes, signed raw, verifies', () => {
    fc.assert(
      fc.property(bodies, secrets, timestamps, (body, secret, t) => {
        const result = verify(body, sign(secret, body, t), { secrets: secret, nowSeconds: t });
        expect(result).toEqual({ ok: true, timestamp: t, secretIndex: 0, skewSeconds: 0 });
      }),
      RUNS,
    );
  });

  it('any case of the hex verifies, with the uppercase note exactly when a letter is upper-cased', () => {
    fc.assert(
      fc.property(bodies, secrets, timestamps, fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }), (body, secret, t, upper) => {
        const hex = computeSignature(secret, body, t);
        const written = [...hex].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
        const result = verify(body, `t=${t},v1=${written}`, { secrets: secret, nowSeconds: t });
        const expected = written === hex ? {} : { notes: [UPPERCASE_HEX_NOTE] };
        expect(result).toEqual({ ok: true, timestamp: t, secretIndex: 0, skewSeconds: 0, ...expected });
      }),
      RUNS,
    );
  });

  it('one flipped bit anywhere in the body never verifies', () => {
    fc.assert(
      fc.property(bodies.filter((b) => b.length > 0), secrets, timestamps, fc.nat(), fc.integer({ min: 0, max: 7 }), (body, secret, t, index, bit) => {
        const header = sign(secret, body, t);
        const changed = Buffer.from(body);
        const at = index % changed.length;
        changed[at] = (changed[at] as number) ^ (1 << bit);
        const result = verify(changed, header, { secrets: secret, nowSeconds: t });
        expect(result).toMatchObject({ ok: false, reason: 'mismatch' });
      }),
      RUNS,
    );
  });

  it('one flipped bit in the t digits never verifies', () => {
    fc.assert(
      fc.property(bodies, secrets, timestamps, fc.nat(), fc.integer({ min: 0, max: 7 }), (body, secret, t, index, bit) => {
        const header = sign(secret, body, t);
        const digits = String(t);
        const tampered = `t=${flipBit(digits, index, bit)}${header.slice(2 + digits.length)}`;
        // Whatever the clock and however wide the window, it must not verify.
        const result = verify(body, tampered, { secrets: secret, nowSeconds: t, toleranceSeconds: 1e15 });
        expect(result.ok).toBe(false);
      }),
      RUNS,
    );
  });

  it('one flipped bit in the signature bytes never verifies', () => {
    fc.assert(
      fc.property(bodies, secrets, timestamps, fc.integer({ min: 0, max: 255 }), (body, secret, t, bitIndex) => {
        const signature = Buffer.from(computeSignature(secret, body, t), 'hex');
        signature[bitIndex >> 3] = (signature[bitIndex >> 3] as number) ^ (1 << (bitIndex & 7));
        const result = verify(body, `t=${t},v1=${signature.toString('hex')}`, { secrets: secret, nowSeconds: t });
        expect(result).toMatchObject({ ok: false, reason: 'mismatch' });
      }),
      RUNS,
    );
  });

  it('one flipped bit in the v1 hex text never verifies, except a change of letter case (hex is case-insensitive)', () => {
    fc.assert(
      fc.property(bodies, secrets, timestamps, fc.nat(), fc.integer({ min: 0, max: 7 }), (body, secret, t, index, bit) => {
        const hex = computeSignature(secret, body, t);
        const flipped = flipBit(hex, index, bit);
        const result = verify(body, `t=${t},v1=${flipped}`, { secrets: secret, nowSeconds: t });
        expect(result.ok).toBe(flipped.toLowerCase() === hex);
      }),
      RUNS,
    );
  });
});

const anyHeaderString = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ maxLength: 200, unit: 'binary' }),
  fc.stringMatching(/^(t=[0-9+.e-]{0,17}|v[0-9]=[0-9a-fA-Fg]{0,66}|[a-z=]{0,3})(,(t|v1|v0|v2|)=?[0-9a-fA-F+.e -]{0,70}){0,10}$/),
  fc.string({ minLength: 4000, maxLength: 5000 }),
);
// Near-valid headers: one t at a random place among mostly well-formed parts, so that many of them parse.
const structuredHeader = fc
  .tuple(
    timestamps.map((t) => `t=${t}`),
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `v1=${Buffer.from(b).toString('hex')}`) },
        { weight: 1, arbitrary: fc.constantFrom('v1=junk', 'v0=abc', 'v2=def', 't=', 't=5', 'v1', '', 't=1e9', ` v1=${'a'.repeat(64)}`) },
      ),
      { maxLength: 10 },
    ),
    fc.nat(),
  )
  .map(([t, parts, at]) => [...parts.slice(0, at % (parts.length + 1)), t, ...parts.slice(at % (parts.length + 1))].join(','));
const anyHeader = fc.oneof(
  { weight: 3, arbitrary: structuredHeader },
  { weight: 1, arbitrary: anyHeaderString },
  { weight: 1, arbitrary: fc.array(fc.oneof(anyHeaderString, structuredHeader), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null) },
  // Wrong at runtime despite the types: what a loosely typed caller might pass.
  { weight: 1, arbitrary: fc.anything() as fc.Arbitrary<never> },
);
const anyBody = fc.oneof(bodies, fc.string({ maxLength: 500 }), fc.anything() as fc.Arbitrary<never>);

describe('never throws for any header or body', () => {
  it('verify returns a tagged result, with and without explain', () => {
    fc.assert(
      fc.property(anyBody, anyHeader, fc.boolean(), (body, header, explain) => {
        const result = verify(body, header, { secrets: ['whsec_a', 'whsec_b '], nowSeconds: 1_767_225_600, explain });
        if (result.ok) return;
        expect(FAILURES).toContain(result.reason);
        expect(typeof result.message).toBe('string');
        expect(Array.isArray(result.hints)).toBe(true);
        if (!explain) expect(result.hints).toEqual([]);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  it('a header that parses has a safe integer t and 1 to 8 signatures of 32 bytes', () => {
    let parsedCount = 0;
    fc.assert(
      fc.property(anyHeader, (header) => {
        const result = parseSignatureHeader(header);
        if (!result.ok) return;
        parsedCount++;
        expect(Number.isSafeInteger(result.header.timestamp)).toBe(true);
        expect(result.header.signatures.length).toBeGreaterThanOrEqual(1);
        expect(result.header.signatures.length).toBeLessThanOrEqual(8);
        for (const signature of result.header.signatures) expect(signature).toHaveLength(32);
      }),
      { seed: 7, numRuns: 2000 },
    );
    // Not vacuous: a good share of the generated headers did parse.
    expect(parsedCount).toBeGreaterThan(100);
  });

  it('explain survives bodies that cannot be re-serialised', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const result = verify(deep, sign('whsec_a', '[]', 1), { secrets: 'whsec_a', nowSeconds: 1, explain: true });
    expect(result).toMatchObject({ ok: false, reason: 'mismatch' });
  });
});
