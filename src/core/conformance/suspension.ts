/** `suspension`: after auto-disable or a 410, nothing more arrives (spec 3, webhook status; 6.4 rule 5). */
import type { DeliveryProgress } from './delivery-progress.js';
import { isoTime, seconds } from './numbers.js';
import type { CheckOptions } from './options.js';
import type { Finding, SuspensionVerdict, TimelineEntry } from './types.js';

export interface AnalysedDelivery {
  timeline: readonly TimelineEntry[];
  progress: DeliveryProgress;
}

export interface Suspension {
  at: number;
  cause: 'consecutive-failures' | 'gone';
  /** Index (in the list given) of the delivery whose outcome suspended the webhook. */
  causeIndex: number;
  consecutive: number;
}

/**
 * When the sender should have suspended the webhook: walking the deliveries' outcomes in time order,
 * a 410 with disableOnGone, or the failed-delivery count reaching autoDisableAfter (a delivery
 * failing after several attempts counts once; a success resets it). Still-retrying deliveries have
 * no outcome yet. Returns null, with the longest run of failures seen, when neither happened.
 */
export function findSuspension(
  deliveries: readonly AnalysedDelivery[],
  options: CheckOptions,
): { suspension: Suspension | null; longestFailureRun: number } {
  const ended = deliveries
    .map((d, index) => ({ index, progress: d.progress }))
    .filter((d) => d.progress.endedAt !== null && d.progress.state !== 'retrying')
    .sort((a, b) => a.progress.endedAt! - b.progress.endedAt! || a.index - b.index);
  let consecutive = 0;
  let longest = 0;
  for (const { index, progress } of ended) {
    if (progress.state === 'succeeded') {
      consecutive = 0;
      continue;
    }
    consecutive += 1;
    longest = Math.max(longest, consecutive);
    if (progress.endClass === 'http_410' && options.failureHandling.disableOnGone) {
      return { suspension: { at: progress.endedAt!, cause: 'gone', causeIndex: index, consecutive }, longestFailureRun: longest };
    }
    if (consecutive >= options.failureHandling.autoDisableAfter) {
      return { suspension: { at: progress.endedAt!, cause: 'consecutive-failures', causeIndex: index, consecutive }, longestFailureRun: longest };
    }
  }
  return { suspension: null, longestFailureRun: longest };
}

/**
 * Fails every attempt of another delivery arriving more than `slack.lateMs` after the suspension
 * (a request already on its way when the deciding answer came back is not the sender's fault).
 * Later attempts of the delivery that caused it are left to its own rules (no-retry-after-final,
 * max-attempts), so one broken behaviour fails one rule. n/a when the webhook was never suspended.
 */
export function judgeSuspension(deliveries: readonly AnalysedDelivery[], options: CheckOptions): SuspensionVerdict & { causeIndex: number | null } {
  const { suspension, longestFailureRun } = findSuspension(deliveries, options);
  const { autoDisableAfter, disableOnGone } = options.failureHandling;
  const expected = `suspended after ${autoDisableAfter} consecutive failed deliveries${disableOnGone ? ' or a 410' : ''}; nothing arrives after`;
  if (!suspension) {
    return {
      rule: 'suspension',
      status: 'n/a',
      message: `not suspended: longest run of failed deliveries ${longestFailureRun} < ${autoDisableAfter}${disableOnGone ? ', no 410' : ' (410 does not suspend: disableOnGone false)'}`,
      expected,
      observed: `longest run of failed deliveries: ${longestFailureRun}`,
      findings: [],
      suspendedAt: null,
      cause: null,
      causeDeliveryId: null,
      causeIndex: null,
    };
  }
  const cutoff = suspension.at + options.slack.lateMs;
  const causeId = deliveries[suspension.causeIndex]?.timeline[0]?.deliveryId ?? null;
  const findings: Finding[] = [];
  deliveries.forEach((d, index) => {
    if (index === suspension.causeIndex) return;
    const id = d.timeline[0]?.deliveryId ?? null;
    for (const a of d.timeline) {
      if (!(a.receivedAt > cutoff)) continue;
      findings.push({
        attempt: a.position,
        deliveryId: id,
        ok: false,
        expected: `nothing after ${isoTime(suspension.at)}`,
        observed: `delivery ${id ?? '(no id)'} attempt ${a.position} arrived ${seconds(a.receivedAt - suspension.at)} after the suspension`,
        bounds: { min: null, max: options.slack.lateMs / 1000 },
        value: (a.receivedAt - suspension.at) / 1000,
      });
    }
  });
  const why = suspension.cause === 'gone'
    ? `delivery ${causeId ?? '(no id)'} was answered 410 (disableOnGone)`
    : `${suspension.consecutive} consecutive deliveries failed, the last ${causeId ?? '(no id)'}`;
  return {
    rule: 'suspension',
    status: findings.length > 0 ? 'fail' : 'pass',
    message: findings.length > 0
      ? `suspended at ${isoTime(suspension.at)} (${why}), yet ${findings.length} attempt${findings.length === 1 ? '' : 's'} arrived after: ${findings.map((f) => f.observed).join('; ')}`
      : `suspended at ${isoTime(suspension.at)} (${why}); nothing arrived after`,
    expected,
    observed: `${findings.length} attempt${findings.length === 1 ? '' : 's'} after the suspension`,
    findings: findings.length > 0 ? findings : [{ attempt: 0, deliveryId: null, ok: true, expected: `nothing after ${isoTime(suspension.at)}`, observed: 'nothing arrived' }],
    suspendedAt: suspension.at,
    cause: suspension.cause,
    causeDeliveryId: causeId,
    causeIndex: suspension.causeIndex,
  };
}
