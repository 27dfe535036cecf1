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

