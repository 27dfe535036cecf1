/**
 * The conformance verdict of one stored delivery, for the console and `GET /api/deliveries/:id`
 * (issue 7). The pure judge lives in core/conformance; this reads its input from the store.
 */
import { judgeDelivery, markOf, optionsAtScale, resolveCheckOptions, type CheckOptionsInput, type DeliveryVerdict } from '../core/conformance/index.js';
import { readAttempts, type AttemptSource } from './read-attempts.js';
import { readTimeScaleMarks, type DeliverySource } from './read-marks.js';

/**
 * Judges every recorded attempt of `deliveryId` against the policy in `options` (default: the spec
 * default policy and failure handling, time scale 1, `complete: 'auto'` judged at `Date.now()`, so
 * a delivery still waiting for a retry shows as `retrying`, not as failed).
 *
 * A delivery stored with a time-scale mark (`x-hookrelay-time-scale`, sent by a scaled `hookrelay
 * send`) is judged at its marked scale, whatever `options.timeScale` says: the console shows a scaled
 * run's verdict with no setting. The mark is read when `store` can `getDelivery`.
 *
 * The delivery is judged on its own: the webhook's suspension by other deliveries, and attempts of
 * the same body sent under another id, are only seen by a whole-run check (`hookrelay check`).
 *
 * Resolves null when no attempt carries that id. Throws a RangeError naming every problem when
 * `options` are invalid (they come from code, never from a delivery); store errors propagate.
 */
export async function judgeStoredDelivery(
  store: AttemptSource & Partial<DeliverySource>,
  deliveryId: string,
  options: CheckOptionsInput = {},
): Promise<DeliveryVerdict | null> {
  const resolved = resolveCheckOptions({ complete: 'auto', ...options, now: options.now ?? Date.now() });
  if (!resolved.ok) throw new RangeError(`invalid conformance options: ${resolved.problems.join('; ')}`);
  const records = await readAttempts(store, { deliveryId });
  if (records.length === 0) return null;
  const marks = store.getDelivery === undefined ? undefined : await readTimeScaleMarks(store as DeliverySource, records.map((r) => r.deliveryId));
  const mark = markOf(marks, [deliveryId, ...records.map((r) => r.deliveryId)]);
  if (mark === null) return judgeDelivery(records, resolved.options);
  return { ...judgeDelivery(records, optionsAtScale(resolved.options, mark)), timeScaleMark: mark };
}
