/**
 * At start: the relay jobs an earlier run left, said by target (issue 36, item 7). A job belongs to
 * the target it was queued for; a run that forwards elsewhere, or not at all, leaves it queued and
 * says so, with the command that moves it.
 */
import { relayTargetList, type RelayTargets } from '../core/routes.js';
import { displayUrl } from '../core/url-secrets.js';
import type { HubEvents } from '../runtime/event-hub.js';
import type { RelayBacklog, RelayOutbox } from '../store/store.js';

export type StartNotice = HubEvents['notice'];

/**
 * Holds the jobs of other targets and releases this run's own (when it forwards asynchronously),
 * then reads what waits, by target, as notices. Call before the relay starts taking jobs.
 */
export async function settleRelayBacklog(store: RelayOutbox, targets: RelayTargets | null, now: number): Promise<StartNotice[]> {
  if (targets) await store.holdRelayJobs(relayTargetList(targets), now);
  return backlogNotices(await store.relayBacklog(), targets);
}

const jobs = (n: number) => `${n} relay job${n === 1 ? '' : 's'}`;

/** What an operator is told of the jobs an earlier run left, target by target. */
export function backlogNotices(backlog: readonly RelayBacklog[], targets: RelayTargets | null): StartNotice[] {
  const list = targets ? relayTargetList(targets) : null;
  const ours = new Set(list ?? []);
  const here = list ? list.map(displayUrl).join(', ') : null;
  const notices: StartNotice[] = [];
  for (const entry of backlog) {
    const waiting = entry.pending + entry.held;
    if (entry.target === null) {
      if (waiting === 0) continue;
      notices.push(
        targets
          ? { level: 'info', message: `${jobs(waiting)} queued by an older hookrelay (no target kept) go where this run routes them: ${here}` }
          : { level: 'warn', message: `${jobs(waiting)} queued by an older hookrelay wait for a listen with --forward-to; they stay queued and keep their deliveries from retention` },
      );
      continue;
    }
    const shown = displayUrl(entry.target);
    if (ours.has(entry.target)) {
      if (waiting > 0) notices.push({ level: 'info', message: `${jobs(waiting)} queued for ${shown} by an earlier run: handing ${waiting === 1 ? 'it' : 'them'} on now` });
      continue;
    }
    if (waiting === 0) continue;
    const why = here === null ? 'this run does not forward' : `this run hands on to ${here}`;
    notices.push({
      level: 'warn',
      message: `${jobs(waiting)} wait${waiting === 1 ? 's' : ''} for ${shown} (queued by an earlier run; ${why}): ${waiting === 1 ? 'it stays' : 'they stay'} queued, never sent elsewhere by ${waiting === 1 ? 'itself' : 'themselves'}. Start with --forward-to (or the --route) to ${shown} to deliver ${waiting === 1 ? 'it' : 'them'}, or move ${waiting === 1 ? 'it' : 'them'}: hookrelay events retarget --from '${shown}' --to URL`,
    });
  }
  return notices;
}
