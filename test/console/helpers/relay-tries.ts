/**
 * A store whose relay tries are the test's own: what a console test shows of the relay without
 * running one. The console reads tries and jobs from the store in one `relayHistory` call; the jobs
 * stay the store's.
 */
import type { RelayRecordView } from '../../../src/console/console-options.js';
import type { RelayAttemptRecord } from '../../../src/core/records.js';
import { createMemoryStore } from '../../../src/store/memory-store.js';
import type { DeliveryStore, RelayHistoryOptions } from '../../../src/store/store.js';

/** A try as the console shows it (`ok` follows from the status, as the store's tries have it), without `nextRetryAt`: a stored try has none. */
export type RelayTry = Omit<RelayRecordView, 'nextRetryAt'>;

/** Where a try went when the test names none: the console fixture's forward target. */
const FORWARD_TO = 'http://127.0.0.1:3000/hooks';

/** `store` (a new memory store when none is given) answering `tries(id, options)` as each delivery's relay tries, oldest first. */
export function withRelayTries(tries: (deliveryId: string, options?: RelayHistoryOptions) => RelayTry[], store: DeliveryStore = createMemoryStore()): DeliveryStore {
  return Object.assign(Object.create(store) as DeliveryStore, {
    relayHistory: async (deliveryId: string, options?: RelayHistoryOptions) => {
      const { jobs } = await store.relayHistory(deliveryId, options);
      const attempts = tries(deliveryId, options).map((t, i): RelayAttemptRecord => {
        if (t.ok !== (t.status !== null && t.status >= 200 && t.status < 300)) throw new Error(`a try with status ${t.status} cannot be ok: ${t.ok}`);
        return {
          seq: i + 1,
          deliverySeq: 0,
          startedAt: t.at - t.latencyMs,
          finishedAt: t.at,
          status: t.status,
          error: t.error ?? null,
          replay: t.replay,
          target: t.target ?? FORWARD_TO,
          try: i + 1,
          ...(t.answer === undefined ? {} : { answer: t.answer }),
        };
      });
      return { jobs, attempts };
    },
  });
}
