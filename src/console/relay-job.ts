/** A delivery's relay job as the console shows it, and why Retry may not requeue it (issue 36, item 10). */
import type { RelayJob } from '../store/store.js';
import { redactUrl } from './views.js';

export interface RelayJobView {
  /** `dead`: the relay gave up; only Retry (or `hookrelay events retry`) puts it back in the queue. */
  state: RelayJob['state'];
  /** Tries made so far. */
  tries: number;
  /** When a pending job is due, ms since the epoch; null in any other state. */
  nextAt: number | null;
  /** Where it goes, credentials redacted; null for a job queued before targets were kept. */
  target: string | null;
}

export function relayJobView(job: RelayJob | null): RelayJobView | null {
  if (job === null) return null;
  return { state: job.state, tries: job.tries, nextAt: job.state === 'pending' ? job.nextAt : null, target: redactUrl(job.target) };
}

/** Why Retry did not requeue: only a dead job goes back in the queue (a done one would reach the app twice). */
export function retryRefusal(state: RelayJob['state'] | null): string {
  switch (state) {
    case 'done':
      return 'already handed on: Retry only requeues a dead job. Replay sends it again, marked as a replay';
    case 'pending':
      return 'still queued for the relay: Retry only requeues a dead job';
    case 'held':
      return 'queued for a target the running relay does not hand on to: `hookrelay events retarget` moves it';
    default:
      return 'no relay job: it was stored while forwarding was off';
  }
}
