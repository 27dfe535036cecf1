/** `suspension`: after auto-disable or a 410, nothing more arrives (spec 3, webhook status; 6.4 rule 5). */
import type { DeliveryProgress } from './delivery-progress.js';
import { isoTime, policySeconds, seconds } from './numbers.js';
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
 * Fails every attempt of another delivery arriving more than `slack.lateMs` after the suspension.
 * One arriving within the late slack passes as already in flight (the sender sent it before the
 * deciding answer reached it), and the verdict says so: an ok finding per such arrival, and a
 * message that counts them. Later attempts of the delivery that caused it are left to its own
 * rules (no-retry-after-final, max-attempts), so one broken behaviour fails one rule. n/a when the
 * webhook was never suspended.
 */
export function judgeSuspension(deliveries: readonly AnalysedDelivery[], options: CheckOptions): SuspensionVerdict & { causeIndex: number | null } {
  const { suspension, longestFailureRun } = findSuspension(deliveries, options);
  const { autoDisableAfter, disableOnGone } = options.failureHandling;
  const slack = `${policySeconds(options.slack.lateMs / 1000)} late slack`;
  const expected = `suspended after ${autoDisableAfter} consecutive failed deliveries${disableOnGone ? ' or a 410' : ''}; nothing arrives after, but for a request already in flight (within the ${slack})`;
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
  const late: Finding[] = [];
  const inFlight: Finding[] = [];
  /** The in-flight arrivals, briefly, for the message. */
  const inFlightBrief: string[] = [];
  deliveries.forEach((d, index) => {
    if (index === suspension.causeIndex) return;
    const id = d.timeline[0]?.deliveryId ?? null;
    for (const a of d.timeline) {
      if (!(a.receivedAt > suspension.at)) continue;
      const which = `delivery ${id ?? '(no id)'} attempt ${a.position}`;
      const after = `${which} arrived ${seconds(a.receivedAt - suspension.at)} after the suspension`;
      const allowed = !(a.receivedAt > cutoff);
      if (allowed) inFlightBrief.push(`${which}, ${seconds(a.receivedAt - suspension.at)} after`);
      (allowed ? inFlight : late).push({
        attempt: a.position,
        deliveryId: id,
        ok: allowed,
        expected: `nothing after ${isoTime(suspension.at)} + the ${slack}`,
        observed: allowed ? `${after}, within the ${slack}: already in flight` : after,
        bounds: { min: null, max: options.slack.lateMs / 1000 },
        value: (a.receivedAt - suspension.at) / 1000,
      });
    }
  });
  const why = suspension.cause === 'gone'
    ? `delivery ${causeId ?? '(no id)'} was answered 410 (disableOnGone)`
    : `${suspension.consecutive} consecutive deliveries failed, the last ${causeId ?? '(no id)'}`;
  const allowedText = inFlight.length === 0
    ? ''
    : `${plural(inFlight.length, 'arrival')} within the ${slack} ${inFlight.length === 1 ? 'was' : 'were'} already in flight (${inFlightBrief.join('; ')})`;
  return {
    rule: 'suspension',
    status: late.length > 0 ? 'fail' : 'pass',
    message: late.length > 0
      ? `suspended at ${isoTime(suspension.at)} (${why}), yet ${plural(late.length, 'attempt')} arrived after, beyond the ${slack}: ${late.map((f) => f.observed).join('; ')}${allowedText === '' ? '' : `; ${allowedText}`}`
      : `suspended at ${isoTime(suspension.at)} (${why}); ${allowedText === '' ? 'nothing arrived after' : `${allowedText}, nothing arrived later`}`,
    expected,
    observed: `${plural(late.length, 'attempt')} after the suspension beyond the ${slack}${inFlight.length > 0 ? `, ${inFlight.length} within it` : ''}`,
    findings: late.length + inFlight.length > 0
      ? [...late, ...inFlight]
      : [{ attempt: 0, deliveryId: null, ok: true, expected: `nothing after ${isoTime(suspension.at)} + the ${slack}`, observed: 'nothing arrived' }],
    suspendedAt: suspension.at,
    cause: suspension.cause,
    causeDeliveryId: causeId,
    causeIndex: suspension.causeIndex,
  };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
