/**
 * The signature scheme of spec 6.3 on Web Crypto (`crypto.subtle`): for Deno, Bun, browsers and
 * Workers, and Node too. Same options, results, messages and codes as the synchronous
 * `verify` (src/core/signature/verify.ts): the header parser and the verdict around the HMAC are
 * the same modules. Portable: no Node module or global is imported here (test/kit/portable.test.ts).
 */
import { headerNoteHints, noMatchQuestion } from '../core/signature/explain-text.js';
import { atNow } from './at-now.js';
import { parseSignatureFields } from '../core/signature/verify-verdict.js';
import {
  checkOptions,
  headerRefusal,
  judgeMatched,
  mismatchMessage,
  notBytesRefusal,
  type VerifyOptions,
  type VerifyResult,
} from '../core/signature/verify-verdict.js';

/**
 * The two calls made on Web Crypto, declared here rather than as the DOM library's `SubtleCrypto`:
 * the published types then compile in a Node project without `"lib": ["DOM"]`, and a browser's
 * `crypto.subtle` and Node's `webcrypto.subtle` (whose types differ) both fit.
 */
export interface HmacSubtle {
  importKey(format: 'raw', keyData: Uint8Array<ArrayBuffer>, algorithm: { name: 'HMAC'; hash: 'SHA-256' }, extractable: boolean, keyUsages: 'sign'[]): Promise<object>;
  sign(algorithm: 'HMAC', key: object, data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
}

export interface VerifyAsyncOptions extends VerifyOptions {
  /** The Web Crypto to use; default `globalThis.crypto.subtle`. */
  subtle?: HmacSubtle;
}

/** A raw body as the platforms hand it over: bytes, an ArrayBuffer (`await request.arrayBuffer()`), or text. */
export type RawBody = Uint8Array | ArrayBuffer | string;

const encoder = new TextEncoder();

/**
 * Verifies a delivery's `x-service-signature` against its raw body (spec 6.3), as `verify` does:
 * any v1 matching any secret (constant time, every candidate compared), then `t` within the
 * tolerance, past and future alike. Resolves with the same `VerifyResult`; with `explain`, the hints
 * that need no extra HMAC (the synchronous `verify` also guesses re-serialised bodies and
 * whitespace in secrets). Rejects only for invalid options or when no Web Crypto is available.
 */
export async function verifyAsync(rawBody: RawBody, header: string | readonly string[] | undefined | null, options: VerifyAsyncOptions): Promise<VerifyResult> {
  const checked = checkOptions(atNow(options));
  const parsed = parseSignatureFields(header);
  if (!parsed.ok) return headerRefusal(parsed, checked);
  const { timestamp, timestampText, v1Hex, uppercaseHex } = parsed.header;
  const skewSeconds = timestamp - checked.nowSeconds;

  const body = bytesOf(rawBody);
  if (body === undefined) return notBytesRefusal(rawBody, timestamp, skewSeconds, checked.explain);

  const subtle = subtleOf(options);
  const signatures = v1Hex.map(hexBytes);
  const message = concat(encoder.encode(`${timestampText}.`), body);
  for (let secretIndex = 0; secretIndex < checked.secrets.length; secretIndex++) {
    const digest = await hmacSha256(subtle, checked.secrets[secretIndex] as string, message);
    const matched = signatures.map((candidate) => constantTimeEqual(candidate, digest));
    if (matched.includes(true)) return judgeMatched({ timestamp, skewSeconds, secretIndex, matched, uppercaseHex }, checked);
  }
  return {
    ok: false,
    reason: 'mismatch',
    message: mismatchMessage(checked.secrets.length, signatures.length),
    timestamp,
    skewSeconds,
    hints: checked.explain ? [noMatchQuestion(checked.secrets.length), ...headerNoteHints(parsed.header)] : [],
  };
}

/** The `x-service-signature` value for one attempt, `t=<unix seconds>,v1=<hex>`, on Web Crypto. */
export async function signAsync(secret: string, rawBody: RawBody, timestampSeconds: number, options: { subtle?: HmacSubtle } = {}): Promise<string> {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestamp must be a non-negative integer number of seconds, got ${timestampSeconds}`);
  }
  if (typeof secret !== 'string' || secret === '') throw new RangeError('the secret must be a non-empty string');
  const body = bytesOf(rawBody);
  if (body === undefined) throw new TypeError('the body must be a Uint8Array, an ArrayBuffer or a string of the exact bytes sent');
  const digest = await hmacSha256(subtleOf(options), secret, concat(encoder.encode(`${timestampSeconds}.`), body));
  return `t=${timestampSeconds},v1=${toHex(digest)}`;
}

function subtleOf(options: { subtle?: HmacSubtle }): HmacSubtle {
  const subtle = options.subtle ?? (globalThis as { crypto?: { subtle?: HmacSubtle } }).crypto?.subtle;
  if (!subtle) {
    throw new Error('no Web Crypto here (globalThis.crypto.subtle is missing; browsers offer it only on secure origins): pass options.subtle, or use the synchronous verify on Node');
  }
  return subtle;
}

/** HMAC-SHA256 keyed by the secret's UTF-8 bytes, as node's createHmac(…, secret) keys it. */
async function hmacSha256(subtle: HmacSubtle, secret: string, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', key, message));
}

function bytesOf(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return encoder.encode(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  return undefined;
}

/** Compares every byte whatever differs, so the time taken says nothing about where. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** `hex` is 64 hex characters (the parser checked it). */
function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
