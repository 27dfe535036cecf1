/** `hookrelay events retry`: puts a dead relay job back in the queue, and says why not for any other. */
import type { Command } from 'commander';
import { printable } from '../reporter/printable.js';
import { openExistingStore } from '../store/open-store.js';
import type { DeliveryStore, RelayJob } from '../store/store.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, withStore } from './events-store-access.js';

export function registerEventsRetryCommand(events: Command): void {
  events
    .command('retry')
    .description('put a dead relay job back in the queue (a running `listen --forward-to` picks it up); only a dead one')
    .argument('<id>', 'delivery id')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (id: string, flags: { db?: string; store?: string; config?: string }) => {
      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        if (await store.requeueRelay(id, Date.now())) {
          process.stdout.write(`queued again: ${printable(id)}\n`);
          return;
        }
        process.stderr.write(`hookrelay: ${retryRefusal(id, (await store.relayHistory(id)).job?.state ?? null)}\n`);
        process.exitCode = 1;
      });
    });
}

/** Why `events retry` did not requeue: only a dead job may go back in the queue (a done one would reach the app twice). */
function retryRefusal(id: string, state: RelayJob['state'] | null): string {
  const shown = printable(id);
  if (state === 'done') return `${shown} was already handed on; retry only requeues a dead job. To send it again, marked as a replay: hookrelay events replay ${shown} --to <url>`;
  if (state === 'pending') return `${shown} is still queued for the relay; retry only requeues a dead job`;
  if (state === 'held') return `${shown} is queued for a target the running relay does not hand on to; \`hookrelay events retarget\` moves it`;
  return `${shown} has no relay job (not stored, or stored while forwarding was off)`;
}
