/**
 * `hookrelay reconcile --webhook ID [--since DATE] [--replay] [--json]`: what the service sent
 * against what the local store (SQLite or PostgreSQL, opened read-only) holds, by delivery id.
 * Exit (core/exit-codes.ts): 0 reconciled; 1 gaps, or deliveries still in flight that have not
 * arrived here; 2 usage; 3 could not run (the network, the key, the store).
 */
import type { Command } from 'commander';
import { dataDirOf } from '../config/data-dir.js';
import { resolveStoreLocation } from '../config/db-path.js';
import { resolveServiceSettings } from '../config/service-settings.js';
import { parseDuration } from '../core/duration.js';
import { printable } from '../reporter/printable.js';
import { createProgressLine, type ProgressLine } from '../reporter/progress-line.js';
import { serviceAttemptLine } from './service-attempt-line.js';
import { EXIT_USAGE, outputOf } from '../sender/cli-output.js';
import { BUDGET_PER_MINUTE, pacedDurationMs } from '../service/pacer.js';
import { reconcile, type ReconcileReport } from '../service/reconcile.js';
import { MAX_DELIVERIES_PAGE } from '../service/webhooks-api.js';
import { NoStoreError, openStoreReader, type StoreReader } from '../store/open-store.js';
import { addServiceOptions, openSession, reportUsageProblems, runWithSession } from './service-options.js';
import { EXIT } from '../core/exit-codes.js';

interface ReconcileFlags {
  apiUrl?: string;
  apiKey?: string;
  webhook?: string;
  since?: string;
  replay?: boolean;
  json?: boolean;
  confirmTimeout: string;
  wait?: string;
  db?: string;
  store?: string;
  config?: string;
}

export function registerReconcileCommand(program: Command): void {
  addServiceOptions(
    program
      .command('reconcile')
      .description('what the service sent that the local store never stored, and why (exit 0 reconciled; 1 gaps, or deliveries in flight not here yet; 2 usage; 3 could not run)')
      .option('--webhook <id>', 'the webhook to reconcile')
      .option('--since <date>', 'only deliveries created at or after this ISO date-time')
      .option('--replay', 'ask the service to replay each missed delivery, and confirm each replay arrived')
      .option('--confirm-timeout <duration>', 'how long to wait for each replay to arrive', '60s')
      .option('--wait <duration>', 'wait up to this long for deliveries the service is still retrying to arrive here (e.g. 10m), instead of reporting them as not reconciled yet')
      .option('--json', 'print the report as JSON')
      .option('--db <file>', 'SQLite file of listen (default: .hookrelay/hookrelay.db); its folder keeps the resumable cursor [env HOOKRELAY_DB]')
      .option('--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]')
      .option('--config <file>', 'config file to read db and store from'),
  ).action(async function (this: Command, flags: ReconcileFlags) {
    const problems: string[] = [];
    if (!flags.webhook) problems.push('missing --webhook ID (see `hookrelay webhooks list`)');
    let since: { text: string; ms: number } | null = null;
    if (flags.since !== undefined) {
      const ms = /^\d{4}-\d{2}-\d{2}/.test(flags.since) ? Date.parse(flags.since) : NaN;
      if (Number.isFinite(ms)) since = { text: flags.since, ms };
      else problems.push(`--since must be an ISO date or date-time such as 2026-06-01 or 2026-06-01T12:00:00Z (got ${JSON.stringify(printable(flags.since, 60))})`);
    }
    const confirm = parseDuration(flags.confirmTimeout, { bare: 's', min: 0, max: 3_600_000 });
    if (!confirm.ok) problems.push(`--confirm-timeout must be a duration such as 60s or 2m (got ${JSON.stringify(printable(flags.confirmTimeout, 40))})`);
    const wait = flags.wait === undefined ? null : parseDuration(flags.wait, { bare: 's', min: 0, max: 86_400_000 });
    if (wait && !wait.ok) problems.push(`--wait must be a duration such as 10m or 90s (got ${JSON.stringify(printable(flags.wait!, 40))})`);
    const where = resolveStoreLocation(flags);
    if (!where.ok) problems.push(...where.problems);
    const service = resolveServiceSettings(flags);
    if (!service.ok) problems.push(...service.problems);
    if (problems.length > 0 || !where.ok) return reportUsageProblems(outputOf(this), problems);
    const session = openSession(this, flags);
    if (session === null) return;
    const { output } = session;
    let store: StoreReader;
    try {
      store = await openStoreReader(where.location);
    } catch (err) {
      await session.client.close();
      output.err(`error: ${(err as Error).message}`);
      process.exitCode = err instanceof NoStoreError ? EXIT_USAGE : EXIT.couldNotRun;
      return;
    }
    const dataDir = dataDirOf(where.dbPath);
    const perMinute = BUDGET_PER_MINUTE.read * MAX_DELIVERIES_PAGE;
    if (!flags.json) output.err(`reading the service's deliveries of ${printable(flags.webhook!, 64)}, newest first: ${MAX_DELIVERIES_PAGE} a page, paced to ${BUDGET_PER_MINUTE.read} reads a minute (spec 8), so up to ${perMinute.toLocaleString('en')} deliveries a minute`);
    let nextMark = 10_000;
    // On a terminal, the replays as one progress line (their outcomes are in the report); elsewhere a line each.
    let replays: { line: ProgressLine; done: number } | null = null;
    try {
      await runWithSession(session, flags.json === true, async () => {
        const report = await reconcile({
          api: session.api,
          store,
          apiUrl: session.apiUrl,
          webhookId: flags.webhook!,
          since,
          dataDir,
          replay: flags.replay === true,
          confirmTimeoutMs: confirm.ok ? confirm.ms : 60_000,
          waitMs: wait?.ok ? wait.ms : 0,
          now: Date.now,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          onProgress: (p) => {
            if (flags.json) return;
            if (p.kind === 'resumed') output.err(`resuming an unfinished run: ${p.scanned} deliveries in ${p.pages} pages already read`);
            if (p.kind === 'restarted') output.err(`starting over: ${p.reason}`);
            if (p.kind === 'page' && p.scanned >= nextMark) {
              nextMark += 10_000;
              output.err(`… ${p.scanned.toLocaleString('en')} deliveries read in ${p.pages} pages; each further 30,000 take at least a minute inside the read budget (Ctrl-C is safe: a new run resumes here)`);
            }
            if (p.kind === 'replaying') {
              const ms = pacedDurationMs(p.count, 'write');
              output.err(`replaying ${p.count} missed deliver${p.count === 1 ? 'y' : 'ies'}${ms > 0 ? `: about ${Math.ceil(ms / 60_000)} min inside the write budget of ${BUDGET_PER_MINUTE.write} a minute` : ''}`);
              if (process.stderr.isTTY) replays = { line: createProgressLine({ label: 'replayed (missed deliveries)', total: p.count, stream: process.stderr }), done: 0 };
            }
            if (p.kind === 'waiting') output.err(`waiting up to ${printable(flags.wait!, 40)} for ${p.count} deliver${p.count === 1 ? 'y' : 'ies'} still in flight to arrive here`);
            if (p.kind === 'arrived') output.err(`  ${printable(p.deliveryId, 64)} arrived`);
            if (p.kind === 'replayed' && replays !== null) replays.line.update(++replays.done, replays.done);
            else if (p.kind === 'replayed') output.err(`  ${printable(p.deliveryId, 64)} → replay ${printable(p.replayId, 64)} ${p.arrived ? 'arrived' : 'did NOT arrive in time'}`);
          },
        });
        replays?.line.end();
        if (flags.json) output.out(JSON.stringify(report, null, 2));
        else for (const line of reportLines(report)) output.out(line);
        process.exitCode = report.reconciled ? EXIT.done : EXIT.finding;
      });
    } catch (err) {
      // Not the service's failure (runWithSession reports those): the local store or the data folder. Could not run.
      output.err(`error: ${printable((err as Error).message, 500)}`);
      process.exitCode = EXIT.couldNotRun;
    } finally {
      await store.close();
    }
  });
}

export function reportLines(r: ReconcileReport): string[] {
  const lines: string[] = [];
  const w = r.webhook;
  lines.push(`webhook ${printable(w.id, 64)} "${printable(w.name, 60)}": ${printable(w.status, 12)}${w.disabledReason ? ` (${printable(w.disabledReason, 200)})` : ''}${w.fix ? `: nothing is delivered; fix: ${w.fix}` : ''}`);
  lines.push(`read ${r.scanned} deliver${r.scanned === 1 ? 'y' : 'ies'} in ${r.pages} page${r.pages === 1 ? '' : 's'}${r.resumed ? ' (resumed)' : ''}`);
  lines.push('');
  lines.push(`missed: ${r.missed.length} (the service attempted them; the local store never accepted them)`);
  for (const m of r.missed) {
    const replay = m.replay === undefined ? '' : 'error' in m.replay ? `  replay refused: ${printable(m.replay.error, 200)}` : `  replay ${printable(m.replay.replayId, 64)} ${m.replay.arrived ? 'arrived' : 'NOT arrived'}`;
    lines.push(`  ${printable(m.deliveryId, 64)}  ${printable(m.trigger, 60)}  ${printable(m.status, 12)}${m.lastFailureClass ? ` (${printable(m.lastFailureClass, 20)})` : ''}${replay}`);
    for (const a of m.attempts) {
      lines.push(`      ${a.deliveryId === m.deliveryId ? '' : `replay ${printable(a.deliveryId, 64)} `}${serviceAttemptLine(a)}`);
    }
  }
  lines.push(`acknowledged but not known to the service as delivered: ${r.acknowledgedNotKnown.length}${r.acknowledgedNotKnown.length > 0 ? ' (stored here, yet the service says failed or retrying: our 2xx was lost, or the service is behind)' : ''}`);
  for (const d of r.acknowledgedNotKnown) lines.push(`  ${printable(d.deliveryId, 64)}  ${printable(d.trigger, 60)}  ${printable(d.status, 12)}${d.lastFailureClass ? ` (${printable(d.lastFailureClass, 20)})` : ''}`);
  lines.push(`still in flight: ${r.inFlight.length}`);
  for (const d of r.inFlight) lines.push(`  ${printable(d.deliveryId, 64)}  ${printable(d.trigger, 60)}  ${printable(d.status, 12)}  attempts ${d.attemptCount}${d.nextAttemptAt ? `  next ${printable(d.nextAttemptAt, 30)}` : ''}`);
  lines.push(`attempts that never arrived here: ${r.lostAttempts.reduce((n, l) => n + l.attemptNumbers.length, 0)}${r.lostAttempts.length > 0 ? ' (the service made them; listen recorded no arrival: a network path lost them, or they went elsewhere)' : ''}`);
  for (const l of r.lostAttempts.slice(0, 50)) lines.push(`  ${printable(l.deliveryId, 64)}  attempt${l.attemptNumbers.length === 1 ? '' : 's'} ${l.attemptNumbers.join(', ')}`);
  if (r.lostAttempts.length > 50) lines.push(`  … and ${r.lostAttempts.length - 50} more (--json lists all)`);
  lines.push('');
  lines.push(verdictLine(r));
  return lines;
}

function verdictLine(r: ReconcileReport): string {
  if (r.verdict === 'reconciled') return 'reconciled: every delivery the service attempted is in the local store';
  if (r.verdict === 'in-flight') {
    const n = r.inFlight.length;
    return `NOT reconciled yet: ${n} deliver${n === 1 ? 'y' : 'ies'} the service is still delivering ${n === 1 ? 'has' : 'have'} not arrived here (the receiver was down or unreachable for ${n === 1 ? 'its attempts' : 'their attempts'}); run again after the next attempt, or with --wait 10m`;
  }
  return `NOT reconciled${r.missed.some((m) => m.replay === undefined) ? ': run again with --replay to ask the service for the missed ones' : ''}`;
}
