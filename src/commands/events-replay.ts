/**
 * `hookrelay events replay`: re-sends stored deliveries, freshly signed and marked as replays.
 * One id: sent at once. A selection (`--since`, `--until`, `--trigger`, `--status`, `--where`,
 * `--all`): a bulk job of its own, journaled in the data folder (relay/replay-job-journal.ts), so
 * an interrupted one resumes with `--resume` and never sends a delivery twice within the job.
 */
import type { Command } from 'commander';
import { EXIT } from '../core/exit-codes.js';
import { dataDirOf } from '../config/data-dir.js';
import { resolveStoreLocation } from '../config/db-path.js';
import { NO_REPLAY_TARGET, replaySecretWarnings, resolveReplaySettings, type ReplayFlags } from '../config/replay-settings.js';
import { PROCESS_LIST_NOTE } from '../config/secret-flags.js';
import { createJournal, JournalError, listedJobState, listJobs, newJobId, openJournal, type ReplayJournal } from '../relay/replay-job-journal.js';
import { printable } from '../reporter/printable.js';
import { createProgressLine } from '../reporter/progress-line.js';
import { openExistingStore } from '../store/open-store.js';
import type { DeliveryStore } from '../store/store.js';
import type { EarlierOutcome, ReplayJobResult } from '../relay/replay-job.js';
import { describeSelection, parseSelection, REPLAY_STATUSES, selectDeliveries, selects, type SelectionFlags } from './events-replay-selection.js';
import { relayTryJson } from './events-rows.js';
import { CONFIG_FLAG, DB_FLAG, STORE_FLAG, time, withStore } from './events-store-access.js';
import { collect as collectValues, reportProblems } from './shared-options.js';
import { optionOfValues } from './completion-tree.js';

const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 64;
const DRY_RUN_SHOWN = 20;
const PACE_DEFAULT = { ratePerSecond: null, concurrency: DEFAULT_CONCURRENCY };

interface BulkFlags extends SelectionFlags {
  rate?: string;
  concurrency: string;
  dryRun?: boolean;
  resume?: string;
  jobs?: boolean;
  json?: boolean;
}

type Flags = ReplayFlags & BulkFlags & { db?: string; store?: string };

export function registerEventsReplayCommand(events: Command): void {
  events
    .command('replay')
    .description('re-send stored deliveries, freshly signed and marked as replays (recorded in their history): one by id, or a selection as a resumable job')
    .argument('[id]', 'delivery id (or select many with --since, --until, --trigger, --status, --where, --all)')
    .option('--since <when>', 'bulk: deliveries received at or after this (a time ago such as 2h, or an ISO date-time)')
    .option('--until <when>', 'bulk: deliveries received before this')
    .option('--trigger <glob>', 'bulk: deliveries whose trigger matches, e.g. vendor.*')
    .addOption(optionOfValues('--status <status>', `bulk: by relay status: ${REPLAY_STATUSES.join(', ')} (handed-on: a target took a try; failed: a try failed; dead: the relay gave up on any of its targets)`, REPLAY_STATUSES))
    .option('--where <path=value>', 'bulk: a condition on the body, as events wait has it; repeatable (all must hold)', collectValues)
    .option('--all', 'bulk: every stored delivery')
    .option('--rate <n>', 'bulk: at most this many a second (N, N/s or N/m)')
    .option('--concurrency <n>', `bulk: at most this many in flight (1-${MAX_CONCURRENCY})`, String(DEFAULT_CONCURRENCY))
    .option('--dry-run', 'bulk: print what would be sent and how many, send nothing')
    .option('--resume <job>', 'go on with an interrupted bulk job (rj_…)')
    .option('--jobs', 'list the bulk jobs of this data folder')
    .option('--to <url>', 'where to send, on this machine unless --allow-remote (default: where the relay would send each: its --route, else HOOKRELAY_FORWARD_TO)')
    .option('--allow-remote', 'allow a --to that is not on this machine')
    .option('--secret <secret>', `sign with this secret (default: HOOKRELAY_FORWARD_SECRET, the first HOOKRELAY_SECRET, or the development secret); ${PROCESS_LIST_NOTE}`)
    .option('--timeout <ms>', 'give up on one copy after this long', '30000')
    .option('--route <glob=url>', "as listen's --route: where a replay without --to goes by its trigger (default: HOOKRELAY_ROUTE, or the config file's)", collectValues)
    .option('--forward-header <header>', "as listen's: 'Name: value' on the replay; repeatable (default: HOOKRELAY_FORWARD_HEADER, or the config file's)", collectValues)
    .option('--forward-ca <file>', "as listen's: PEM certificate(s) trusted for an https target (default: HOOKRELAY_FORWARD_CA)")
    .option('--forward-insecure', "as listen's: accept any certificate from an https target")
    .option('--forward-proxy <url>', "as listen's: send through this HTTP proxy (default: HOOKRELAY_FORWARD_PROXY, or the config file's; none otherwise)")
    .option(...DB_FLAG)
    .option(...STORE_FLAG)
    .option(...CONFIG_FLAG)
    .option('--json', 'print JSON (docs/cli-json.md): one object for one id, a dry run or --jobs; NDJSON for a bulk job, a line per copy sent (resumed: first one per copy sent before) and a summary line last')
    .addHelpText(
      'after',
      `
Examples:
  npx hookrelay events replay dlv_01J…                              one delivery
  npx hookrelay events replay --since 2h --trigger 'vendor.*' --dry-run
  npx hookrelay events replay --since 2026-11-28T09:00:00Z --until 2026-11-28T10:00:00Z --rate 20/s
  npx hookrelay events replay --resume rj_0123456789ab                after Ctrl-C or a crash
`,
    )
    .action(async (id: string | undefined, flags: Flags) => {
      const where = resolveStoreLocation(flags);
      if (!where.ok) return usage(where.problems);
      const dataDir = dataDirOf(where.dbPath);
      if (flags.jobs) return printJobs(dataDir, flags.json === true);
      const bulk = selects(flags);
      const modes = [id !== undefined, bulk, flags.resume !== undefined].filter(Boolean).length;
      if (modes !== 1) {
        return usage([
          modes === 0
            ? 'say what to replay: a delivery id, a selection (--since, --until, --trigger, --status, --where or --all), --resume JOB, or --jobs to list jobs'
            : 'give one of: a delivery id, a selection, or --resume JOB',
        ]);
      }
      const pace = parsePace(flags);
      const selection = bulk ? parseSelection(flags, Date.now()) : null;
      const problems = [...(pace.ok ? [] : pace.problems), ...(selection && !selection.ok ? selection.problems : [])];
      if (flags.dryRun && !bulk) problems.push('--dry-run goes with a selection (--since, --trigger, …)');
      if (problems.length > 0) return usage(problems);

      let journal: ReplayJournal | null = null;
      if (flags.resume !== undefined) {
        try {
          journal = openJournal(dataDir, flags.resume);
        } catch (err) {
          if (!(err instanceof JournalError)) throw err;
          process.stderr.write(`hookrelay: ${err.message}\n`);
          // No such job: usage. One that runs elsewhere, or whose files are damaged: it cannot run.
          process.exitCode = err.kind === 'usage' ? EXIT.usage : EXIT.couldNotRun;
          return;
        }
      }
      // A dry run needs no target or secret: it only reads.
      const replay = flags.dryRun ? null : resolveReplaySettings({ ...flags, to: flags.to ?? journal?.plan.to ?? undefined }, where.dbPath);
      if (replay && !replay.ok) return usage(replay.problems);
      // A dry run reads no settings, but its --secret is in the process list all the same.
      for (const warning of replay?.warnings ?? replaySecretWarnings(flags)) process.stderr.write(`warning: ${warning}\n`);

      await withStore<DeliveryStore>(flags, openExistingStore, async (store) => {
        if (id !== undefined) return replayOne(store, replay!.settings, id, flags.json === true);
        if (journal === null) {
          const chosen = selection!.ok ? selection!.value : null;
          const items = await selectDeliveries(store, chosen!);
          const described = describeSelection(chosen!);
          if (flags.dryRun) return printDryRun(store, items, described, flags.json === true);
          if (items.length === 0) {
            if (flags.json) process.stdout.write(`${JSON.stringify(jobSummaryJson(null, described, EMPTY_RESULT))}\n`);
            (flags.json ? process.stderr : process.stdout).write(`nothing to replay: no stored delivery matches (${described})\n`);
            process.exitCode = EXIT.finding;
            return;
          }
          const plan = { version: 1 as const, id: newJobId(), createdAt: Date.now(), selection: described, to: flags.to ?? null, ...(pace.ok ? pace.value : PACE_DEFAULT), items };
          journal = createJournal(dataDir, plan);
          process.stderr.write(`replay job ${plan.id}: ${items.length.toLocaleString('en-US')} deliveries (${printable(described)})\n`);
        }
        await runJob(store, replay!.settings, journal, { json: flags.json === true, resumed: flags.resume !== undefined });
      });
    });
}

function usage(problems: string[]): void {
  reportProblems(problems);
  process.exitCode = EXIT.usage;
}

type PaceOk = { ok: true; value: { ratePerSecond: number | null; concurrency: number } };

function parsePace(flags: BulkFlags): PaceOk | { ok: false; problems: string[] } {
  const problems: string[] = [];
  let ratePerSecond: number | null = null;
  if (flags.rate !== undefined) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*([sm]))?\s*$/.exec(flags.rate);
    const n = m ? Number(m[1]) / (m[2] === 'm' ? 60 : 1) : NaN;
    if (!(n > 0 && n <= 100_000)) problems.push(`--rate: must be a number of copies a second (N, N/s or N/m) above 0, got ${JSON.stringify(flags.rate)}`);
    else ratePerSecond = n;
  }
  const concurrency = Number(flags.concurrency);
  if (!/^\d+$/.test(flags.concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) problems.push(`--concurrency: must be an integer from 1 to ${MAX_CONCURRENCY}, got ${JSON.stringify(flags.concurrency)}`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { ratePerSecond, concurrency } };
}

async function replayOne(store: DeliveryStore, settings: NonNullable<ReturnType<typeof resolveReplaySettings> & { ok: true }>['settings'], id: string, json: boolean): Promise<void> {
  const { createReplayer } = await import('../relay/replay.js');
  const replayer = createReplayer({ store, settings: settings.settings, clock: Date.now });
  try {
    const result = await replayer.replay(id, settings.to ?? undefined);
    if (!result) {
      if (json) process.stdout.write(`${JSON.stringify({ deliveryId: id, ok: false, relayTry: null })}\n`);
      process.stderr.write(`hookrelay: no stored delivery with id ${printable(id)}\n`);
      process.exitCode = EXIT.finding;
      return;
    }
    if (json) process.stdout.write(`${JSON.stringify(await replayedJson(store, id, result.ok))}\n`);
    (json ? process.stderr : process.stdout).write(`${result.ok ? 'replayed' : 'replay failed'}: ${result.status ?? '---'} from ${printable(result.target)} in ${Math.round(result.latencyMs)} ms${result.error ? ` (${result.error})` : ''}\n`);
    process.exitCode = result.ok ? EXIT.done : EXIT.finding;
  } finally {
    await replayer.close();
  }
}

async function printDryRun(store: DeliveryStore, items: Array<{ id: string }>, described: string, json: boolean): Promise<void> {
  process.exitCode = items.length > 0 ? EXIT.done : EXIT.finding;
  if (json) {
    process.stdout.write(`${JSON.stringify({ dryRun: true, selection: described, count: items.length, deliveryIds: items.map((item) => item.id) })}\n`);
    return;
  }
  process.stdout.write(`would replay ${items.length.toLocaleString('en-US')} deliveries (${printable(described)}); nothing sent\n`);
  for (const item of items.slice(0, DRY_RUN_SHOWN)) {
    const d = await store.getDelivery(item.id);
    if (d) process.stdout.write(`  ${time(d.receivedAt)}  ${printable(d.trigger)}  ${printable(d.id)}\n`);
  }
  if (items.length > DRY_RUN_SHOWN) process.stdout.write(`  … and ${(items.length - DRY_RUN_SHOWN).toLocaleString('en-US')} more\n`);
}

function printJobs(dataDir: string, json: boolean): void {
  const jobs = listJobs(dataDir);
  if (json) {
    process.stdout.write(`${JSON.stringify(jobs.map((job) => jobJson(dataDir, job)))}\n`);
    return;
  }
  if (jobs.length === 0) {
    process.stdout.write(`no replay jobs in ${printable(dataDir)}\n`);
    return;
  }
  for (const job of jobs) {
    if (!job.plan) {
      process.stdout.write(`${job.id}  damaged: ${printable(job.error ?? '')}\n`);
      continue;
    }
    const total = job.plan.items.length;
    const state = listedJobState(dataDir, { ...job, plan: job.plan });
    const where = state === 'finished' ? 'finished' : `${state === 'running' ? 'running in another process' : 'stopped'} at ${job.sent}/${total}`;
    process.stdout.write(`${job.id}  ${time(job.plan.createdAt)}  ${where}${job.failed ? `, ${job.failed} failed` : ''}  ${printable(job.plan.selection)}\n`);
  }
}

/**
 * Runs a bulk job to its end or its stop. `resumed` (`--resume`): what the runs before this one had
 * done is accounted for first, since it is not sent again: one line saying how many, and with --json
 * a line for each (`earlierRun` true) before the lines of this run's copies.
 */
async function runJob(store: DeliveryStore, settings: NonNullable<ReturnType<typeof resolveReplaySettings> & { ok: true }>['settings'], journal: ReplayJournal, mode: { json: boolean; resumed: boolean }): Promise<void> {
  const { json } = mode;
  const [{ createReplayer }, { runReplayJob, jobSettings, jobTryOf }] = await Promise.all([import('../relay/replay.js'), import('../relay/replay-job.js')]);
  const { plan } = journal;
  const replayer = createReplayer({ store, settings: jobSettings(settings.settings, plan.id), clock: Date.now, advice: { noTarget: NO_REPLAY_TARGET, noSecret: 'no secret: pass --secret' } });
  const progress = createProgressLine({ label: `replay ${plan.id}`, total: plan.items.length, stream: process.stderr });
  const stop = new AbortController();
  const onSignal = () => {
    // A second Ctrl-C does not wait: the copies in flight are found recorded or sent again on resume.
    if (stop.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\nstopping: the copies in flight finish and are recorded…\n');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result;
  try {
    // With --json, a line per copy sent, as `events replay ID --json` prints one, as soon as it is recorded.
    const replaying = json
      ? {
          replay: async (deliveryId: string, to?: string) => {
            const replayed = await replayer.replay(deliveryId, to);
            // A delivery no longer stored has its line too, as `events replay ID --json` prints one: every item done has one.
            const line = replayed ? await replayedJson(store, deliveryId, replayed.ok) : { deliveryId, ok: false, relayTry: null };
            process.stdout.write(`${JSON.stringify({ ...line, earlierRun: false })}\n`);
            return replayed;
          },
        }
      : replayer;
    const onEarlier = async (earlier: EarlierOutcome[]) => {
      if (!mode.resumed) return;
      const handedOn = earlier.filter((e) => e.ok).length;
      (json ? process.stderr : process.stdout).write(
        `replay job ${plan.id} resumed: ${earlier.length.toLocaleString('en-US')} of ${plan.items.length.toLocaleString('en-US')} sent before the resume (${handedOn.toLocaleString('en-US')} handed on, ${(earlier.length - handedOn).toLocaleString('en-US')} failed), not sent again\n`,
      );
      if (!json) return;
      for (const e of earlier) {
        const { attempts } = await store.relayHistory(e.id, { withAnswers: true });
        const tried = e.startedAt === null ? null : jobTryOf(attempts, e.startedAt);
        process.stdout.write(`${JSON.stringify({ deliveryId: e.id, ok: e.ok, relayTry: tried && relayTryJson(tried, e.id), earlierRun: true })}\n`);
      }
    };
    result = await runReplayJob({ journal, replayer: replaying, store, clock: Date.now, signal: stop.signal, onEarlier, onProgress: (p) => progress.update(p.done, p.sentThisRun) });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    progress.end();
    journal.close();
    await replayer.close();
  }
  const resume = `npx hookrelay events replay --resume ${plan.id}`;
  const counts = `${result.ok.toLocaleString('en-US')} handed on, ${result.failed.toLocaleString('en-US')} failed${result.missing ? ` (${result.missing} no longer stored)` : ''}`;
  if (result.foundRecorded > 0) process.stderr.write(`${result.foundRecorded} begun before the stop were found recorded, not sent again\n`);
  for (const f of result.failures) process.stderr.write(`  failed: ${printable(f.id)} ${f.status ?? '---'}${f.error ? ` ${printable(f.error)}` : ''}\n`);
  if (result.error !== null) {
    process.stderr.write(`hookrelay: replay job ${plan.id} stopped: ${printable(result.error)}\n  ${result.done}/${result.total} done (${counts}); go on with: ${resume}\n`);
    process.exitCode = EXIT.couldNotRun;
  } else if (result.interrupted) {
    process.stderr.write(`replay job ${plan.id} interrupted at ${result.done}/${result.total} (${counts}); go on with: ${resume}\n`);
    process.exitCode = EXIT.interrupted;
  } else {
    if (json) process.stdout.write(`${JSON.stringify(jobSummaryJson(plan.id, plan.selection, result))}\n`);
    (json ? process.stderr : process.stdout).write(`replay job ${plan.id}: ${result.total.toLocaleString('en-US')} deliveries, ${counts}\n`);
    process.exitCode = result.failed > 0 ? EXIT.finding : EXIT.done;
  }
}

/**
 * One copy sent, for `--json`: the delivery, whether the target took it, and the relay try it was
 * recorded as (docs/cli-json.md `relayTry`, the newest replay of its history; null if none was recorded).
 */
async function replayedJson(store: DeliveryStore, deliveryId: string, ok: boolean) {
  const { attempts } = await store.relayHistory(deliveryId, { withAnswers: true });
  const tried = attempts.filter((a) => a.replay).reduce<(typeof attempts)[number] | null>((newest, a) => (newest === null || a.seq > newest.seq ? a : newest), null);
  return { deliveryId, ok, relayTry: tried && relayTryJson(tried, deliveryId) };
}

const EMPTY_RESULT = { total: 0, done: 0, ok: 0, failed: 0, missing: 0, foundRecorded: 0, failures: [] };

/** The last line of a bulk job's NDJSON: its counts and how to go on (`jobId`, and the deprecated `job`, null when nothing matched, so no job was made). */
function jobSummaryJson(job: string | null, selection: string, r: Pick<ReplayJobResult, 'total' | 'done' | 'ok' | 'failed' | 'missing' | 'foundRecorded' | 'failures'>) {
  return {
    job, jobId: job, selection, total: r.total, done: r.done, handedOn: r.ok, failed: r.failed, missing: r.missing, foundRecorded: r.foundRecorded,
    failures: r.failures.map((f) => ({ deliveryId: f.id, status: f.status, responseStatus: f.status, error: f.error })),
  };
}

/**
 * A bulk job of `--jobs --json`; a damaged one has only its id and why. `id`, `done` and `handedOn`
 * are the names `status --json` and the summary line give the same; `job` and `sent` are deprecated.
 */
function jobJson(dataDir: string, job: ReturnType<typeof listJobs>[number]) {
  if (!job.plan) return { id: job.id, job: job.id, state: 'damaged' as const, error: job.error ?? null };
  const done = job.sent ?? 0;
  const failed = job.failed ?? 0;
  return {
    id: job.id, job: job.id, state: listedJobState(dataDir, { ...job, plan: job.plan }), createdAt: new Date(job.plan.createdAt).toISOString(), selection: job.plan.selection,
    total: job.plan.items.length, done, handedOn: done - failed, sent: done, failed,
  };
}
