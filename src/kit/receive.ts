/**
 * One delivery through an adapter, the receiver's order (docs/architecture.md): signature over the
 * raw bytes → envelope and its headers → dedupe. No framework and no Node module here: each adapter
 * reads the bytes its way, calls this, and writes the answer back. The signature check is
 * injected: Node's synchronous `verify`, or the Web Crypto `verifyAsync`.
 */
import { checkOptions, type VerifyOptions, type VerifyResult } from '../core/signature/verify-verdict.js';
import { SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';
import { ENVELOPE_CODES, SIGNATURE_CODES, WebhookError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { readEnvelope } from './read-envelope.js';

/** Where an adapter remembers delivery ids (spec 6.4: at least once, dedupe on x-service-delivery). */
export interface DedupeStore {
  /** True the first time an id is claimed, false for a repeat. A rejection answers 503, so the service retries. */
  claim(deliveryId: string, event: WebhookEvent): boolean | Promise<boolean>;
  /**
   * Forgets a claimed id because the app did not take the delivery (its handler threw or answered
   * non-2xx): the service's retry must reach the handler again, not be answered as a repeat (spec
   * 6.4). Without it, a failed delivery's retries are all answered 200 and it is lost.
   */
  release?(deliveryId: string): void | Promise<void>;
}

export interface ReceiveOptions {
  /** Tried in order; any match accepts (rotation). */
  secrets: string | readonly string[];
  /** Largest accepted |t - now| in seconds, past and future alike (default 300). */
  toleranceSeconds?: number;
  /** The clock, milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Drops repeats of a delivery id: the handler sees each delivery until it takes it once (a failure releases the id). */
  dedupe?: DedupeStore;
  /** Largest body read, in bytes (default 1 MiB, as `listen`); larger: 413. */
  bodyLimitBytes?: number;
}

/** A verified delivery, as an adapter hands it to the app. */
export interface Delivery {
  event: WebhookEvent;
  deliveryId: string;
  /** `x-service-delivery-attempt`, when it is a number. */
  attempt: number | null;
  /** Which of the secrets matched. */
  secretIndex: number;
  /** A repeat of a delivery id the dedupe store had seen: the adapter answers 2xx without the handler. */
  duplicate: boolean;
  /** Notes about a signature that verified (e.g. uppercase hex). */
  notes: readonly string[];
  apiVersionKnown: boolean;
}

export type Received = { ok: true; delivery: Delivery } | { ok: false; error: WebhookError };

export type HeaderValue = string | readonly string[] | undefined | null;

export interface Incoming {
  /** The raw body bytes, exactly as received. */
  body: Uint8Array;
  /** A request header by lower-case name. */
  header(name: string): HeaderValue;
}

export type Verifier = (body: Uint8Array, header: HeaderValue, options: VerifyOptions) => VerifyResult | Promise<VerifyResult>;

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** The settings checked once, at startup: a bad secret or tolerance throws here, never per request. */
export interface ReceiveSettings {
  secrets: readonly string[];
  toleranceSeconds: number | undefined;
  now: () => number;
  dedupe: DedupeStore | undefined;
  bodyLimitBytes: number;
}

export function receiveSettings(options: ReceiveOptions): ReceiveSettings {
  if (options === null || typeof options !== 'object') throw new TypeError('hookrelay adapter options must be an object with at least `secrets`');
  const { secrets } = checkOptions({ secrets: options.secrets, toleranceSeconds: options.toleranceSeconds, nowSeconds: 0 });
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1) throw new RangeError(`bodyLimitBytes must be a whole number of bytes > 0, got ${String(bodyLimitBytes)}`);
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function returning milliseconds since the epoch');
  return { secrets, toleranceSeconds: options.toleranceSeconds, now: options.now ?? Date.now, dedupe: options.dedupe, bodyLimitBytes };
}

/** One header value: a repeated header reads joined with ", ", as node and fetch join it. */
export function singleHeader(value: HeaderValue): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

/**
 * Verifies, checks the envelope, and claims the id. Resolves with the delivery or the refusal the
 * receiver would answer with (hints computed only on a refusal); never rejects.
 */
export async function receive(incoming: Incoming, settings: ReceiveSettings, verifier: Verifier): Promise<Received> {
  const nowSeconds = settings.now() / 1000;
  const options = { secrets: settings.secrets, toleranceSeconds: settings.toleranceSeconds, nowSeconds };
  const signatureHeader = incoming.header(SIGNATURE_HEADER_NAME);
  const verdict = await verifier(incoming.body, signatureHeader, options);
  if (!verdict.ok) {
    // Again with explanations: the extra HMACs of the guesses are spent only on a refusal.
    const explained = await verifier(incoming.body, signatureHeader, { ...options, explain: true });
    const hints = explained.ok ? [] : explained.hints;
    return { ok: false, error: new WebhookError(SIGNATURE_CODES[verdict.reason], 400, verdict.message, { hints, reason: verdict.reason }) };
  }
  const deliveryId = singleHeader(incoming.header('x-service-delivery'));
  const read = readEnvelope(incoming.body, { deliveryId, event: singleHeader(incoming.header('x-service-event')) });
  if (!read.ok) return { ok: false, error: new WebhookError(ENVELOPE_CODES[read.problem], 400, read.message) };
  const event = read.envelope as WebhookEvent;
  let duplicate = false;
  if (settings.dedupe) {
    try {
      duplicate = !(await settings.dedupe.claim(event.id, event));
    } catch (err) {
      const message = 'the dedupe store could not claim the delivery id; nothing was acknowledged — the service retries';
      return { ok: false, error: new WebhookError('DEDUPE_UNAVAILABLE', 503, message, { cause: err }) };
    }
  }
  const attemptText = singleHeader(incoming.header('x-service-delivery-attempt'));
  const attempt = attemptText !== undefined && /^[0-9]{1,9}$/.test(attemptText) ? Number(attemptText) : null;
  return {
    ok: true,
    delivery: { event, deliveryId: event.id, attempt, secretIndex: verdict.secretIndex, duplicate, notes: verdict.notes ?? [], apiVersionKnown: read.apiVersionKnown },
  };
}

/**
 * Undoes this request's claim after the app failed to take the delivery (no-op without a store, for
 * a repeat, or for a store without `release`). Never rejects: the answer is already a failure, and a
 * store that cannot forget the id leaves the delivery as deduped as before — nothing better to do here.
 */
export async function releaseClaim(settings: ReceiveSettings, delivery: Delivery): Promise<void> {
  if (!settings.dedupe?.release || delivery.duplicate) return;
  try {
    await settings.dedupe.release(delivery.deliveryId);
  } catch {
    // See above: swallowed on purpose.
  }
}

/** The 413 for a body over the limit. */
export function tooLarge(limit: number): WebhookError {
  return new WebhookError('PAYLOAD_TOO_LARGE', 413, `the body is over the limit of ${limit} bytes`, { hints: ['raise bodyLimitBytes if deliveries this large are expected'] });
}

/** A dedupe store in memory, for one process: ids are forgotten after `max` newer ones (default 10,000). */
export function memoryDedupe(max = 10_000): Required<DedupeStore> & { size(): number } {
  const seen = new Set<string>();
  return {
    claim(id) {
      if (seen.has(id)) return false;
      seen.add(id);
      if (seen.size > max) seen.delete(seen.values().next().value as string);
      return true;
    },
    release(id) {
      seen.delete(id);
    },
    size: () => seen.size,
  };
}
