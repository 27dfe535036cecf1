/**
 * `hookrelay status`: lag and backlog on one screen (issue 39, item 3), what `/metrics` serves as
 * series: per relay target the jobs owed (pending, held), the age of the oldest, the jobs retrying and
 * the dead ones; per bridge subscriber how far behind it is, in deliveries and in seconds. It reads the
 * store (`--db`, `--store`, `--config`, as `events` and `db` do), read-only: beside a running `listen`
 * (no command reaches a running node another way; the store is what the node's `/metrics` reads too),
 * or a store no node runs on. `--json` prints one object.
 */
import type { Command } from 'commander';
import { dataDirOf } from '../config/data-dir.js';
import { resolveStoreLocation, type StoreFlags } from '../config/db-path.js';
import { EXIT } from '../core/exit-codes.js';
import { formatDuration } from '../core/retry-policy/format-duration.js';
import { lagSecondsByCursor, MAX_TARGET_SERIES, targetBacklog, type TargetBacklog } from '../metrics/lag.js';
import { MAX_SUBSCRIBER_SERIES } from '../metrics/metrics.js';
import { printable } from '../reporter/printable.js';
import { describeStoreLocation, NoStoreError, openStoreReader } from '../store/open-store.js';
import type { BridgeCursors, RelayOutbox } from '../store/store.js';
import { listedJobState, listJobs } from '../relay/replay-job-journal.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG } from './events-store-access.js';
import { reportProblems } from './shared-options.js';

type StatusFlags = StoreFlags & { json?: boolean };

/** The reads `status` makes, and close. */
type StatusReader = Pick<RelayOutbox, 'relayBacklog'> & Pick<BridgeCursors, 'bridgeCursors' | 'latestDeliverySeq' | 'deliveriesAfter'> & { close(): Promise<void> };

/** Rows of each table on the screen; `--json` lists up to the bounds of /metrics. */
const SCREEN_ROWS = 10;

export interface SubscriberStatus {
  subscriber: string;
  ackedSeq: number;
  /** Deliveries stored after its cursor (the newest seq minus the acknowledged one). */
  lag: number;
  /** Age in seconds of the oldest delivery it has not acknowledged; 0 when caught up, null when it could not be read. */
  lagSeconds: number | null;
  /** When its cursor last moved or was refreshed (a connected subscriber refreshes it while quiet). */
  updatedAt: string;
}

export interface StatusReport {
  store: string;
  at: string;
  relay: {
    owed: number;
    retrying: number;
    dead: number;
    oldestOwedAgeSeconds: number;
    /** How many targets; `targets` lists at most 100 of them, the most owed first. */
    total: number;
    targets: Array<Omit<TargetBacklog, 'oldestOwedAt'> & { oldestOwedAt: string | null }>;
  };
  bridge: {
    latestSeq: number;
    total: number;
    behind: number;
    subscribers: SubscriberStatus[];
  };
  /** Bulk replay jobs journaled in the SQLite store's data folder; null for a PostgreSQL store (its jobs live in each node's folder). */
  replay: {
    folder: string;
    finished: number;
    damaged: number;
    /** Those not finished, newest first. */
    jobs: ReplayJobStatus[];
  } | null;
}

export interface ReplayJobStatus {
  id: string;
  createdAt: string;
  selection: string;
  state: 'running' | 'stopped';
  total: number;
  /** Items with a recorded outcome, and those a target took: the names of `events replay --jobs` and its summary line. */
  done: number;
  handedOn: number;
  /** Deprecated: `handedOn`. */
  ok: number;
  failed: number;
  left: number;
}

export function registerStatusCommand(program: Command): Command {
  return program
    .command('status')
    .description('lag and backlog: relay jobs owed per target (and the oldest), retrying and dead; bridge subscribers behind, in deliveries and seconds (reads the store, also while listen runs)')
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .option('--json', 'print one JSON object')
    .action(async (flags: StatusFlags) => {
      const where = resolveStoreLocation(flags);
      if (!where.ok) {
        reportProblems(where.problems);
        process.exitCode = EXIT.usage;
        return;
      }
      let reader: StatusReader;
      try {
        reader = await openStoreReader(where.location);
      } catch (err) {
        process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
        // No store at the path given: usage. One there that cannot be read: could not run.
        process.exitCode = err instanceof NoStoreError ? EXIT.usage : EXIT.couldNotRun;
        return;
      }
      let report: StatusReport;
      try {
        report = await readStatus(reader, describeStoreLocation(where.location), Date.now(), where.location.kind === 'sqlite' ? dataDirOf(where.location.path) : null);
      } catch (err) {
        process.stderr.write(`hookrelay: could not read the store at ${describeStoreLocation(where.location)}: ${(err as Error).message}\n`);
        process.exitCode = EXIT.couldNotRun;
        return;
      } finally {
        await reader.close();
      }
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : statusText(report));
    });
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What the store owes and how far behind its subscribers are, at `now`. */
export async function readStatus(reader: Omit<StatusReader, 'close'>, store: string, now: number, dataDir: string | null = null): Promise<StatusReport> {
  const [rows, cursors, latestSeq] = await Promise.all([reader.relayBacklog(), reader.bridgeCursors(), reader.latestDeliverySeq()]);
  const all = targetBacklog(rows, now, Infinity).targets;
  const subscribers = cursors
    .map((c) => ({ subscriber: c.name, ackedSeq: c.ackedSeq, lag: Math.max(0, latestSeq - c.ackedSeq), updatedAt: c.updatedAt }))
    .sort((a, b) => b.lag - a.lag || (a.subscriber < b.subscriber ? -1 : a.subscriber > b.subscriber ? 1 : 0))
    .slice(0, MAX_SUBSCRIBER_SERIES);
  const ages = await lagSecondsByCursor(reader, subscribers.filter((s) => s.lag > 0).map((s) => s.ackedSeq), now);
  return {
    store,
    at: iso(now),
    relay: {
      owed: sum(all, (t) => t.pending + t.held),
      retrying: sum(all, (t) => t.retrying),
      dead: sum(all, (t) => t.dead),
      oldestOwedAgeSeconds: Math.max(0, ...all.map((t) => t.oldestOwedAgeSeconds)),
      total: all.length,
      targets: all.slice(0, MAX_TARGET_SERIES).map((t) => ({ ...t, oldestOwedAt: t.oldestOwedAt === null ? null : iso(t.oldestOwedAt) })),
    },
    bridge: {
      latestSeq,
      total: cursors.length,
      behind: cursors.filter((c) => c.ackedSeq < latestSeq).length,
      subscribers: subscribers.map((s) => ({ ...s, lagSeconds: s.lag === 0 ? 0 : (ages.get(s.ackedSeq) ?? null), updatedAt: iso(s.updatedAt) })),
    },
    replay: dataDir === null ? null : replayStatus(dataDir),
  };
}

/** The data folder's bulk replay jobs: those not finished in full, the rest counted. */
function replayStatus(folder: string): NonNullable<StatusReport['replay']> {
  const report: NonNullable<StatusReport['replay']> = { folder, finished: 0, damaged: 0, jobs: [] };
  for (const job of listJobs(folder)) {
    if (!job.plan) {
      report.damaged++;
      continue;
    }
    const state = listedJobState(folder, { ...job, plan: job.plan });
    if (state === 'finished') {
      report.finished++;
      continue;
    }
    const total = job.plan.items.length;
    const failed = job.failed ?? 0;
    const ok = (job.sent ?? 0) - failed;
    report.jobs.push({ id: job.id, createdAt: iso(job.plan.createdAt), selection: job.plan.selection, state, total, done: ok + failed, handedOn: ok, ok, failed, left: total - ok - failed });
  }
  return report;
}

const sum = <T>(items: readonly T[], value: (item: T) => number) => items.reduce((n, item) => n + value(item), 0);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const age = (seconds: number | null) => (seconds === null ? '?' : formatDuration(seconds));

/** Columns padded to the widest cell; the first left-aligned, the others right. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`.trimEnd();
  return [line(header), ...rows.map(line)];
}

/** One screen: the relay's backlog by target and the bridge's subscribers, each at most SCREEN_ROWS rows. */
export function statusText(report: StatusReport): string {
  const { relay, bridge } = report;
  const lines = [`store    ${printable(report.store, 200)}   (read at ${report.at})`];
  if (relay.total === 0) lines.push('relay    nothing owed, nothing dead');
  else {
    lines.push(
      `relay    ${relay.owed} owed to ${plural(relay.total, 'target')}${relay.owed > 0 ? `, the oldest for ${age(relay.oldestOwedAgeSeconds)}` : ''}; ${relay.retrying} retrying; ${relay.dead} dead`,
      ...table(
        ['target', 'pending', 'held', 'oldest owed', 'retrying', 'dead'],
        relay.targets.slice(0, SCREEN_ROWS).map((t) => [printable(t.target, 80), String(t.pending), String(t.held), t.pending + t.held > 0 ? age(t.oldestOwedAgeSeconds) : '-', String(t.retrying), String(t.dead)]),
      ),
    );
    if (relay.total > SCREEN_ROWS) lines.push(`  … and ${relay.total - SCREEN_ROWS} more targets (--json lists ${Math.min(relay.total, MAX_TARGET_SERIES)})`);
    if (relay.targets.some((t) => t.held > 0)) lines.push('  held: owed to a target the running relay does not hand on to; `hookrelay events retarget` moves them');
    if (relay.dead > 0) lines.push('  dead: given up after the last try; `hookrelay events retry ID` queues one again');
  }
  if (bridge.total === 0) lines.push('bridge   no subscriber');
  else {
    lines.push(
      `bridge   ${plural(bridge.total, 'subscriber')}, ${bridge.behind} behind (newest seq ${bridge.latestSeq})`,
      ...table(
        ['subscriber', 'behind', 'oldest unacked', 'acked seq', 'last ack'],
        bridge.subscribers.slice(0, SCREEN_ROWS).map((s) => [printable(s.subscriber, 40), String(s.lag), s.lag > 0 ? age(s.lagSeconds) : '-', String(s.ackedSeq), s.updatedAt]),
      ),
    );
    if (bridge.total > SCREEN_ROWS) lines.push(`  … and ${bridge.total - SCREEN_ROWS} more subscribers (--json lists ${Math.min(bridge.total, MAX_SUBSCRIBER_SERIES)})`);
  }
  const { replay } = report;
  if (replay) {
    const counts = [`${replay.finished} finished`, ...(replay.damaged > 0 ? [`${replay.damaged} damaged (hookrelay events replay --jobs)`] : [])].join(', ');
    if (replay.jobs.length === 0) lines.push(`replay   no job running or stopped; ${counts}`);
    else {
      const running = replay.jobs.filter((j) => j.state === 'running').length;
      lines.push(
        `replay   ${running} running, ${replay.jobs.length - running} stopped; ${counts}`,
        ...table(
          ['job', 'state', 'handed on', 'failed', 'left', 'selection'],
          replay.jobs.slice(0, SCREEN_ROWS).map((j) => [j.id, j.state, String(j.ok), String(j.failed), String(j.left), printable(j.selection, 60)]),
        ),
      );
      if (replay.jobs.length > SCREEN_ROWS) lines.push(`  … and ${replay.jobs.length - SCREEN_ROWS} more (--json lists them all)`);
      if (running < replay.jobs.length) lines.push('  stopped: `hookrelay events replay --resume JOB` goes on where it stopped');
    }
  }
  return `${lines.join('\n')}\n`;
}
