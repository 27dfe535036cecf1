/**
 * The port durable work is fed through: the pipeline tells it of each delivery the moment the commit
 * that stores it (and its relay job) returns. The relay hands the delivery on from memory; should
 * the port not be wired, or a consumer fail, the job is still in the outbox and the relay's poll finds
 * it. Not the observer hub: the composition root wires each consumer by name, and a consumer that
 * throws is reported, never swallowed in silence, and never stops the answer or another consumer.
 */
import type { FreshDelivery } from '../core/records.js';

export interface OutboxPort {
  /** A delivery was just stored, with its relay job, in a commit that has returned. */
  stored(delivery: FreshDelivery): void;
}

/**
 * Every consumer is told, in order; one that throws is reported through `onError`, once, and the
 * next is told all the same. The port itself never throws: the delivery is committed, and its
 * sender is owed the 2xx. The one place a consumer's failure is caught.
 */
export function outboxPortOf(consumers: readonly OutboxPort[], onError: (err: unknown, delivery: FreshDelivery) => void): OutboxPort {
  return {
    stored(delivery) {
      for (const consumer of consumers) {
        try {
          consumer.stored(delivery);
        } catch (err) {
          try {
            onError(err, delivery);
          } catch {
            // A report that failed has no one left to tell; the next consumer still is.
          }
        }
      }
    },
  };
}
