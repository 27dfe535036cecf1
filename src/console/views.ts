/**
 * What the control API and the feed send about deliveries and attempts. Everything is built
 * field by field: nothing unlisted (least of all a secret) can ride along. Bodies are sent as
 * leniently decoded text plus base64 of the exact bytes, so invalid UTF-8 never breaks JSON.
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { splitSenderAttempts } from '../core/conformance/group-attempts.js';
import { decodeBodyLeniently, keptBodyText, keptInPart } from '../core/envelope.js';
import { displayUrl } from '../core/url-secrets.js';
import type { AttemptRecord, KeptAnswer, StoredDelivery } from '../store/store.js';
import type { ConsoleStatus, RelayRecordView } from './console-options.js';

/** Longest id, trigger or reason text put into a list item or feed message. */
export const MAX_FIELD_CHARS = 1024;
/** Bodies larger than this are sent without inline text and base64 (download the raw body). */
export const MAX_INLINE_BODY_BYTES = 4 * 1024 * 1024;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function clip(value: string, max?: number): string;
export function clip(value: string | null, max?: number): string | null;
export function clip(value: string | null, max = MAX_FIELD_CHARS): string | null {
  if (value === null) return null;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** A URL for display, its credentials redacted (core/url-secrets.ts). */
export const redactUrl = (value: string | null): string | null => (value === null ? null : displayUrl(value));

/** What the page is sent: the status itself, each field checked (the same shape: an allow-list by construction). */
export type StatusView = ConsoleStatus;

export function statusView(status: ConsoleStatus): StatusView {
  return {
    version: String(status.version),
    receiverUrl: String(status.receiverUrl),
    path: String(status.path),
    secretHints: Array.isArray(status.secretHints) ? status.secretHints.map((h) => String(h)) : [],
    skipVerify: status.skipVerify === true,
    forwardTo: redactUrl(status.forwardTo ?? null),
    toleranceSeconds: Number(status.toleranceSeconds),
  };
}

/** The attempt fields the API and feed send: an allow-list, so a field added to the record later is not sent by accident. */
export type AttemptView = Pick<
  AttemptRecord,
  'seq' | 'deliveryId' | 'trigger' | 'receivedAt' | 'finishedAt' | 'attemptHeader' | 'signatureTimestamp' | 'bodySha256' | 'bodyBytes' | 'outcome' | 'status' | 'reason' | 'retryAfter'
> & {
  /** Why a rejection happened, in `hookrelay verify`'s words (empty when there is nothing to say). */
  hints: string[];
};

/** Hints per attempt, each clipped; a sender could not make them long, but the record is data. */
const MAX_HINTS = 10;

export function attemptView(a: AttemptRecord): AttemptView {
  return {
    seq: a.seq,
    deliveryId: clip(a.deliveryId),
    trigger: clip(a.trigger),
    receivedAt: a.receivedAt,
    finishedAt: a.finishedAt,
    attemptHeader: a.attemptHeader,
    signatureTimestamp: a.signatureTimestamp,
    bodySha256: a.bodySha256,
    bodyBytes: a.bodyBytes,
    outcome: a.outcome,
    status: a.status,
    reason: clip(a.reason),
    retryAfter: clip(a.retryAfter, 200),
    hints: (a.hints ?? []).slice(0, MAX_HINTS).map((hint) => clip(String(hint))!),
  };
}

/**
 * An attempt in a delivery's detail: its view, and what it sent (issue 13, items 8 and 13): its
 * headers (the accepted one: its delivery's) and, for one that stored nothing, its body. Headers
 * are shown as received, the signature too: the console is a view of the store, not an export.
 */
export interface AttemptDetailView extends AttemptView {
  /** Null when nothing was kept (an attempt recorded before hookrelay kept requests, or an accepted one read without its delivery). */
  headers: Array<[string, string]> | null;
  /** The body it sent, when it was kept (rejected, faulted, unavailable); `inline` false past the detail's budget: download it. */
  body: BodyView | null;
  /** Which of the sender's attempts this arrival belongs to, 1 for the first: the redirect hops an attempt followed share its number. */
  senderAttempt: number;
  /** 0 for the request that opened the attempt, n for its n-th redirect hop. */
  hop: number;
}

/**
 * Detail views of `oldestFirst`, bodies inline while `inlineBudget` bytes last, newest first (the
 * latest failure is the one being debugged). `deliveryHeaders`: the stored delivery's, for its accepted attempt.
 */
export function attemptDetailViews(oldestFirst: readonly AttemptRecord[], deliveryHeaders: Array<[string, string]> | null, inlineBudget = MAX_INLINE_BODY_BYTES): AttemptDetailView[] {
  let budget = inlineBudget;
  const bodies = new Map<number, BodyView>();
  for (const a of [...oldestFirst].reverse()) {
    const raw = a.request?.body;
    if (!raw) continue;
    const bytes = Buffer.from(raw);
    const fits = bytes.length <= budget;
    if (fits) budget -= bytes.length;
    bodies.set(a.seq, bodyView(bytes, fits));
  }
  // Grouped as the conformance judge groups them (group-attempts.ts), so the timeline and the verdict agree.
  return splitSenderAttempts(oldestFirst).flatMap((hops, i) =>
    hops.map((a, hop) => ({
      ...attemptView(a),
      headers: a.request ? a.request.headers.map(([n, v]) => [n, v]) : a.outcome === 'accepted' && deliveryHeaders ? deliveryHeaders.map(([n, v]) => [n, v]) : null,
      body: bodies.get(a.seq) ?? null,
      senderAttempt: i + 1,
      hop,
    })),
  );
}

/**
 * A delivery's arrivals by outcome, counted from one read of its attempts. `throughSeq` (the seq of
 * the newest one counted) versions the tally: the page adds an attempt from the feed only when its
 * seq is higher, so the order in which the API and the feed answer cannot change a count.
 */
export interface AttemptTally {
  throughSeq: number;
  total: number;
  /** More arrivals exist than were read. */
  truncated: boolean;
  byOutcome: Record<AttemptRecord['outcome'], number>;
}

/** `newestFirst`: one read of a delivery's attempts, newest first; `truncated` when the read was capped. */
export function attemptTally(newestFirst: readonly AttemptRecord[], truncated: boolean): AttemptTally {
  const byOutcome = { accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0 };
  for (const a of newestFirst) byOutcome[a.outcome] += 1;
  return { throughSeq: newestFirst[0]?.seq ?? 0, total: newestFirst.length, truncated, byOutcome };
}

/** The delivery fields the list, the feed and the detail share. */
export interface DeliverySummary {
  seq: number;
  id: string;
  trigger: string;
  apiVersion: string;
  apiVersionKnown: boolean;
  receivedAt: number;
  lastAttemptAt: number;
  duplicateCount: number;
  bodyBytes: number;
  signature: StoredDelivery['signature'];
  /** Hint of the secret that matched; null when verification was skipped. */
  secretHint: string | null;
  signatureTimestamp: number | null;
}

type SummarySource = Omit<StoredDelivery, 'rawBody' | 'headers'> & { bodyBytes: number };

export function deliverySummary(d: SummarySource, secretHints: readonly string[]): DeliverySummary {
  return {
    seq: d.seq,
    id: clip(d.id)!,
    trigger: clip(d.trigger)!,
    apiVersion: clip(d.apiVersion, 100)!,
    apiVersionKnown: d.apiVersionKnown,
    receivedAt: d.receivedAt,
    lastAttemptAt: d.lastAttemptAt,
    duplicateCount: d.duplicateCount,
    bodyBytes: d.bodyBytes,
    signature: d.signature,
    secretHint: d.secretIndex === null ? null : (secretHints[d.secretIndex] ?? null),
    signatureTimestamp: d.signatureTimestamp,
  };
}

export interface BodyView {
  bytes: number;
  sha256: string;
  /** The body started with a UTF-8 BOM (skipped in `text`). */
  bom: boolean;
  /** Some bytes are not valid UTF-8 (shown as U+FFFD in `text`). */
  invalidUtf8: boolean;
  /** False when the body is larger than MAX_INLINE_BODY_BYTES: text and base64 are then empty. */
  inline: boolean;
  text: string;
  base64: string;
}

export function bodyView(raw: Buffer, allowInline = true): BodyView {
  const inline = allowInline && raw.length <= MAX_INLINE_BODY_BYTES;
  return {
    bytes: raw.length,
    sha256: createHash('sha256').update(raw).digest('hex'),
    bom: raw.subarray(0, 3).equals(UTF8_BOM),
    invalidUtf8: !isUtf8(raw),
    inline,
    text: inline ? decodeBodyLeniently(raw) : '',
    base64: inline ? raw.toString('base64') : '',
  };
}

export interface SignatureView {
  state: StoredDelivery['signature'];
  secretHint: string | null;
  /** Which configured secret matched: 0 is the primary. */
  secretIndex: number | null;
  timestamp: number | null;
  /** Arrival minus the signature's `t`, seconds (positive: signed in the past). */
  skewSeconds: number | null;
  toleranceSeconds: number;
}

export function signatureView(d: StoredDelivery, status: StatusView): SignatureView {
  return {
    state: d.signature,
    secretHint: d.secretIndex === null ? null : (status.secretHints[d.secretIndex] ?? null),
    secretIndex: d.secretIndex,
    timestamp: d.signatureTimestamp,
    skewSeconds: d.signatureTimestamp === null ? null : Math.round(d.receivedAt - d.signatureTimestamp * 1000) / 1000,
    toleranceSeconds: status.toleranceSeconds,
  };
}

/**
 * What a relay try's target answered, as the API sends it: its header lines as received (at most
 * 100) and the first 4 KiB of its body as every body is sent (text, base64 of the exact bytes).
 */
export interface RelayAnswerView {
  headers: Array<[string, string]>;
  /** Header lines the answer had: more than `headers.length` when some were left out. */
  headerLines: number;
  /** The first 4 KiB of the body (`body.bytes` of them). */
  body: BodyView;
  /** Body bytes seen: the body's size when `complete`, else at least this many. */
  bodyBytes: number;
  complete: boolean;
}

/**
 * A relay try as the API sends it; `answer` only in the detail (null: none was kept). A try whose
 * answer the detail left out (past its bound: `relayDetailViews`) has `answer` null and
 * `answerLeftOut` true.
 */
export type RelayView = Omit<RelayRecordView, 'answer'> & { answer?: RelayAnswerView | null; answerLeftOut?: true };

/** Answer header lines and body bytes the API sends of one try (the hand-off keeps no more). */
const MAX_ANSWER_HEADERS = 100;
const MAX_ANSWER_BODY = 4096;

export function answerView(a: KeptAnswer): RelayAnswerView {
  const kept = Buffer.from(a.body.subarray(0, MAX_ANSWER_BODY));
  const body = bodyView(kept);
  // Kept in part: a cut inside a character is not invalid UTF-8 (keptBodyText, as `events show` reads it).
  if (keptInPart(kept, a)) {
    const { text, invalidUtf8 } = keptBodyText(kept, a);
    Object.assign(body, { text, invalidUtf8 });
  }
  return {
    headers: a.headers.slice(0, MAX_ANSWER_HEADERS).map(([n, v]) => [clip(String(n), 256)!, clip(String(v), 8192)!]),
    headerLines: a.headerLines,
    body,
    bodyBytes: a.bodyBytes,
    complete: a.complete,
  };
}


export function relayView(r: RelayRecordView): RelayView {
  return {
    at: r.at,
    ok: r.ok,
    status: r.status,
    latencyMs: r.latencyMs,
    replay: r.replay,
    ...(r.error === undefined ? {} : { error: clip(r.error)! }),
    ...(r.nextRetryAt === undefined ? {} : { nextRetryAt: r.nextRetryAt }),
    ...(r.target === undefined ? {} : { target: redactUrl(r.target)! }),
    ...(r.answer === undefined ? {} : { answer: r.answer === null ? null : answerView(r.answer) }),
  };
}

/**
 * Answers one detail read sends: the newest tries'. The relay gives up after 15 tries
 * (docs/relay.md), but replays and `events retry` add more without end, and each answer is up to
 * 100 header lines and 4 KiB of body (10–50 KiB of JSON).
 */
export const MAX_DETAIL_ANSWERS = 20;
/** And at most this many bytes of them (header names and values, bodies), as the attempts' bodies have their 4 MiB. */
export const MAX_DETAIL_ANSWER_BYTES = 1024 * 1024;

/** The bytes of an answer the API sends: its header lines and the start of its body, as `answerView` bounds them. */
function answerBytes(a: KeptAnswer): number {
  let bytes = Math.min(a.body.length, MAX_ANSWER_BODY);
  for (const [name, value] of a.headers.slice(0, MAX_ANSWER_HEADERS)) bytes += String(name).length + String(value).length;
  return bytes;
}

/**
 * The relay tries of a delivery's detail, oldest first: the newest carry what the target answered
 * while `maxAnswers` answers and `maxBytes` last; every older one carries none and says it was left
 * out (`answerLeftOut`): `hookrelay events show <id> --json` has them all.
 */
export function relayDetailViews(oldestFirst: readonly RelayRecordView[], maxAnswers = MAX_DETAIL_ANSWERS, maxBytes = MAX_DETAIL_ANSWER_BYTES): RelayView[] {
  let answers = maxAnswers;
  let budget = maxBytes;
  // Every answered try at or before `cutoff` is left out: once one is, so is every older one (the
  // page shows the newest answers, none skipped).
  let cutoff = -1;
  for (let i = oldestFirst.length - 1; i >= 0; i--) {
    const answer = oldestFirst[i]!.answer;
    if (!answer) continue;
    const bytes = answerBytes(answer);
    if (answers === 0 || bytes > budget) {
      cutoff = i;
      break;
    }
    answers -= 1;
    budget -= bytes;
  }
  return oldestFirst.map((r, i) => (i <= cutoff && r.answer ? { ...relayView({ ...r, answer: null }), answerLeftOut: true } : relayView(r)));
}

/** A file name for a downloaded body: the id's safe characters only. */
export function rawFileName(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '').slice(0, 100);
  return `${safe || 'delivery'}.body`;
}
