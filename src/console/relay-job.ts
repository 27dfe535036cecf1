/**
 * A delivery's relay jobs as the console shows them (one per target: `--also`, routes of several
 * targets), and why Retry may not requeue one (issue 36, item 10).
 */
import type { RelayJob } from '../store/store.js';
import { clip, redactUrl } from './views.js';

/** Longest target sent (a URL of the operator's; longer is cut with `…`). */
const MAX_TARGET_CHARS = 2048;

export interface RelayJobView {
  /**
   * Its place among the delivery's jobs (1, 2, …), as they are listed: what Retry names (`{"job": n}`), since
   * two targets may show alike once their credentials are hidden.
   */
  job: number;
  /** `dead`: the relay gave up; only Retry (or `hookrelay events retry`) puts it back in the queue. */
  state: RelayJob['state'];
  /** Tries made so far. */
  tries: number;
  /** When a pending job is due, ms since the epoch; null in any other state. */
  nextAt: number | null;
  /** Where it goes, credentials redacted; null for a job queued before targets were kept. */
  target: string | null;
  /** What its target last answered: its status, null when there was no answer (or no try yet). */
  lastStatus: number | null;
  /** Why its last try failed, redacted and clipped; null when none did. */
  lastError: string | null;
}

/** One job as the console shows it; `redact` hides secrets in its error text (the composition root's). */
export function relayJobView(job: RelayJob, index: number, redact: (text: string) => string): RelayJobView {
  return {
    job: index + 1,
    state: job.state,
    tries: job.tries,
    nextAt: job.state === 'pending' ? job.nextAt : null,
    target: clip(redactUrl(job.target), MAX_TARGET_CHARS),
    lastStatus: job.lastStatus,
    lastError: job.lastError === null ? null : clip(redact(job.lastError)),
  };
}
