/**
 * Arrivals per delivery id seen by this process, for `arrival=` rules: a floor under the
 * store's count while the latest records are still on their way to the disk. Bounded: the
 * least recently counted ids are forgotten first (the store still knows them).
 */

export interface ArrivalTally {
  /** Arrivals counted for `id` (0 when unknown). */
  get(id: string): number;
  set(id: string, count: number): void;
}

export const DEFAULT_TALLY_SIZE = 10_000;

export function createArrivalTally(maxIds = DEFAULT_TALLY_SIZE): ArrivalTally {
  const counts = new Map<string, number>();
  return {
    get: (id) => counts.get(id) ?? 0,
    set(id, count) {
      // Re-inserting moves the id to the end: Map iteration order is insertion order.
      counts.delete(id);
      counts.set(id, count);
      if (counts.size > maxIds) counts.delete(counts.keys().next().value!);
    },
  };
}
