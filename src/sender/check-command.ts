/**
 * The `hookrelay check` command that judges one `send` run (issue 13 item 5), printed at the end of
 * its summary. It names the window the run started (`--since`, to the millisecond, so deliveries
 * sent by hand before it are left out) and everything `send` was told that `check` must know:
 * the policy, failure handling, attempt timeout, time scale and database.
 */
import { shellQuote } from '../core/shell-command.js';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY, type FailureHandling, type RetryPolicy } from '../core/retry-policy/policy.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './attempt-timeout.js';

export interface JudgedRun {
  /** When the run started, ms since the epoch (before its first attempt). */
  startedAt: number;
  policy: RetryPolicy;
  failureHandling: FailureHandling;
  timeoutMs: number;
  timeScale: number;
  /** `send --db`, when given: `check` reads the same database. */
  db?: string;
}


/**
 * `npx hookrelay check --since <start> …`, with only the flags that differ from `check`'s defaults.
 * `--time-scale` is given for a scaled run although its stored deliveries carry their mark: a
 * delivery never stored (every attempt faulted) has no headers on record to carry one.
 */
export function checkCommandFor(run: JudgedRun): string {
  const args = ['npx hookrelay check', '--since', new Date(run.startedAt).toISOString()];
  if (!samePolicy(run.policy, DEFAULT_RETRY_POLICY)) args.push('--retry-policy', shellQuote(JSON.stringify(run.policy)));
  if (run.failureHandling.autoDisableAfter !== DEFAULT_FAILURE_HANDLING.autoDisableAfter) args.push('--auto-disable-after', String(run.failureHandling.autoDisableAfter));
  if (!run.failureHandling.disableOnGone) args.push('--no-disable-on-gone');
  if (run.timeoutMs !== DEFAULT_ATTEMPT_TIMEOUT_MS) args.push('--timeout', String(run.timeoutMs));
  if (run.timeScale !== 1 && run.timeScale > 0) args.push('--time-scale', String(run.timeScale));
  if (run.db !== undefined) args.push('--db', shellQuote(run.db));
  return args.join(' ');
}

function samePolicy(a: RetryPolicy, b: RetryPolicy): boolean {
  return a.enabled === b.enabled
    && a.maxAttempts === b.maxAttempts
    && a.backoff === b.backoff
    && a.initialDelaySeconds === b.initialDelaySeconds
    && a.maxDelaySeconds === b.maxDelaySeconds
    && a.retryOn.length === b.retryOn.length
    && a.retryOn.every((c, i) => c === b.retryOn[i]);
}
