/**
 * The signed, opaque cursor of the deliveries list (spec 4.1): base64url of a small JSON
 * position, a dot, and an HMAC-SHA256 over it. A cursor is bound to its webhook; anything
 * altered, truncated or made for another list is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface CursorPosition {
  /** The webhook the list belongs to. */
  webhookId: string;
  /** The next page starts below this sequence number (newest first). */
  beforeSeq: number;
}

const MAX_CURSOR_LENGTH = 512;

/** The cursor text for `position`, signed with `key`. */
export function encodeCursor(position: CursorPosition, key: Buffer): string {
  const body = Buffer.from(JSON.stringify({ w: position.webhookId, s: position.beforeSeq }), 'utf8').toString('base64url');
  return `${body}.${mac(body, key)}`;
}

/**
 * The position a cursor names, or `invalid` when it is malformed, tampered with, or made for
 * another webhook than `webhookId`. Never throws.
 */
export function decodeCursor(text: string, key: Buffer, webhookId: string): { ok: true; position: CursorPosition } | { ok: false; reason: 'invalid' } {
  const invalid = { ok: false, reason: 'invalid' } as const;
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH) return invalid;
  const dot = text.indexOf('.');
  if (dot <= 0 || dot !== text.lastIndexOf('.')) return invalid;
  const body = text.slice(0, dot);
  const given = Buffer.from(text.slice(dot + 1), 'utf8');
  const expected = Buffer.from(mac(body, key), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return invalid;
  }
  const p = parsed as { w?: unknown; s?: unknown };
  if (typeof p.w !== 'string' || p.w !== webhookId || typeof p.s !== 'number' || !Number.isSafeInteger(p.s) || p.s < 0) return invalid;
  return { ok: true, position: { webhookId: p.w, beforeSeq: p.s } };
}

function mac(body: string, key: Buffer): string {
  return createHmac('sha256', key).update(`cursor.v1.${body}`).digest('base64url');
}
