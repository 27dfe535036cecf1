/** Plausible edits a body suffers between signing and verifying, used to guess why a signature failed. */
import { decodeBodyLeniently } from '../envelope.js';
import type { SignatureHintId } from './signature-hint.js';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const RAW_BODY_ADVICE = 'pass the raw request body bytes, not a parsed and re-encoded object';

export interface BodyVariant {
  bytes: Buffer;
  /** What the variant is, finishing "it matches the body …". */
  description: string;
  advice: string;
  /** The id of the hint naming this change. */
  hintId: Extract<SignatureHintId, 'body-line-ending' | 'body-bom' | 'body-reserialised'>;
}

/** Plausible edits of the body, each distinct from it and from each other. */
export function bodyVariants(body: Buffer): BodyVariant[] {
  // Simplest edits first: when two edits give the same bytes, the simpler one names the cause.
  const candidates: BodyVariant[] = [];
  const lineEnding = { advice: 'something between sender and verifier changed the line ending; pass the raw request body bytes', hintId: 'body-line-ending' } as const;
  if (endsWith(body, '\r\n')) {
    candidates.push({ bytes: body.subarray(0, -2), description: 'with its trailing CRLF removed', ...lineEnding });
  } else if (endsWith(body, '\n')) {
    candidates.push({ bytes: body.subarray(0, -1), description: 'with its trailing newline removed', ...lineEnding });
  } else {
    candidates.push(
      { bytes: Buffer.concat([body, Buffer.from('\n')]), description: 'with a trailing newline added', ...lineEnding },
      { bytes: Buffer.concat([body, Buffer.from('\r\n')]), description: 'with a trailing CRLF added', ...lineEnding },
    );
  }
  if (body.subarray(0, 3).equals(UTF8_BOM)) {
    candidates.push({
      bytes: body.subarray(3),
      description: 'with its leading UTF-8 BOM removed',
      advice: 'a byte-order mark was added after signing; pass the raw request body bytes',
      hintId: 'body-bom',
    });
  } else {
    candidates.push({
      bytes: Buffer.concat([UTF8_BOM, body]),
      description: 'with a UTF-8 BOM added in front',
      advice: 'the byte-order mark was stripped after signing (text decoding does this); pass the raw request body bytes, not a decoded string',
      hintId: 'body-bom',
    });
  }
  const parsed = parseJson(body);
  if (parsed.ok) {
    candidates.push(
      ...jsonVariant(() => JSON.stringify(parsed.value), 're-serialised with JSON.stringify'),
      ...jsonVariant(() => JSON.stringify(parsed.value, null, 2), 'pretty-printed with JSON.stringify(…, null, 2)'),
    );
  }
  const distinct: BodyVariant[] = [];
  for (const candidate of candidates) {
    if (candidate.bytes.equals(body) || distinct.some((d) => d.bytes.equals(candidate.bytes))) continue;
    distinct.push(candidate);
  }
  return distinct;
}

function jsonVariant(render: () => string, description: string): BodyVariant[] {
  try {
    return [{ bytes: Buffer.from(render(), 'utf8'), description, advice: RAW_BODY_ADVICE, hintId: 'body-reserialised' }];
  } catch {
    return []; // e.g. nesting too deep to re-serialise: no guess from this variant
  }
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(decodeBodyLeniently(body)) };
  } catch {
    return { ok: false };
  }
}

/** Whether the body is exactly what JSON.stringify writes for its own parse. */
export function isCompactJson(body: Uint8Array): boolean {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const parsed = parseJson(buffer);
  if (!parsed.ok) return false;
  try {
    return Buffer.from(JSON.stringify(parsed.value), 'utf8').equals(buffer);
  } catch {
    return false;
  }
}

function endsWith(body: Buffer, suffix: string): boolean {
  const tail = Buffer.from(suffix, 'latin1');
  return body.length >= tail.length && body.subarray(body.length - tail.length).equals(tail);
}
