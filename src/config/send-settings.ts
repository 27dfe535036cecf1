/**
 * `send` flags → checked settings and the deliveries to send. Refusals come back as tagged
 * results naming the flag or field; the command decides how to print them.
 */
import { parseDuration } from '../core/duration.js';
import { resolveDbPath } from './db-path.js';
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dataDirOf, secretHint } from './data-dir.js';
import type { FailureHandling, RetryPolicy } from '../core/retry-policy/policy.js';
import { validateFailureHandling, type FieldProblem } from '../core/retry-policy/validate-policy.js';
import { mulberry32, uuidFromRandom, type RandomSource } from '../core/seeded-random.js';
import { TRIGGER_CATALOGUE, isKnownTrigger, sampleData } from '../core/triggers.js';

import { buildDelivery, deliveryFromRawBody, type OutgoingDelivery } from '../sender/build-request.js';
import { integerOrText, policyFromFlags, type PolicyFlags } from '../sender/policy-options.js';
import { unreadableBecause } from '../core/file-errors.js';
import type { ProxySettings } from '../runtime/proxy.js';
import { proxyFlagOrEnv, resolveProxySettings } from './service-settings.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from './option-specs.js';
import { CONFIG_FILE, resolveOptions } from './resolve-config.js';
import { secretFlagWarnings } from './secret-flags.js';
import { readFolderSecrets } from './folder-secrets.js';
import { describeSurroundingWhitespace } from '../core/signature/verify.js';

export interface SendFlags extends PolicyFlags {
  to: string;
  trigger: string;
  data?: string;
  payload?: string;
  secret?: string;
  unsigned?: boolean;
  count: string;
  concurrency: string;
  timeScale: string;
  seed?: string;
  timeout: string;
  blockPrivate?: boolean;
  autoDisableAfter: string;
  disableOnGone: boolean;
  db?: string;
  json?: boolean;
  /** `--proxy URL` (> HOOKRELAY_PROXY > HTTPS_PROXY / HTTP_PROXY): docs/operate.md. */
  proxy?: string;
}

export interface SendSettings {
  url: string;
  policy: RetryPolicy;
  failureHandling: FailureHandling;
  concurrency: number;
  timeScale: number;
  seed: number;
  random: RandomSource;
  timeoutMs: number;
  blockPrivate: boolean;
  secret: string | null;
  /** How the deliveries are signed, for display: never the secret, only its hint. */
  signing: string;
  /** What is wrong with the signing secret that send can see itself ("a trailing newline"), or null. */
  secretFlaw: string | null;
  /** Lines to print once on stderr about the secret (typed as a flag, surrounding whitespace). */
  signingWarnings: string[];
  webhookId: string;
  deliveries: OutgoingDelivery[];
  /** Which proxy each attempt goes through (decided per URL by src/runtime/proxy.ts). */
  proxy: ProxySettings;
  /** Lines to print once on stderr (a proxy's password typed as a flag). */
  warnings: string[];
}

export type SettingsCheck =
  | { ok: true; settings: SendSettings }
  /** `problems`: refused policy fields (the 422 style); `message`: any other refused input. */
  | { ok: false; problems: FieldProblem[] }
  | { ok: false; message: string };

/** Checks every flag and builds the deliveries. `now` stamps createdAt and sample data. */
export function resolveSendSettings(flags: SendFlags, now: () => number, env: NodeJS.ProcessEnv = process.env): SettingsCheck {
  const policy = policyFromFlags(flags);
  const handling = validateFailureHandling({ autoDisableAfter: integerOrText(flags.autoDisableAfter), disableOnGone: flags.disableOnGone });
  if (!policy.ok || !handling.ok) {
    return { ok: false, problems: [...(policy.ok ? [] : policy.problems), ...(handling.ok ? [] : handling.problems)] };
  }
  const url = checkUrl(flags.to);
  if (!url.ok) return url;
  const proxyProblems: string[] = [];
  const warnings: string[] = [];
  const proxy = resolveProxySettings(proxyFlagOrEnv(flags.proxy, env), env, proxyProblems, warnings);
  if (proxyProblems.length > 0) return { ok: false, message: proxyProblems.join('; ') };
  const count = integerFlag('--count', flags.count, 1, 100_000);
  const concurrency = integerFlag('--concurrency', flags.concurrency, 1, 1000);
  const timeout = parseDuration(flags.timeout, { bare: 'ms', min: 1, max: 600_000 });
  const timeoutMs: Result<number> = timeout.ok ? { ok: true, value: timeout.ms } : { ok: false, message: `--timeout must be an integer from 1 to 600000 (milliseconds), or a duration such as 10s (got "${flags.timeout}")` };
  const seed = flags.seed === undefined ? { ok: true as const, value: randomInt(0, 2 ** 32) } : integerFlag('--seed', flags.seed, 0, 2 ** 32 - 1);
  for (const checked of [count, concurrency, timeoutMs, seed]) if (!checked.ok) return checked;
  const timeScale = Number(flags.timeScale);
  if (flags.timeScale.trim() === '' || !Number.isFinite(timeScale) || timeScale < 0) {
    return { ok: false, message: `--time-scale must be a number >= 0 (got "${flags.timeScale}")` };
  }
  const secret = resolveSecret(flags, env);
  if (!secret.ok) return secret;
  const random = mulberry32(seed.ok ? seed.value : 0);
  const deliveries = prepareDeliveries(flags, count.ok ? count.value : 1, random, now);
  if (!deliveries.ok) return deliveries;
  return {
    ok: true,
    settings: {
      url: url.value,
      policy: policy.value,
      failureHandling: handling.value,
      concurrency: concurrency.ok ? concurrency.value : 1,
      timeScale,
      seed: seed.ok ? seed.value : 0,
      random,
      timeoutMs: timeoutMs.ok ? timeoutMs.value : 10_000,
      blockPrivate: flags.blockPrivate === true,
      secret: secret.secret,
      signing: secret.signing,
      secretFlaw: secret.flaw,
      signingWarnings: secret.warnings,
      webhookId: uuidFromRandom(random),
      deliveries: deliveries.value,
      proxy,
      warnings: warnings.map((warning) => `warning: ${warning}`),
    },
  };
}

type Result<T> = { ok: true; value: T } | { ok: false; message: string };

function prepareDeliveries(flags: SendFlags, count: number, random: RandomSource, now: () => number): Result<OutgoingDelivery[]> {
  if (flags.data !== undefined && flags.payload !== undefined) return { ok: false, message: 'give either --data or --payload, not both' };
  if (flags.payload !== undefined) {
    let raw: Buffer;
    try {
      raw = readFileSync(flags.payload);
    } catch (err) {
      return { ok: false, message: `cannot read --payload ${flags.payload}: ${unreadableBecause(err)}` };
    }
    const checked = deliveryFromRawBody(raw, flags.trigger);
    if (!checked.ok) return { ok: false, message: `--payload ${flags.payload}: ${checked.reason}` };
    // The same bytes and id each time: --count N sends N copies of one delivery (a dedupe test).
    return { ok: true, value: Array.from({ length: count }, () => checked.delivery) };
  }
  const trigger = flags.trigger;
  if (!isKnownTrigger(trigger)) {
    const known = TRIGGER_CATALOGUE.map((e) => e.trigger).join(', ');
    return { ok: false, message: `unknown trigger "${trigger}" (known: ${known}); use --payload to send any body` };
  }
  let data: Record<string, unknown> | undefined;
  if (flags.data !== undefined) {
    data = parseObject(flags.data);
    if (data === undefined) return { ok: false, message: '--data must be a JSON object, such as \'{"accessRequestId":"..."}\'' };
  }
  const organizationId = uuidFromRandom(random);
  const deliveries = Array.from({ length: count }, () =>
    buildDelivery({
      // Delivery ids stay fresh under --seed, so a receiver never takes a new send for a duplicate.
      id: randomUUID(),
      trigger,
      organizationId,
      createdAtMs: now(),
      data: data ?? (sampleData(trigger, { random, now }) as Record<string, unknown>),
    }),
  );
  return { ok: true, value: deliveries };
}

type SecretCheck = { ok: true; secret: string | null; signing: string; flaw: string | null; warnings: string[] } | { ok: false; message: string };

/** The secret row of listen: send reads it as listen does, and warns of it in the same words. */
const SECRET_OPTION = LISTEN_OPTIONS.filter((spec) => spec.key === 'secret');

/**
 * The signing secret, with listen's precedence: --secret > HOOKRELAY_SECRET > the config file's
 * "secret" > the data folder's secrets (folder-secrets.ts). Of several (rotation), the first signs, as
 * listen's relay signs with its primary secret.
 */
function resolveSecret(flags: SendFlags, env: NodeJS.ProcessEnv): SecretCheck {
  if (flags.unsigned && flags.secret !== undefined) return { ok: false, message: 'give either --secret or --unsigned, not both' };
  if (flags.unsigned) return { ok: true, secret: null, signing: 'off (--unsigned): no x-service-signature', flaw: null, warnings: [] };
  if (flags.secret !== undefined && flags.secret.length === 0) return { ok: false, message: '--secret is empty' };
  const resolved = resolveOptions(SECRET_OPTION, { flags: { secret: flags.secret }, env }, CONFIG_FILE_KEYS);
  if (resolved.problems.length > 0) return { ok: false, message: resolved.problems.join('; ') };
  const given = resolved.values.secret as string[];
  if (given.length > 0) {
    const source = resolved.sources.secret;
    const spec = SECRET_OPTION[0]!;
    const where = source === 'flag' ? spec.flag : source === 'env' ? spec.env : `${CONFIG_FILE} "${spec.key}"`;
    const secret = given[0]!;
    const flaw = describeSurroundingWhitespace(secret) || null;
    const warnings = secretFlagWarnings(SECRET_OPTION, resolved.sources).map((warning) => `warning: ${warning}`);
    // Send can see this itself; the receiver only sees a signature that matches no secret of its own.
    if (flaw !== null) warnings.push(`warning: ${where} has ${flaw}: the service's secrets have none, and send signs with it exactly as given, so a receiver holding the secret without it refuses the signature; strip it`);
    const which = given.length > 1 ? ` (the first of ${given.length}, the one listen signs with)` : '';
    return { ok: true, secret, signing: `${where} ${secretHint(secret)}${which}`, flaw, warnings };
  }
  // The same lookup as listen and verify (flag > HOOKRELAY_DB > config file > default), so the
  // secret listen made is found with no flags.
  const db = resolveDbPath({ db: flags.db }, env);
  if (!db.ok) return { ok: false, message: `cannot find the data folder: ${db.problems.join('; ')}` };
  const dataDir = dataDirOf(db.dbPath);
  // What listen given no secret verifies with (folder-secrets.ts): the kept secrets of `webhooks create
  // --signing`, newest first, then the development secret; the first signs, as listen's relay does.
  const kept = readFolderSecrets(dataDir);
  if (!kept.ok) return { ok: false, message: kept.problem };
  const secret = kept.secrets[0];
  if (secret === undefined) {
    // The development secret belongs to a data folder, not to the machine: say which one was read.
    return { ok: false, message: `no secret: no development secret in ${dataDir} (listen makes one there when it starts without --secret); pass --secret or set HOOKRELAY_SECRET, or run send in that listen's folder (or with its --db)` };
  }
  // Both are written by hookrelay, trimmed: nothing to warn of.
  const what = kept.firstIsDevSecret ? 'development secret' : 'kept secret (webhooks create --signing)';
  return { ok: true, secret, signing: `${what} ${secretHint(secret)} from ${dataDir}`, flaw: null, warnings: [] };
}

function checkUrl(value: string | undefined): Result<string> {
  if (value === undefined) return { ok: false, message: 'missing --to <url>: the receiver endpoint, e.g. --to http://127.0.0.1:4000/webhooks' };
  try {
    const url = new URL(value);
    // The service sends no user name or password (the emulator refuses an endpoint with them:
    // src/core/emulator/webhook-body.ts); undici would drop them silently. Never echoed.
    if (url.username !== '' || url.password !== '') return { ok: false, message: '--to must not carry a user name or password: the service never sends them (credentials of a webhook go in its customHeaders)' };
    if (url.protocol === 'http:' || url.protocol === 'https:') return { ok: true, value: url.href };
    return { ok: false, message: `--to must be an http or https URL (got "${value}")` };
  } catch {
    // Whatever sits between "//" and "@" may be a password, even in a URL that does not parse.
    return { ok: false, message: `--to is not a URL (got "${value.replace(/\/\/[^/?#]*@/, '//[redacted]@')}")` };
  }
}

function integerFlag(flag: string, value: string, min: number, max: number): Result<number> {
  const n = integerOrText(value);
  if (typeof n === 'number' && n >= min && n <= max) return { ok: true, value: n };
  return { ok: false, message: `${flag} must be an integer from ${min} to ${max} (got "${value}")` };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
