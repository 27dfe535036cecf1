/**
 * The one-line rows of a stored delivery and an attempt, and a delivery, an attempt, a relay job and
 * a relay try as JSON (docs/cli-json.md's shared definitions): shared by every `events` subcommand.
 * The store's records keep their own names; the common names of issue 42 (docs/cli-json.md, Names)
 * are added here, beside the deprecated ones, holding the same values.
 */
import { decodeBodyLeniently, keptBodyText } from '../core/envelope.js';
import { displayUrl } from '../core/url-secrets.js';
import { printable } from '../reporter/printable.js';
import type { AttemptRecord, RelayAttemptRecord, RelayJob, StoredDelivery } from '../store/store.js';
import { time } from './events-store-access.js';

export function deliveryRow(d: StoredDelivery): string {
  const dup = d.duplicateCount > 0 ? `duplicate ×${d.duplicateCount}` : 'accepted';
  return [time(d.receivedAt), dup.padEnd(14), printable(d.trigger, 40).padEnd(34), printable(d.id, 64), d.signature === 'skipped' ? 'UNVERIFIED' : ''].join('  ').trimEnd();
}

export function attemptRow(a: AttemptRecord): string {
  return [time(a.receivedAt), `${a.status ?? '---'} ${a.outcome}`.padEnd(14), printable(a.trigger ?? '(no trigger)', 40).padEnd(34), printable(a.deliveryId ?? '(no id)', 64), printable(a.reason ?? '', 60)].join('  ').trimEnd();
}

/** A stored delivery as JSON (`storedDelivery`): its body as text and, exact, as base64. */
export const asJson = (d: StoredDelivery) => {
  const { rawBody, ...rest } = d;
  const bytes = Buffer.from(rawBody);
  return { ...rest, bodyBytes: rawBody.length, body: decodeBodyLeniently(bytes), bodyBase64: bytes.toString('base64') };
};

/** A relay job as JSON (`relayJob`): its target's credentials redacted; `lastResponseStatus` beside the deprecated `lastStatus`. */
export const relayJobJson = (job: RelayJob) => ({ ...job, target: job.target === null ? null : displayUrl(job.target), lastResponseStatus: job.lastStatus });

/**
 * A relay try for JSON output: the kept answer's body as text and base64, never as a byte array;
 * text and `invalidUtf8` as the console reads them (keptBodyText: a cut inside a character is not invalid).
 */
export function relayTryJson(r: RelayAttemptRecord, deliveryId: string) {
  // Tries recorded before targets were redacted on the way in keep what they were given.
  const { answer, ...tried } = r;
  const rest = { ...tried, deliveryId, responseStatus: tried.status, target: displayUrl(tried.target) };
  if (!answer) return { ...rest, answer: null };
  const body = Buffer.from(answer.body);
  const { text, invalidUtf8 } = keptBodyText(body, answer);
  return {
    ...rest,
    answer: { headers: answer.headers, headerLines: answer.headerLines, bodyBytes: answer.bodyBytes, complete: answer.complete, body: text, bodyBase64: body.toString('base64'), invalidUtf8 },
  };
}

/**
 * A stored attempt as JSON (`storedAttempt`), as every command prints one: `responseStatus` and
 * `attemptNumber` beside the deprecated `status` and `attemptHeader`, holding the same values.
 */
export function storedAttemptJson(a: AttemptRecord) {
  const { request: _request, ...record } = a;
  return { ...record, responseStatus: a.status, attemptNumber: a.attemptHeader };
}

/** An attempt for JSON output: the kept body as text and base64, never as a byte array; which of the sender's attempts it is, and which hop of it. */
export function attemptJson(a: AttemptRecord, senderAttempt: number, hop: number) {
  const { request } = a;
  const rest = storedAttemptJson(a);
  if (!request) return { ...rest, senderAttempt, hop, request: null };
  const body = request.body === null ? null : Buffer.from(request.body);
  return { ...rest, senderAttempt, hop, request: { headers: request.headers, body: body === null ? null : decodeBodyLeniently(body), bodyBase64: body === null ? null : body.toString('base64') } };
}
