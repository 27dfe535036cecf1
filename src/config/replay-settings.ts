/**
 * `events replay`: where to send, what to sign with, how long to wait, and the relay's own settings
 * a replay honours as the console's does (the routes, the trust of https targets, the forward
 * headers): flag > HOOKRELAY_* > hookrelay.config.json > default, as `listen` reads them.
 */
import { parseDuration } from '../core/duration.js';
import type { ReplaySettings } from '../relay/replay.js';
import { displayUrl } from '../core/url-secrets.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { dataDirOf } from './data-dir.js';
import { readFolderSecrets } from './folder-secrets.js';
import { forwardHeadersOf, resolveForwardExtras } from './forward-settings.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from './option-specs.js';
import { CONFIG_FILE, resolveOptions } from './resolve-config.js';
import { secretFlagWarning } from './secret-flags.js';

export interface ReplayFlags {
  to?: string;
  secret?: string;
  timeout: string;
  allowRemote?: boolean;
  route?: string[];
  forwardHeader?: string[];
  forwardCa?: string;
  forwardInsecure?: boolean;
  forwardProxy?: string;
  config?: string;
}

export interface CliReplaySettings {
  /** `--to`: where this replay goes; null: where the relay would send it (a route, else HOOKRELAY_FORWARD_TO). */
  to: string | null;
  settings: ReplaySettings;
}

/** Said when a replay has nowhere to go: a running listen's own --forward-to flag is not something a replay can read. */
export const NO_REPLAY_TARGET =
  'no target: pass --to URL, or set "forwardTo" in hookrelay.config.json (or HOOKRELAY_FORWARD_TO), which listen and replays both read (a --forward-to flag given to listen is its own)';

/** The relay settings a replay reads as listen does; `--to` and `--secret` are replay's own. */
const RELAY_KEYS = new Set(['forwardTo', 'route', 'forwardHeader', 'forwardInsecure', 'forwardCa', 'forwardProxy', 'forwardSecret', 'secret']);
const RELAY_SPECS = LISTEN_OPTIONS.filter((s) => RELAY_KEYS.has(s.key));

export function resolveReplaySettings(
  flags: ReplayFlags,
  dbPath: string | null,
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; settings: CliReplaySettings; warnings: string[] } | { ok: false; problems: string[] } {
  const typed: Record<string, unknown> = {};
  if (flags.route !== undefined) typed.route = flags.route;
  if (flags.forwardHeader !== undefined) typed.forwardHeader = flags.forwardHeader;
  if (flags.forwardCa !== undefined) typed.forwardCa = flags.forwardCa;
  if (flags.forwardInsecure !== undefined) typed.forwardInsecure = flags.forwardInsecure;
  if (flags.forwardProxy !== undefined) typed.forwardProxy = flags.forwardProxy;
  const configFile = flags.config ?? CONFIG_FILE;
  // Every key of listen's file is allowed: one config file serves listen and its replays.
  const resolved = resolveOptions(RELAY_SPECS, { flags: typed, env, configFile, configFileRequired: flags.config !== undefined }, CONFIG_FILE_KEYS);
  const problems = [...resolved.problems];
  const warnings: string[] = [];
  // `--to` stands in for --forward-to: routes and trust then apply to a replay without one.
  const forwardTo = flags.to ?? (resolved.values.forwardTo as string | undefined);
  if (flags.to !== undefined) resolved.values.forwardTo = flags.to;
  const { routes, trust } = resolveForwardExtras(resolved, configFile, problems, warnings);
  const headers = forwardHeadersOf(resolved.values, problems);

  if (!forwardTo) problems.push(NO_REPLAY_TARGET);
  else if (flags.to !== undefined) problems.push(...targetProblems('--to', flags.to, flags.allowRemote ?? false));
  else {
    // Where the relay's settings send it: on this machine too, unless the user says otherwise.
    for (const url of [forwardTo, ...routes.flatMap((r) => r.urls)]) problems.push(...targetProblems('the target of the relay settings', url, flags.allowRemote ?? false));
  }
  const timeout = parseDuration(flags.timeout, { bare: 'ms', min: 1 });
  if (!timeout.ok) problems.push(`--timeout: must be milliseconds, or a duration such as 30s, got ${JSON.stringify(flags.timeout)}`);
  // As listen signs: --forward-secret, else its primary secret, else the data folder's (the newest kept
  // secret of `webhooks create --signing`, else the development secret); flag > env > file each.
  let secret = flags.secret ?? (resolved.values.forwardSecret as string | undefined) ?? (resolved.values.secret as string[] | undefined)?.[0];
  if (secret === undefined && dbPath !== null) {
    const kept = readFolderSecrets(dataDirOf(dbPath));
    if (kept.ok) secret = kept.secrets[0];
    else problems.push(kept.problem);
  }
  if (!secret && problems.length === 0) problems.push('no secret to sign with: pass --secret (or run `hookrelay listen` once to make a development secret)');
  if (problems.length > 0 || !timeout.ok) return { ok: false, problems };
  warnings.push(...replaySecretWarnings(flags));
  return {
    ok: true,
    settings: {
      to: flags.to ?? null,
      settings: { secret: secret!, timeoutMs: timeout.ms, headers, trust, targets: { to: forwardTo!, routes } },
    },
    warnings,
  };
}

/** The process-list warning of a secret given as `--secret` (a dry run, which resolves nothing else, says it too). */
export function replaySecretWarnings(flags: Pick<ReplayFlags, 'secret'>): string[] {
  return flags.secret === undefined ? [] : [secretFlagWarning('--secret', 'HOOKRELAY_FORWARD_SECRET')];
}

/** Like the console's replay: a loopback target unless the user says otherwise. */
function targetProblems(what: string, target: string, allowRemote: boolean): string[] {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return [`${what}: must be an http or https URL, got ${JSON.stringify(displayUrl(target).slice(0, 200))}`];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [`${what}: must be an http or https URL, got ${JSON.stringify(displayUrl(target).slice(0, 200))}`];
  if (!allowRemote && !isLoopbackHost(url.hostname)) {
    return [`${what}: ${url.host} is not on this machine; replays go to loopback targets unless you pass --allow-remote`];
  }
  return [];
}
