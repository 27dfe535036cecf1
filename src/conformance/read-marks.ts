/** The time-scale marks of stored deliveries (issue 13 item 5), read from their stored headers. */
import { readTimeScaleMark, type TimeScaleMarks } from '../core/conformance/index.js';
import type { StoredDelivery } from '../store/store.js';

/** What reading marks needs: the store's `getDelivery`, sync or async. */
export interface DeliverySource {
  getDelivery(id: string): StoredDelivery | undefined | Promise<StoredDelivery | undefined>;
}

/**
 * The mark of every delivery among `ids` that was stored with one. A delivery never stored (every
 * attempt refused or faulted) has no headers on record, so no mark: it is judged at the scale the
 * caller gives.
 */
export async function readTimeScaleMarks(source: DeliverySource, ids: Iterable<string | null>): Promise<TimeScaleMarks> {
  const marks = new Map<string, number>();
  for (const id of new Set(ids)) {
    if (id === null || id === '') continue;
    const stored = await source.getDelivery(id);
    const mark = stored === undefined ? null : readTimeScaleMark(stored.headers);
    if (mark !== null) marks.set(id, mark);
  }
  return marks;
}
