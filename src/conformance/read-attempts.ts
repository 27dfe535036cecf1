/**
 * Reads the attempt records a conformance check judges, from any store reader (the async
 * DeliveryStore, or the synchronous SQLite reader `check` opens read-only). Pages through
 * `listAttempts` with its `before` cursor, so no single query is unbounded.
 */
import type { AttemptQuery, AttemptRecord } from '../store/store.js';

/** What reading needs: the store's `listAttempts`, sync or async. */
export interface AttemptSource {
  listAttempts(query: AttemptQuery): AttemptRecord[] | Promise<AttemptRecord[]>;
}

/** Records per `listAttempts` call. */
export const ATTEMPT_PAGE_SIZE = 1000;

/**
 * Every record matching `query` (`since`, `deliveryId`), oldest first (store sequence). Pages
 * newest-first with `before` until a short page.
 */
export async function readAttempts(source: AttemptSource, query: { since?: number; deliveryId?: string } = {}): Promise<AttemptRecord[]> {
  const pages: AttemptRecord[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await source.listAttempts({ ...query, ...(before === undefined ? {} : { before }), limit: ATTEMPT_PAGE_SIZE });
    pages.push(page);
    if (page.length < ATTEMPT_PAGE_SIZE) break;
    const last = page[page.length - 1]!.seq;
    // A store that ignored `before` would page forever.
    if (before !== undefined && last >= before) break;
    before = last;
  }
  return pages.flat().sort((a, b) => a.seq - b.seq);
}

/**
 * The records of every delivery that has any attempt at or after `since`, whole: attempts of
 * those delivery ids from before `since` are included, so a delivery the window cuts is judged
 * from its first attempt. Records without a delivery id are taken as they are. Oldest first.
 */
export async function readWholeDeliveriesSince(source: AttemptSource, since: number): Promise<AttemptRecord[]> {
  const inWindow = await readAttempts(source, { since });
  const bySeq = new Map<number, AttemptRecord>(inWindow.map((r) => [r.seq, r]));
  const ids = new Set(inWindow.map((r) => r.deliveryId).filter((id): id is string => typeof id === 'string'));
  for (const id of ids) {
    const first = inWindow.find((r) => r.deliveryId === id)!;
    // Most deliveries start inside the window: one cheap look before reading a whole history.
    const older = await source.listAttempts({ deliveryId: id, before: first.seq, limit: 1 });
    if (older.length === 0) continue;
    for (const r of await readAttempts(source, { deliveryId: id })) bySeq.set(r.seq, r);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
