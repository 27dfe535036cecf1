/**
 * `check` flags → checked settings. Every refused flag is reported at once, each problem naming
 * its flag; the command decides how to print them.
 */
import type { StoreLocation } from '../store/open-store.js';
import { isPostgresUrl } from '../store/postgres/pg-url.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from './option-specs.js';
import { resolveOptions } from './resolve-config.js';
import { resolveCheckOptions, type CheckOptions, type CheckOptionsInput } from '../core/conformance/index.js';
import { validateFailureHandling, type FieldProblem } from '../core/retry-policy/validate-policy.js';
import { integerOrText, policyFromFlags, type PolicyFlags } from '../sender/policy-options.js';
import { parseDurationMs, parseMoment, parseMsPair, parsePositive } from './check-values.js';

export interface CheckFlags extends PolicyFlags {
  delivery?: string;
  since?: string;
  /** `--policy`: the same as `--retry-policy`. */
  policy?: string;
  autoDisableAfter?: string;
  /** False with `--no-disable-on-gone`. */
  disableOnGone?: boolean;
  tolerance?: string;
  timeout?: string;
  slack?: string;
  timeScale?: string;
  json?: boolean;
  verbose?: boolean;
  db?: string;
  store?: string;
  config?: string;
}

export interface CheckSettings {
  /** Where the attempts are read: the SQLite file of --db, or --store postgres://…. */
  location: StoreLocation;
  /** Only this delivery (`--delivery`). */
  deliveryId: string | null;
  /** Only deliveries with an attempt at or after this moment, ms (`--since`). */
  since: number | null;
  options: CheckOptions;
  json: boolean;
  verbose: boolean;
}

export type CheckSettingsResult = { ok: true; settings: CheckSettings } | { ok: false; problems: string[] };

/** The single policy flags and the policy field each one sets. */
const POLICY_FLAG_OF: Record<string, string> = {
  maxAttempts: '--max-attempts',
  backoff: '--backoff',
  initialDelaySeconds: '--initial-delay',
  maxDelaySeconds: '--max-delay',
  retryOn: '--retry-on',
};
const SINGLE_POLICY_FLAGS: Array<[keyof PolicyFlags, string]> = [
  ['maxAttempts', '--max-attempts'],
  ['backoff', '--backoff'],
  ['initialDelay', '--initial-delay'],
  ['maxDelay', '--max-delay'],
  ['retryOn', '--retry-on'],
];

/** Longest attempt timeout `send --timeout` takes (ms). */
const MAX_TIMEOUT_MS = 600_000;

/**
 * Checks every flag. `--tolerance` and `--db` are looked up like `listen`'s (flag >
 * HOOKRELAY_TOLERANCE / HOOKRELAY_DB > the config file > default), so `check` judges signatures
 * with the tolerance the receiver used. `nowMs` anchors `--since 10m` and is the judging time.
 */
export function resolveCheckSettings(flags: CheckFlags, context: { nowMs: number; env?: NodeJS.ProcessEnv }): CheckSettingsResult {
  const problems: string[] = [];
  const input: CheckOptionsInput = { complete: 'auto', now: context.nowMs };

  const typed: Record<string, unknown> = {};
  if (flags.db !== undefined) typed.db = flags.db;
  if (flags.store !== undefined) typed.store = flags.store;
  if (flags.tolerance !== undefined) typed.tolerance = flags.tolerance;
  const shared = resolveOptions(
    LISTEN_OPTIONS.filter((s) => s.key === 'db' || s.key === 'store' || s.key === 'tolerance'),
    { flags: typed, env: context.env ?? process.env, configFile: flags.config, configFileRequired: flags.config !== undefined },
    CONFIG_FILE_KEYS,
  );
  problems.push(...shared.problems);
  const storeUrl = shared.values.store as string | undefined;
  if (storeUrl !== undefined && !isPostgresUrl(storeUrl)) problems.push('--store: must be a postgres:// or postgresql:// URL (the SQLite file is --db)');
  if (typeof shared.values.tolerance === 'number') input.toleranceSeconds = shared.values.tolerance;

  let deliveryId: string | null = null;
  if (flags.delivery !== undefined) {
    if (flags.delivery.trim() === '') problems.push('--delivery: must be a delivery id (x-service-delivery), got an empty string');
    else deliveryId = flags.delivery;
  }
  let since: number | null = null;
  if (flags.since !== undefined) {
    const moment = parseMoment(flags.since, context.nowMs);
    if (moment.ok) since = moment.value;
    else problems.push(`--since: ${moment.message}`);
  }

  const policy = checkPolicy(flags);
  if (policy.ok) input.policy = policy.value;
  else problems.push(...policy.problems);

  const handling = validateFailureHandling({
    ...(flags.autoDisableAfter === undefined ? {} : { autoDisableAfter: integerOrText(flags.autoDisableAfter) }),
    ...(flags.disableOnGone === false ? { disableOnGone: false } : {}),
  });
  if (handling.ok) input.failureHandling = handling.value;
  else problems.push(...handling.problems.map((p) => `--auto-disable-after: ${p.message}`));

  if (flags.timeout !== undefined) {
    const timeout = parseDurationMs(flags.timeout, 1, MAX_TIMEOUT_MS);
    if (timeout.ok) input.attemptTimeoutSeconds = timeout.value / 1000;
    else problems.push(`--timeout: ${timeout.message}`);
  }
  if (flags.slack !== undefined) {
    const slack = parseMsPair(flags.slack);
    if (slack.ok) input.slack = slack.value;
    else problems.push(`--slack: ${slack.message}`);
  }
  if (flags.timeScale !== undefined) {
    const scale = parsePositive(flags.timeScale);
    if (scale.ok) input.timeScale = scale.value;
    else problems.push(`--time-scale: ${scale.message} (judge with the factor the sender ran with; a run with no waits at all cannot be judged for them)`);
  }

  if (problems.length > 0) return { ok: false, problems };
  const resolved = resolveCheckOptions(input);
  // Every value was checked above; this only guards against the two checks drifting apart.
  if (!resolved.ok) return { ok: false, problems: resolved.problems };
  return {
    ok: true,
    settings: {
      location: storeUrl !== undefined ? { kind: 'postgres', url: storeUrl } : { kind: 'sqlite', path: shared.values.db as string },
      deliveryId,
      since,
      options: resolved.options,
      json: flags.json === true,
      verbose: flags.verbose === true,
    },
  };
}

type PolicyCheck = { ok: true; value: CheckOptions['policy'] } | { ok: false; problems: string[] };

/** `--policy` / `--retry-policy` JSON, or the single flags over the spec default, never both. */
function checkPolicy(flags: CheckFlags): PolicyCheck {
  if (flags.policy !== undefined && flags.retryPolicy !== undefined) {
    return { ok: false, problems: ['--policy: give either --policy or --retry-policy (they are the same flag), not both'] };
  }
  const json = flags.policy ?? flags.retryPolicy;
  const jsonFlag = flags.policy !== undefined ? '--policy' : '--retry-policy';
  const singles = SINGLE_POLICY_FLAGS.filter(([key]) => flags[key] !== undefined);
  if (json !== undefined && singles.length > 0) {
    return { ok: false, problems: [`${jsonFlag}: give either the whole policy as JSON or ${singles.map(([, f]) => f).join(', ')}, not both`] };
  }
  const checked = policyFromFlags({
    retryPolicy: json,
    maxAttempts: flags.maxAttempts,
    backoff: flags.backoff,
    initialDelay: flags.initialDelay,
    maxDelay: flags.maxDelay,
    retryOn: flags.retryOn,
  });
  if (checked.ok) return checked;
  return { ok: false, problems: checked.problems.map((p) => (json !== undefined ? `${jsonFlag}: ${p.field} ${p.message}` : singleFlagProblem(p))) };
}

/** `retryPolicy.retryOn[2] must be…` → `--retry-on: retryOn[2] must be…`. */
function singleFlagProblem(p: FieldProblem): string {
  const field = p.field.replace(/^retryPolicy\.?/, '');
  const key = /^[A-Za-z]+/.exec(field)?.[0] ?? '';
  const flag = POLICY_FLAG_OF[key];
  return flag === undefined ? `${p.field} ${p.message}` : `${flag}: ${field === key ? '' : `${field} `}${p.message}`;
}
