/** `hookrelay events retry`: puts a dead relay job back in the queue, and says why not for any other. */
import type { Command } from 'commander';
import { printable } from '../reporter/printable.js';
import { openExistingStore } from '../store/open-store.js';
import { retryRefusal } from '../core/retry-refusal.js';
import type { DeliveryStore } from '../store/store.js';
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
        const shown = printable(id);
        process.stderr.write(`hookrelay: ${shown} ${retryRefusal((await store.relayHistory(id)).job?.state ?? null, `hookrelay events replay ${shown} --to <url>`)}\n`);
        process.exitCode = 1;
      });
    });
}
