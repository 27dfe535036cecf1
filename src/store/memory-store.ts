/** The in-memory double of the store: same contract, no durability. For tests and demos. */
import {
  pairHeaders,
  type AcceptResult,
  type AttemptInput,
  type AttemptRecord,
  type DeliveryStore,
  type NewDelivery,
  type StoredDelivery,
} from './store.js';

export function createMemoryStore(): DeliveryStore {
  const deliveries: StoredDelivery[] = [];
  const byId = new Map<string, StoredDelivery>();
  const attempts: AttemptRecord[] = [];
  let attemptSeq = 0;

  const record = (attempt: AttemptInput, outcome: AttemptRecord['outcome']) =>
    attempts.push({ ...attempt, outcome, seq: ++attemptSeq });

  return {
    async accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult> {
      const existing = byId.get(delivery.id);
      if (existing) {
        existing.duplicateCount += 1;
        existing.lastAttemptAt = attempt.receivedAt;
        record(attempt, 'duplicate');
        return { outcome: 'duplicate', deliverySeq: existing.seq };
      }
      const { rawHeaders, ...rest } = delivery;
      const stored: StoredDelivery = {
        ...rest,
        rawBody: Buffer.from(delivery.rawBody),
        headers: pairHeaders(rawHeaders),
        seq: deliveries.length + 1,
        duplicateCount: 0,
        lastAttemptAt: attempt.receivedAt,
      };
      deliveries.push(stored);
      byId.set(stored.id, stored);
      record(attempt, 'accepted');
      return { outcome: 'accepted', deliverySeq: stored.seq };
    },

    async recordAttempt(attempt) {
      record(attempt, attempt.outcome);
    },

    async getDelivery(id) {
      const found = byId.get(id);
      return found && { ...found, headers: [...found.headers] };
    },

    async listDeliveries(query) {
      const text = query.text;
      const matches = deliveries
        .filter((d) => query.before === undefined || d.seq < query.before)
        .filter((d) => query.trigger === undefined || d.trigger === query.trigger)
        .filter((d) => !query.duplicatesOnly || d.duplicateCount > 0)
        .filter((d) => !text || d.id.includes(text) || d.trigger.includes(text) || d.rawBody.toString('latin1').includes(text) || d.rawBody.toString('utf8').includes(text))
        .reverse();
      const items = matches.slice(0, query.limit).map((d) => ({ ...d }));
      return { items, nextCursor: matches.length > query.limit ? items[items.length - 1]!.seq : null };
    },

    async listAttempts(query) {
      return attempts
        .filter((a) => query.deliveryId === undefined || a.deliveryId === query.deliveryId)
        .filter((a) => query.before === undefined || a.seq < query.before)
        .filter((a) => !query.outcomes || query.outcomes.includes(a.outcome))
        .reverse()
        .slice(0, query.limit)
        .map((a) => ({ ...a }));
    },

    async countArrivals(deliveryId) {
      return attempts.filter((a) => a.deliveryId === deliveryId).length;
    },

    async close() {},
  };
}
