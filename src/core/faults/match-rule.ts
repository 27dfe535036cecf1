/**
 * Which rule answers an arrival. First matching rule wins; no match means normal handling.
 *
 * A rule FIRES when `decideFault` returns it: its stage is the current one, its cap is not
 * reached, every condition holds, and its probability draw succeeded. Firing is counted then,
 * at decision time, whatever the answer (`accept` and `delay` included) and however the
 * connection ends afterwards. A rule passed over (cap reached, a condition failed, draw lost,
 * an earlier rule won) does not fire.
 */
import type { RandomSource } from '../seeded-random.js';
import { inRange } from './attempt-range.js';
import { formatFaultRule } from './format-rule.js';
import { globMatch } from './glob.js';
import type { FaultRule } from './rule.js';

/** One arrival, as the receiver knows it at the stage it decides. */
export interface FaultArrival {
  /** `x-service-event`, null when absent. */
  trigger: string | null;
  /** `x-service-delivery`, null when absent. */
  deliveryId: string | null;
  /** `x-service-delivery-attempt` when it is a positive integer, else null. */
  attemptHeader: number | null;
  /** Arrivals recorded for this delivery id, this one included (1 = first arrival). */
  arrivalCount: number;
  /**
   * The stage: false before signature verification (only `beforeVerify` rules are
   * considered), true after verification and the envelope check (only the others).
   */
  verified: boolean;
}

export interface FaultState {
  /** Times each rule has fired, by `faultRuleKey`. */
  firedCounts: ReadonlyMap<string, number>;
}

export type FaultDecision =
  | { matched: false; state: FaultState }
  | {
      matched: true;
      rule: FaultRule;
      /** Position of the rule in the list given. */
      index: number;
      key: string;
      /** How many times the rule has fired, this time included. */
      fired: number;
      /** The state after this firing; the input state is left unchanged. */
      state: FaultState;
    };

/** A state in which no rule has fired yet. */
export function emptyFaultState(): FaultState {
  return { firedCounts: new Map() };
}

/**
 * The key a rule's fire count is kept under: `id:<id>` when it has an id (so replacing the
 * rule's content keeps its count), otherwise `rule:<canonical one-line form>`.
 */
export function faultRuleKey(rule: FaultRule): string {
  if (rule.id !== undefined) return `id:${rule.id}`;
  let key = keyCache.get(rule);
  if (key === undefined) {
    key = `rule:${formatFaultRule(rule)}`;
    keyCache.set(rule, key);
  }
  return key;
}

// Rules are treated as immutable data, so a rule's canonical form is computed once, not per arrival.
const keyCache = new WeakMap<FaultRule, string>();

/**
 * Returns the first rule of `rules` that fires for `arrival` (see above), with the state that
 * counts the firing, or `matched: false` and the state unchanged.
 *
 * A condition on a field the arrival lacks never holds: `trigger` needs the event header,
 * `delivery` and `arrival` need the delivery id, `attempt` needs a valid attempt header.
 * `random` is called once for each rule, in order, that has come through stage, cap and
 * conditions and whose `p` lies strictly between 0 and 1 — and never otherwise — so a seeded
 * source makes the same sequence of arrivals get the same faults. The rule fires when the
 * draw is below `p`. Pure: never throws, never mutates its arguments.
 */
export function decideFault(
  rules: readonly FaultRule[],
  arrival: FaultArrival,
  state: FaultState,
  random: RandomSource,
): FaultDecision {
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    if (Boolean(rule.beforeVerify) === arrival.verified) continue;
    const key = faultRuleKey(rule);
    const fired = state.firedCounts.get(key) ?? 0;
    if (rule.limit !== undefined && fired >= rule.limit.times) continue;
    if (!conditionsHold(rule, arrival)) continue;
    if (!drawSucceeds(rule.match.p, random)) continue;
    const firedCounts = new Map(state.firedCounts);
    firedCounts.set(key, fired + 1);
    return { matched: true, rule, index, key, fired: fired + 1, state: { firedCounts } };
  }
  return { matched: false, state };
}

/** Whether every deterministic condition of `rule` holds (probability aside). */
export function conditionsHold(rule: FaultRule, arrival: FaultArrival): boolean {
  const { trigger, delivery, attempt, arrival: arrivalRange } = rule.match;
  if (trigger !== undefined && (typeof arrival.trigger !== 'string' || !globMatch(trigger, arrival.trigger))) return false;
  if (delivery !== undefined && (typeof arrival.deliveryId !== 'string' || !globMatch(delivery, arrival.deliveryId))) return false;
  if (attempt !== undefined && (arrival.attemptHeader === null || !inRange(attempt, arrival.attemptHeader))) return false;
  if (arrivalRange !== undefined && (typeof arrival.deliveryId !== 'string' || !inRange(arrivalRange, arrival.arrivalCount))) {
    return false;
  }
  return true;
}

function drawSucceeds(p: number | undefined, random: RandomSource): boolean {
  if (p === undefined || p >= 1) return true;
  if (!(p > 0)) return false;
  return random() < p;
}
