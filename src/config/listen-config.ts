/** The resolved settings of `hookrelay listen`. */
import { describeSurroundingWhitespace } from '../core/signature/verify.js';
import { SecretSetError, secretSetPath, secretsForListen } from '../service/secret-set.js';
import { formatFaultRule, shadowingRule, type FaultRule } from '../core/faults/index.js';
import { combineRules, rulesFromFile, rulesFromLines } from '../faults/rule-sources.js';
import { parseRetainDuration } from '../store/retention.js';
import { isPostgresUrl } from '../store/postgres/pg-url.js';
import { dataDirOf, makeDevSecret, readDevSecret } from './data-dir.js';
import { resolveBridge, type BridgeConfig } from './bridge-settings.js';
import { forwardHeadersOf, resolveForwardExtras } from './forward-settings.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from './option-specs.js';
import { CONFIG_FILE, resolveOptions, type ConfigInputs, type Resolved } from './resolve-config.js';
import { dbUrlProblem } from './db-path.js';
import { secretFlagWarnings } from './secret-flags.js';
import { readTlsPair, type TlsPair } from './tls-files.js';
import type { ForwardConfig, NodeConfig } from './node-config.js';

/** The secret set of `webhooks create --signing` (src/service/secret-set.ts); a damaged file is a clear problem, never a guess. */
function readKeptSecrets(dataDir: string): { ok: true; secrets: string[] } | { ok: false; problem: string } {
  try {
    return { ok: true, secrets: secretsForListen(dataDir) };
  } catch (err) {
    if (err instanceof SecretSetError) return { ok: false, problem: err.message };
    throw err;
  }
}

export type { BridgeConfig } from './bridge-settings.js';
export type { TlsPair } from './tls-files.js';
export type { ConsoleConfig, ForwardConfig } from './node-config.js';

export interface ListenConfig extends NodeConfig {
  port: number;
  host: string;
  /** Without --secret: the secrets `webhooks create --signing` kept (newest first), and where. */
  secretSet?: { file: string; count: number };
  /** `--bridge-port`: the bridge listener for `hookrelay connect`; null or absent: off. */
  bridge?: BridgeConfig | null;
  /** `--tls-cert`/`--tls-key`: the receiver and the bridge listener speak HTTPS (wss); null or absent: plain. */
  tls?: TlsPair | null;
}

/** A secret shorter than this (after its `whsec_`) gets a warning: fine for a test, not for a receiver. */
const WEAK_SECRET_LENGTH = 16;

export type ListenConfigResult = { ok: true; config: ListenConfig; warnings: string[] } | { ok: false; problems: string[] };

/** Resolves and checks every setting; with no secret, makes or reads the development secret. */
export function resolveListenConfig(inputs: ConfigInputs): ListenConfigResult {
  // `connect`'s own file key is allowed, so one config file can serve both commands.
  const resolved = resolveOptions(LISTEN_OPTIONS, inputs, CONFIG_FILE_KEYS);
  const { values, problems } = resolved;
  const faults = resolveFaultRules(resolved, inputs.configFile ?? CONFIG_FILE);
  problems.push(...faults.problems);
  const warnings: string[] = secretFlagWarnings(LISTEN_OPTIONS, resolved.sources);
  (faults.rules ?? []).forEach((rule, i) => {
    const by = shadowingRule(faults.rules!, i);
    if (by !== null) warnings.push(`fault rule ${i + 1} (${formatFaultRule(rule)}) never fires: rule ${by + 1} (${formatFaultRule(faults.rules![by]!)}) answers every arrival it matches first`);
  });
  const path = values.path as string | undefined;
  if (path !== undefined && (!path.startsWith('/') || /[\s?#]/.test(path))) {
    problems.push(`--path: must start with "/" and hold no spaces, "?" or "#", got ${JSON.stringify(path)}`);
  }
  // A copy: the option's default array is shared by every call, and the dev or kept secrets are pushed onto this one.
  const secrets = [...((values.secret as string[] | undefined) ?? [])];
  secrets.forEach((secret, i) => {
    const whitespace = describeSurroundingWhitespace(secret);
    if (whitespace) warnings.push(`secret #${i + 1} has ${whitespace} (from a file?); it is used exactly as given`);
    // Below this, anyone can guess it, and its hint shows no tail to tell it apart (secret-hint.ts).
    const own = secret.replace(/^whsec_/, '').length;
    if (own < WEAK_SECRET_LENGTH) {
      warnings.push(`secret #${i + 1} is short (${own} characters${own === secret.length ? '' : ' after whsec_'}; use at least ${WEAK_SECRET_LENGTH}): a signature made with it is easy to forge; the service's secrets are long and random`);
    }
  });
  const forwardHeaders = checkForward(resolved, secrets.length > 0, problems);
  const { routes, trust, pacing } = resolveForwardExtras(resolved, inputs.configFile ?? CONFIG_FILE, problems, warnings);
  const tls = readTlsPair(values.tlsCert as string | undefined, values.tlsKey as string | undefined);
  problems.push(...tls.problems);
  const consoleToken = values.consoleToken as string | undefined;
  problems.push(...consoleProblems(values, consoleToken));
  const dbUrl = dbUrlProblem(resolved);
  if (dbUrl !== null) problems.push(dbUrl);
  const storeUrl = values.store as string | undefined;
  if (storeUrl !== undefined && !isPostgresUrl(storeUrl)) problems.push('--store: must be a postgres:// or postgresql:// URL (the SQLite file is --db)');
  const retain = typeof values.retain === 'string' ? parseRetainDuration(values.retain) : ({ ok: true, ms: null } as const);
  if (!retain.ok) problems.push(`--retain: ${retain.message}`);
  const bridge = resolveBridge(values, resolved.sources);
  problems.push(...bridge.problems);
  if (problems.length > 0) return { ok: false, problems };

  const dbPath = values.db as string;
  let devSecret: ListenConfig['devSecret'] = null;
  let secretSet: ListenConfig['secretSet'];
  if (secrets.length === 0 && !values.skipVerify) {
    const dataDir = dataDirOf(dbPath);
    const kept = readKeptSecrets(dataDir);
    if (!kept.ok) return { ok: false, problems: [kept.problem] };
    // Only read here: a new one is written by the app once its listeners are bound, so a start
    // that fails leaves nothing behind.
    const existing = readDevSecret(dataDir);
    if (kept.secrets.length > 0) {
      // The webhooks' secrets first (the newest verifies first and signs the relay), then the
      // development secret, so `send` with no flags keeps working.
      secrets.push(...kept.secrets, ...(existing !== undefined ? [existing] : []));
      secretSet = { file: secretSetPath(dataDir), count: kept.secrets.length };
    } else {
      secrets.push(existing ?? makeDevSecret());
      devSecret = { created: existing === undefined, file: `${dataDir}/dev-secret` };
    }
  }
  return {
    ok: true,
    warnings,
    config: {
      port: values.port as number,
      host: values.host as string,
      path: path!,
      secrets,
      toleranceSeconds: values.tolerance as number,
      dbPath,
      ...(storeUrl !== undefined ? { storeUrl } : {}),
      skipVerify: values.skipVerify as boolean,
      bodyLimitBytes: values.bodyLimit as number,
      logFormat: values.logFormat as ListenConfig['logFormat'],
      retainMs: retain.ok ? retain.ms : null,
      devSecret,
      ...(secretSet ? { secretSet } : {}),
      faultRules: faults.rules,
      forward:
        values.forwardTo === undefined
          ? null
          : {
              to: values.forwardTo as string,
              secret: (values.forwardSecret as string | undefined) ?? secrets[0]!,
              timeoutMs: values.forwardTimeout as number,
              headers: forwardHeaders,
              mode: values.forwardMode as ForwardConfig['mode'],
              maxTries: values.forwardMaxTries as number,
              routes,
              trust,
              pacing,
            },
      console: values.console
        ? { port: values.consolePort as number, host: values.consoleHost as string, allowedHosts: values.consoleAllowedHost as string[], token: consoleToken ?? null }
        : null,
      bridge: bridge.config,
      tls: tls.pair,
      ...(values.seed !== undefined ? { seed: values.seed as number } : {}),
      ...(typeof inputs.flags.testCommitDelay === 'string' ? { testCommitDelayMs: Number(inputs.flags.testCommitDelay) || 0 } : {}),
    },
  };
}

/**
 * The startup rules: `--fault` (else HOOKRELAY_FAULT, else the config file's `fault`), then the
 * rules of `--fault-file`. Every bad rule is a problem of its own.
 */
function resolveFaultRules(resolved: Resolved, configFile: string): { rules: FaultRule[]; problems: string[] } {
  const { values, sources } = resolved;
  const lines = (values.fault as string[] | undefined) ?? [];
  const where = sources.fault === 'file' ? `${configFile} "fault"` : sources.fault === 'env' ? 'HOOKRELAY_FAULT' : '--fault';
  const fromLines = rulesFromLines(lines, where);
  const file = values.faultFile as string | undefined;
  const fromFile = file === undefined ? { rules: [], problems: [] } : rulesFromFile(file);
  const combined = combineRules([fromLines.rules, fromFile.rules]);
  const problems = [...fromLines.problems, ...fromFile.problems];
  // Duplicate ids are only worth reporting once every rule could be read.
  if (problems.length === 0) problems.push(...combined.problems);
  return { rules: combined.rules, problems };
}

/** The --forward-* settings that need more than their own type: headers parsed, and the ones that need --forward-to. */
function checkForward(resolved: Resolved, hasSecret: boolean, problems: string[]): Array<[string, string]> {
  const { values, sources } = resolved;
  const headers = forwardHeadersOf(values, problems);
  // A --forward-to that was given but refused has its own problem; the others then say nothing.
  const forwardToGiven = sources.forwardTo !== undefined && sources.forwardTo !== 'default';
  if (values.forwardTo === undefined && !forwardToGiven) {
    for (const key of ['forwardSecret', 'forwardHeader'] as const) {
      if (sources[key] !== 'default') problems.push(`${key === 'forwardSecret' ? '--forward-secret' : '--forward-header'} has no effect without --forward-to`);
    }
  } else if (values.skipVerify && !hasSecret && values.forwardSecret === undefined) {
    problems.push('--forward-to with --skip-verify and no --secret: pass --forward-secret so the app can verify what hookrelay hands on');
  }
  return headers;
}

function consoleProblems(values: Record<string, unknown>, token: string | undefined): string[] {
  const problems: string[] = [];
  if (token !== undefined && token.length < 8) problems.push('--console-token: must be at least 8 characters');
  if (values.console && typeof values.port === 'number' && values.port === values.consolePort && values.port !== 0) {
    problems.push(`--console-port: the console needs its own port, not the receiver's (${String(values.port)}): a tunnel to the receiver must not expose the console`);
  }
  return problems;
}
