/** Seeded randomness for the pure core: jitter, sample data and simulations repeat under one seed. */

/** A source of numbers in [0, 1), like Math.random but injectable. */
export type RandomSource = () => number;

/**
 * mulberry32: a tiny 32-bit PRNG, good enough for jitter and sample ids (not for secrets).
 * Returns a function yielding numbers in [0, 1); the same seed yields the same sequence.
 */
export function mulberry32(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A version-4-shaped UUID drawn from `random` (RFC 9562 layout: version nibble 4, variant 10xx).
 * Deterministic under a seeded source; never use it where an id must be unguessable.
 */
export function uuidFromRandom(random: RandomSource): string {
  const bytes = new Array<number>(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(random() * 256) & 0xff;
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
