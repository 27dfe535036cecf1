/** The resolved settings of `hookrelay listen`. */
import { dataDirOf, ensureDevSecret } from './data-dir.js';
import { LISTEN_OPTIONS } from './option-specs.js';
import { resolveOptions, type ConfigInputs } from './resolve-config.js';

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
  /** Hidden test knob (--test-commit-delay): each commit waits this long, like a slow disk. */
  testCommitDelayMs?: number;
}

export type ListenConfigResult = { ok: true; config: ListenConfig; warnings: string[] } | { ok: false; problems: string[] };

/** Resolves and checks every setting; with no secret, makes or reads the development secret. */
export function resolveListenConfig(inputs: ConfigInputs): ListenConfigResult {
  const { values, problems } = resolveOptions(LISTEN_OPTIONS, inputs);
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
      ...(typeof inputs.flags.testCommitDelay === 'string' ? { testCommitDelayMs: Number(inputs.flags.testCommitDelay) || 0 } : {}),
    },
  };
}
