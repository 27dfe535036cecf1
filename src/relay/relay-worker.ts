/**
 * Hands accepted deliveries to the app from the durable outbox. Offered every accepted delivery
 * as it is stored, and polling for retries that come due; a restart resumes from the database. A
 * job is done only once the target answered 2xx, and only then never sent again.
 *
 * A delivery has one job per target (its route's targets, else --forward-to, and those of each
 * --also route that matches, chosen once when it was accepted: core/routes.ts relayTargetsOf), each
 * with its own tries, retries and dead state; a job is named by its delivery and target
 * (relayJobKey). A job goes to its target, never to another: a run that forwards elsewhere holds it
 * (store.holdRelayJobs, at start) until a run forwards there again or `hookrelay events retarget`
 * moves it. A job queued before targets were kept goes where this run's first route sends it.
 * Each try records the target it used.
 */
import { NO_PACING, orderOfTargets, paceOf, type PaceSettings } from '../core/pacing.js';
import { relayTargetList, relayTargetOf, relayTargetsOf, type RelayTargets, type Route } from '../core/routes.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { FreshDelivery } from '../core/records.js';
import { relayJobKey, type OutboxDelivery, type RelayJob, type RelayOutbox } from '../store/store.js';
import { createForwardAgent, type TargetTrust } from '../handoff/forward-agent.js';
import { createHandOff, type HandOffResult } from '../handoff/hand-off.js';
import { createRelayLog } from '../handoff/relay-log.js';
import { nextRelayState, type RelayRetryPolicy } from './relay-backoff.js';
import { createTargetGates, type TargetPaceView } from './target-gates.js';

export interface RelayOptions {
  store: RelayOutbox;
  hub: EventHub;
  /** `--forward-to`: where a delivery goes that no route matches. */
  target: string;
  /** `--route GLOB=URL …` in order (the first whose glob matches the trigger wins) and `--also` routes (each that matches adds its targets). */
  routes?: readonly Route[];
  /** `--forward-insecure` / `--forward-ca`: how https targets' certificates are checked. */
  trust?: TargetTrust;
  secret: string;
  timeoutMs: number;
  retry: RelayRetryPolicy;
  extraHeaders: ReadonlyArray<[string, string]>;
  /** `--pace`: each target's concurrency, rate and pause (default: 16 at once, no rate). */
  pacing?: PaceSettings;
  /** Hand-offs in flight at once, over every target (default: the sum of the targets' concurrency). */
  concurrency?: number;
  pollIntervalMs?: number;
  clock?: () => number;
  random?: () => number;
}

export type { FreshDelivery } from '../core/records.js';

export interface RelayWorker {
  /** Look for due jobs now. */
  poke(): void;
  /**
   * A delivery was just stored with its relay job: hand it on from memory (within bounds; past
   * them, or on a store shared by instances, it is read from the outbox like any other job).
   */
  offer(fresh: FreshDelivery): void;
  /** A delivery was deleted: a job of it read ahead is not started. */
  forget(deliveryId: string): void;
  /** Each target's pace, whether it is paused, its hand-offs in flight and the jobs waiting here for it. */
  targets(): Array<TargetPaceView & { waiting: number }>;
  /**
   * Pauses or resumes hand-offs to `target` (one of this relay's). A paused target's jobs stay
   * pending in the store; those read already are let go, and none is read until it resumes.
   */
  setPaused(target: string, paused: boolean): boolean;
  /** Stops taking jobs and waits for the hand-offs in flight. */
  stop(): Promise<void>;
}

/** What a hand-off needs of a delivery: the outbox's row, or the receiver's own copy. */
type HandOffSource = Omit<OutboxDelivery, 'seq'>;

/** Deliveries held in memory for a hand-off: past either bound, the outbox holds them until read. */
const FRESH_MAX = 1024;
/** A job whose outcome could not be recorded waits this long before it can be read and sent again. */
const RECORD_FAILED_HOLD_MS = 1000;
const FRESH_MAX_BYTES = 8 * 1024 * 1024;
/** The most due jobs one outbox read returns. */
const READ_AHEAD_MAX = 64;

function pairs(flat: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

export function createRelayWorker(options: RelayOptions): RelayWorker {
  const { store, hub, retry } = options;
  const clock = options.clock ?? Date.now;
  const random = options.random ?? Math.random;
  const pacing = options.pacing ?? NO_PACING;
  const routed: RelayTargets = { to: options.target, routes: options.routes ?? [] };
  const ownTargets = new Set(relayTargetList(routed));
  // Ordered targets: their jobs are taken only from the outbox, whose reads keep each key's order.
  const targets: RelayTargets = { ...routed, order: orderOfTargets(pacing, [...ownTargets]) };
  const isOrdered = (target: string | null) => target !== null && Object.hasOwn(targets.order!, target);
  const gates = createTargetGates(pacing, [...ownTargets], clock());
  const paces = [...ownTargets].map((target) => paceOf(pacing, target));
  const concurrency = options.concurrency ?? paces.reduce((sum, pace) => sum + pace.concurrency, 0);
  // Connections are pooled per origin: each target's pool as large as its concurrency.
  // Connections are pooled per origin: each origin's pool holds the concurrency of every target on it
  // (two routes to one app share it, and a slow one must not take the other's sockets).
  const perOrigin = new Map<string, number>();
  for (const target of ownTargets) {
    const origin = URL.canParse(target) ? new URL(target).origin : target;
    perOrigin.set(origin, (perOrigin.get(origin) ?? 0) + paceOf(pacing, target).concurrency);
  }
  const dispatcher = createForwardAgent(options.trust, { connections: Math.max(...perOrigin.values()), keepAliveTimeout: 10_000 });
  const handOffs = createHandOff({ secret: options.secret, headers: options.extraHeaders, timeoutMs: options.timeoutMs }, dispatcher, clock);
  const relayLog = createRelayLog(store, hub);
  // Hand-offs waiting for the target's answer, by relayJobKey: each holds one of the `concurrency` slots.
  const inFlight = new Set<string>();
  // stop() waits on this for the last answer.
  let allAnswered: (() => void) | null = null;
  // Answered, their outcome not yet committed: no slot (a commit is a wait, not work for the
  // target), but never read again before the commit, so never sent twice.
  const recording = new Map<string, Promise<void>>();
  // Due jobs read ahead of the hand-offs that will take them: one outbox read for many hand-offs.
  let readAhead: Array<{ job: RelayJob; delivery: HandOffSource }> = [];
  // Twice the slots, within the bound of one read's memory however many targets there are.
  const readAheadMax = Math.min(concurrency * 2, READ_AHEAD_MAX);
  // Deliveries just stored, handed on from memory before anything is read from the outbox.
  let fresh: Array<{ job: RelayJob; delivery: HandOffSource }> = [];
  let freshBytes = 0;
  // Every job this worker holds (fresh, read ahead, parked, posting, recording), by relayJobKey: never read or taken again.
  const held = new Set<string>();
  // Jobs read for a target that could not start then (its pace), in order, at most parkMax a target;
  // past that they are let go (still pending in the store) and read again once it opens.
  const parked = new Map<string, Array<{ job: RelayJob; delivery: HandOffSource }>>();
  const parkMax = (target: string) => Math.min(64, paceOf(pacing, target).concurrency * 2);
  // Targets whose jobs were let go while closed: the outbox may hold them once the target opens.
  const letGo = new Set<string>();
  // Jobs queued with no target (by an older hookrelay) that were let go: the store cannot skip them by
  // target, so they are skipped by key until their target opens, or they would fill every read.
  const letGoUntargeted = new Map<string, Set<string>>();
  // Claims to give back (PostgreSQL), by relayJobKey: a job let go must not stay reserved to this instance.
  let unclaim: string[] = [];
  // The one wake-up for a target closed by its rate, and when it fires.
  let rateTimer: NodeJS.Timeout | null = null;
  let rateTimerAt = Infinity;
  // Set by the poll: the outbox is read even while fresh deliveries wait, so retries come due.
  let pollDue = true;
  // Whether the outbox may hold due jobs this worker does not: one not offered (past the memory
  // bounds, or stored without its bytes), one whose outcome could not be recorded, the backlog at
  // start, and at every poll (retries that come due, jobs requeued by hand). A worker that keeps
  // up holds every job it has, and reading the outbox after each answer anyway cost more than the
  // hand-off itself (two empty reads a hand-off). `outboxChanges` counts the marks, so a read that
  // was under way when one came does not clear it.
  let outboxMayHold = true;
  let outboxChanges = 0;
  const markOutbox = () => {
    outboxMayHold = true;
    outboxChanges++;
  };
  let stopped = false;
  let pumping = false;
  let again = false;
  let pokeScheduled = false;
  let stopping: Promise<void> | null = null;

  const timer = setInterval(() => {
    pollDue = true;
    markOutbox();
    void pump();
  }, options.pollIntervalMs ?? 500);
  timer.unref();

  /**
   * A slot is free, and the jobs sent but not yet recorded as such stay within twice the slots:
   * those are what a kill could send again after a restart (docs/relay.md), and a store that
   * stalls stops the posting.
   */
  const canStart = () => inFlight.size < concurrency && inFlight.size + recording.size < concurrency * 2;

  // The one hold of foreign jobs in flight (holdForeign).
  let holding: Promise<void> | null = null;

  /**
   * A job queued for a target this worker does not hand on to (made pending again after the start:
   * a retry by hand, a retarget, another instance) is never posted here: every such job is held
   * again, and this one is read no more until that is committed.
   */
  function holdForeign(job: RelayJob): void {
    // One hold covers every foreign job: those read while it runs wait on it instead of asking again.
    const hold = (holding ??= store
      .holdRelayJobs([...ownTargets], clock())
      .then(
        () => undefined,
        () => undefined, // the store could not write: the jobs stay pending and are read again at the next poll
      )
      .finally(() => (holding = null)));
    void hold.finally(() => held.delete(relayJobKey(job)));
  }

  /** Starts the job when its target's pace allows, else parks it (or lets it go: it stays in the store). */
  function dispatch(entry: { job: RelayJob; delivery: HandOffSource }): void {
    const { job, delivery } = entry;
    if (job.target !== null && !ownTargets.has(job.target)) return holdForeign(job);
    const target = job.target ?? relayTargetOf(targets, { trigger: delivery.trigger, rawBody: delivery.rawBody, headers: delivery.headers });
    if (gates.paused(target)) return letGoOf(job, target); // pending in the store until resumed
    const queue = parked.get(target);
    // Behind jobs parked for the same target: its order is kept.
    if (!queue && gates.open(target, clock())) return start(job, delivery, target);
    if (queue && queue.length >= parkMax(target)) return letGoOf(job, target);
    if (queue) queue.push(entry);
    else parked.set(target, [entry]);
  }

  /** Lets a job go: it stays pending in the store and is read again once its target opens. */
  function letGoOf(job: RelayJob, target: string): void {
    const key = relayJobKey(job);
    held.delete(key);
    letGo.add(target);
    if (job.target === null) {
      const keys = letGoUntargeted.get(target) ?? new Set<string>();
      keys.add(key);
      letGoUntargeted.set(target, keys);
    }
    if (store.claimsRelayJobs && store.releaseRelayClaims) unclaim.push(key);
  }

  /** Gives back the claims of the jobs let go, in one write. */
  function releaseClaims(): void {
    if (unclaim.length === 0 || !store.releaseRelayClaims) return;
    const keys = unclaim;
    unclaim = [];
    // Not given back (the store could not write): the claim runs out with this instance's, as a kill's would.
    store.releaseRelayClaims(keys).catch((err: Error) => hub.emit('notice', { level: 'warn', message: `relay: could not give back the claim of ${keys.length} job(s) let go: ${err.message}` }));
  }

  /**
   * Every job to leave out of an outbox read: those held here, and untargeted ones let go for a closed
   * target. A job held here for a delivery leaves out its delivery's job queued with no target too: a
   * store that kept no targets (or an older hookrelay) queued that one job for what the worker offered
   * under its target, and it must not be read and sent a second time.
   */
  function unreadable(): Set<string> {
    const skip = new Set(held);
    for (const key of held) skip.add(relayJobKey({ deliverySeq: Number(key.slice(0, key.indexOf('|'))), target: null }));
    for (const keys of letGoUntargeted.values()) for (const key of keys) skip.add(key);
    return skip;
  }

  /** Starts what is parked for targets that opened. */
  function startParked(): void {
    for (const [target, queue] of parked) {
      while (queue.length > 0 && canStart() && !stopped && gates.open(target, clock())) {
        const { job, delivery } = queue.shift()!;
        start(job, delivery, target);
      }
      if (queue.length === 0) parked.delete(target);
    }
    for (const target of letGo) {
      if (parked.has(target) || !gates.open(target, clock())) continue;
      letGo.delete(target);
      letGoUntargeted.delete(target);
      markOutbox();
    }
  }

  /** Wakes the pump when the first target closed by its rate opens. */
  function wakeForRate(): void {
    if (stopped) return;
    const wait = gates.nextOpening(clock());
    if (wait === null) return;
    const at = clock() + wait;
    // A wake-up armed for a slower target must not hold back a faster one.
    if (rateTimer !== null && rateTimerAt <= at) return;
    if (rateTimer !== null) clearTimeout(rateTimer);
    rateTimerAt = at;
    rateTimer = setTimeout(() => {
      rateTimer = null;
      rateTimerAt = Infinity;
      void pump();
    }, wait);
    rateTimer.unref();
  }

  /** Posts the delivery; once answered, frees the slot and records the outcome. */
  function start(job: RelayJob, delivery: HandOffSource, target: string): void {
    const relayTry = job.tries + 1;
    const key = relayJobKey(job);
    inFlight.add(key);
    gates.started(target, clock());
    let answeredOnce = false;
    const onAnswer = (result: HandOffResult) => {
      answeredOnce = true;
      gates.finished(target);
      answered(key);
      const recorded = record(job, relayTry, result).finally(() => {
        recording.delete(key);
        held.delete(key);
        // The next delivery of its key may be due now.
        if (isOrdered(target)) markOutbox();
        void pump();
      });
      recording.set(key, recorded);
      void pump();
    };
    try {
      handOffs.send(delivery, target, { relayTry, replay: false }, onAnswer);
    } catch {
      // send() answers through its callback, never throws; should it, before an answer, the job
      // stays pending and is read again. After one, the job is the recording's to release.
      if (answeredOnce) return;
      gates.finished(target);
      answered(key);
      held.delete(key);
      markOutbox();
    }
  }

  function answered(key: string): void {
    inFlight.delete(key);
    if (inFlight.size === 0) allAnswered?.();
  }

  async function record(job: RelayJob, relayTry: number, handedOff: HandOffResult): Promise<void> {
    const next = nextRelayState(retry, relayTry, handedOff.answer.status, handedOff.finishedAt, random);
    try {
      await relayLog.record({ deliveryId: job.deliveryId, deliverySeq: job.deliverySeq, try: relayTry, replay: false, handedOff, next, jobTarget: job.target });
    } catch (err) {
      hub.emit('notice', { level: 'warn', message: `relay: the try of delivery ${job.deliveryId} could not be recorded (${(err as Error).message}); it is handed on again` });
      // The store could not write (or not in time: the write may still land). The job is handed
      // on again later, with the same x-service-delivery for the target to dedupe; held a while
      // first, or a store that reads but cannot write would have it sent again at once, in a loop.
      await new Promise((resolve) => setTimeout(resolve, RECORD_FAILED_HOLD_MS));
      markOutbox();
    }
  }

  async function pump(): Promise<void> {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        startParked();
        if (!canStart()) break;
        if (readAhead.length === 0 && fresh.length > 0 && !pollDue) {
          readAhead = fresh;
          fresh = [];
          freshBytes = 0;
        } else if ((readAhead.length === 0 && (outboxMayHold || store.claimsRelayJobs)) || (pollDue && !store.claimsRelayJobs)) {
          pollDue = false;
          const changes = outboxChanges;
          // None already held: reading those again at every completion cost more than the
          // hand-off. A claiming store leases what it returns, and a lease must not run out while
          // a job waits here (another instance would send it too): only as many as can start.
          const wanted = store.claimsRelayJobs ? concurrency - inFlight.size : readAheadMax;
          const read = await store.dueRelayJobs(clock(), wanted, unreadable(), gates.closed(clock()));
          // As many as asked for: more may wait (a poll that finds a backlog reads on, not 32 a
          // poll). Fewer: none else was due and not held when it was read.
          if (read.length >= wanted) outboxMayHold = true;
          else if (changes === outboxChanges) outboxMayHold = false;
          for (const entry of read) {
            const key = relayJobKey(entry.job);
            if (held.has(key)) continue;
            held.add(key);
            readAhead.push(entry);
          }
          if (readAhead.length === 0 && fresh.length > 0) again = true;
        }
        while (readAhead.length > 0 && canStart() && !stopped) dispatch(readAhead.shift()!);
      } while (again && !stopped);
      wakeForRate();
      releaseClaims();
    } catch (err) {
      hub.emit('notice', { level: 'warn', message: `relay: cannot read the outbox: ${(err as Error).message}` });
    } finally {
      pumping = false;
    }
  }

  void pump();

  function pumpSoon(): void {
    if (pokeScheduled) return;
    pokeScheduled = true;
    setImmediate(() => {
      pokeScheduled = false;
      void pump();
    });
  }

  return {
    poke() {
      markOutbox();
      pumpSoon();
    },

    offer(delivery) {
      // Another instance could claim the same job from a shared outbox: there, only the outbox hands on.
      if (store.claimsRelayJobs || fresh.length >= FRESH_MAX || freshBytes + delivery.rawBody.length > FRESH_MAX_BYTES) return this.poke();
      const subject = { trigger: delivery.trigger, rawBody: delivery.rawBody, headers: delivery.rawHeaders };
      const source: HandOffSource = { id: delivery.id, trigger: delivery.trigger, receivedAt: delivery.receivedAt, rawBody: delivery.rawBody, headers: pairs(delivery.rawHeaders) };
      let fromOutbox = false;
      let counted = false;
      // The store queued one job per target, as this choice gives them (the one choice: core/routes.ts).
      for (const target of relayTargetsOf(targets, subject)) {
        const job: RelayJob = { deliverySeq: delivery.seq, deliveryId: delivery.id, state: 'pending', target, tries: 0, nextAt: delivery.receivedAt, lastStatus: null, lastError: null };
        const key = relayJobKey(job);
        if (held.has(key)) continue;
        // An ordered delivery may have to wait for an earlier one of its key: the outbox's read knows.
        if (isOrdered(target)) {
          fromOutbox = true;
          continue;
        }
        held.add(key);
        // Its bytes are held once, however many of its targets take them from memory.
        if (!counted) freshBytes += delivery.rawBody.length;
        counted = true;
        fresh.push({ job, delivery: source });
      }
      if (fromOutbox) this.poke();
      else pumpSoon();
    },

    forget(deliveryId) {
      const kept = (entry: { job: RelayJob }) => {
        if (entry.job.deliveryId !== deliveryId) return true;
        held.delete(relayJobKey(entry.job));
        return false;
      };
      readAhead = readAhead.filter(kept);
      fresh = fresh.filter(kept);
      for (const [target, queue] of parked) parked.set(target, queue.filter(kept));
    },

    targets() {
      return gates.view().map((view) => ({ ...view, waiting: parked.get(view.target)?.length ?? 0 }));
    },

    setPaused(target, paused) {
      if (!gates.setPaused(target, paused)) return false;
      const queue = parked.get(target);
      if (paused && queue) {
        // Let go: the store keeps them pending, and a paused target is read no more.
        for (const { job } of queue) letGoOf(job, target);
        parked.delete(target);
        releaseClaims();
      }
      if (!paused) {
        letGoUntargeted.delete(target);
        this.poke();
      }
      return true;
    },

    stop() {
      stopping ??= (async () => {
        stopped = true;
        clearInterval(timer);
        if (rateTimer !== null) clearTimeout(rateTimer);
        if (inFlight.size > 0) await new Promise<void>((resolve) => (allAnswered = resolve));
        await Promise.allSettled([...recording.values()]);
        await dispatcher.close();
      })();
      return stopping;
    },
  };
}
