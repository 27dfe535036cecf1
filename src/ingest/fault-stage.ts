/**
 * The fault stage of the pipeline (issue 4, docs/faults.md "Where faults happen"): asks the rules
 * which one answers an arrival, and plans its answer. Carrying the plan out is fault-outcome.ts.
 */
import { planFaultAnswer, type FaultPlan } from '../core/faults/index.js';
import type { RandomSource } from '../core/seeded-random.js';
import type { FaultDecider } from '../faults/rules-controller.js';
import type { DeliveryLog } from '../store/store.js';
import { recordedId, type ArrivalFacts } from './arrival.js';
import { createArrivalTally } from './arrival-tally.js';

export interface FaultStage {
  /**
   * The plan of the rule that fires at one stage (`verified` false: before the signature check,
   * only pre-verify rules; true: after the envelope check, only the others), or null.
   */
  decide(facts: ArrivalFacts, verified: boolean): Promise<FaultPlan | null>;
}

export interface FaultStageOptions {
  faults: FaultDecider;
  store: DeliveryLog;
  clock: () => number;
  /** The receiver's path: redirect chains are served under it. */
  path: string;
  /** Draws the nonce of a redirect chain. */
  random: RandomSource;
}

export const NO_FAULTS: FaultDecider = {
  stages: { pre: { any: false, arrival: false }, post: { any: false, arrival: false } },
  decide: () => ({ matched: false, state: { firedCounts: new Map() } }),
};

export function createFaultStage(options: FaultStageOptions): FaultStage {
  const { faults, store, clock } = options;
  const tally = createArrivalTally();
  /** Arrival counts already computed for an arrival (by the pre-verify stage). */
  const counted = new WeakMap<ArrivalFacts, number>();

  /**
   * hookrelay's own count of this delivery id's arrivals, this one included. The store's count
   * survives restarts; the tally covers arrivals whose record is not committed yet (a hang is
   * recorded only when the client gives up, and the retry may come right after).
   */
  async function arrivalCount(facts: ArrivalFacts): Promise<number> {
    const known = counted.get(facts);
    if (known !== undefined) return known;
    // The id as records keep it (capped), so that the store's count and the tally agree.
    const id = recordedId(facts);
    if (id === null) return 0;
    let stored = 0;
    try {
      stored = await store.countArrivals(id);
    } catch {
      /* the store cannot read: the tally alone */
    }
    const count = Math.max(stored, tally.get(id)) + 1;
    tally.set(id, count);
    counted.set(facts, count);
    return count;
  }

  return {
    async decide(facts, verified) {
      const stage = faults.stages[verified ? 'post' : 'pre'];
      if (!stage.any) return null;
      const count = stage.arrival ? await arrivalCount(facts) : (counted.get(facts) ?? 0);
      const decision = faults.decide({
        trigger: facts.event ?? null,
        deliveryId: facts.deliveryId ?? null,
        attemptHeader: facts.attemptHeader,
        arrivalCount: count,
        verified,
      });
      if (!decision.matched) return null;
      return planFaultAnswer(decision.rule, { nowMs: clock(), basePath: options.path, random: options.random });
    },
  };
}
