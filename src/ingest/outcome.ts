/**
 * What the pipeline decided for one arrival: what goes back on the wire, and the attempt record.
 * A source's adapter only writes the action (HTTP: http-route.ts); the record is made by
 * attempt-log.ts, in the pipeline, in its place relative to the answer.
 */
import type { AttemptRecord } from '../core/records.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

export type Action =
  /**
   * The receiver's own answer: a status, and a JSON body (null: no body at all, e.g. a 204 in sync mode).
   * A refusal's `code` also goes out as ERROR_CODE_HEADER, which `hookrelay send` reads (it never reads bodies).
   */
  | { kind: 'answer'; status: number; body: string | null; code?: string }
  /** A fault rule's answer, exactly: these headers in this order, this body, and nothing else. */
  | { kind: 'fault-answer'; status: number; headers: ReadonlyArray<readonly [string, string]>; body: string }
  /** Destroy the connection with a TCP RST. */
  | { kind: 'reset' }
  /** End the connection cleanly (FIN) without a response. */
  | { kind: 'close' }
  /** Never answer (after writing `statusLine` raw, when given); hold the connection until the sender gives up. */
  | { kind: 'hang'; statusLine: string | null }
  /** The sender left already (during a delay): nothing to write. */
  | { kind: 'none' };

export interface Outcome {
  action: Action;
  /**
   * The attempt as stored and announced: one object (`seq` is 0: the store assigns the real one).
   * Settled before the Outcome is returned, so the record precedes the answer, except for a hang
   * (recorded when the connection ends) and a 503 STORE_UNAVAILABLE (the store just failed: the
   * answer does not wait for the record).
   */
  recorded: Promise<AttemptRecord>;
}

export { ERROR_CODE_HEADER } from '../core/error-code-header.js';

export const jsonAnswer = (status: number, body: string, code?: string): Action => (code === undefined ? { kind: 'answer', status, body } : { kind: 'answer', status, body, code });
