/**
 * `hookrelay check`: judge the recorded attempts of each delivery against the sender's retry
 * policy (issue 7; spec 6.1, 6.3, 6.4, 3, 8). Reads the database read-only, so it runs beside a
 * live `listen`. This file only translates flags, reads and prints; the judge is core/conformance.
 */
import { EXIT } from '../core/exit-codes.js';
import { CommanderError, Option, type Command } from 'commander';
import { checkExitCode, formatReport, safeText, type RunVerdict } from '../core/conformance/index.js';
import { checkRun } from '../conformance/check-run.js';
import { EXIT_USAGE, outputOf, type CommandOutput } from '../sender/cli-output.js';
import { addPolicyOptions } from '../sender/policy-options.js';
import { NoStoreError, describeStoreLocation, openStoreReader } from '../store/open-store.js';
import type { AttemptRecord } from '../store/store.js';
import { resolveCheckSettings, type CheckFlags, type CheckSettings } from '../config/check-settings.js';
import { checkJson } from './check-json.js';

export function registerCheckCommand(program: Command): void {
  const command = program
    .command('check')
    .description('judge whether the sender retried as its policy says (spec 6.3, 6.4): a report per delivery; exit 1 if any rule failed, 2 usage, 3 the store could not be read')
    .option('--delivery <id>', 'judge only this delivery (x-service-delivery), in the context of the run')
    .option('--since <time>', 'only deliveries with an attempt at or after TIME, whole: ISO date-time (2026-06-01T10:00:00Z) or a time ago (10m, 2h, 1d)')
    .addOption(new Option('--policy <json>', 'the sender\'s retryPolicy as JSON (spec 2.11), the same as --retry-policy; missing fields keep the defaults'));
  addPolicyOptions(command)
    .option('--auto-disable-after <n>', "the webhook's failureHandling.autoDisableAfter, 1 to 100 (default: 15)")
    .option('--no-disable-on-gone', "the webhook's failureHandling.disableOnGone is false: a 410 does not suspend it")
    .option('--tolerance <seconds>', "signature tolerance, as the receiver's --tolerance (default: 300) [env HOOKRELAY_TOLERANCE]")
    .option('--timeout <ms>', "the sender's attempt timeout (send --timeout), never scaled; ms, or with s (10s) (default: 10000)")
    .option('--slack <early,late>', 'measurement slack in ms taken off / added to every window (default: 250,1000; 100,500 with --time-scale)')
    .option('--time-scale <factor>', 'the sender ran with this --time-scale: every expected wait is multiplied by it (default: 1); a delivery a scaled hookrelay send marked (x-hookrelay-time-scale) is judged at its own')
    .option('--store <url>', 'read a postgres:// store instead of the SQLite file [env HOOKRELAY_STORE]')
    .option('--json', 'print the verdict as JSON')
    .option('--verbose', 'print every finding, not only the failing ones')
    .option('--db <file>', 'SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db and tolerance from')
    .addHelpText(
      'after',
      `
Exit code: 0 every rule passed (or n/a, or nothing to judge), 1 a rule failed, 2 bad flags.

Examples:
  npx hookrelay check
  npx hookrelay check --since 10m
  npx hookrelay check --since 2026-06-01T10:00:00Z --policy "$(cat retry-policy.json)" --json > verdict.json
  npx hookrelay check --delivery 4f7c2a1e-5b7d-4c1e-9a57-0d3c1f2e8b90 --verbose`,
    )
    .action(async function (this: Command, flags: CheckFlags) {
      await check(flags, outputOf(this));
    })
    // Commander exits 1 on an unknown flag or a missing value; for `check` 1 means "a rule
    // failed" to CI, so refused input exits 2 here too. Help and version still exit 0.
    .exitOverride((err) => {
      const exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
      if (exitCode !== 0) process.exitCode = exitCode;
      throw new CommanderError(exitCode, err.code, err.message);
    });
}

async function check(flags: CheckFlags, output: CommandOutput): Promise<void> {
  const checked = resolveCheckSettings(flags, { nowMs: Date.now() });
  if (!checked.ok) return usage(output, checked.problems);
  const settings = checked.settings;
  let records: AttemptRecord[];
  let judged: RunVerdict | null;
  try {
    ({ records, verdict: judged } = await readAndJudge(settings));
  } catch (err) {
    if (err instanceof NoStoreError) return usage(output, [err.message]);
    // Could not run (a busy or damaged store), not a finding: exit 3 (core/exit-codes.ts).
    output.err(`hookrelay check: cannot read the store ${safeText(describeStoreLocation(settings.location), 500)}: ${safeText((err as Error).message, 500)}`);
    process.exitCode = EXIT.couldNotRun;
    return;
  }

  if (judged === null) {
    const where = settings.since === null ? '' : ` since ${new Date(settings.since).toISOString()}`;
    return usage(output, [`--delivery: no recorded attempt${where} carries delivery id ${safeText(settings.deliveryId!, 200)}`]);
  }
  const verdict = judged;

  if (settings.json) {
    output.out(JSON.stringify(checkJson(verdict), null, 2));
  } else {
    output.out(withSource(formatReport(verdict, { options: settings.options, verbose: settings.verbose }), sourceLine(settings, records.length)).trimEnd());
  }
  process.exitCode = checkExitCode(verdict);
}

/** The run judged from the store (conformance/check-run.ts: every attempt, or the `--since` window, with time-scale marks). */
async function readAndJudge(settings: CheckSettings): Promise<{ records: AttemptRecord[]; verdict: RunVerdict | null }> {
  const reader = await openStoreReader(settings.location);
  try {
    return await checkRun(reader, { options: settings.options, since: settings.since, deliveryId: settings.deliveryId });
  } finally {
    await reader.close();
  }
}

function sourceLine(settings: CheckSettings, count: number): string {
  const window = settings.since === null ? 'every recorded attempt' : `deliveries with an attempt since ${new Date(settings.since).toISOString()}`;
  const only = settings.deliveryId === null ? '' : `, showing delivery ${safeText(settings.deliveryId, 200)}`;
  return `  records   ${count} attempt record${count === 1 ? '' : 's'} (${window}${only}) in ${safeText(describeStoreLocation(settings.location), 500)}`;
}

/** Puts the source line at the end of the report's settings header (the block before its first blank line). */
function withSource(report: string, line: string): string {
  const lines = report.split('\n');
  const blank = lines.indexOf('');
  lines.splice(blank < 0 ? 0 : blank, 0, line);
  return lines.join('\n');
}

/** Refused input: every problem on stderr, exit 2 (a rule failure is 1). */
function usage(output: CommandOutput, problems: readonly string[]): void {
  output.err(`hookrelay check: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:`);
  for (const problem of problems) output.err(`  - ${problem}`);
  process.exitCode = EXIT_USAGE;
}
