/** The shapes of a conformance verdict (issue 7). Plain data: JSON-serialisable, no class instances. */
import type { AttemptOutcome } from '../records.js';
import type { FailureClass } from '../retry-policy/policy.js';

/** What the sender saw from one attempt: a failure class of spec 6.4, or success (2xx). */
export type AnswerClass = FailureClass | 'success';

/** One attempt as the sender made it, in hookrelay's arrival order. */
export interface TimelineEntry {
  /**
   * The sender's attempt number as hookrelay counts it, in arrival order: 1, 2, 3… from the first
   * attempt seen, or from that attempt's header when it was above 1 (earlier attempts never arrived
   * here: the receiver was down, or they went elsewhere; see `unseenAttempts`).
   */
  position: number;
  /** `x-service-delivery-attempt` as sent (null when absent or not a positive integer). */
  attemptHeader: number | null;
  /** `x-service-delivery` as sent on this attempt. */
  deliveryId: string | null;
  trigger: string | null;
  /** Arrival of the attempt (its first request), ms since the epoch. */
  receivedAt: number;
  /** When the answer the sender acted on was sent, or the connection ended, ms since the epoch. */
  finishedAt: number;
  /**
   * When the attempt ended for the sender: `finishedAt`, or arrival + attempt timeout when
   * hookrelay answered later than that (the sender had given up by then).
   */
  endAt: number;
  /** From the previous attempt's `endAt` to this `receivedAt`, ms; null for the first attempt. */
  gapMs: number | null;
  /** `finishedAt − receivedAt`, ms. */
  durationMs: number;
  signatureTimestamp: number | null;
  bodySha256: string;
  outcome: AttemptOutcome;
  /** Status of the answer the sender acted on; null when none was given (reset, close, hang). */
  status: number | null;
  reason: string | null;
  /** Retry-After hookrelay sent with that answer. */
  retryAfter: string | null;
  answerClass: AnswerClass;
  /** Redirects the sender followed inside this attempt (each re-sent the same signed request). */
  hops: number;
  /** Arrival of the request that got the final answer (equals `receivedAt` when `hops` is 0). */
  lastHopReceivedAt: number;
  /** Store sequence numbers of the records making up this attempt. */
  seqs: number[];
}

export type RuleName =
  | 'attempt-sequence'
  | 'same-delivery'
  | 'fresh-signature'
  | 'backoff'
  | 'retry-after'
  | 'no-retry-after-final'
  | 'max-attempts'
  | 'timeout';

export type RunRuleName = 'suspension';

/** Per-delivery rules, in the order they are reported. */
export const DELIVERY_RULES: readonly RuleName[] = [
  'attempt-sequence',
  'same-delivery',
  'fresh-signature',
  'backoff',
  'retry-after',
  'no-retry-after-final',
  'max-attempts',
  'timeout',
];

export type RuleStatus = 'pass' | 'fail' | 'n/a';

/** One measured fact behind a rule verdict. */
export interface Finding {
  /** Attempt position (hookrelay's count) the finding is about. */
  attempt: number;
  /** The delivery, for run-wide rules (suspension). */
  deliveryId?: string | null;
  ok: boolean;
  /** What the policy allows, in words with the numbers ("47.750–73.000 s after attempt 1 ended"). */
  expected: string;
  /** What happened, with the number ("0.120 s"). */
  observed: string;
  /** The accepted range behind `expected`, slack applied (seconds unless the rule says otherwise; null = unbounded). */
  bounds?: { min: number | null; max: number | null };
  /** The number behind `observed` (seconds unless the rule says otherwise). */
  value?: number | null;
}

export interface RuleVerdict<N extends string = RuleName> {
  rule: N;
  status: RuleStatus;
  /** One line for humans: what the rule found. */
  message: string;
  /** Summary of what the policy expects. */
  expected: string;
  /** Summary of what was observed. */
  observed: string;
  findings: Finding[];
}

/** Where the delivery stands, as the sender should see it (spec 2.11 delivery status). */
export type DeliveryState = 'succeeded' | 'failed' | 'retrying';

export interface DeliveryVerdict {
  /** The id of the first attempt (the delivery's identity); null when no attempt carried one. */
  deliveryId: string | null;
  /** Other `x-service-delivery` values seen on attempts of the same delivery (same body). */
  otherDeliveryIds: string[];
  trigger: string | null;
  state: DeliveryState;
  timeline: TimelineEntry[];
  rules: RuleVerdict[];
  /** 'fail' when any rule failed. */
  status: 'pass' | 'fail';
  /** Attempts before the first one seen here (its header less 1): not judged, only what was seen is. */
  unseenAttempts?: number;
  /** The time scale the sender marked this delivery with (x-hookrelay-time-scale), when it was judged by it. */
  timeScaleMark?: number;
}

export interface SuspensionVerdict extends RuleVerdict<RunRuleName> {
  /** When the webhook should have been suspended (ms since the epoch), or null. */
  suspendedAt: number | null;
  cause: 'consecutive-failures' | 'gone' | null;
  /** The delivery whose outcome triggered the suspension. */
  causeDeliveryId: string | null;
}

export interface RuleCounts {
  pass: number;
  fail: number;
  'n/a': number;
}

export interface CheckSummary {
  deliveries: number;
  passed: number;
  failed: number;
  /** Deliveries whose retries may still come (not judged for max-attempts). */
  retrying: number;
  rules: Record<RuleName | RunRuleName, RuleCounts>;
  /** Rule verdicts that failed, over all deliveries and the run. */
  failures: number;
}

export interface RunVerdict {
  deliveries: DeliveryVerdict[];
  suspension: SuspensionVerdict;
  summary: CheckSummary;
}
