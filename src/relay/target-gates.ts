/**
 * The pace of each target (core/pacing.ts) as the relay applies it: how many hand-offs are in flight
 * there, a token bucket for its rate, and whether it is paused. The worker asks before it starts a
 * hand-off; a target that cannot start now is left out of the outbox reads until it can, so its
 * queue stays in the store, not in memory.
 */
import { paceOf, type Pace, type PaceSettings } from '../core/pacing.js';
import { createRateBucket, type RateBucket } from '../core/rate-bucket.js';

export interface TargetPaceView {
  target: string;
  pace: Pace;
  paused: boolean;
  inFlight: number;
}

export interface TargetGates {
  /** True when a hand-off to `target` may start at `now`. */
  open(target: string, now: number): boolean;
  /** A hand-off to `target` started: takes a slot and a token. */
  started(target: string, now: number): void;
  /** A hand-off to `target` was answered: frees its slot. */
  finished(target: string): void;
  /** Targets that cannot start at `now`: the outbox reads leave them out. */
  closed(now: number): string[];
  /** Milliseconds until a target closed by its rate alone opens again, or null when none is. */
  nextOpening(now: number): number | null;
  /** True while `target` is paused. */
  paused(target: string): boolean;
  /** Pauses or resumes `target`; false when it is not one of this relay's targets. */
  setPaused(target: string, paused: boolean): boolean;
  /** Every target of this relay, with its pace and state. */
  view(): TargetPaceView[];
}

interface Gate {
  pace: Pace;
  paused: boolean;
  inFlight: number;
  rate: RateBucket | null;
}

export function createTargetGates(settings: PaceSettings, targets: readonly string[], now: number): TargetGates {
  const gates = new Map<string, Gate>();
  const gateOf = (target: string): Gate => {
    let gate = gates.get(target);
    if (!gate) {
      // A target not named at start (a job queued before targets were kept goes where this run routes it).
      const pace = paceOf(settings, target);
      gate = { pace, paused: pace.paused, inFlight: 0, rate: pace.ratePerSecond === null ? null : createRateBucket(pace.ratePerSecond, pace.burst, now) };
      gates.set(target, gate);
    }
    return gate;
  };
  for (const target of targets) gateOf(target);

  const hasToken = (gate: Gate, at: number) => gate.rate === null || gate.rate.waitMs(at) === 0;
  const isOpen = (gate: Gate, at: number) => !gate.paused && gate.inFlight < gate.pace.concurrency && hasToken(gate, at);

  return {
    open: (target, at) => isOpen(gateOf(target), at),
    started(target, at) {
      const gate = gateOf(target);
      gate.inFlight++;
      gate.rate?.take(at);
    },
    finished(target) {
      const gate = gateOf(target);
      gate.inFlight = Math.max(0, gate.inFlight - 1);
    },
    closed: (at) => [...gates].filter(([, gate]) => !isOpen(gate, at)).map(([target]) => target),
    nextOpening(at) {
      let soonest: number | null = null;
      for (const gate of gates.values()) {
        if (gate.paused || gate.rate === null || gate.inFlight >= gate.pace.concurrency) continue;
        const wait = gate.rate.waitMs(at);
        if (wait === 0) continue;
        soonest = soonest === null ? wait : Math.min(soonest, wait);
      }
      return soonest;
    },
    paused: (target) => gates.get(target)?.paused ?? false,
    setPaused(target, paused) {
      const gate = gates.get(target);
      if (!gate) return false;
      gate.paused = paused;
      return true;
    },
    view: () => [...gates].map(([target, gate]) => ({ target, pace: gate.pace, paused: gate.paused, inFlight: gate.inFlight })),
  };
}
