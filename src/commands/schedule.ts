/** `hookrelay schedule`: the retry schedule of a policy (spec 6.4 rule 4). */
import type { Command } from 'commander';
import { formatDuration } from '../core/retry-policy/format-duration.js';
import { retrySchedule, type Schedule } from '../core/retry-policy/schedule.js';
import { outputOf, reportProblems } from '../sender/cli-output.js';
import { addPolicyOptions, policyFromFlags, type PolicyFlags } from '../sender/policy-options.js';

export function registerScheduleCommand(program: Command): void {
  const command = program
    .command('schedule')
    .description('print the retry schedule of a policy: each wait, its ±20% jitter bounds, the cap and the cumulative time');
  addPolicyOptions(command)
    .option('--json', 'print the schedule as JSON')
    .action(function (this: Command, opts: PolicyFlags & { json?: boolean }) {
      const output = outputOf(this);
      const policy = policyFromFlags(opts);
      if (!policy.ok) return reportProblems(output, policy.problems, opts.json === true, Date.now());
      const schedule = retrySchedule(policy.value);
      if (opts.json) output.out(JSON.stringify(schedule, null, 2));
      else for (const line of formatSchedule(schedule)) output.out(line);
    });
}

/** The schedule as a table with a heading naming the policy. */
export function formatSchedule(schedule: Schedule): string[] {
  const p = schedule.policy;
  const lines = [
    `Retry schedule (spec 6.4): ${p.backoff} backoff, initialDelaySeconds ${p.initialDelaySeconds}, maxDelaySeconds ${p.maxDelaySeconds} (${formatDuration(p.maxDelaySeconds)}), maxAttempts ${p.maxAttempts}`,
    `retryOn: ${p.retryOn.length > 0 ? p.retryOn.join(', ') : '(none)'}`,
    '',
  ];
  if (!p.enabled) return [...lines, 'Retries are disabled (enabled: false): every delivery is a single attempt.'];
  if (schedule.retries.length === 0) return [...lines, 'maxAttempts is 1: no retries.'];
  const header = ['retry', 'attempt', 'nominal wait', p.backoff === 'fixed' ? 'bounds (no jitter)' : 'bounds (±20%)', 'cap', 'cumulative', 'cumulative range'];
  const rows = schedule.retries.map((r) => [
    String(r.retry),
    String(r.beforeAttempt),
    r.uncappedNominal > r.nominal ? `${formatDuration(r.nominal)} (capped from ${formatDuration(r.uncappedNominal)})` : formatDuration(r.nominal),
    `${formatDuration(r.min)} – ${formatDuration(r.max)}`,
    `${formatDuration(r.capSeconds)}${r.capped ? ' (applies)' : ''}`,
    formatDuration(r.cumulativeNominal),
    `${formatDuration(r.cumulativeMin)} – ${formatDuration(r.cumulativeMax)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const render = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [
    ...lines,
    render(header),
    ...rows.map(render),
    '',
    `Cumulative times count from the first attempt and leave out attempt durations (each attempt may take up to the 10 s timeout).`,
    `A Retry-After on 429 or 503 replaces the wait, honoured between ${formatDuration(schedule.retryAfterRange.minSeconds)} and ${formatDuration(schedule.retryAfterRange.maxSeconds)} (spec 6.4 rule 1).`,
  ];
}
