/**
 * The relay log: the one place that records a relay try and announces it, for the relay worker's
 * tries, replays, and the sync hand-off that let a delivery in. The try is committed to its
 * delivery's relay history first and announced (`relay` on the hub) only then, so what the terminal,
 * the logs and a console's feed are told is what `events show` and a reloaded console read back: a
 * try the store could not record is not announced, and no observer can undo or skip a record.
 *
 * In the hand-off layer, not the relay's: the ingest's sync passthrough records through it too.
 */
import { displayUrl } from '../core/url-secrets.js';
import type { EventHub, HubEvents } from '../runtime/event-hub.js';
import type { RelayOutbox, RelayOutcome } from '../store/store.js';
import { targetTook, type HandOffResult } from './hand-off.js';

export interface RelayTry {
  deliveryId: string;
  deliverySeq: number;
  /** 1 for a job's first try; replays count their own. */
  try: number;
  replay: boolean;
  handedOff: HandOffResult;
  /** What becomes of the delivery's job; null for a try that moves no job (a replay, the sync hand-off). */
  next: RelayOutcome['next'];
  /** The target of the job it moves, as queued (null: queued before targets were kept); with `next`. */
  jobTarget?: string | null;
}

export interface RelayLog {
  /** Records the try, then announces it. Rejects, announcing nothing, only when the store could not record it. */
  record(relayTry: RelayTry): Promise<void>;
}

export function createRelayLog(store: Pick<RelayOutbox, 'recordRelay'>, hub: EventHub | null): RelayLog {
  return {
    async record(relayTry) {
      const { answer, startedAt, finishedAt, target } = relayTry.handedOff;
      await store.recordRelay({
        deliverySeq: relayTry.deliverySeq, startedAt, finishedAt, status: answer.status, error: answer.error,
        replay: relayTry.replay, target: displayUrl(target), try: relayTry.try, answer: answer.reply ?? null, next: relayTry.next,
        // The job is named by its target as queued, credentials and all; the try shows it without them.
        ...(relayTry.next !== null && relayTry.jobTarget ? { jobTarget: relayTry.jobTarget } : {}),
      });
      if (hub === null) return;
      try {
        if (hub.listens('relay')) hub.emit('relay', announcement(relayTry));
      } catch {
        // The try is recorded: an announcement that failed must not read as a failed record.
      }
    },
  };
}

function announcement({ deliveryId, try: n, replay, handedOff: { answer, target }, next }: RelayTry): HubEvents['relay'] {
  const relayed: HubEvents['relay'] = { deliveryId, status: answer.status, ok: targetTook(answer), latencyMs: Math.round(answer.latencyMs), replay, target: displayUrl(target) };
  const error = next?.state === 'dead' ? `${answer.error ?? 'failed'}; gave up after ${n} tries (retry by hand: hookrelay events retry ${deliveryId})` : answer.error;
  if (error) relayed.error = error;
  if (next !== null) relayed.nextRetryAt = next.state === 'pending' ? next.nextAt : null;
  return relayed;
}
