/** The time-scale marks of deliveries (issue 13 item 5), read from their stored or kept headers. */
import { readTimeScaleMark, type TimeScaleMarks } from '../core/conformance/index.js';
import type { AttemptQuery, AttemptRecord, StoredDelivery } from '../store/store.js';

/** What reading marks needs: the store's `getDelivery` and `listAttempts`, sync or async. */
export interface DeliverySource {
  getDelivery(id: string): StoredDelivery | undefined | Promise<StoredDelivery | undefined>;
  listAttempts(query: AttemptQuery): AttemptRecord[] | Promise<AttemptRecord[]>;
}

/** Attempts of a never-stored delivery read for a mark: its sender marks every attempt alike. */
const KEPT_ATTEMPTS_READ = 5;

/**
 * The mark of every delivery among `ids` that carries one: from the stored delivery's headers, or,
 * for a delivery never stored (every attempt refused or faulted), from the headers its attempts
 * kept. A delivery with neither is judged at the scale the caller gives.
 */
export async function readTimeScaleMarks(source: DeliverySource, ids: Iterable<string | null>): Promise<TimeScaleMarks> {
  const marks = new Map<string, number>();
  for (const id of new Set(ids)) {
    if (id === null || id === '') continue;
    const stored = await source.getDelivery(id);
    const mark = stored === undefined ? await keptMark(source, id) : readTimeScaleMark(stored.headers);
    if (mark !== null) marks.set(id, mark);
  }
  return marks;
}

async function keptMark(source: DeliverySource, id: string): Promise<number | null> {
  const attempts = await source.listAttempts({ deliveryId: id, limit: KEPT_ATTEMPTS_READ, withRequest: true });
  for (const attempt of attempts) {
    const mark = attempt.request ? readTimeScaleMark(attempt.request.headers) : null;
    if (mark !== null) return mark;
  }
  return null;
}
