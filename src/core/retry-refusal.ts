import type { RelayJob } from './records.js';
import { displayUrl } from './url-secrets.js';

/** What a retry reads of a delivery's relay jobs: their state and target (one job per target). */
export type RetriedJob = Pick<RelayJob, 'state' | 'target'>;

/** A job's target as it may be shown (credentials hidden); a job queued before targets were kept has none. */
const nameOf = (target: string | null): string => (target === null ? '(no target: queued before targets were kept)' : displayUrl(target));

/** Why one job is not requeued, in the words said of a delivery with one job. */
function singleReason(state: RelayJob['state'], replayHow: string): string {
  switch (state) {
    case 'done':
      return `was already handed on; retry only requeues a dead job. To send it again, marked as a replay: ${replayHow}`;
    case 'pending':
      return 'is still queued for the relay; retry only requeues a dead job';
    case 'held':
      return 'is queued for a target the running relay does not hand on to; `hookrelay events retarget` moves it';
    case 'dead':
      return 'is dead';
  }
}

/** What one job of several is, named by its target. */
const STATE_WORDS: Record<RelayJob['state'], string> = {
  done: 'was already handed on',
  pending: 'is still queued for the relay',
  held: 'is held for a target the running relay does not hand on to (`hookrelay events retarget` moves it)',
  dead: 'is dead',
};

/**
 * Why a retry did not requeue a delivery: only a dead job goes back in the queue (a done one would reach
 * the app twice). `jobs`: every relay job of the delivery (one per target); `target`: the one target the
 * retry was asked for, when it was (as queued: compared to the jobs' targets). A delivery with one job is
 * said in one sentence; with several, each job is named by its target and its state. The CLI, the
 * console and the MCP tools each name the delivery and the way to replay in their own words; the
 * reasons are these.
 */
export function retryRefusal(jobs: readonly RetriedJob[], replayHow: string, target?: string): string {
  if (jobs.length === 0) return 'has no relay job (not stored, or stored while forwarding was off)';
  if (target !== undefined && !jobs.some((job) => job.target === target)) {
    return `has no relay job for ${displayUrl(target)}; its jobs go to ${jobs.map((job) => nameOf(job.target)).join(', ')}`;
  }
  if (jobs.length === 1) return singleReason(jobs[0]!.state, replayHow);
  const scope = target === undefined ? '' : ` for ${displayUrl(target)}`;
  const each = jobs.map((job) => `${nameOf(job.target)} ${STATE_WORDS[job.state]}`).join('; ');
  const replay = jobs.some((job) => job.state === 'done' && (target === undefined || job.target === target)) ? `. To send it again, marked as a replay: ${replayHow}` : '';
  return `has no dead relay job${scope}; retry only requeues a dead job. By target: ${each}${replay}`;
}

/**
 * The target a retry asks for (`--target URL`, the console's and MCP's `target`), as its job was queued:
 * the text normalised as routes are (`new URL(…).href`), matched to one of the delivery's job targets,
 * either as queued or as shown (displayUrl: the form `events show` printed, credentials hidden). A
 * refusal names the targets the delivery has (shown, never with credentials).
 */
export function retryTargetOf(jobs: readonly RetriedJob[], text: string): { ok: true; target: string } | { ok: false; message: string } {
  const trimmed = text.trim();
  const shown = JSON.stringify(displayUrl(trimmed).slice(0, 200));
  let href: string;
  try {
    href = new URL(trimmed).href;
  } catch {
    return { ok: false, message: `${shown} is not a URL (e.g. http://127.0.0.1:3000/webhooks)` };
  }
  const targets = jobs.map((job) => job.target).filter((t): t is string => t !== null);
  const exact = targets.find((t) => t === href);
  if (exact !== undefined) return { ok: true, target: exact };
  const asShown = targets.filter((t) => displayUrl(t) === trimmed || displayUrl(t) === href);
  if (asShown.length === 1) return { ok: true, target: asShown[0]! };
  if (asShown.length > 1) {
    return { ok: false, message: `${shown} is how ${asShown.length} of this delivery's targets are shown: they differ only in what is hidden; give the target URL as it was configured` };
  }
  if (targets.length === 0) return { ok: false, message: `${shown} is not a target of this delivery: it has no relay job with a target` };
  return { ok: false, message: `${shown} is not a target of this delivery; its relay jobs go to ${targets.map((t) => displayUrl(t)).join(', ')}` };
}

/** The jobs a retry puts back in the queue: the dead ones (only the one for `target`, when given). */
export const jobsRetried = <J extends RetriedJob>(jobs: readonly J[], target?: string): J[] =>
  jobs.filter((job) => job.state === 'dead' && (target === undefined || job.target === target));
