/**
 * Which known bridge subscribers are far behind, and what retention does about it: the terminal's
 * warning (retention-notices) and its words. Pure: the cursors, the newest seq and the time are given.
 */
import { formatDurationText } from '../core/duration.js';

export interface LaggingSubscriber {
  /** `token/name`, as the cursor is kept. */
  name: string;
  /** The newest stored seq minus the subscriber's cursor. */
  lag: number;
  /** Since the cursor was last written (an ack, a skip or a refresh while connected). */
  idleMs: number;
  /** Seen within --bridge-retain: retention keeps what it has not acknowledged. */
  holding: boolean;
}

/** Subscribers at least `minLag` deliveries behind, the most behind first. */
export function laggingSubscribers(
  cursors: ReadonlyArray<{ name: string; ackedSeq: number; updatedAt: number }>,
  latest: number,
  now: number,
  options: { minLag: number; retainMs: number },
): LaggingSubscriber[] {
  return cursors
    .map((c) => ({ name: c.name, lag: latest - c.ackedSeq, idleMs: Math.max(0, now - c.updatedAt), holding: c.updatedAt >= now - options.retainMs }))
    .filter((s) => s.lag >= Math.max(1, options.minLag))
    .sort((a, b) => b.lag - a.lag || (a.name < b.name ? -1 : 1));
}

/** The terminal's line for one lagging subscriber. */
export function lagNotice(s: LaggingSubscriber, retainMs: number): string {
  const unit = [86_400_000, 3_600_000, 60_000].find((ms) => s.idleMs >= ms);
  const idle = unit ? formatDurationText(Math.floor(s.idleMs / unit) * unit) : 'less than a minute';
  const retain = formatDurationText(retainMs);
  return s.holding
    ? `bridge: subscriber ${s.name} is ${s.lag} deliveries behind (cursor last moved ${idle} ago); retention keeps them for it until it has been gone ${retain} (--bridge-retain)`
    : `bridge: subscriber ${s.name} is ${s.lag} deliveries behind and gone longer than --bridge-retain (${retain}, cursor last moved ${idle} ago): retention no longer keeps them for it`;
}
