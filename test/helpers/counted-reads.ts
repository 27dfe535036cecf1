/** A store whose relay outbox reads are counted: how a test knows the relay looked, rather than guessing with a timer. */
import type { DeliveryStore } from '../../src/store/store.js';

/**
 * `store` with its `dueRelayJobs` counted, and a way to await the next `n` reads: what a read gave, the
 * worker has started by then (it reads, then starts what it read, in one turn). A target the relay
 * holds back (paused, closed by its pace) got nothing after two reads because it is held back, not
 * because the poll had not run yet. `overrides` replace other methods of the store.
 */
export function countingReads(store: DeliveryStore, overrides: Partial<DeliveryStore> = {}) {
  let reads = 0;
  let returned = 0;
  const waiters: Array<{ at: number; resolve: () => void }> = [];
  const counted: DeliveryStore = Object.assign(Object.create(store) as DeliveryStore, overrides, {
    dueRelayJobs: async (...args: Parameters<DeliveryStore['dueRelayJobs']>) => {
      const jobs = await store.dueRelayJobs(...args);
      reads++;
      returned += jobs.length;
      for (const w of waiters.filter((w) => reads >= w.at)) {
        waiters.splice(waiters.indexOf(w), 1);
        setImmediate(w.resolve); // after the worker has started what this read returned
      }
      return jobs;
    },
  });
  return {
    store: counted,
    reads: () => reads,
    returned: () => returned,
    nextReads: (n: number) => new Promise<void>((resolve) => waiters.push({ at: reads + n, resolve })),
  };
}
