/**
 * Fault rules: which arrivals a rule matches and how the receiver answers them (issue 4,
 * the failure classes of spec 6.4). A rule is plain data: the one-line form
 * (parse-rule.ts / format-rule.ts) and the JSON form (rule-json.ts / rule-json-write.ts) both
 * produce it, through one assembly (assemble-rule.ts).
 *
 * Canonical shape, as the assembly produces it: optional keys are absent rather than
 * `undefined`, `beforeVerify` is present only when true, `headers` only when non-empty.
 */

/** An inclusive range of positive integers; `to: null` is open-ended (`3-`). */
export interface AttemptRange {
  from: number;
  to: number | null;
}

/**
 * What to put in `Retry-After` (spec 6.4 rule 1: seconds or an HTTP date).
 * `relative` becomes an HTTP date that many seconds after the moment of answering.
 */
export type RetryAfterSpec =
  | { kind: 'seconds'; seconds: number }
  | { kind: 'date'; date: string }
  | { kind: 'relative'; seconds: number };

/** Every condition present must hold; an empty match matches every arrival. */
export interface FaultMatch {
  /** Glob (`*`, `?`) on `x-service-event`. */
  trigger?: string;
  /** Glob (`*`, `?`) on `x-service-delivery`; without wildcards it is an exact id. */
  delivery?: string;
  /** Range on `x-service-delivery-attempt` as the sender wrote it. */
  attempt?: AttemptRange;
  /** Range on hookrelay's own count of arrivals of this delivery id, this one included (1 = first). */
  arrival?: AttemptRange;
  /** Probability in [0, 1] that the rule fires once everything else matched. */
  p?: number;
}

/** Redirect statuses a rule may answer with. Only 307 and 308 keep the POST, so only they chain. */
export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

export type FaultAnswer =
  /** Any status 100-599, with chosen headers (in order) and body. */
  | {
      kind: 'status';
      status: number;
      headers?: Array<[name: string, value: string]>;
      body?: string;
      retryAfter?: RetryAfterSpec;
    }
  /** Wait `ms`, then handle the arrival normally. */
  | { kind: 'delay'; ms: number }
  /** Never answer; with `slowHeaders` the status line is sent and the rest withheld. */
  | { kind: 'hang'; slowHeaders: boolean }
  /** Destroy the connection with a TCP RST (the sender sees ECONNRESET). */
  | { kind: 'reset' }
  /** End the connection cleanly (FIN) with no response. */
  | { kind: 'close' }
  /** `hops: null` answers a 3xx with no Location; `hops: N` serves a chain of N redirects, then normal handling. */
  | { kind: 'redirect'; status: RedirectStatus; hops: number | null }
  /** Explicit normal handling: no fault, no further rule. */
  | { kind: 'accept' };

export type FaultAnswerKind = FaultAnswer['kind'];

export interface FaultRule {
  /** Optional name; also the key of the rule's fire count when present. */
  id?: string;
  match: FaultMatch;
  answer: FaultAnswer;
  /** The rule fires at most `times` times (see match-rule.ts for what "fires" means). */
  limit?: { times: number };
  /** Decide this rule before signature verification (for tests of unsigned senders). */
  beforeVerify?: boolean;
}

/** Default status of `redirect`: 307 keeps the method and body. */
export const DEFAULT_REDIRECT_STATUS: RedirectStatus = 307;
export const REDIRECT_STATUSES: readonly RedirectStatus[] = [301, 302, 303, 307, 308];
/** Spec 8 allows 3 hops; a chain may go a little beyond to prove the limit. */
export const MAX_HOPS = 20;
/** Longest `delay`: one hour. */
export const MAX_DELAY_MS = 3_600_000;
export const MAX_BODY_LENGTH = 65_536;
/** Spec 8's limit for a custom header value. */
export const MAX_HEADER_VALUE_LENGTH = 4096;
export const MAX_HEADERS = 32;
export const MAX_GLOB_LENGTH = 256;
export const MAX_ID_LENGTH = 64;
export const MAX_TIMES = 1_000_000_000;
export const MAX_RETRY_AFTER_SECONDS = 2_147_483_647;
export const MAX_RANGE_VALUE = 1_000_000;
