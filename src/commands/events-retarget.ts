/**
 * `hookrelay events retarget --from URL --to URL`: moves the relay jobs still owed to one target
 * (pending, or held because the running relay hands on elsewhere) to another, pending. The only
 * way a job goes to a target other than the one it was queued for (issue 36, item 7). Without
 * flags it lists what waits, by target.
 */
import type { Command } from 'commander';
import { resolveStoreLocation } from '../config/db-path.js';
import { EXIT } from '../core/exit-codes.js';
import { displayUrl } from '../core/url-secrets.js';
import { shownTarget, targetBacklog, UNKNOWN_TARGET } from '../metrics/lag.js';
import { printable } from '../reporter/printable.js';
import { NoStoreError, openExistingStore } from '../store/open-store.js';
import type { DeliveryStore, RelayBacklog } from '../store/store.js';
import { reportProblems } from './shared-options.js';

interface RetargetFlags {
  from?: string;
  to?: string;
  db?: string;
  store?: string;
  config?: string;
  json?: boolean;
}

/** What `--from` names: the stored target, or the redacted form every listing shows; `unknown` for jobs queued before targets were kept. */
const UNKNOWN = 'unknown';
const shown = (target: string | null) => (target === null ? `${UNKNOWN} (queued by an older hookrelay)` : displayUrl(target));

export function registerEventsRetargetCommand(events: Command): Command {
  return events
    .command('retarget')
    .description('move the relay jobs still owed to one target (--from) to another (--to); without flags, list what waits by target')
    .option('--from <url>', `the target the jobs were queued for, as listed (or "${UNKNOWN}" for jobs queued by an older hookrelay)`)
    .option('--to <url>', 'where they go instead (an http or https URL)')
    .option('--db <file>', 'SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]')
    .option('--config <file>', 'config file to read db and store from')
    .option('--json', 'print JSON: an array of what waits by target, or one object of what was moved (docs/cli-json.md)')
    .action(async (flags: RetargetFlags) => {
      const where = resolveStoreLocation(flags);
      const problems = where.ok ? [] : [...where.problems];
      if ((flags.from === undefined) !== (flags.to === undefined)) problems.push('give --from and --to together (or neither, to list what waits)');
      if (flags.to !== undefined && !isHttpUrl(flags.to)) problems.push(`--to must be an http or https URL, got ${JSON.stringify(printable(displayUrl(flags.to), 200))}`);
      if (problems.length > 0 || !where.ok) {
        reportProblems(problems);
        process.exitCode = EXIT.usage;
        return;
      }
      let store: DeliveryStore;
      try {
        store = await openExistingStore(where.location);
      } catch (err) {
        process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
        process.exitCode = err instanceof NoStoreError ? EXIT.usage : EXIT.couldNotRun;
        return;
      }
      try {
        const backlog = (await store.relayBacklog()).filter((b) => b.pending + b.held > 0);
        if (flags.from === undefined) {
          if (flags.json) process.stdout.write(`${JSON.stringify(backlogJson(backlog))}\n`);
          else process.stdout.write(backlog.length === 0 ? 'no relay job waits\n' : backlog.map(backlogLine).join(''));
          return;
        }
        const from = backlog.find((b) => (b.target === null ? flags.from === UNKNOWN : b.target === flags.from || displayUrl(b.target) === flags.from));
        if (!from) {
          if (flags.json) process.stdout.write(`${JSON.stringify({ from: flags.from === UNKNOWN ? UNKNOWN_TARGET : displayUrl(flags.from), to: displayUrl(new URL(flags.to!).href), moved: 0 })}\n`);
          process.stderr.write(`hookrelay: no relay job waits for ${printable(displayUrl(flags.from), 200)}${backlog.length > 0 ? `; these do:\n${backlog.map(backlogLine).join('')}` : '\n'}`);
          process.exitCode = EXIT.finding;
          return;
        }
        const to = new URL(flags.to!).href;
        const moved = await store.retargetRelayJobs(from.target, to, Date.now());
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ from: shownTarget(from.target), to: displayUrl(to), moved })}\n`);
          return;
        }
        process.stdout.write(`moved ${moved} relay job${moved === 1 ? '' : 's'} from ${printable(shown(from.target), 200)} to ${printable(displayUrl(to), 200)}: a listen that hands on there delivers ${moved === 1 ? 'it' : 'them'}\n`);
      } finally {
        await store.close();
      }
    });
}

function backlogLine(b: RelayBacklog): string {
  const parts = [b.pending > 0 ? `${b.pending} pending` : '', b.held > 0 ? `${b.held} held (the running relay hands on elsewhere)` : ''].filter(Boolean).join(', ');
  return `${printable(shown(b.target), 200)}  ${parts}\n`;
}

/** What waits, by target, as `status --json` prints its `relay.targets` (the same rows: targets redacted, `unknown` for jobs queued before targets were kept). */
function backlogJson(backlog: readonly RelayBacklog[]) {
  return targetBacklog(backlog, Date.now(), Infinity).targets.map((t) => ({ ...t, oldestOwedAt: t.oldestOwedAt === null ? null : new Date(t.oldestOwedAt).toISOString() }));
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
