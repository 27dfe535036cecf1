/** `hookrelay events retry`: puts a dead relay job back in the queue, and says why not for any other. */
import type { Command } from 'commander';
import { printable } from '../reporter/printable.js';
import { openExistingStore } from '../store/open-store.js';
import { retryRefusal } from '../core/retry-refusal.js';
import type { DeliveryStore } from '../store/store.js';
import { relayJobJson } from './events-rows.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, withStore } from './events-store-access.js';

export function registerEventsRetryCommand(events: Command): void {
  events
    .command('retry')
    .description('put a dead relay job back in the queue (a running `listen --forward-to` picks it up); only a dead one')
    .argument('<id>', 'delivery id')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .option('--json', 'print one object: queued or not, the relay job as it now is, and why not (docs/cli-json.md)')
    .action(async (id: string, flags: { db?: string; store?: string; config?: string; json?: boolean }) => {
      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        const queued = await store.requeueRelay(id, Date.now());
        const shown = printable(id);
        const job = !queued || flags.json ? (await store.relayHistory(id)).job : null;
        const reason = queued ? null : retryRefusal(job?.state ?? null, `hookrelay events replay ${shown} --to <url>`);
        if (flags.json) process.stdout.write(`${JSON.stringify({ deliveryId: id, queued, job: job && relayJobJson(job), reason })}\n`);
        else if (queued) process.stdout.write(`queued again: ${shown}\n`);
        if (!queued) {
          process.stderr.write(`hookrelay: ${shown} ${reason}\n`);
          process.exitCode = 1;
        }
      });
    });
}
