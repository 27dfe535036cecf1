import type { RelayJob } from './records.js';

/**
 * Why a retry did not requeue a delivery: only a dead job goes back in the queue (a done one would reach
 * the app twice). The CLI, the console and the MCP tools each name the delivery and the way to replay in
 * their own words; the reasons are these.
 */
export function retryRefusal(state: RelayJob['state'] | null, replayHow: string): string {
  switch (state) {
    case 'done':
      return `was already handed on; retry only requeues a dead job. To send it again, marked as a replay: ${replayHow}`;
    case 'pending':
      return 'is still queued for the relay; retry only requeues a dead job';
    case 'held':
      return 'is queued for a target the running relay does not hand on to; `hookrelay events retarget` moves it';
    default:
      return 'has no relay job (not stored, or stored while forwarding was off)';
  }
}
