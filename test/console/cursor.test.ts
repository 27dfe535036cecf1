import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../src/console/cursor.js';

describe('cursor codec', () => {
  const codec = createCursorCodec(Buffer.alloc(32, 7));

  it('round-trips any positive sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (seq) => codec.decode('deliveries', codec.encode('deliveries', seq)) === seq),
      { seed: 6 },
    );
  });

  it('refuses a cursor of another list, another key or a changed character', () => {
    const cursor = codec.encode('deliveries', 42);
    expect(codec.decode('attempts', cursor)).toBeNull();
    expect(createCursorCodec(Buffer.alloc(32, 8)).decode('deliveries', cursor)).toBeNull();
    fc.assert(
      fc.property(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...'ABCxyz019-_'), (index, ch) => {
        const tampered = cursor.slice(0, index) + ch + cursor.slice(index + 1);
        // base64url's last character may carry unused bits: same bytes, same cursor.
        const result = codec.decode('deliveries', tampered);
        return result === null || result === 42;
      }),
      { seed: 6 },
    );
  });

  it.each(['', 'x', '.', 'a.b', '42', 'ZGVsaXZlcmllczo0Mg', `${'a'.repeat(300)}.b`, 'ZGVsaXZlcmllczo0Mg.!!'])('refuses %j', (cursor) => {
    expect(codec.decode('deliveries', cursor)).toBeNull();
  });

  it('refuses a correctly signed payload that is not a positive sequence', () => {
    const forge = (payload: string) => {
      const mac = createHmac('sha256', Buffer.alloc(32, 7)).update(payload).digest().subarray(0, 16);
      return `${Buffer.from(payload).toString('base64url')}.${mac.toString('base64url')}`;
    };
    expect(codec.decode('deliveries', forge('deliveries:42'))).toBe(42);
    expect(codec.decode('deliveries', forge('deliveries:0'))).toBeNull();
    expect(codec.decode('deliveries', forge('deliveries:-1'))).toBeNull();
    expect(codec.decode('deliveries', forge('deliveries:1e3'))).toBeNull();
  });
});
