/** The resolved settings of `hookrelay listen`. */
import type { FaultRule } from '../core/faults/index.js';
import { combineRules, rulesFromFile, rulesFromLines, splitRuleLines } from '../faults/rule-sources.js';
import { dataDirOf, ensureDevSecret } from './data-dir.js';
import { LISTEN_OPTIONS } from './option-specs.js';
import { CONFIG_FILE, resolveOptions, type ConfigInputs, type Resolved } from './resolve-config.js';

export interface ListenConfig {
  port: number;
  host: string;
  path: string;
  /** Tried in order; the first is the primary. Empty only with skipVerify. */
  secrets: string[];
  toleranceSeconds: number;
  dbPath: string;
  skipVerify: boolean;
  bodyLimitBytes: number;
  logFormat: 'pretty' | 'json' | 'silent';
  /** Set when the secret is the development secret kept in the data folder. */
  devSecret: { created: boolean; file: string } | null;
  /** Fault rules at startup, in evaluation order (`--fault` ones, then the `--fault-file` ones). */
  faultRules?: FaultRule[];
  /** Seed of the rules' probabilities; absent: buildApp draws one (and the banner prints it). */
  seed?: number;
  /** Hidden test knob (--test-commit-delay): each commit waits this long, like a slow disk. */
  testCommitDelayMs?: number;
}

export type ListenConfigResult = { ok: true; config: ListenConfig; warnings: string[] } | { ok: false; problems: string[] };

/** Resolves and checks every setting; with no secret, makes or reads the development secret. */
export function resolveListenConfig(inputs: ConfigInputs): ListenConfigResult {
  // HOOKRELAY_FAULT holds one rule per line, not a comma-separated list (a rule may hold commas).
  const { HOOKRELAY_FAULT: faultEnv, ...env } = inputs.env;
  const resolved = resolveOptions(LISTEN_OPTIONS, { ...inputs, env });
  const { values, problems } = resolved;
  const faults = resolveFaultRules(resolved, faultEnv, inputs.configFile ?? CONFIG_FILE);
  problems.push(...faults.problems);
  const warnings: string[] = [];
  const path = values.path as string | undefined;
  if (path !== undefined && (!path.startsWith('/') || /[\s?#]/.test(path))) {
    problems.push(`--path: must start with "/" and hold no spaces, "?" or "#", got ${JSON.stringify(path)}`);
  }
  const secrets = (values.secret as string[] | undefined) ?? [];
  secrets.forEach((secret, i) => {
    if (secret.trim() !== secret) {
      warnings.push(`secret #${i + 1} has surrounding whitespace (a trailing newline from a file?); it is used exactly as given`);
    }
  });
  if (problems.length > 0) return { ok: false, problems };

  const dbPath = values.db as string;
  let devSecret: ListenConfig['devSecret'] = null;
  if (secrets.length === 0 && !values.skipVerify) {
    const dataDir = dataDirOf(dbPath);
    const made = ensureDevSecret(dataDir);
    secrets.push(made.secret);
    devSecret = { created: made.created, file: `${dataDir}/dev-secret` };
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
      skipVerify: values.skipVerify as boolean,
      bodyLimitBytes: values.bodyLimit as number,
      logFormat: values.logFormat as ListenConfig['logFormat'],
      devSecret,
      faultRules: faults.rules,
      ...(values.seed !== undefined ? { seed: values.seed as number } : {}),
      ...(typeof inputs.flags.testCommitDelay === 'string' ? { testCommitDelayMs: Number(inputs.flags.testCommitDelay) || 0 } : {}),
    },
  };
}

/**
 * The startup rules: `--fault` (else HOOKRELAY_FAULT, else the config file's `fault`), then the
 * rules of `--fault-file`. Every bad rule is a problem of its own.
 */
function resolveFaultRules(resolved: Resolved, faultEnv: string | undefined, configFile: string): { rules: FaultRule[]; problems: string[] } {
  const { values, sources } = resolved;
  let lines = (values.fault as string[] | undefined) ?? [];
  let where = sources.fault === 'file' ? `${configFile} "fault"` : '--fault';
  if (sources.fault !== 'flag' && faultEnv !== undefined && faultEnv.trim() !== '') {
    lines = splitRuleLines(faultEnv);
    where = 'HOOKRELAY_FAULT';
  }
  const fromLines = rulesFromLines(lines, where);
  const file = values.faultFile as string | undefined;
  const fromFile = file === undefined ? { rules: [], problems: [] } : rulesFromFile(file);
  const combined = combineRules([fromLines.rules, fromFile.rules]);
  const problems = [...fromLines.problems, ...fromFile.problems];
  // Duplicate ids are only worth reporting once every rule could be read.
  if (problems.length === 0) problems.push(...combined.problems);
  return { rules: combined.rules, problems };
}
