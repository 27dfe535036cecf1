/**
 * Carries out a fault plan (a rule's, or a redirect hop's) as an Outcome, recording the attempt
 * as `faulted` — never through store.accept, so a faulted attempt leaves no dedupe entry and the
 * retry that follows is accepted normally. `accept` and a `delay` the sender waited out hand the
 * arrival back to normal handling, with the rule as a note for its record.
 */
import { asciiOnly } from '../core/printable-text.js';
import { FAULT_HEADER, type FaultPlan } from '../core/faults/index.js';
import type { AttemptRecord } from '../core/records.js';
import { parseSignatureHeader } from '../core/signature/verify.js';
import { type Action, type Arrival, type ArrivalFacts, attemptOf, type Outcome } from './arrival.js';
import type { AttemptLog } from './store-step.js';

export type FaultStep =
  /** Go on with normal handling; `note` (the rule that let it through) goes in the record. */
  | { answered: false; note: string }
  | { answered: true; outcome: Outcome };

export interface FaultContext {
  arrival: Arrival;
  facts: ArrivalFacts;
  /** `t` of a verified signature; null before verification (the header's `t` is recorded when it parses). */
  signatureTimestamp: number | null;
  log: AttemptLog;
  clock: () => number;
}

export async function carryOutFault(fault: FaultPlan, ctx: FaultContext): Promise<FaultStep> {
  const { arrival, clock } = ctx;
  const record = (finishedAt: number, status: number | null): Promise<AttemptRecord> =>
    ctx.log.record(
      attemptOf(ctx.facts, { finishedAt, signatureTimestamp: ctx.signatureTimestamp ?? headerTimestamp(ctx.facts), outcome: 'faulted', status, reason: fault.reason, retryAfter: fault.retryAfter }),
      arrival.requestId,
      arrival,
    );
  // The record is committed before the answer leaves, as for an accepted delivery: whoever
  // reads the store after the sender saw the answer finds the attempt.
  const answered = async (action: Action): Promise<FaultStep> => {
    const recorded = await record(clock(), fault.status);
    return { answered: true, outcome: { action, recorded: Promise.resolve(recorded) } };
  };

  const plan = fault.plan;
  switch (plan.kind) {
    case 'pass':
      return { answered: false, note: fault.reason };
    case 'delay': {
      if (await arrival.connection.wait(plan.ms)) return { answered: false, note: fault.reason };
      // The sender gave up while we waited: to it this attempt timed out, and there is no one to answer.
      const recorded = await record(clock(), null);
      return { answered: true, outcome: { action: { kind: 'none' }, recorded: Promise.resolve(recorded) } };
    }
    case 'hang':
      // Recorded when the connection ends (the sender gave up, the cap passed, or shutdown).
      return {
        answered: true,
        outcome: { action: { kind: 'hang', statusLine: plan.statusLine }, recorded: arrival.connection.ended().then((endedAt) => record(endedAt, fault.status)) },
      };
    case 'reset':
      return answered({ kind: 'reset' });
    case 'close':
      return answered({ kind: 'close' });
    case 'respond':
      return answered({ kind: 'fault-answer', status: plan.status, headers: plan.headers, body: plan.body });
    case 'redirect': {
      const headers: Array<[string, string]> = plan.location === null ? [] : [['location', plan.location]];
      headers.push([FAULT_HEADER, headerSafe(fault.reason)]);
      return answered({ kind: 'fault-answer', status: plan.status, headers, body: '' });
    }
  }
}

/** `t` of the signature header when it parses (before verification, for the record). */
function headerTimestamp(facts: ArrivalFacts): number | null {
  const parsed = parseSignatureHeader(facts.signatureHeader);
  return parsed.ok ? parsed.header.timestamp : null;
}

/** Keeps a header value within printable ASCII so Node never refuses it. */
const headerSafe = (text: string): string => asciiOnly(text);
