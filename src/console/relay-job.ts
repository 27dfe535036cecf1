/**
 * A delivery's relay tries and jobs as the console shows them (one job per target: `--also`, routes
 * of several targets), both from one read of the store.
 */
import type { RelayAttemptRecord } from '../core/records.js';
import type { RetriedJob } from '../core/retry-refusal.js';
import type { RelayHistoryOptions, RelayJob, RelayOutbox } from '../store/store.js';
import type { RelayRecordView } from './console-options.js';
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
  lastResponseStatus: number | null;
  /** @deprecated The same as `lastResponseStatus` (the CLI's name, docs/cli-json.md); removed in 1.0.0. */
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
    lastResponseStatus: job.lastStatus,
    lastStatus: job.lastStatus,
    lastError: job.lastError === null ? null : clip(redact(job.lastError)),
  };
}

/**
 * The job a retry names by its number (`job`: its place among the delivery's jobs as `relayHistory`
 * lists them, 1, 2, …, as relayJobView numbers them): the console's `{"job": n}` and MCP's
 * `retry_relay`. Its target as queued; undefined for a job queued before targets were kept, its
 * delivery's only one, retried as the delivery. Two targets that differ only in a hidden secret list
 * alike: the number tells them apart.
 */
export function retryJobOf(jobs: readonly RetriedJob[], job: number): { ok: true; target: string | undefined } | { ok: false; message: string } {
  const chosen = Number.isInteger(job) && job >= 1 ? jobs[job - 1] : undefined;
  if (chosen === undefined) return { ok: false, message: `this delivery has ${jobs.length} relay job${jobs.length === 1 ? '' : 's'}${jobs.length > 1 ? ` (1 to ${jobs.length})` : ''}` };
  return { ok: true, target: chosen.target ?? undefined };
}

/** One relay try as the console shows it: when it finished, what the target answered, how long it took. */
export function relayTryView(a: RelayAttemptRecord): RelayRecordView {
  return {
    at: a.finishedAt,
    ok: a.status !== null && a.status >= 200 && a.status < 300,
    status: a.status,
    latencyMs: a.finishedAt - a.startedAt,
    replay: a.replay,
    target: a.target,
    ...(a.error ? { error: a.error } : {}),
    ...(a.answer !== undefined ? { answer: a.answer } : {}),
  };
}

export interface RelayOfDelivery {
  /** Its tries, oldest first, as the store keeps them (their error texts not yet redacted). */
  tries: RelayRecordView[];
  /** Its jobs as shown, in the order they were queued. */
  jobs: RelayJobView[];
}

/**
 * A delivery's tries and jobs from one `relayHistory` read, which gives both: a list row or a detail
 * reads the store once for them (on PostgreSQL, a page of 50 rows was 50 queries more).
 */
export async function readRelay(store: Pick<RelayOutbox, 'relayHistory'>, deliveryId: string, redact: (text: string) => string, options?: RelayHistoryOptions): Promise<RelayOfDelivery> {
  const { jobs, attempts } = await store.relayHistory(deliveryId, options);
  return { tries: attempts.map(relayTryView), jobs: jobs.map((job, i) => relayJobView(job, i, redact)) };
}
