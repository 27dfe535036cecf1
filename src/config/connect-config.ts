/**
 * `hookrelay connect <url>`: its own settings (the bridge URL, token and subscriber name) and
 * `listen`'s for everything local (store, forward, console, retention, log format), with the
 * same precedence: flag > HOOKRELAY_* > hookrelay.config.json > default.
 */
import { parseSinceFlag, type BridgeSince } from '../core/bridge-since.js';
import { hostname } from 'node:os';
import { BRIDGE_PATH, isSubscriberName } from '../core/bridge-protocol.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { parseRetainDuration } from '../store/retention.js';
import { isPostgresUrl } from '../store/postgres/pg-url.js';
import { bridgeTokenProblem } from './bridge-settings.js';
import { dataDirOf, makeDevSecret, readDevSecret } from './data-dir.js';
import { forwardHeadersOf, resolveForwardExtras } from './forward-settings.js';
import type { ConsoleConfig, ForwardConfig, NodeConfig } from './node-config.js';
import { MAX_BODY_LIMIT_BYTES } from '../core/limits.js';
import type { ProxySettings } from '../runtime/proxy.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS, PROXY_OPTION, type OptionSpec } from './option-specs.js';
import { CONFIG_FILE, resolveOptions } from './resolve-config.js';
import { dbUrlProblem } from './db-path.js';
import { PROCESS_LIST_NOTE, secretFlagWarning, secretFlagWarnings } from './secret-flags.js';
import { resolveProxySettings } from './service-settings.js';
import { readCaFile } from './tls-files.js';

export interface ConnectConfig {
  /** The bridge's WebSocket URL, path included. */
  url: string;
  token: string;
  name: string;
  dbPath: string;
  storeUrl?: string;
  forward: ForwardConfig | null;
  console: ConsoleConfig | null;
  logFormat: 'pretty' | 'json' | 'silent';
  retainMs: number | null;
  /** Set when the forward secret is the development secret (made now when `created`). */
  devSecret: { created: boolean; file: string } | null;
  /** `--bridge-ca FILE`: PEM certificate(s) trusted for a wss:// bridge, besides the usual roots. */
  bridgeCa?: { pem: string; file: string } | null;
  /**
   * Which proxy the bridge is reached through (`--proxy`, HOOKRELAY_PROXY, "proxy", else HTTPS_PROXY /
   * HTTP_PROXY and NO_PROXY; src/runtime/proxy.ts decides). Absent: direct. Never the relay's: the app is local.
   */
  proxy?: ProxySettings;
  /** `--since`: the window the public side sends again at the first connection (a backfill after wiping the laptop's store). */
  since?: BridgeSince;
}

export interface ConnectFlags {
  token?: string;
  name?: string;
  since?: string;
  insecure?: boolean;
  config?: string;
  [listenFlag: string]: unknown;
}

const LOCAL_KEYS = ['db', 'store', 'forwardTo', 'route', 'also', 'pace', 'forwardSecret', 'forwardTimeout', 'forwardHeader', 'forwardMaxTries', 'forwardInsecure', 'forwardCa', 'forwardProxy', 'console', 'consolePort', 'consoleHost', 'consoleAllowedHost', 'consoleToken', 'retain', 'logFormat'];

/** `connect`'s own settings that follow the same precedence (flag > env > config file). */
const BRIDGE_CA: OptionSpec = {
  key: 'bridgeCa',
  flag: '--bridge-ca',
  env: 'HOOKRELAY_BRIDGE_CA',
  kind: { type: 'path' },
  description: 'PEM certificate(s) trusted for a wss:// bridge besides the usual roots (a public side started with a self-signed --tls-cert)',
};
/** connect has no --secret: its hand-offs are signed with --forward-secret or its own development secret. */
const CONNECT_DESCRIPTIONS: Partial<Record<string, string>> = {
  forwardSecret: `secret that signs deliveries handed to your app (default: the development secret of the data folder); ${PROCESS_LIST_NOTE}`,
};

export const CONNECT_LOCAL_OPTIONS = [
  ...LISTEN_OPTIONS.filter((s) => LOCAL_KEYS.includes(s.key)).map((s) => (CONNECT_DESCRIPTIONS[s.key] ? { ...s, description: CONNECT_DESCRIPTIONS[s.key]! } : s)),
  BRIDGE_CA,
  PROXY_OPTION,
];

export type ConnectConfigResult = { ok: true; config: ConnectConfig; warnings: string[] } | { ok: false; problems: string[] };

export function resolveConnectConfig(url: string, flags: ConnectFlags, env: NodeJS.ProcessEnv = process.env): ConnectConfigResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const target = bridgeUrl(url, flags.insecure === true);
  if (!target.ok) problems.push(target.message);
  const token = flags.token ?? env.HOOKRELAY_CONNECT_TOKEN;
  if (!token) problems.push('--token is missing: give the bridge token the public hookrelay was given (its --bridge-token NAME:TOKEN), or set HOOKRELAY_CONNECT_TOKEN');
  else {
    const bad = bridgeTokenProblem(token);
    if (bad) problems.push(`${flags.token !== undefined ? '--token' : 'HOOKRELAY_CONNECT_TOKEN'}: ${bad}`);
    if (flags.token !== undefined) warnings.push(secretFlagWarning('--token', 'HOOKRELAY_CONNECT_TOKEN'));
  }
  const name = flags.name ?? env.HOOKRELAY_CONNECT_NAME ?? defaultName();
  if (!isSubscriberName(name)) problems.push(`--name: ${JSON.stringify(name.slice(0, 64))} must be letters, digits, dots, dashes or underscores (at most 64)`);
  const since = flags.since === undefined ? null : parseSinceFlag(flags.since);
  if (since && !since.ok) problems.push(`--since: ${since.message}`);

  const typed: Record<string, unknown> = {};
  for (const spec of CONNECT_LOCAL_OPTIONS) if (flags[spec.key] !== undefined) typed[spec.key] = flags[spec.key];
  const resolved = resolveOptions(CONNECT_LOCAL_OPTIONS, { flags: typed, env, configFile: flags.config, configFileRequired: flags.config !== undefined }, CONFIG_FILE_KEYS);
  problems.push(...resolved.problems);
  warnings.push(...secretFlagWarnings(CONNECT_LOCAL_OPTIONS, resolved.sources));
  const values = resolved.values;
  const dbUrl = dbUrlProblem(resolved);
  if (dbUrl !== null) problems.push(dbUrl);
  const storeUrl = values.store as string | undefined;
  if (storeUrl !== undefined && !isPostgresUrl(storeUrl)) problems.push('--store: must be a postgres:// or postgresql:// URL (the SQLite file is --db)');
  const retain = typeof values.retain === 'string' ? parseRetainDuration(values.retain) : ({ ok: true, ms: null } as const);
  if (!retain.ok) problems.push(`--retain: ${retain.message}`);
  const headers = forwardHeadersOf(values, problems);
  const { routes, trust, pacing } = resolveForwardExtras(resolved, flags.config ?? CONFIG_FILE, problems, warnings);
  const consoleToken = values.consoleToken as string | undefined;
  if (consoleToken !== undefined && consoleToken.length < 8) problems.push('--console-token: must be at least 8 characters');
  const bridgeCa = resolveBridgeCa(values.bridgeCa as string | undefined, target, problems);
  const proxySource = resolved.sources.proxy;
  const proxyFrom = proxySource === 'flag' ? PROXY_OPTION.flag : proxySource === 'env' ? PROXY_OPTION.env : `${flags.config ?? CONFIG_FILE} "${PROXY_OPTION.key}"`;
  const proxy = resolveProxySettings(typeof values.proxy === 'string' ? { value: values.proxy, from: proxyFrom } : null, env, problems, warnings);
  if (problems.length > 0 || !target.ok) return { ok: false, problems };

  const dbPath = values.db as string;
  // The local hand-off is signed like listen's: --forward-secret, else the development secret of this data folder.
  let devSecret: ConnectConfig['devSecret'] = null;
  let secret = values.forwardSecret as string | undefined;
  if (secret === undefined && values.forwardTo !== undefined) {
    const dataDir = dataDirOf(dbPath);
    const existing = readDevSecret(dataDir);
    secret = existing ?? makeDevSecret();
    devSecret = { created: existing === undefined, file: `${dataDir}/dev-secret` };
  }
  return {
    ok: true,
    warnings,
    config: {
      url: target.url,
      token: token!,
      name,
      dbPath,
      ...(storeUrl !== undefined ? { storeUrl } : {}),
      forward:
        values.forwardTo === undefined
          ? null
          : { to: values.forwardTo as string, secret: secret!, timeoutMs: values.forwardTimeout as number, headers, mode: 'async', maxTries: values.forwardMaxTries as number, routes, trust, pacing },
      console: values.console
        ? { port: values.consolePort as number, host: values.consoleHost as string, allowedHosts: values.consoleAllowedHost as string[], token: consoleToken ?? null }
        : null,
      logFormat: values.logFormat as ConnectConfig['logFormat'],
      retainMs: retain.ok ? retain.ms : null,
      devSecret,
      bridgeCa,
      proxy,
      ...(since?.ok ? { since: since.since } : {}),
    },
  };
}

/**
 * The receiver settings a bridged delivery meets in the laptop's pipeline, which is listen's: the
 * public side verified the signature (its verdict rides along), so no service secret is held here;
 * any body a public listen may take is taken; the timestamp tolerance is listen's default; and the
 * path is the bridge's, where deliveries come in.
 */
export function bridgedNodeConfig(config: ConnectConfig): ConnectConfig & NodeConfig {
  return {
    ...config,
    path: new URL(config.url).pathname,
    secrets: [],
    toleranceSeconds: LISTEN_DEFAULT_TOLERANCE,
    skipVerify: false,
    bodyLimitBytes: MAX_BODY_LIMIT_BYTES,
  };
}

const LISTEN_DEFAULT_TOLERANCE = LISTEN_OPTIONS.find((spec) => spec.key === 'tolerance')!.default as number;

/** `--bridge-ca FILE`: read and checked now; only meaningful for a wss:// bridge. */
function resolveBridgeCa(file: string | undefined, target: { ok: boolean; url?: string }, problems: string[]): ConnectConfig['bridgeCa'] {
  if (file === undefined) return null;
  if (target.ok && target.url?.startsWith('ws:')) {
    problems.push('--bridge-ca has no effect on a ws:// bridge: the certificate is for wss://');
    return null;
  }
  const read = readCaFile('--bridge-ca', file);
  if (!read.ok) {
    problems.push(read.message);
    return null;
  }
  return { pem: read.pem, file };
}

/** `wss://host[/bridge]`; `https://` reads as `wss://`; `ws://` only to this machine unless --insecure. */
function bridgeUrl(text: string, insecure: boolean): { ok: true; url: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `<url>: ${JSON.stringify(text.slice(0, 200))} is not a URL; pass the public hookrelay's bridge, e.g. wss://hooks.example.com/bridge` };
  }
  if (url.protocol === 'https:') url.protocol = 'wss:';
  if (url.protocol === 'http:') url.protocol = 'ws:';
  if (url.protocol !== 'wss:' && url.protocol !== 'ws:') return { ok: false, message: `<url>: must be wss:// (or ws:// on this machine), got ${url.protocol}` };
  if (url.protocol === 'ws:' && !insecure && !isLoopbackHost(url.hostname)) {
    return { ok: false, message: `<url>: ws:// to ${url.host} would send the token and every delivery in clear text; use wss://, or pass --insecure` };
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = BRIDGE_PATH;
  if (url.username || url.password) return { ok: false, message: '<url>: pass the token with --token, not in the URL' };
  return { ok: true, url: url.href };
}

function defaultName(): string {
  const cleaned = hostname().replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned || 'laptop').slice(0, 64);
}
