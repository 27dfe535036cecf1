/**
 * `hookrelay events retry`: puts a delivery's dead relay jobs (one per target; only the one for
 * `--target` when given) back in the queue, and says why not for any other.
 */
import type { Command } from 'commander';
import { EXIT } from '../core/exit-codes.js';
import { displayUrl } from '../core/url-secrets.js';
import { printable } from '../reporter/printable.js';
import { openExistingStore } from '../store/open-store.js';
import { jobsRetried, retryRefusal, retryTargetOf } from '../core/retry-refusal.js';
import type { DeliveryStore } from '../store/store.js';
import { relayJobJson } from './events-rows.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, withStore } from './events-store-access.js';

export function registerEventsRetryCommand(events: Command): void {
  events
    .command('retry')
    .description('put a delivery\'s dead relay jobs back in the queue (a running `listen` that hands on to their targets picks them up); only dead ones')
    .argument('<id>', 'delivery id')
    .option('--target <url>', 'only the job for this target (one of the delivery\'s, as `events show` lists them)')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .option('--json', 'print one object: queued or not, the targets requeued, the relay jobs as they now are, and why not (docs/cli-json.md)')
    .action(async (id: string, flags: { target?: string; db?: string; store?: string; config?: string; json?: boolean }) => {
      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        const shown = printable(id);
        const before = (await store.relayHistory(id)).jobs;
        let target: string | undefined;
        // A delivery with no job is refused below (exit 1) whatever --target names.
        if (flags.target !== undefined && before.length > 0) {
          const chosen = retryTargetOf(before, flags.target);
          if (!chosen.ok) {
            process.stderr.write(`hookrelay: --target: ${printable(chosen.message, 2000)}\n`);
            process.exitCode = EXIT.usage;
            return;
          }
          target = chosen.target;
        }
        const queued = await store.requeueRelay(id, Date.now(), target);
        const requeued = queued ? jobsRetried(before, target) : [];
        const jobs = !queued || flags.json ? (await store.relayHistory(id)).jobs : [];
        const reason = queued ? null : retryRefusal(jobs, `hookrelay events replay ${shown} --to <url>`, target);
        if (flags.json) {
          const jobsJson = jobs.map(relayJobJson);
          process.stdout.write(
            `${JSON.stringify({ deliveryId: id, queued, target: target === undefined ? null : displayUrl(target), requeuedTargets: requeued.map((j) => (j.target === null ? null : displayUrl(j.target))), jobs: jobsJson, job: jobsJson[0] ?? null, reason })}\n`,
          );
        } else if (queued) {
          const targets = requeued.map((j) => (j.target === null ? '' : ` for ${printable(displayUrl(j.target), 200)}`));
          for (const line of targets.length > 0 ? targets : ['']) process.stdout.write(`queued again: ${shown}${line}\n`);
        }
        if (!queued) {
          process.stderr.write(`hookrelay: ${shown} ${printable(reason!, 4000)}\n`);
          process.exitCode = EXIT.finding;
        }
      });
    });
}
