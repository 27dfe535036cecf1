/**
 * The delivery envelope on Node: its types (envelope-types.ts), its one check and its lenient
 * decoding (envelope-check.ts, portable, which the kit also runs where there is no Buffer), and
 * how a body kept only in part reads.
 */
import { isUtf8 } from 'node:buffer';
import { decodeBodyLeniently } from './envelope-check.js';

export { CURRENT_API_VERSION, MAX_ID_LENGTH, cappedId, checkEnvelope, checkEnvelopeText, decodeBodyLeniently } from './envelope-check.js';
export type { AccessChannel, DecidedBy, DeliveryEnvelope, EnvelopeCheck, EnvelopeHeaders, EnvelopeProblem, TriggerName, TriggerPayloads } from './envelope-types.js';

/**
 * The length of `bytes` without a UTF-8 sequence that its end cuts short (at most 3 bytes go): a
 * body kept only in part (a relay answer's first 4 KiB) is not invalid UTF-8 because the cut fell
 * inside a character.
 */
export function wholeUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    // A byte that cannot lead a sequence (ASCII, 0xC0, 0xC1, 0xF5 and up) is left as it is.
    const needs = b >= 0xf5 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 1;
    return needs > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/**
 * How a body kept only in part reads: its text (decoded leniently) and whether it holds bytes that
 * are not UTF-8. `seen` is what came of the whole: when less was kept than came (`bodyBytes`), or
 * the body itself was cut off (`complete` false), the character the cut fell inside is left out of
 * both, so a valid UTF-8 body is never called invalid for where it was cut. The exact bytes are
 * still the kept ones. The one rule of the console's detail and of `events show`, text and JSON.
 */
export function keptBodyText(kept: Buffer, seen: { bodyBytes: number; complete: boolean }): { text: string; invalidUtf8: boolean } {
  const whole = keptInPart(kept, seen) ? kept.subarray(0, wholeUtf8Length(kept)) : kept;
  return { text: decodeBodyLeniently(whole), invalidUtf8: !isUtf8(whole) };
}

/** Whether the kept bytes are only the start of the body: fewer than were seen, or the body was not read to its end. */
export const keptInPart = (kept: Buffer, seen: { bodyBytes: number; complete: boolean }): boolean => kept.length < seen.bodyBytes || !seen.complete;
