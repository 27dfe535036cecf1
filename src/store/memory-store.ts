/** The in-memory double of the store: same contract, no durability. For tests and demos. */
import { deadBlockingTargets, relayJobsOf, type RelayTargets } from '../core/routes.js';
import {
  type BlockedOrderKey,
  pairHeaders,
  type AcceptResult,
  type AttemptInput,
  type AttemptRecord,
  type AttemptOutcome,
  type BridgeCursor,
  type KeptAnswer,
  type KeptRequest,
  type DeliveryStore,
  type NewDelivery,
  type PruneResult,
  type RelayAttemptRecord,
  isOwed,
  jobTargetOf,
  foldBacklog,
  type RelayBacklog,
  type RelayJob,
  relayJobKey,
  type StoredDelivery,
} from './store.js';
import { checkBridgeCursorArgs, clampLimit, triggerFilter } from './bridge-cursors.js';

export interface MemoryStoreOptions {
  /** Make a relay job with every accepted delivery (forwarding is on), for the target its trigger is routed to (true: no target kept). */
  outbox?: boolean | RelayTargets;
}

export function createMemoryStore(options: MemoryStoreOptions = {}): DeliveryStore {
  let deliveries: StoredDelivery[] = [];
  const byId = new Map<string, StoredDelivery>();
  let attempts: AttemptRecord[] = [];
  // By relayJobKey, in the order queued: a delivery has one job per target.
  const jobs = new Map<string, RelayJob>();
  // The order key of each ordered job, by relayJobKey (as the SQL stores' relay_jobs.order_key).
  const orderKeys = new Map<string, string>();
  const jobsOf = (seq: number) => [...jobs.values()].filter((job) => job.deliverySeq === seq);
  const dropJobsOf = (seq: number) => {
    for (const job of jobsOf(seq)) {
      jobs.delete(relayJobKey(job));
      orderKeys.delete(relayJobKey(job));
    }
  };
  const deadBlocks = deadBlockingTargets(options.outbox);
  let relayAttempts: RelayAttemptRecord[] = [];
  let attemptSeq = 0;
  let deliverySeq = 0;
  let relaySeq = 0;
  const cursors = new Map<string, BridgeCursor>();

  /** What an attempt keeps of its request, as a copy (the caller's buffers may be reused). */
  const kept = (request: KeptRequest | null | undefined): KeptRequest | null =>
    request ? { headers: request.headers.map(([n, v]) => [n, v]), body: request.body === null ? null : Buffer.from(request.body) } : null;
  const record = (attempt: AttemptInput, outcome: AttemptRecord['outcome'], request: KeptRequest | null) => {
    const { hints, request: _given, ...rest } = attempt;
    attempts.push({ ...rest, outcome, seq: ++attemptSeq, ...(hints && hints.length > 0 ? { hints: [...hints] } : {}), request: kept(request) });
    return attemptSeq;
  };
  const copy = (d: StoredDelivery): StoredDelivery => ({ ...d, headers: [...d.headers] });
  /** What a relay try kept of the target's answer, as a copy. */
  const keptAnswer = (answer: KeptAnswer | null | undefined): KeptAnswer | null =>
    answer ? { ...answer, headers: answer.headers.map(([n, v]) => [n, v]), body: Buffer.from(answer.body) } : null;

  /** As the SQL stores' due query: an ordered job waits while an earlier one of its target and key is owed. */
  const earlierOwedOfKey = (job: RelayJob): boolean => {
    const key = orderKeys.get(relayJobKey(job));
    if (key === undefined) return false;
    for (const other of jobs.values()) {
      if (other.deliverySeq >= job.deliverySeq || other.target !== job.target || orderKeys.get(relayJobKey(other)) !== key) continue;
      if (other.state === 'pending' || other.state === 'held' || (other.state === 'dead' && deadBlocks.includes(other.target ?? ''))) return true;
    }
    return false;
  };

  return {
    async accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult> {
      const existing = byId.get(delivery.id);
      if (existing) {
        existing.duplicateCount += 1;
        existing.lastAttemptAt = attempt.receivedAt;
        // A duplicate keeps the headers it came with (its attempt header and signature are its own).
        const seq = record(attempt, 'duplicate', { headers: pairHeaders(delivery.rawHeaders), body: null });
        return { outcome: 'duplicate', deliverySeq: existing.seq, attemptSeq: seq };
      }
      const { rawHeaders, ...rest } = delivery;
      const stored: StoredDelivery = {
        ...rest,
        rawBody: Buffer.from(delivery.rawBody),
        headers: pairHeaders(rawHeaders),
        seq: ++deliverySeq,
        duplicateCount: 0,
        lastAttemptAt: attempt.receivedAt,
      };
      deliveries.push(stored);
      byId.set(stored.id, stored);
      const attemptSeqOfIt = record(attempt, 'accepted', null);
      if (options.outbox) {
        const queued = options.outbox === true ? [{ target: null, orderKey: null }] : relayJobsOf(options.outbox, { trigger: stored.trigger, rawBody: stored.rawBody, headers: stored.headers });
        for (const { target, orderKey } of queued) {
          const job: RelayJob = { deliverySeq: stored.seq, deliveryId: stored.id, state: 'pending', target, tries: 0, nextAt: attempt.receivedAt, lastStatus: null, lastError: null };
          jobs.set(relayJobKey(job), job);
          if (orderKey !== null) orderKeys.set(relayJobKey(job), orderKey);
        }
      }
      return { outcome: 'accepted', deliverySeq: stored.seq, attemptSeq: attemptSeqOfIt };
    },

    async recordAttempt(attempt) {
      return record(attempt, attempt.outcome, attempt.request ?? null);
    },

    async getDelivery(id) {
      const found = byId.get(id);
      return found && copy(found);
    },

    async listDeliveries(query) {
      const text = query.text;
      const matches = deliveries
        .filter((d) => query.before === undefined || d.seq < query.before)
        .filter((d) => query.trigger === undefined || d.trigger === query.trigger)
        .filter((d) => !query.duplicatesOnly || d.duplicateCount > 0)
        .filter((d) => !text || d.id.includes(text) || d.trigger.includes(text) || d.rawBody.toString('latin1').includes(text) || d.rawBody.toString('utf8').includes(text))
        .reverse();
      const items = matches.slice(0, query.limit).map(copy);
      return { items, nextCursor: matches.length > query.limit ? items[items.length - 1]!.seq : null };
    },

    async listAttempts(query) {
      return attempts
        .filter((a) => query.deliveryId === undefined || a.deliveryId === query.deliveryId)
        .filter((a) => query.before === undefined || a.seq < query.before)
        .filter((a) => query.since === undefined || a.receivedAt >= query.since)
        .filter((a) => !query.outcomes || query.outcomes.includes(a.outcome))
        .reverse()
        .slice(0, query.limit)
        .map(({ request, hints, ...a }) => ({
          ...a,
          ...(hints ? { hints: [...hints] } : {}),
          ...(query.withRequest ? { request: kept(request) } : {}),
        }));
    },

    async countArrivals(deliveryId) {
      return attempts.filter((a) => a.deliveryId === deliveryId).length;
    },

    async dueRelayJobs(now, limit, skip, skipTargets = []) {
      return [...jobs.values()]
        .filter((j) => j.state === 'pending' && j.nextAt <= now && !skip?.has(relayJobKey(j)) && (j.target === null || !skipTargets.includes(j.target)) && !earlierOwedOfKey(j))
        .sort((a, b) => a.nextAt - b.nextAt || a.deliverySeq - b.deliverySeq)
        .slice(0, limit)
        .map((job) => ({ job: { ...job }, delivery: copy(byId.get(job.deliveryId)!) }));
    },

    async recordRelay(outcome) {
      const { next, answer, jobTarget: _job, ...attempt } = outcome;
      relayAttempts.push({ ...attempt, seq: ++relaySeq, answer: keptAnswer(answer) });
      // Its job for the target tried, or the delivery's one job queued before targets were kept.
      const job = jobs.get(relayJobKey({ deliverySeq: outcome.deliverySeq, target: jobTargetOf(outcome) })) ?? jobs.get(relayJobKey({ deliverySeq: outcome.deliverySeq, target: null }));
      // Only a pending job moves, as in the SQLite writer.
      if (job && next && job.state === 'pending') {
        Object.assign(job, {
          state: next.state,
          tries: outcome.try,
          nextAt: next.state === 'pending' ? next.nextAt : outcome.finishedAt,
          lastStatus: outcome.status,
          lastError: outcome.error,
        });
      }
    },

    async relayHistory(deliveryId, { withAnswers = false, answersOfNewest } = {}) {
      const delivery = byId.get(deliveryId);
      if (!delivery) return { jobs: [], attempts: [] };
      const tries = relayAttempts.filter((a) => a.deliverySeq === delivery.seq);
      const firstAnswered = answersOfNewest === undefined ? 0 : tries.length - Math.max(0, answersOfNewest);
      const attemptsOf = tries.map(({ answer, ...a }, i) => (withAnswers ? { ...a, answer: i >= firstAnswered ? keptAnswer(answer) : null } : a));
      return { jobs: jobsOf(delivery.seq).map((job) => ({ ...job })), attempts: attemptsOf };
    },

    async requeueRelay(deliveryId, now, target) {
      const delivery = byId.get(deliveryId);
      if (!delivery) return false;
      const dead = jobsOf(delivery.seq).filter((job) => job.state === 'dead' && (target === undefined || job.target === target));
      for (const job of dead) Object.assign(job, { state: 'pending', nextAt: now });
      return dead.length > 0;
    },

    async relayCounts() {
      const counts = { pending: 0, held: 0, done: 0, dead: 0 };
      for (const job of jobs.values()) counts[job.state]++;
      return counts;
    },

    async blockedOrderKeys(target, limit) {
      const blocked: BlockedOrderKey[] = [];
      for (const job of [...jobs.values()].sort((a, b) => a.deliverySeq - b.deliverySeq)) {
        const key = orderKeys.get(relayJobKey(job));
        if (key === undefined || job.target !== target || blocked.length >= limit) continue;
        const head = (job.state === 'pending' && job.tries > 0) || (job.state === 'dead' && deadBlocks.includes(job.target));
        if (!head || earlierOwedOfKey(job)) continue;
        const waiting = [...jobs.values()].filter((f) => f.deliverySeq > job.deliverySeq && f.target === job.target && orderKeys.get(relayJobKey(f)) === key && (f.state === 'pending' || f.state === 'held')).length;
        if (waiting > 0) blocked.push({ target: job.target, key, deliveryId: job.deliveryId, state: job.state as BlockedOrderKey['state'], tries: job.tries, lastStatus: job.lastStatus, lastError: job.lastError, waiting });
      }
      return blocked;
    },

    async relayBacklog() {
      const owed = [...jobs.values()].filter((job) => job.state !== 'done');
      const arrivedAt = new Map(deliveries.map((d) => [d.seq, d.receivedAt]));
      return foldBacklog(owed.map((job) => ({ target: job.target, state: job.state, n: 1, oldest: arrivedAt.get(job.deliverySeq) ?? null, retrying: job.tries > 0 ? 1 : 0 })));
    },

    async holdRelayJobs(targets) {
      let moved = 0;
      for (const job of jobs.values()) {
        if (job.target === null) continue;
        const ours = targets.includes(job.target);
        if ((job.state === 'pending' && !ours) || (job.state === 'held' && ours)) {
          job.state = ours ? 'pending' : 'held';
          moved++;
        }
      }
      return moved;
    },

    async retargetRelayJobs(from, to, now) {
      let moved = 0;
      for (const job of [...jobs.values()]) {
        if (!isOwed(job.state) || job.target !== from) continue;
        moved++;
        const key = relayJobKey(job);
        // The delivery has a job for `to` already: it is handed there once, by that job, owed again if it was not.
        const into = from === to ? undefined : jobs.get(relayJobKey({ deliverySeq: job.deliverySeq, target: to }));
        if (into !== undefined) {
          if (into.state === 'dead' || into.state === 'held') Object.assign(into, { state: 'pending', nextAt: now });
          jobs.delete(key);
          orderKeys.delete(key);
          continue;
        }
        jobs.delete(key);
        Object.assign(job, { target: to, state: 'pending' });
        jobs.set(relayJobKey(job), job);
        const orderKey = orderKeys.get(key);
        orderKeys.delete(key);
        if (orderKey !== undefined) orderKeys.set(relayJobKey(job), orderKey);
      }
      return moved;
    },

    async deleteDelivery(id) {
      const delivery = byId.get(id);
      if (!delivery) return false;
      byId.delete(id);
      deliveries = deliveries.filter((d) => d !== delivery);
      attempts = attempts.filter((a) => a.deliveryId !== id);
      relayAttempts = relayAttempts.filter((a) => a.deliverySeq !== delivery.seq);
      dropJobsOf(delivery.seq);
      return true;
    },

    async prune(before, { dryRun = false, keepAfterSeq } = {}): Promise<PruneResult> {
      const pruned = new Set<StoredDelivery>();
      let keptPending = 0;
      for (const d of deliveries) {
        if (d.lastAttemptAt >= before || (keepAfterSeq !== undefined && d.seq > keepAfterSeq)) continue;
        if (jobsOf(d.seq).some((job) => isOwed(job.state))) keptPending++;
        else pruned.add(d);
      }
      const prunedIds = new Set([...pruned].map((d) => d.id));
      const prunedSeqs = new Set([...pruned].map((d) => d.seq));
      const linked = (a: AttemptRecord) => a.outcome === 'accepted' || a.outcome === 'duplicate';
      // Refused attempts go by their own age, unless they claim an id still stored.
      const goes = (a: AttemptRecord) =>
        linked(a) ? a.deliveryId !== null && prunedIds.has(a.deliveryId) : a.receivedAt < before && !(a.deliveryId !== null && byId.has(a.deliveryId) && !prunedIds.has(a.deliveryId));
      const result: PruneResult = {
        before,
        deliveries: pruned.size,
        attempts: attempts.filter(goes).length,
        relayAttempts: relayAttempts.filter((a) => prunedSeqs.has(a.deliverySeq)).length,
        keptPending,
        dryRun,
      };
      if (dryRun) return result;
      deliveries = deliveries.filter((d) => !pruned.has(d));
      for (const d of pruned) {
        byId.delete(d.id);
        dropJobsOf(d.seq);
      }
      attempts = attempts.filter((a) => !goes(a));
      relayAttempts = relayAttempts.filter((a) => !prunedSeqs.has(a.deliverySeq));
      return result;
    },

    async stats() {
      const byOutcome: Record<AttemptOutcome, number> = { accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0 };
      for (const a of attempts) byOutcome[a.outcome]++;
      const relayJobs = { pending: 0, held: 0, done: 0, dead: 0 };
      for (const job of jobs.values()) relayJobs[job.state]++;
      return {
        deliveries: deliveries.length,
        attempts: byOutcome,
        relayJobs,
        oldestReceivedAt: deliveries.reduce<number | null>((min, d) => (min === null || d.receivedAt < min ? d.receivedAt : min), null),
        newestReceivedAt: deliveries.reduce<number | null>((max, d) => (max === null || d.receivedAt > max ? d.receivedAt : max), null),
      };
    },

    async deliveriesAfter(afterSeq, limit, triggers) {
      const matches = triggerFilter(triggers);
      const out: StoredDelivery[] = [];
      const n = clampLimit(limit);
      // deliveries is in seq order (appended, and filtered only by removal).
      for (const d of deliveries) {
        if (out.length >= n) break;
        if (d.seq > afterSeq && (!matches || matches(d.trigger))) out.push(copy(d));
      }
      return out;
    },

    async countDeliveriesAfter(afterSeq, upToSeq, triggers, most = Infinity) {
      const matches = triggerFilter(triggers);
      const range = deliveries.filter((d) => d.seq > afterSeq && d.seq <= upToSeq);
      if (range.length > most) return null;
      return range.filter((d) => !matches || matches(d.trigger)).length;
    },

    async bridgeCursor(name) {
      const found = cursors.get(name);
      return found ? { ...found } : null;
    },

    async registerBridgeSubscriber(name, seq, now) {
      checkBridgeCursorArgs(name, seq, now);
      let found = cursors.get(name);
      if (!found) cursors.set(name, (found = { name, ackedSeq: seq, updatedAt: now }));
      return { ...found };
    },

    async ackBridge(name, seq, now) {
      checkBridgeCursorArgs(name, seq, now);
      const found = cursors.get(name);
      if (!found) cursors.set(name, { name, ackedSeq: seq, updatedAt: now });
      else if (seq >= found.ackedSeq) Object.assign(found, { ackedSeq: seq, updatedAt: now });
    },

    async bridgeCursors() {
      return [...cursors.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((c) => ({ ...c }));
    },

    async latestDeliverySeq() {
      return deliveries.length === 0 ? 0 : deliveries[deliveries.length - 1]!.seq;
    },

    async probe() {},

    async close() {},
  };
}
