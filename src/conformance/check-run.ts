/**
 * The run `hookrelay check` judges (issue 7), from an open store: every recorded attempt, or the
 * whole deliveries of a `since` window, judged with the time-scale marks their deliveries carry,
 * and scoped to one delivery when asked. `check` and the MCP server's `check` tool both call it.
 */
import { judgeRun, type CheckOptions, type RunVerdict } from '../core/conformance/index.js';
import type { AttemptRecord } from '../store/store.js';
import { readAttempts, readWholeDeliveriesSince, type AttemptSource } from './read-attempts.js';
import { readTimeScaleMarks, type DeliverySource } from './read-marks.js';
import { scopeToDelivery } from './scope-verdict.js';

export interface CheckRunInput {
  options: CheckOptions;
  /** Only deliveries with an attempt at or after this moment (ms), whole; null: every recorded attempt. */
  since: number | null;
  /** Judge only this delivery, in the context of the run. */
  deliveryId: string | null;
}

/**
 * The verdict and the records it judged; `verdict` is null when `deliveryId` was asked and no
 * recorded attempt (in the window) carries it. Store errors propagate.
 */
export async function checkRun(store: AttemptSource & DeliverySource, input: CheckRunInput): Promise<{ verdict: RunVerdict | null; records: AttemptRecord[] }> {
  const records = input.since === null ? await readAttempts(store) : await readWholeDeliveriesSince(store, input.since);
  const marks = await readTimeScaleMarks(store, records.map((r) => r.deliveryId));
  const run = judgeRun(records, input.options, marks);
  return { verdict: input.deliveryId === null ? run : scopeToDelivery(run, input.deliveryId), records };
}
