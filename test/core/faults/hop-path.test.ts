import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildHopPath, hopPrefix, makeHopNonce, parseHopPath, type HopRef } from '../../../src/core/faults/hop-path.js';
import { mulberry32 } from '../../../src/core/seeded-random.js';

describe('hop paths', () => {
  const ref: HopRef = { hop: 2, total: 4, status: 307, nonce: 'k3j9x0q2ab' };

  it('builds <path>/__hop/<n>/<total>-<status>-<nonce>', () => {
    expect(buildHopPath('/webhooks', ref)).toBe('/webhooks/__hop/2/4-307-k3j9x0q2ab');
    expect(buildHopPath('/webhooks/', ref)).toBe('/webhooks/__hop/2/4-307-k3j9x0q2ab');
    expect(buildHopPath('/', ref)).toBe('/__hop/2/4-307-k3j9x0q2ab');
    expect(hopPrefix('/webhooks')).toBe('/webhooks/__hop/');
  });

  it('reads a built path back, with or without a query string', () => {
    expect(parseHopPath('/webhooks', '/webhooks/__hop/2/4-307-k3j9x0q2ab')).toEqual({ ok: true, ref });
    expect(parseHopPath('/webhooks', '/webhooks/__hop/2/4-307-k3j9x0q2ab?x=1')).toEqual({ ok: true, ref });
  });

  it('round-trips every valid ref', () => {
    const arbRef = fc
      .record({ total: fc.integer({ min: 1, max: 20 }), status: fc.constantFrom(307 as const, 308 as const), nonce: fc.stringMatching(/^[A-Za-z0-9]{1,32}$/) })
      .chain((r) => fc.integer({ min: 1, max: r.total }).map((hop) => ({ ...r, hop })));
    fc.assert(
      fc.property(arbRef, fc.constantFrom('/webhooks', '/', '/a/b'), (r, base) => {
        expect(parseHopPath(base, buildHopPath(base, r))).toEqual({ ok: true, ref: r });
      }),
      { seed: 6, numRuns: 300 },
    );
  });

  it.each<[string, 'not_a_hop' | 'malformed_hop']>([
    ['/webhooks', 'not_a_hop'],
    ['/webhooks/', 'not_a_hop'],
    ['/other/__hop/1/4-307-abc', 'not_a_hop'],
    ['/webhooks__hop/1/4-307-abc', 'not_a_hop'],
    ['/webhooks/__hop/5/4-307-abc', 'malformed_hop'],
    ['/webhooks/__hop/0/4-307-abc', 'malformed_hop'],
    ['/webhooks/__hop/1/21-307-abc', 'malformed_hop'],
    ['/webhooks/__hop/1/4-302-abc', 'malformed_hop'],
    ['/webhooks/__hop/1/4-307-', 'malformed_hop'],
    ['/webhooks/__hop/1/4-307-a/b', 'malformed_hop'],
    ['/webhooks/__hop/1/4-307-ab%20c', 'malformed_hop'],
  ])('refuses %s as %s', (path, reason) => {
    expect(parseHopPath('/webhooks', path)).toEqual({ ok: false, reason });
  });

  it('refuses a non-string path without throwing', () => {
    expect(parseHopPath('/webhooks', undefined as unknown as string)).toEqual({ ok: false, reason: 'not_a_hop' });
  });

  it('refuses to build a ref it could not read back', () => {
    expect(() => buildHopPath('/webhooks', { ...ref, nonce: 'a/b' })).toThrow(RangeError);
  });

  it('draws nonces from the source given: same seed, same nonce; odd sources stay in the alphabet', () => {
    expect(makeHopNonce(mulberry32(9))).toBe(makeHopNonce(mulberry32(9)));
    expect(makeHopNonce(mulberry32(9))).toMatch(/^[a-z0-9]{10}$/);
    expect(makeHopNonce(() => Number.NaN)).toBe('aaaaaaaaaa');
    expect(makeHopNonce(() => 1)).toBe('9999999999');
  });
});
