/** The retry-policy flags shared by `send` and `schedule`, and their translation into a checked policy. */
import { Option, type Command } from 'commander';
import { DEFAULT_RETRY_POLICY, RETRYABLE_CLASSES, type RetryPolicy } from '../core/retry-policy/policy.js';
import { validateRetryPolicy, type Checked, type FieldProblem } from '../core/retry-policy/validate-policy.js';

export interface PolicyFlags {
  retryPolicy?: string;
  maxAttempts?: string;
  backoff?: string;
  initialDelay?: string;
  maxDelay?: string;
  retryOn?: string;
}

const SINGLE_FLAGS: Array<[keyof PolicyFlags, string, keyof RetryPolicy]> = [
  ['maxAttempts', '--max-attempts', 'maxAttempts'],
  ['backoff', '--backoff', 'backoff'],
  ['initialDelay', '--initial-delay', 'initialDelaySeconds'],
  ['maxDelay', '--max-delay', 'maxDelaySeconds'],
  ['retryOn', '--retry-on', 'retryOn'],
];

/** Adds --retry-policy JSON and the single policy flags to `command`. */
export function addPolicyOptions(command: Command): Command {
  const d = DEFAULT_RETRY_POLICY;
  return command
    .addOption(new Option('--retry-policy <json>', 'the whole retryPolicy as JSON (spec 2.11); missing fields keep the defaults'))
    .addOption(new Option('--max-attempts <n>', `attempts in all, 1 to 10 (default: ${d.maxAttempts})`))
    .addOption(new Option('--backoff <kind>', `exponential or fixed (default: ${d.backoff})`))
    .addOption(new Option('--initial-delay <seconds>', `first wait, 10 to 3600, at most --max-delay (default: ${d.initialDelaySeconds})`))
    .addOption(new Option('--max-delay <seconds>', `cap on every wait, 60 to 86400 (default: ${d.maxDelaySeconds})`))
    .addOption(new Option('--retry-on <classes>', `comma-separated subset of ${RETRYABLE_CLASSES.join(',')} (default: ${d.retryOn.join(',')})`));
}

/**
 * The policy the flags describe, checked against spec 2.11 and section 8: --retry-policy JSON,
 * or the single flags over the defaults, never both. Returns the policy or every problem,
 * each naming its field.
 */
export function policyFromFlags(flags: PolicyFlags): Checked<RetryPolicy> {
  const singles = SINGLE_FLAGS.filter(([key]) => flags[key] !== undefined);
  if (flags.retryPolicy !== undefined) {
    if (singles.length > 0) {
      return refuse('retryPolicy', `give either --retry-policy or ${singles.map(([, flag]) => flag).join(', ')}, not both`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(flags.retryPolicy);
    } catch (err) {
      return refuse('retryPolicy', `is not valid JSON (${(err as Error).message})`);
    }
    return validateRetryPolicy(parsed);
  }
  const partial: Record<string, unknown> = {};
  if (flags.maxAttempts !== undefined) partial.maxAttempts = integerOrText(flags.maxAttempts);
  if (flags.backoff !== undefined) partial.backoff = flags.backoff.trim();
  if (flags.initialDelay !== undefined) partial.initialDelaySeconds = integerOrText(flags.initialDelay);
  if (flags.maxDelay !== undefined) partial.maxDelaySeconds = integerOrText(flags.maxDelay);
  if (flags.retryOn !== undefined) partial.retryOn = listOf(flags.retryOn);
  return validateRetryPolicy(partial);
}

/** Digits become a number; anything else stays text so the validator names it. */
export function integerOrText(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d{1,15}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function listOf(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === 'none') return [];
  return trimmed.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function refuse<T>(field: string, message: string): Checked<T> {
  const problems: FieldProblem[] = [{ field, message }];
  return { ok: false, problems };
}
