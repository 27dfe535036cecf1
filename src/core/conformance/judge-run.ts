/** The verdict of a whole run: every delivery in the records, plus suspension across them (issue 7). */
import type { AttemptRecord } from '../records.js';
import { deliveryProgress } from './delivery-progress.js';
import { foldAttempts, groupDeliveries } from './group-attempts.js';
import { judgeTimeline } from './judge-delivery.js';
import type { CheckOptions } from './options.js';
import { summarize } from './summary.js';
import { judgeSuspension, type AnalysedDelivery } from './suspension.js';
import { markOf, optionsAtScale, type TimeScaleMarks } from './time-scale-mark.js';
import type { RunVerdict } from './types.js';

/**
 * Splits `records` (any order; all attempts hookrelay recorded for the run) into deliveries, finds
 * when the webhook should have been suspended, and judges each delivery and the run. Deliveries are
 * ordered by first arrival. Pure and total: garbage records yield failing verdicts, never a throw.
 * Pass whole deliveries: a delivery cut by a time filter is judged as if it began at the cut.
 *
 * A delivery with a time-scale mark in `marks` (under any id it was sent with) has its waits judged
 * at that scale; the others at `options.timeScale`. The run's suspension is judged with `options`.
 */
export function judgeRun(records: readonly AttemptRecord[], options: CheckOptions, marks?: TimeScaleMarks): RunVerdict {
  const analysed: Array<AnalysedDelivery & { options: CheckOptions; mark: number | null }> = groupDeliveries(records).map((group) => {
    const mark = markOf(marks, group.map((r) => r.deliveryId));
    const own = mark === null ? options : optionsAtScale(options, mark);
    const timeline = foldAttempts(group, own);
    return { timeline, progress: deliveryProgress(timeline, own), options: own, mark };
  });
  const { causeIndex, ...suspension } = judgeSuspension(analysed, options);
  const deliveries = analysed.map((d, index) => {
    const verdict = judgeTimeline(d.timeline, { options: d.options, suspendedAt: index === causeIndex ? null : suspension.suspendedAt }, d.progress);
    return d.mark === null ? verdict : { ...verdict, timeScaleMark: d.mark };
  });
  return { deliveries, suspension, summary: summarize(deliveries, suspension) };
}
