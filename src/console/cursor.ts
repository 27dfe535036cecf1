/**
 * Opaque signed cursors (spec 4.1: "Cursors are signed and opaque; a tampered or malformed cursor
 * answers 400 INVALID_CURSOR"). A cursor is the store sequence to continue below, tagged with the
 * list it belongs to and signed with a key that lives as long as the process.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type CursorKind = 'deliveries' | 'attempts';

export interface CursorCodec {
  encode(kind: CursorKind, seq: number): string;
  /** The sequence, or null for a cursor this process did not make for this list. */
  decode(kind: CursorKind, cursor: string): number | null;
}

const MAC_BYTES = 16;

export function createCursorCodec(key: Buffer = randomBytes(32)): CursorCodec {
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  return {
    encode(kind, seq) {
      const payload = `${kind}:${seq}`;
      return `${Buffer.from(payload).toString('base64url')}.${mac(payload).toString('base64url')}`;
    },
    decode(kind, cursor) {
      if (cursor.length > 200) return null;
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
      if (!match) return null;
      const payload = Buffer.from(match[1]!, 'base64url').toString('utf8');
      const given = Buffer.from(match[2]!, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const parsed = /^([a-z]+):(\d{1,16})$/.exec(payload);
      if (!parsed || parsed[1] !== kind) return null;
      const seq = Number(parsed[2]);
      return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
    },
  };
}
