/** `hookrelay events list`: stored deliveries, newest first, or the rejected, faulted or unavailable attempts. */
import type { Command } from 'commander';
import { shellQuote } from '../core/shell-command.js';
import { printable } from '../reporter/printable.js';
import { createProgressLine } from '../reporter/progress-line.js';
import { openStoreReader } from '../store/open-store.js';
import type { AttemptOutcome, StoreStats } from '../store/store.js';
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
        else if (page.items.length > 0) process.stdout.write(`${page.items.map(deliveryRow).join('\n')}\n`);
        else if (flags.trigger || status === 'duplicate' || cursor !== undefined) process.stdout.write(emptyListLine(flags.trigger, status === 'duplicate', cursor !== undefined));
        // Nothing stored at all: say where the arrivals that stored nothing are (a wrong secret refuses every one).
        else process.stdout.write(`no deliveries stored yet${notStoredLines((await reader.stats()).attempts, flags)}\n`);
        // On stderr, so the rows on stdout stay clean for a pipe.
        if (page.nextCursor !== null) process.stderr.write(`more: hookrelay events list --cursor ${page.nextCursor}${flags.trigger ? ` --trigger ${shellQuote(flags.trigger)}` : ''}${status ? ` --status ${status}` : ''} (or --all)\n`);
      });
    });
}

/** An empty page of a filtered list, or past the last page (an empty first page without a filter: notStoredLines). */
function emptyListLine(trigger: string | undefined, duplicatesOnly: boolean, paged: boolean): string {
  if (trigger || duplicatesOnly) return `no stored delivery matches ${[trigger ? `--trigger ${printable(trigger)}` : '', duplicatesOnly ? '--status duplicate' : ''].filter(Boolean).join(' ')}${paged ? ' on this page' : ''}\n`;
  return 'no more deliveries\n';
}

/** What each outcome that stores nothing means, in the order listed. */
const NOT_STORED: Array<[AttemptOutcome, string]> = [
  ['rejected', "refused by the receiver's checks (size, signature or envelope)"],
  ['faulted', 'answered by a fault rule'],
  ['unavailable', 'refused because the store could not write'],
];

/**
 * The attempts that arrived and stored nothing, as the store counts them for `db stats` (one count
 * by outcome; no attempt is read), each with the command that lists them; empty when there are none.
 */
function notStoredLines(attempts: StoreStats['attempts'], flags: { db?: string; config?: string; store?: string }): string {
  const counted = NOT_STORED.filter(([outcome]) => attempts[outcome] > 0);
  if (counted.length === 0) return '';
  const total = counted.reduce((sum, [outcome]) => sum + attempts[outcome], 0);
  // The same store as this run, so the command can be run as printed (a --store URL may hold a password: not repeated).
  const where = `${flags.db !== undefined ? ` --db ${shellQuote(flags.db)}` : ''}${flags.config !== undefined ? ` --config ${shellQuote(flags.config)}` : ''}${flags.store !== undefined ? ' --store <the same URL>' : ''}`;
  const lines = counted.map(([outcome, why]) => `\n  ${attempts[outcome]} ${outcome}, ${why}: hookrelay events list --status ${outcome}${where}`);
  return `; ${total} ${total === 1 ? 'attempt' : 'attempts'} arrived and stored nothing:${lines.join('')}`;
}
