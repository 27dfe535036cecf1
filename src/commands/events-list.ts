/** `hookrelay events list`: stored deliveries, newest first, or the rejected, faulted or unavailable attempts. */
import type { Command } from 'commander';
import { shellQuote } from '../core/shell-command.js';
import { printable } from '../reporter/printable.js';
import { createProgressLine } from '../reporter/progress-line.js';
import { openStoreReader } from '../store/open-store.js';
import type { AttemptOutcome } from '../store/store.js';
import { asJson, attemptRow, deliveryRow, storedAttemptJson } from './events-rows.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, withStore } from './events-store-access.js';
import { reportProblems } from './shared-options.js';
import { optionOfValues } from './completion-tree.js';

const STATUSES = ['accepted', 'duplicate', 'rejected', 'faulted', 'unavailable'] as const;

export function registerEventsListCommand(events: Command): void {
  events
    .command('list')
    .description('stored deliveries, newest first (or rejected/faulted attempts with --status)')
    .option('--trigger <trigger>', 'only this trigger')
    .addOption(optionOfValues('--status <status>', `one of ${STATUSES.join(', ')}`, STATUSES))
    .option('--limit <n>', 'how many on this page (1-1000)', '20')
    .option('--cursor <n>', 'the next page: the value a previous page printed after "more:"')
    .option('--all', 'every matching delivery, streamed as NDJSON (one JSON object a line); no --limit')
    .option('--json', 'print JSON')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .action(async (flags: { trigger?: string; status?: string; limit: string; cursor?: string; all?: boolean; json?: boolean; db?: string; store?: string; config?: string }, command: Command) => {
      const problems: string[] = [];
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) problems.push(`--limit: must be a whole number from 1 to 1000 (page with --cursor, or stream them all with --all), got ${JSON.stringify(flags.limit)}`);
      const cursor = flags.cursor === undefined ? undefined : Number(flags.cursor);
      if (cursor !== undefined && (!Number.isSafeInteger(cursor) || cursor < 1)) problems.push(`--cursor: must be the number a previous page printed after "more:", got ${JSON.stringify(flags.cursor)}`);
      if (flags.all && command.getOptionValueSource('limit') === 'cli') problems.push('--all lists every delivery: leave out --limit');
      if (flags.status !== undefined && !STATUSES.includes(flags.status as never)) problems.push(`--status: must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(flags.status)}`);
      const status = flags.status as (typeof STATUSES)[number] | undefined;
      const attemptStatus = status === 'rejected' || status === 'faulted' || status === 'unavailable';
      if (attemptStatus && (flags.all || cursor !== undefined)) problems.push(`--all and --cursor page through stored deliveries; --status ${status} lists attempts (up to --limit)`);
      if (problems.length) {
        reportProblems(problems);
        process.exitCode = 2;
        return;
      }
      await withStore(flags, openStoreReader, async (reader) => {
        if (attemptStatus) {
          const attempts = (await reader.listAttempts({ outcomes: [status as AttemptOutcome], limit: flags.trigger ? 1000 : limit }))
            .filter((a) => !flags.trigger || a.trigger === flags.trigger)
            .slice(0, limit);
          if (flags.json) process.stdout.write(`${JSON.stringify(attempts.map(storedAttemptJson), null, 2)}\n`);
          else process.stdout.write(attempts.length ? `${attempts.map(attemptRow).join('\n')}\n` : `no ${status} attempts\n`);
          return;
        }
        const query = { trigger: flags.trigger, duplicatesOnly: status === 'duplicate' };
        if (flags.all) {
          // Into a file or a pipe, the count goes to stderr; on a terminal the rows are the progress.
          const progress = process.stdout.isTTY ? null : createProgressLine({ label: 'listed (deliveries)', total: null, stream: process.stderr });
          let listed = 0;
          let before = cursor;
          for (;;) {
            const page = await reader.listDeliveries({ ...query, limit: 500, before });
            if (page.items.length > 0) process.stdout.write(`${page.items.map((d) => JSON.stringify(asJson(d))).join('\n')}\n`);
            listed += page.items.length;
            progress?.update(listed, listed);
            if (page.nextCursor === null) return progress?.end();
            before = page.nextCursor;
          }
        }
        const page = await reader.listDeliveries({ ...query, limit, before: cursor });
        if (flags.json) process.stdout.write(`${JSON.stringify(page.items.map(asJson), null, 2)}\n`);
        else process.stdout.write(page.items.length ? `${page.items.map(deliveryRow).join('\n')}\n` : emptyListLine(flags.trigger, status === 'duplicate', cursor !== undefined));
        // On stderr, so the rows on stdout stay clean for a pipe.
        if (page.nextCursor !== null) process.stderr.write(`more: hookrelay events list --cursor ${page.nextCursor}${flags.trigger ? ` --trigger ${shellQuote(flags.trigger)}` : ''}${status ? ` --status ${status}` : ''} (or --all)\n`);
      });
    });
}

function emptyListLine(trigger: string | undefined, duplicatesOnly: boolean, paged: boolean): string {
  if (trigger || duplicatesOnly) return `no stored delivery matches ${[trigger ? `--trigger ${printable(trigger)}` : '', duplicatesOnly ? '--status duplicate' : ''].filter(Boolean).join(' ')}${paged ? ' on this page' : ''}\n`;
  return paged ? 'no more deliveries\n' : 'no deliveries stored yet\n';
}
