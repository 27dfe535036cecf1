/** `hookrelay events replay`: re-sends a stored delivery, freshly signed and marked as a replay. */
import type { Command } from 'commander';
import { resolveStoreLocation } from '../config/db-path.js';
import { resolveReplaySettings, type ReplayFlags } from '../config/replay-settings.js';
import { printable } from '../reporter/printable.js';
import { openExistingStore } from '../store/open-store.js';
import type { DeliveryStore } from '../store/store.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, withStore } from './events-store-access.js';
import { collect as collectValues, reportProblems } from './shared-options.js';

export function registerEventsReplayCommand(events: Command): void {
  events
    .command('replay')
    .description('re-send a stored delivery, freshly signed and marked as a replay (recorded in its history)')
    .argument('<id>', 'delivery id')
    .option('--to <url>', 'where to send it, on this machine unless --allow-remote (default: where the relay would send it: its --route, else HOOKRELAY_FORWARD_TO)')
    .option('--allow-remote', 'allow a --to that is not on this machine')
    .option('--secret <secret>', 'sign with this secret (default: HOOKRELAY_FORWARD_SECRET, the first HOOKRELAY_SECRET, or the development secret)')
    .option('--timeout <ms>', 'give up after this long', '30000')
    .option('--route <glob=url>', "as listen's --route: where a replay without --to goes by its trigger (default: HOOKRELAY_ROUTE, or the config file's)", collectValues)
    .option('--forward-header <header>', "as listen's: 'Name: value' on the replay; repeatable (default: HOOKRELAY_FORWARD_HEADER, or the config file's)", collectValues)
    .option('--forward-ca <file>', "as listen's: PEM certificate(s) trusted for an https target (default: HOOKRELAY_FORWARD_CA)")
    .option('--forward-insecure', "as listen's: accept any certificate from an https target")
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (id: string, flags: ReplayFlags & { db?: string; store?: string }) => {
      const where = resolveStoreLocation(flags);
      const replay = resolveReplaySettings(flags, where.ok ? where.dbPath : null);
      if (!replay.ok || !where.ok) {
        reportProblems([...(where.ok ? [] : where.problems), ...(replay.ok ? [] : replay.problems)]);
        process.exitCode = 2;
        return;
      }
      const { createReplayer } = await import('../relay/replay.js');
      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        const replayer = createReplayer({ store, settings: replay.settings.settings, clock: Date.now });
        try {
          const result = await replayer.replay(id, replay.settings.to ?? undefined);
          if (!result) {
            process.stderr.write(`hookrelay: no stored delivery with id ${printable(id)}\n`);
            process.exitCode = 1;
            return;
          }
          process.stdout.write(`${result.ok ? 'replayed' : 'replay failed'}: ${result.status ?? '---'} from ${printable(result.target)} in ${Math.round(result.latencyMs)} ms${result.error ? ` (${result.error})` : ''}\n`);
          process.exitCode = result.ok ? 0 : 1;
        } finally {
          await replayer.close();
        }
      });
    });
}
