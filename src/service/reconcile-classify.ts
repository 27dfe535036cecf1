/**
 * The ledger of `reconcile` (issue 17): what the service says of each delivery against what the
 * local store holds, by delivery id. A replay is a new delivery with its own id
 * (`replayOfDeliveryId`, spec 2.11), so deliveries are judged in groups: an original and its
 * replays. A group is covered when any of its members is in the local store.
 */
import type { Attempt, Delivery } from './resources.js';

/** What reconcile keeps of a service delivery: enough to report it, small enough to save. */
export interface LiteDelivery {
  id: string;
  trigger: string;
  status: string;
  createdAt: string | null;
  nextAttemptAt: string | null;
  lastFailureClass: string | null;
  isReplay: boolean;
  replayOfDeliveryId: string | null;
  attempts: Array<Pick<Attempt, 'attemptNumber' | 'startedAt' | 'responseStatus' | 'failureClass' | 'errorMessage'>>;
}

export const liteOf = (d: Delivery): LiteDelivery => ({
  id: d.id,
  trigger: d.trigger,
  status: d.status,
  createdAt: d.createdAt,
  nextAttemptAt: d.nextAttemptAt,
  lastFailureClass: d.lastFailureClass,
  isReplay: d.isReplay,
  replayOfDeliveryId: d.replayOfDeliveryId,
  attempts: d.attempts.map((a) => ({ attemptNumber: a.attemptNumber, startedAt: a.startedAt, responseStatus: a.responseStatus, failureClass: a.failureClass, errorMessage: a.errorMessage })),
});

/** The id a delivery's group is known by: the delivery it replays, or its own. */
export const rootOf = (d: Pick<LiteDelivery, 'id' | 'replayOfDeliveryId'>): string => d.replayOfDeliveryId ?? d.id;

export const IN_FLIGHT_STATUSES = new Set(['pending', 'retrying']);

export interface GroupVerdict {
  missed: Array<{ root: string; members: LiteDelivery[] }>;
  inFlight: LiteDelivery[];
}

/**
 * Judges the groups none of whose members is in the local store (`covered` says whether the root
 * itself or a replay of it is there after all). A group with a member still pending or retrying
 * is in flight; otherwise the service attempted it and gave up or believes it delivered: missed.
 */
export function judgeUncovered(pending: Readonly<Record<string, LiteDelivery[]>>, covered: (root: string) => boolean): GroupVerdict {
  const missed: GroupVerdict['missed'] = [];
  const inFlight: LiteDelivery[] = [];
  for (const [root, members] of Object.entries(pending)) {
    if (covered(root)) continue;
    const flying = members.filter((m) => IN_FLIGHT_STATUSES.has(m.status));
    if (flying.length > 0) inFlight.push(...flying);
    else missed.push({ root, members: [...members].sort((a, b) => Number(a.isReplay) - Number(b.isReplay)) });
  }
  return { missed, inFlight };
}

/** Attempt numbers the service made that never arrived at `listen` (no recorded arrival carried that number). */
export function lostAttemptNumbers(service: readonly Pick<Attempt, 'attemptNumber'>[], localAttemptHeaders: ReadonlySet<number>): number[] {
  return service.map((a) => a.attemptNumber).filter((n) => !localAttemptHeaders.has(n));
}
