/** One delivery's verdict: its timeline and every per-delivery rule (issue 7). */
import type { AttemptRecord } from '../records.js';
import { deliveryProgress, type DeliveryProgress } from './delivery-progress.js';
import { byArrival, foldAttempts } from './group-attempts.js';
import type { CheckOptions } from './options.js';
import { judgeAttemptSequence } from './rules/attempt-sequence.js';
import { judgeBackoff } from './rules/backoff.js';
import type { DeliveryContext } from './rules/context.js';
import { judgeFreshSignature } from './rules/fresh-signature.js';
import { judgeMaxAttempts } from './rules/max-attempts.js';
import { judgeNoRetryAfterFinal } from './rules/no-retry-after-final.js';
import { judgeRetryAfter } from './rules/retry-after.js';
import { judgeSameDelivery } from './rules/same-delivery.js';
import { judgeTimeout } from './rules/timeout.js';
import type { DeliveryVerdict, TimelineEntry } from './types.js';

/** Judges an already folded timeline (see `foldAttempts`) with its progress. */
export function judgeTimeline(
  timeline: readonly TimelineEntry[],
  context: DeliveryContext,
  progress: DeliveryProgress = deliveryProgress(timeline, context.options),
): DeliveryVerdict {
  const rules = [
    judgeAttemptSequence(timeline),
    judgeSameDelivery(timeline),
    judgeFreshSignature(timeline, context),
    judgeBackoff(timeline, context),
    judgeRetryAfter(timeline, context),
    judgeNoRetryAfterFinal(timeline, context),
    judgeMaxAttempts(timeline, context, progress),
    judgeTimeout(timeline, context),
  ];
  const first = timeline[0];
  const unseen = (first?.position ?? 1) - 1;
  const deliveryId = first?.deliveryId ?? timeline.find((a) => a.deliveryId !== null)?.deliveryId ?? null;
  return {
    deliveryId,
    otherDeliveryIds: [...new Set(timeline.map((a) => a.deliveryId).filter((id): id is string => id !== null && id !== deliveryId))],
    trigger: first?.trigger ?? null,
    state: progress.state,
    timeline: [...timeline],
    rules,
    status: rules.some((r) => r.status === 'fail') ? 'fail' : 'pass',
    ...(unseen > 0 ? { unseenAttempts: unseen } : {}),
  };
}

/**
 * The verdict of one delivery from all its attempt records (any order). The records are taken as
 * one delivery; use `judgeRun` to split a mixed list. `suspendedAt` is when another delivery's
 * outcome suspended the webhook (from `judgeRun`), which excuses retries not sent after it.
 */
export function judgeDelivery(records: readonly AttemptRecord[], options: CheckOptions, suspendedAt: number | null = null): DeliveryVerdict {
  const timeline = foldAttempts([...records].sort(byArrival), options);
  return judgeTimeline(timeline, { options, suspendedAt });
}
