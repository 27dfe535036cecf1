/** Validation of retryPolicy and failureHandling against spec 2.11 and the section 8 bounds. */
import { errorEnvelope, type ErrorEnvelope } from '../error-envelope.js';
import {
  DEFAULT_FAILURE_HANDLING,
  DEFAULT_RETRY_POLICY,
  RETRYABLE_CLASSES,
  type FailureHandling,
  type RetryPolicy,
  type RetryableClass,
} from './policy.js';

/** One refused field, named as the spec's 422 VALIDATION_ERROR names it (spec 7). */
export interface FieldProblem {
  field: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

/** Section 8 bounds. */
export const POLICY_BOUNDS = Object.freeze({
  maxAttempts: { min: 1, max: 10 },
  initialDelaySeconds: { min: 10, max: 3600 },
  maxDelaySeconds: { min: 60, max: 86400 },
  retryOnItems: 6,
  autoDisableAfter: { min: 1, max: 100 },
});

const POLICY_FIELDS = ['enabled', 'maxAttempts', 'backoff', 'initialDelaySeconds', 'maxDelaySeconds', 'retryOn'] as const;
const HANDLING_FIELDS = ['autoDisableAfter', 'disableOnGone'] as const;

/**
 * Checks a (possibly partial) retryPolicy object; fields not given keep `base`'s values.
 * Returns the complete policy, or every problem found, each naming its field
 * (`retryPolicy.maxAttempts`, `retryPolicy.retryOn[2]`, ...). Never throws.
 */
export function validateRetryPolicy(input: unknown, base: RetryPolicy = DEFAULT_RETRY_POLICY): Checked<RetryPolicy> {
  const prefix = 'retryPolicy';
  if (!isPlainObject(input)) return refuse(prefix, 'must be a JSON object');
  const problems: FieldProblem[] = unknownFields(input, POLICY_FIELDS, prefix);
  const merged: Record<string, unknown> = { ...base, ...input };

  if (typeof merged.enabled !== 'boolean') problems.push(problem(prefix, 'enabled', 'must be true or false', merged.enabled));
  const maxAttempts = integerIn(merged.maxAttempts, POLICY_BOUNDS.maxAttempts, prefix, 'maxAttempts', problems);
  if (merged.backoff !== 'exponential' && merged.backoff !== 'fixed') {
    problems.push(problem(prefix, 'backoff', 'must be "exponential" or "fixed"', merged.backoff));
  }
  const initial = integerIn(merged.initialDelaySeconds, POLICY_BOUNDS.initialDelaySeconds, prefix, 'initialDelaySeconds', problems);
  const max = integerIn(merged.maxDelaySeconds, POLICY_BOUNDS.maxDelaySeconds, prefix, 'maxDelaySeconds', problems);
  // Spec 6.4 rule 4: initialDelaySeconds must not exceed maxDelaySeconds.
  if (initial !== undefined && max !== undefined && initial > max) {
    problems.push({ field: `${prefix}.initialDelaySeconds`, message: `must not exceed maxDelaySeconds (${initial} > ${max})` });
  }
  const retryOn = checkRetryOn(merged.retryOn, prefix, problems);

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      enabled: merged.enabled as boolean,
      maxAttempts: maxAttempts!,
      backoff: merged.backoff as RetryPolicy['backoff'],
      initialDelaySeconds: initial!,
      maxDelaySeconds: max!,
      retryOn: retryOn!,
    },
  };
}

/**
 * Checks a (possibly partial) failureHandling object (autoDisableAfter 1 to 100, disableOnGone
 * boolean); fields not given keep `base`'s values. Returns the whole object or every problem.
 */
export function validateFailureHandling(input: unknown, base: FailureHandling = DEFAULT_FAILURE_HANDLING): Checked<FailureHandling> {
  const prefix = 'failureHandling';
  if (!isPlainObject(input)) return refuse(prefix, 'must be a JSON object');
  const problems = unknownFields(input, HANDLING_FIELDS, prefix);
  const merged: Record<string, unknown> = { ...base, ...input };
  const autoDisableAfter = integerIn(merged.autoDisableAfter, POLICY_BOUNDS.autoDisableAfter, prefix, 'autoDisableAfter', problems);
  if (typeof merged.disableOnGone !== 'boolean') {
    problems.push(problem(prefix, 'disableOnGone', 'must be true or false', merged.disableOnGone));
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { autoDisableAfter: autoDisableAfter!, disableOnGone: merged.disableOnGone as boolean } };
}

/** The spec's error envelope (section 7) for refused fields: 422 VALIDATION_ERROR. */
export function validationErrorEnvelope(problems: readonly FieldProblem[], timestamp: string): ErrorEnvelope<'VALIDATION_ERROR'> {
  return errorEnvelope('VALIDATION_ERROR', problems.map((p) => `${p.field} ${p.message}`).join('; '), timestamp, { details: [...problems] });
}

function checkRetryOn(value: unknown, prefix: string, problems: FieldProblem[]): RetryableClass[] | undefined {
  const field = `${prefix}.retryOn`;
  if (!Array.isArray(value)) {
    problems.push({ field, message: `must be an array of ${RETRYABLE_CLASSES.join(', ')}` });
    return undefined;
  }
  if (value.length > POLICY_BOUNDS.retryOnItems) {
    problems.push({ field, message: `must have at most ${POLICY_BOUNDS.retryOnItems} items, got ${value.length}` });
    return undefined;
  }
  const seen = new Set<string>();
  const before = problems.length;
  value.forEach((item, i) => {
    if (typeof item !== 'string' || !(RETRYABLE_CLASSES as readonly string[]).includes(item)) {
      problems.push({
        field: `${field}[${i}]`,
        // Spec 6.4 rule 2: http_410, http_unsupported, redirect and blocked are never retried.
        message: `must be one of ${RETRYABLE_CLASSES.join(', ')} (got ${show(item)})`,
      });
    } else if (seen.has(item)) {
      problems.push({ field: `${field}[${i}]`, message: `repeats ${item}` });
    } else {
      seen.add(item);
    }
  });
  return problems.length === before ? (value as RetryableClass[]) : undefined;
}

function integerIn(
  value: unknown,
  bounds: { min: number; max: number },
  prefix: string,
  name: string,
  problems: FieldProblem[],
): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    problems.push(problem(prefix, name, `must be an integer from ${bounds.min} to ${bounds.max}`, value));
    return undefined;
  }
  return value;
}

function unknownFields(input: Record<string, unknown>, known: readonly string[], prefix: string): FieldProblem[] {
  return Object.keys(input)
    .filter((key) => !known.includes(key))
    .map((key) => ({ field: `${prefix}.${key}`, message: `is not a recognised field (known: ${known.join(', ')})` }));
}

function problem(prefix: string, name: string, rule: string, got: unknown): FieldProblem {
  return { field: `${prefix}.${name}`, message: `${rule} (got ${show(got)})` };
}

function refuse<T>(field: string, message: string): Checked<T> {
  return { ok: false, problems: [{ field, message }] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  try {
    const text = JSON.stringify(value) ?? typeof value;
    return text.length > 40 ? `${text.slice(0, 37)}...` : text;
  } catch {
    return typeof value;
  }
}
