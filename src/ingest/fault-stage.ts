/**
 * The fault stage of the receiver (issue 4, docs/faults.md "Where faults happen"): asks the
 * rules which one answers an arrival, carries the answer out, and records the attempt as
 * `faulted` — never through store.accept, so a faulted attempt leaves no dedupe entry and the
 * retry that follows is accepted normally. `delay` and `accept` hand the arrival back to
 * normal handling.
 */
import type { FastifyReply } from 'fastify';
import type { EventHub } from '../runtime/event-hub.js';
import { FAULT_HEADER, planFaultAnswer, type FaultPlan } from '../core/faults/index.js';
import type { RandomSource } from '../core/seeded-random.js';
import { parseSignatureHeader } from '../core/signature/parse-signature-header.js';
import type { FaultDecider } from '../faults/rules-controller.js';
import type { AttemptInput, DeliveryStore } from '../store/store.js';
import { identify, type Arrival } from './arrival.js';
import { createArrivalTally } from './arrival-tally.js';
import type { FaultSockets } from './fault-answer.js';

export type StageVerdict =
  /** The arrival goes on to normal handling; `note` (the rule that let it through) goes in its record. */
  | { handled: false; fired: boolean; note: string | null }
  /** The fault answered the arrival, or its client left during a delay: nothing more to do. */
  | { handled: true };

export interface FaultStage {
  /** Whether any rule is decided at this stage: when not, `run` need not be called (the hot path stays free). */
  wants(verified: boolean): boolean;
  /**
   * Decides the rules of one stage (`verified` false: before the signature check, only
   * pre-verify rules; true: after the envelope check, only the others) and carries out the
   * answer of the rule that fires.
   */
  run(reply: FastifyReply, arrival: Arrival, verified: boolean, signatureTimestamp: number | null): Promise<StageVerdict>;
  /** Carries out a plan made elsewhere (a redirect hop) and records it. */
  carryOut(reply: FastifyReply, arrival: Arrival, fault: FaultPlan, signatureTimestamp: number | null): Promise<StageVerdict>;
}

export interface FaultStageOptions {
  faults: FaultDecider;
  sockets: FaultSockets;
  store: DeliveryStore;
  hub: EventHub;
  clock: () => number;
  /** The receiver's path: redirect chains are served under it. */
  path: string;
  skipVerify: boolean;
  /** Draws the nonce of a redirect chain. */
  random: RandomSource;
}

const NOTHING_FIRED: StageVerdict = { handled: false, fired: false, note: null };
const HANDLED: StageVerdict = { handled: true };

export function createFaultStage(options: FaultStageOptions): FaultStage {
  const { faults, sockets, store, hub, clock } = options;
  const tally = createArrivalTally();
  /** Arrival counts already computed for an arrival (by the pre-verify stage). */
  const counted = new WeakMap<Arrival, number>();

  /**
   * hookrelay's own count of this delivery id's arrivals, this one included. The store's count
   * survives restarts; the tally covers arrivals whose record is not committed yet (a hang is
   * recorded only when the client gives up, and the retry may come right after).
   */
  async function arrivalCount(arrival: Arrival): Promise<number> {
    const known = counted.get(arrival);
    if (known !== undefined) return known;
    // The id as records keep it (capped), so that the store's count and the tally agree.
    const id = identify(arrival).deliveryId;
    if (id === null) return 0;
    let stored = 0;
    try {
      stored = await store.countArrivals(id);
    } catch {
      /* the store cannot read: the tally alone */
    }
    const count = Math.max(stored, tally.get(id)) + 1;
    tally.set(id, count);
    counted.set(arrival, count);
    return count;
  }

  async function record(arrival: Arrival, fault: FaultPlan, finishedAt: number, signatureTimestamp: number | null, status = fault.status, requestId?: string): Promise<void> {
    const attempt: AttemptInput = {
      ...identify(arrival),
      finishedAt,
      signatureTimestamp: signatureTimestamp ?? headerTimestamp(arrival),
      outcome: 'faulted',
      status,
      reason: fault.reason,
      retryAfter: fault.retryAfter,
    };
    try {
      await store.recordAttempt(attempt);
    } catch {
      /* the store is down: the fault is answered all the same */
    }
    hub.emit('attempt', { attempt: { ...attempt, seq: 0 }, skipVerify: options.skipVerify, requestId });
  }

  async function carryOut(reply: FastifyReply, arrival: Arrival, fault: FaultPlan, signatureTimestamp: number | null): Promise<StageVerdict> {
    const plan = fault.plan;
    switch (plan.kind) {
      case 'pass':
        return { handled: false, fired: true, note: fault.reason };
      case 'delay': {
        if (await sockets.delay(reply, plan.ms)) return { handled: false, fired: true, note: fault.reason };
        // The client gave up while we waited: to the sender this attempt timed out.
        reply.hijack();
        await record(arrival, fault, clock(), signatureTimestamp, null, reply.request.id);
        return HANDLED;
      }
      case 'hang': {
        const finishedAt = await sockets.hang(reply, plan.statusLine);
        await record(arrival, fault, finishedAt, signatureTimestamp, fault.status, reply.request.id);
        return HANDLED;
      }
      // The record is committed before the answer leaves, as for an accepted delivery: whoever
      // reads the store after the sender saw the answer finds the attempt.
      case 'reset':
        await record(arrival, fault, clock(), signatureTimestamp, fault.status, reply.request.id);
        sockets.reset(reply);
        return HANDLED;
      case 'close':
        await record(arrival, fault, clock(), signatureTimestamp, fault.status, reply.request.id);
        sockets.close(reply);
        return HANDLED;
      case 'respond':
        await record(arrival, fault, clock(), signatureTimestamp, fault.status, reply.request.id);
        sockets.respond(reply, plan.status, plan.headers, plan.body);
        return HANDLED;
      case 'redirect': {
        await record(arrival, fault, clock(), signatureTimestamp, fault.status, reply.request.id);
        const headers: Array<[string, string]> = plan.location === null ? [] : [['location', plan.location]];
        headers.push([FAULT_HEADER, headerSafe(fault.reason)]);
        sockets.respond(reply, plan.status, headers, '');
        return HANDLED;
      }
    }
  }

  return {
    wants: (verified) => faults.hasRules(verified),
    async run(reply, arrival, verified, signatureTimestamp) {
      if (!faults.hasRules(verified)) return NOTHING_FIRED;
      const count = faults.usesArrivalCount(verified) ? await arrivalCount(arrival) : (counted.get(arrival) ?? 0);
      const decision = faults.decide({
        trigger: arrival.event ?? null,
        deliveryId: arrival.deliveryId ?? null,
        attemptHeader: arrival.attemptHeader,
        arrivalCount: count,
        verified,
      });
      if (!decision.matched) return NOTHING_FIRED;
      const fault = planFaultAnswer(decision.rule, { nowMs: clock(), basePath: options.path, random: options.random });
      return carryOut(reply, arrival, fault, signatureTimestamp);
    },
    carryOut,
  };
}

/** `t` of the signature header when it parses (before verification, for the record). */
function headerTimestamp(arrival: Arrival): number | null {
  const parsed = parseSignatureHeader(arrival.signatureHeader);
  return parsed.ok ? parsed.header.timestamp : null;
}

/** Keeps a header value within printable ASCII so Node never refuses it. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
