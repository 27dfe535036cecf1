/**
 * The delivery envelope on Node: its types (envelope-types.ts) and its one check (envelope-check.ts,
 * on text, which the kit also runs where there is no Buffer), with the raw bytes decoded here.
 */
import { checkEnvelopeText } from './envelope-check.js';
import type { EnvelopeCheck, EnvelopeHeaders } from './envelope-types.js';

export { CURRENT_API_VERSION, MAX_ID_LENGTH, checkEnvelopeText } from './envelope-check.js';
export type { AccessChannel, DecidedBy, DeliveryEnvelope, EnvelopeCheck, EnvelopeHeaders, EnvelopeProblem, TriggerName, TriggerPayloads } from './envelope-types.js';

/**
 * Decodes a raw body for reading only: a leading BOM is skipped (RFC 8259 §8.1 lets a parser
 * ignore it) and invalid UTF-8 becomes U+FFFD. The raw bytes stay what is stored and relayed.
 */
export function decodeBodyLeniently(raw: Buffer): string {
  const start = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
  return raw.toString('utf8', start);
}

/**
 * Parses and checks a delivery body against spec 6.1 and the delivery headers.
 * Returns the envelope, or the first problem found with a message naming the field.
 * `headers.deliveryId` / `headers.event` are the `x-service-delivery` / `x-service-event` values.
 */
export function checkEnvelope(raw: Buffer, headers: EnvelopeHeaders): EnvelopeCheck {
  return checkEnvelopeText(decodeBodyLeniently(raw), headers);
}
