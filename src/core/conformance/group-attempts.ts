/** From hookrelay's flat attempt records to deliveries and the attempts a sender made. */
import type { AttemptRecord } from '../records.js';
import { classifyAnswer } from './failure-class.js';
import type { CheckOptions } from './options.js';
import type { TimelineEntry } from './types.js';

const finite = (n: unknown, fallback: number): number => (typeof n === 'number' && Number.isFinite(n) ? n : fallback);

/** Arrival order: hookrelay's `receivedAt`, then its store sequence. Garbage times sort last. */
export function byArrival(a: AttemptRecord, b: AttemptRecord): number {
  return finite(a.receivedAt, Number.MAX_VALUE) - finite(b.receivedAt, Number.MAX_VALUE)
    || finite(a.seq, 0) - finite(b.seq, 0);
}

/**
 * Splits records into deliveries, each in arrival order, the deliveries ordered by first arrival.
 * Records join one delivery when they share `x-service-delivery` or the exact body bytes (a
 * non-empty body holds the envelope `id`, so the same bytes under another header id are the same
 * delivery sent under a changed id: hookrelay rejects those with DELIVERY_ID_MISMATCH, and
 * `same-delivery` fails them). Records with neither an id nor a body stand alone.
 */
export function groupDeliveries(records: readonly AttemptRecord[]): AttemptRecord[][] {
  const sorted = records.filter((r) => r !== null && typeof r === 'object').sort(byArrival);
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[i] !== root) [i, parent[i]] = [parent[i]!, root];
    return root;
  };
  const link = (seen: Map<string, number>, key: string, i: number): void => {
    const j = seen.get(key);
    if (j === undefined) return void seen.set(key, i);
    const [a, b] = [find(i), find(j)];
    // The earlier record stays the root, so a delivery is named by its first arrival.
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  };
  const byId = new Map<string, number>();
  const byBody = new Map<string, number>();
  sorted.forEach((r, i) => {
    if (typeof r.deliveryId === 'string' && r.deliveryId !== '') link(byId, r.deliveryId, i);
    if (typeof r.bodySha256 === 'string' && r.bodySha256 !== '' && finite(r.bodyBytes, 0) > 0) link(byBody, r.bodySha256, i);
  });
  const groups = new Map<number, AttemptRecord[]>();
  sorted.forEach((r, i) => {
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(r);
    else groups.set(root, [r]);
  });
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([, g]) => g);
}

const isRedirect = (status: number | null): boolean => typeof status === 'number' && status >= 300 && status <= 399;

/**
 * A redirect is followed at once: the next hop arrives within this many ms of the 3xx (a new
 * connection at most: well under the 2 s allowed). Retries wait 10 s or more unless compressed.
 */
export const REDIRECT_FOLLOW_MS = 2000;

/**
 * A followed redirect re-sends the same signed request (307/308 keep the POST): same delivery id,
 * attempt header, signature `t` and body, right after the 3xx. A retry would carry a new attempt
 * number and a new `t`.
 */
function isFollowedRedirect(first: HopFields, prevHop: HopFields, r: HopFields): boolean {
  return isRedirect(prevHop.status)
    && first.attemptHeader !== null
    && r.attemptHeader === first.attemptHeader
    && r.signatureTimestamp === first.signatureTimestamp
    && r.bodySha256 === first.bodySha256
    && r.deliveryId === first.deliveryId
    && r.receivedAt - prevHop.finishedAt <= REDIRECT_FOLLOW_MS;
}

/** What tells a followed redirect from a new attempt. */
export type HopFields = Pick<AttemptRecord, 'status' | 'attemptHeader' | 'signatureTimestamp' | 'bodySha256' | 'deliveryId' | 'receivedAt' | 'finishedAt'>;

/**
 * The records of one delivery (in arrival order) split into the attempts the sender made: each the
 * request that opened it, then the redirect hops it followed (a followed redirect re-sends the same
 * signed request right after the 3xx). The judge counts these attempts; the console's timeline and
 * `events show` list them, so all three agree.
 */
export function splitSenderAttempts<T extends HopFields>(records: readonly T[]): T[][] {
  const attempts: T[][] = [];
  for (const r of records) {
    const current = attempts[attempts.length - 1];
    if (current && isFollowedRedirect(current[0]!, current[current.length - 1]!, r)) current.push(r);
    else attempts.push([r]);
  }
  return attempts;
}

/**
 * The attempts of one delivery (records in arrival order) as the sender made them: redirect hops
 * folded into their attempt, each classified by the answer that ended it, with the gap from the
 * previous attempt's end as the sender saw it.
 */
export function foldAttempts(
  records: readonly AttemptRecord[],
  options: Pick<CheckOptions, 'attemptTimeoutSeconds'>,
): TimelineEntry[] {
  const attempts = splitSenderAttempts(records);
  const timeline: TimelineEntry[] = [];
  const offset = unseenBefore(attempts[0]?.[0]?.attemptHeader ?? null);
  const timeoutMs = options.attemptTimeoutSeconds * 1000;
  for (const hops of attempts) {
    const first = hops[0]!;
    const last = hops[hops.length - 1]!;
    const previous = timeline[timeline.length - 1];
    const late = last.status !== null && last.finishedAt - first.receivedAt > timeoutMs;
    timeline.push({
      position: offset + timeline.length + 1,
      attemptHeader: first.attemptHeader,
      deliveryId: first.deliveryId,
      trigger: first.trigger,
      receivedAt: first.receivedAt,
      finishedAt: last.finishedAt,
      endAt: late ? first.receivedAt + timeoutMs : last.finishedAt,
      gapMs: previous ? first.receivedAt - previous.endAt : null,
      durationMs: last.finishedAt - first.receivedAt,
      signatureTimestamp: first.signatureTimestamp,
      bodySha256: first.bodySha256,
      outcome: last.outcome,
      status: last.status,
      reason: last.reason,
      retryAfter: last.retryAfter,
      // The sender's deadline covers the whole attempt, redirect hops included.
      answerClass: classifyAnswer({ status: last.status, reason: last.reason, receivedAt: first.receivedAt, finishedAt: last.finishedAt }, options.attemptTimeoutSeconds),
      hops: hops.length - 1,
      lastHopReceivedAt: last.receivedAt,
      seqs: hops.map((h) => h.seq),
    });
  }
  return timeline;
}

/** The sender's attempts numbered before the first one seen: its header less 1 (never counted past MAX_UNSEEN). */
export function unseenBefore(firstHeader: number | null): number {
  return firstHeader === null || firstHeader <= 1 ? 0 : Math.min(firstHeader, MAX_UNSEEN) - 1;
}

/** More attempts than any policy allows (maxAttempts is at most 10): a larger header is judged as this. */
const MAX_UNSEEN = 100;
