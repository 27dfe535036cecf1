/**
 * Why the receiver refused an arrival, in the words of the likely cause: the explanations
 * `hookrelay verify` prints (a secret with a trailing newline, a body re-serialised after signing,
 * a clock skew of N s, a header that disagrees with the body). One implementation for both: verify
 * prints them for a captured request, and the pipeline keeps them with every rejected attempt.
 * Each hint carries an id, which is what a reader decides by (never its wording).
 */
import { decodeBodyLeniently } from '../core/envelope.js';
import type { SignatureHint } from '../core/signature/signature-hint.js';
import { verifyExplained, type ExplainedResult } from '../core/signature/verify.js';
import { type Arrival, type CheckName, readFacts, type SignatureSettings } from './arrival.js';

/**
 * The receiver's signature check again, with explanations: the extra HMACs of the guesses are
 * spent only on a refusal (verify.ts MAX_EXPLAIN_BODY_BYTES bounds them). Null when the body was
 * not read (the size check refused it first) or verification is skipped.
 */
export function explainSignature(arrival: Arrival, settings: SignatureSettings): ExplainedResult | null {
  if (arrival.unread || arrival.upstream || settings.skipVerify || settings.secrets.length === 0) return null;
  return verifyExplained(arrival.rawBody, readFacts(arrival).signatureHeader, {
    secrets: settings.secrets,
    toleranceSeconds: settings.toleranceSeconds,
    nowSeconds: arrival.receivedAt / 1000,
    explain: true,
  });
}

/** A header the envelope is compared with, missing from the request; each reader words what to do about it. */
export interface MissingHeader {
  header: 'x-service-delivery' | 'x-service-event';
  /** The envelope field it must equal. */
  field: 'id' | 'type';
}

/** A hint on a refusal: the signature check's, the body limit's, or a header's that disagrees with the envelope. */
export type RefusalHint = SignatureHint | { id: 'body-over-limit' | 'header-disagrees'; text: string };

export interface RefusalHints {
  hints: RefusalHint[];
  /** Headers the envelope check needed and the request lacked (envelope refusals only). */
  missing: MissingHeader[];
}

export interface RefusalContext {
  /** The check that refused, and the code it answered with. */
  check: CheckName;
  code: string;
  /** The signature check with its explanation (explainSignature); null when it did not run. */
  signature: ExplainedResult | null;
  bodyLimitBytes: number;
}

const ENVELOPE_HEADERS: Record<string, MissingHeader> = {
  DELIVERY_ID_MISMATCH: { header: 'x-service-delivery', field: 'id' },
  EVENT_TYPE_MISMATCH: { header: 'x-service-event', field: 'type' },
};

/** Hints on a refusal: the signature check's explanations, the body limit, or how the headers disagree with the envelope. */
export function refusalHints(arrival: Arrival, context: RefusalContext): RefusalHints {
  switch (context.check) {
    case 'size':
      return {
        hints:
          arrival.unread?.problem === 'too_large'
            ? [{ id: 'body-over-limit', text: `the body is ${arrival.unread.declaredBytes} bytes, over the receiver's --body-limit of ${context.bodyLimitBytes} bytes` }]
            : [],
        missing: [],
      };
    case 'signature':
      return { hints: context.signature && !context.signature.ok ? context.signature.hints : [], missing: [] };
    case 'envelope':
      return envelopeHints(arrival, context.code);
  }
}

/** What a receiver's record says about a missing header (verify words it for a capture file or for flags). */
export function missingHeaderHint(missing: readonly MissingHeader[]): string | null {
  if (missing.length === 0) return null;
  return `the request has no ${missing.map((m) => m.header).join(' or ')} header: the service sends x-service-delivery, x-service-event, x-service-delivery-attempt and x-service-signature with every delivery`;
}

/** A hostile value quoted for a hint: JSON escapes its control characters; whoever shows the hint makes the rest printable. */
const quoted = (text: string, max = 100) => JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Lines of one header, case-insensitively, in arrival order. */
function headerLines(arrival: Arrival, name: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i + 1 < arrival.rawHeaders.length; i += 2) if (arrival.rawHeaders[i]!.toLowerCase() === name) lines.push(arrival.rawHeaders[i + 1]!);
  return lines;
}

/** For a header that disagrees with the body: what the receiver read; and every header missing, all at once. */
function envelopeHints(arrival: Arrival, code: string): RefusalHints {
  const failing = ENVELOPE_HEADERS[code];
  if (!failing) return { hints: [], missing: [] };
  // checkEnvelope parsed this body before it compared the headers.
  const body = JSON.parse(decodeBodyLeniently(arrival.rawBody)) as Record<string, string>;
  const hints: RefusalHint[] = [];
  const lines = headerLines(arrival, failing.header);
  if (lines.length > 0) {
    const received = lines.length > 1 ? `${lines.length} ${failing.header} lines, which the receiver reads joined with ", "` : `${failing.header} is ${quoted(lines[0]!)}`;
    hints.push({ id: 'header-disagrees', text: `${received}; the body "${failing.field}" is ${quoted(String(body[failing.field]))}: send exactly one ${failing.header}, equal to it` });
  }
  const missing = Object.values(ENVELOPE_HEADERS).filter(({ header }) => headerLines(arrival, header).length === 0);
  return { hints, missing };
}

export interface ReceiverHintSettings extends SignatureSettings {
  bodyLimitBytes: number;
}

/**
 * The receiver read the raw bytes itself, so the library's general question on a mismatch ("are you
 * passing the raw request body?") is not for it: when no sharper guess matched, the cause is another
 * secret or a changed body, and this says what to do about a secret on either side.
 */
export function otherSecretHint(secretCount: number): string {
  const mine = secretCount === 1 ? "this receiver's secret" : `any of this receiver's ${secretCount} secrets`;
  return (
    `no v1 signature matches with ${mine}: the sender signed with another secret, or the body changed after signing. ` +
    `Sign with the secret listen shows at start (whsec_… and its end), or give listen the sender's (HOOKRELAY_SECRET, comma-separated for several, or --secret); ` +
    `with neither, send and listen share their data folder's secret`
  );
}

/** A refusal's hints in the receiver's words: its own (otherSecretHint) for the library's general question, picked by id. */
export function inReceiverWords(hints: readonly RefusalHint[], secretCount: number): string[] {
  return hints.map((hint) => (hint.id === 'no-match-question' ? otherSecretHint(secretCount) : hint.text));
}

/** A refusal's hints as texts in the receiver's words, and the headers it lacked, which each reader words for itself. */
export interface ReceiverRefusal {
  hints: string[];
  missing: MissingHeader[];
}

/**
 * The one path from a refusal to the receiver's words: refusalHints, then inReceiverWords. The
 * pipeline keeps these with a rejected attempt; `verify` and `explain_rejection` print the same.
 */
export function receiverRefusal(arrival: Arrival, context: RefusalContext, secretCount: number): ReceiverRefusal {
  const refusal = refusalHints(arrival, context);
  return { hints: inReceiverWords(refusal.hints, secretCount), missing: refusal.missing };
}

/** Every hint the receiver keeps with a rejected attempt: the refusal's, and in the receiver's words which headers were missing. */
export function receiverHints(arrival: Arrival, check: CheckName, code: string, settings: ReceiverHintSettings): string[] {
  const signature = check === 'signature' ? explainSignature(arrival, settings) : null;
  const { hints, missing } = receiverRefusal(arrival, { check, code, signature, bodyLimitBytes: settings.bodyLimitBytes }, settings.secrets.length);
  const missingHint = missingHeaderHint(missing);
  return missingHint === null ? hints : [...hints, missingHint];
}
