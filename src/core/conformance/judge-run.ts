/** The verdict of a whole run: every delivery in the records, plus suspension across them (issue 7). */
import type { AttemptRecord } from '../records.js';
import { deliveryProgress } from './delivery-progress.js';
import { foldAttempts, groupDeliveries } from './group-attempts.js';
import { judgeTimeline } from './judge-delivery.js';
import type { CheckOptions } from './options.js';
import { summarize } from './summary.js';
import { judgeSuspension, type AnalysedDelivery } from './suspension.js';
import type { RunVerdict } from './types.js';

/**
 * Splits `records` (any order; all attempts hookrelay recorded for the run) into deliveries, finds
 * when the webhook should have been suspended, and judges each delivery and the run. Deliveries are
 * ordered by first arrival. Pure and total: garbage records yield failing verdicts, never a throw.
 * Pass whole deliveries: a delivery cut by a time filter is judged as if it began at the cut.
 */
export function judgeRun(records: readonly AttemptRecord[], options: CheckOptions): RunVerdict {
  const analysed: AnalysedDelivery[] = groupDeliveries(records).map((group) => {
    const timeline = foldAttempts(group, options);
    return { timeline, progress: deliveryProgress(timeline, options) };
  });
  const { causeIndex, ...suspension } = judgeSuspension(analysed, options);
  const deliveries = analysed.map((d, index) =>
    judgeTimeline(d.timeline, { options, suspendedAt: index === causeIndex ? null : suspension.suspendedAt }, d.progress),
  );
  return { deliveries, suspension, summary: summarize(deliveries, suspension) };
}
