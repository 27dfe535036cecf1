/**
 * `hookrelay db backup | stats | prune`: operate the store, also while `listen` runs. `stats` and
 * `prune` work on SQLite and PostgreSQL; `backup` is SQLite's online backup API on a connection of
 * its own (a file copy of a live WAL database can be torn). A prune goes through the store's
 * writer, in short transactions.
 */
import { resolveStoreLocation, type StoreFlags } from '../config/db-path.js';
import type { Command } from 'commander';
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { openDatabase } from '../store/sqlite/open-database.js';
import { SCHEMA_VERSION } from '../store/sqlite/schema.js';
import { describeStoreLocation, openExistingStore, openStoreReader, type StoreLocation } from '../store/open-store.js';
import { DEFAULT_RETAIN, parseRetainDuration } from '../store/retention.js';
import type { PruneResult, StoreStats } from '../store/store.js';
import { EXIT } from '../core/exit-codes.js';
import { createProgressLine, type ProgressLine } from '../reporter/progress-line.js';
import { reportProblems } from './shared-options.js';

type DbFlags = StoreFlags;

/** The store named by --db / --store / HOOKRELAY_* / the config file; else reports why and returns null. */
function storeOf(flags: DbFlags): StoreLocation | null {
  const where = resolveStoreLocation(flags);
  if (!where.ok) {
    reportProblems(where.problems);
    process.exitCode = 2;
    return null;
  }
  return where.location;
}

/** The SQLite file named by the flags, when it exists; else reports why and returns null. */
function existingDb(flags: DbFlags): string | null {
  const location = storeOf(flags);
  if (!location) return null;
  if (location.kind === 'postgres') {
    process.stderr.write('hookrelay: db backup is for the SQLite store; back up PostgreSQL with pg_dump or your provider\'s backups\n');
    process.exitCode = 2;
    return null;
  }
  const file = resolve(location.path);
  if (!existsSync(file)) {
    process.stderr.write(`hookrelay: no database at ${file}: start \`hookrelay listen\` first, or pass --db\n`);
    process.exitCode = 2;
    return null;
  }
  return file;
}

/** Opens the store or reports why not (exit 2 for a missing file, 3 for a store that fails: docs/exit-codes.md). */
async function opened<S>(open: () => Promise<S>): Promise<S | null> {
  try {
    return await open();
  } catch (err) {
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    process.exitCode = (err as { code?: string }).code === 'NO_STORE' ? EXIT.usage : EXIT.couldNotRun;
    return null;
  }
}

/** Pages copied between two yields to the event loop: better-sqlite3's own default, said here because a progress callback must return it. */
const BACKUP_PAGES_A_STEP = 100;

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let unit = -1;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit++;
  }
  return `${v.toFixed(1)} ${units[unit]}`;
}

function withDbOptions(command: Command): Command {
  return command
    .option('--db <file>', 'SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]')
    .option('--config <file>', 'config file to read db and store from');
}

export function registerDbCommand(program: Command): void {
  const db = program.command('db').description('back up, inspect and prune the store (also while listen runs)');

  withDbOptions(
    db
      .command('backup')
      .description("an online backup to FILE with SQLite's backup API (consistent while listen writes); never a file copy")
      .argument('<file>', 'where to write the backup')
      .option('--force', 'replace FILE if it exists')
      .option('--json', 'print JSON'),
  ).action(async (target: string, flags: DbFlags & { force?: boolean; json?: boolean }) => {
    const file = existingDb(flags);
    if (!file) return;
    const destination = resolve(target);
    if (destination === file) {
      process.stderr.write('hookrelay: the backup must go to another file than the database itself\n');
      process.exitCode = 2;
      return;
    }
    if (existsSync(destination) && !flags.force) {
      process.stderr.write(`hookrelay: ${destination} exists: pass --force to replace it, or pick another name\n`);
      process.exitCode = 2;
      return;
    }
    const source = openDatabase(file, { readonly: true });
    try {
      // The total is known from the first step on.
      let line: ProgressLine | undefined;
      const progress = await source.backup(destination, {
        progress: ({ totalPages, remainingPages }) => {
          line ??= createProgressLine({ label: 'backup (pages)', total: totalPages, stream: process.stderr });
          line.update(totalPages - remainingPages, totalPages - remainingPages);
          return BACKUP_PAGES_A_STEP;
        },
      });
      line?.update(progress.totalPages, progress.totalPages);
      line?.end();
      const copy = new Database(destination, { readonly: true, fileMustExist: true });
      let check: string;
      try {
        check = String(copy.pragma('quick_check', { simple: true }));
      } finally {
        copy.close();
      }
      if (check !== 'ok') {
        process.stderr.write(`hookrelay: the backup at ${destination} does not pass quick_check: ${check}\n`);
        process.exitCode = EXIT.couldNotRun;
        return;
      }
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ file, backup: destination, pages: progress.totalPages, bytes: sizeOf(destination), quickCheck: check })}\n`);
        return;
      }
      process.stdout.write(`backed up ${file}\n      to ${destination} (${progress.totalPages} pages, ${bytes(sizeOf(destination))}; quick_check ok)\n`);
    } catch (err) {
      process.stderr.write(`hookrelay: backup failed: ${(err as Error).message}\n`);
      process.exitCode = EXIT.couldNotRun;
    } finally {
      source.close();
    }
  });

  withDbOptions(db.command('stats').description('deliveries, attempts by outcome, relay jobs by state, file sizes, schema version').option('--json', 'print JSON')).action(
    async (flags: DbFlags & { json?: boolean }) => {
      const location = storeOf(flags);
      if (!location) return;
      const reader = await opened(() => openStoreReader(location));
      if (!reader) return;
      let stats: StoreStats;
      try {
        stats = await reader.stats();
      } finally {
        await reader.close();
      }
      const report = { store: describeStoreLocation(location), ...(location.kind === 'sqlite' ? sqliteDetails(resolve(location.path)) : {}), ...stats, oldestReceivedAt: iso(stats.oldestReceivedAt), newestReceivedAt: iso(stats.newestReceivedAt) };
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const a = report.attempts;
      const j = report.relayJobs;
      process.stdout.write(
        [
          `database     ${report.store}`,
          ...('files' in report && report.files
            ? [
                `schema       version ${report.schemaVersion}${report.schemaVersion === SCHEMA_VERSION ? '' : ` (this hookrelay knows ${SCHEMA_VERSION})`}`,
                `files        db ${bytes(report.files.db)}, wal ${bytes(report.files.wal)}, shm ${bytes(report.files.shm)} (free pages: ${report.freePages})`,
              ]
            : []),
          `deliveries   ${report.deliveries}${report.oldestReceivedAt ? `   oldest ${report.oldestReceivedAt}, newest ${report.newestReceivedAt}` : ''}`,
          `attempts     accepted ${a.accepted}, duplicate ${a.duplicate}, rejected ${a.rejected}, faulted ${a.faulted}, unavailable ${a.unavailable}`,
          `relay jobs   pending ${j.pending}, held ${j.held}, done ${j.done}, dead ${j.dead}${j.held > 0 ? ' (held: for a target the running relay does not hand on to; `hookrelay events retarget` lists them)' : ''}`,
          '',
        ].join('\n'),
      );
    },
  );

  withDbOptions(
    db
      .command('prune')
      .description('delete deliveries (with their attempts and relay history) last seen longer ago than --older-than; never one whose relay is pending')
      .option('--older-than <duration>', 'e.g. 30d, 72h, 90m', DEFAULT_RETAIN)
      .option('--dry-run', 'only count what would be removed')
      .option('--json', 'print JSON'),
  ).action(async (flags: DbFlags & { olderThan: string; dryRun?: boolean; json?: boolean }) => {
    const window = parseRetainDuration(flags.olderThan);
    if (!window.ok || window.ms === null) {
      reportProblems([`--older-than: ${window.ok ? 'must be a duration such as 30d or 72h (0/off would prune nothing)' : window.message}`]);
      process.exitCode = 2;
      return;
    }
    const location = storeOf(flags);
    if (!location) return;
    let result: PruneResult;
    const store = await opened(() => openExistingStore(location));
    if (!store) return;
    try {
      const line = createProgressLine({ label: flags.dryRun ? 'would remove (deliveries)' : 'removed (deliveries)', total: null, stream: process.stderr });
      result = await store.prune(Date.now() - window.ms, { dryRun: flags.dryRun ?? false, onBatch: (sofar) => line.update(sofar.deliveries, sofar.deliveries) });
      line.end();
    } catch (err) {
      process.stderr.write(`hookrelay: prune failed: ${(err as Error).message}\n`);
      process.exitCode = EXIT.couldNotRun;
      return;
    } finally {
      await store.close();
    }
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ ...result, before: iso(result.before) }, null, 2)}\n`);
      return;
    }
    const verb = result.dryRun ? 'would remove' : 'removed';
    process.stdout.write(
      `${verb} ${result.deliveries} deliveries, ${result.attempts} attempts and ${result.relayAttempts} relay tries last seen before ${iso(result.before)}\n` +
        (result.keptPending ? `kept ${result.keptPending} older deliveries whose relay is still pending\n` : ''),
    );
  });
}

/** What only a SQLite file has: its schema version, file sizes and free pages. */
function sqliteDetails(file: string) {
  const handle = openDatabase(file, { readonly: true });
  try {
    return {
      file,
      schemaVersion: handle.pragma('user_version', { simple: true }) as number,
      knownSchemaVersion: SCHEMA_VERSION,
      files: { db: sizeOf(file), wal: sizeOf(`${file}-wal`), shm: sizeOf(`${file}-shm`) },
      pageSize: handle.pragma('page_size', { simple: true }) as number,
      freePages: handle.pragma('freelist_count', { simple: true }) as number,
    };
  } finally {
    handle.close();
  }
}
