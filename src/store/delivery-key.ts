import { hash } from 'node:crypto';

/**
 * A compact integer key for a delivery id: the first 48 bits of its SHA-256, a safe JS integer.
 * The dedupe index is on this integer instead of the random text id — much smaller index pages
 * (PERFORMANCE.md: the text index was the largest cost left). Collisions are handled by also
 * comparing the text id.
 */
export function deliveryKey(id: string): number {
  return hash('sha256', id, 'buffer').readUIntBE(0, 6);
}
