/**
 * `hookrelay emulate` settings: flag > HOOKRELAY_EMULATE_* > default, every problem listed at
 * once. No config-file layer: hookrelay.config.json holds `listen`'s settings, and its `port` is
 * not the emulator's.
 */
import type { Plan } from '../core/emulator/trigger-catalogue.js';
import type { SsrfMode } from '../emulator/endpoint-rule.js';
import { KNOWN_SCOPES } from '../emulator/key-material.js';
import type { ProxySettings } from '../runtime/proxy.js';
import { resolveProxySettings } from './service-settings.js';
import { isPostgresUrl } from '../store/postgres/pg-url.js';

export const DEFAULT_EMULATOR_DB = '.hookrelay/emulator.db';
export const DEFAULT_EMULATOR_PORT = 4100;

export interface EmulatorConfig {
  port: number;
  host: string;
  dbPath: string;
  timeScale: number;
  ssrf: SsrfMode;
  plan: Plan;
  webhookCap: number;
  /** null: rate limits off; otherwise the window's scale (1 = a minute). */
  rateLimitScale: number | null;
  seed: number | null;
  extraKeys: Array<{ name: string; scopes: string[] }>;
  /**
   * Which proxy the delivery engine's attempts go through (`--proxy` > HOOKRELAY_PROXY > HTTPS_PROXY /
   * HTTP_PROXY, NO_PROXY; src/runtime/proxy.ts decides per URL). Absent: direct.
   */
  proxy?: ProxySettings;
  /** Lines to print once on stderr (a proxy's password typed as a flag). */
  warnings?: string[];
}

export interface EmulateFlags {
  port?: string;
  host?: string;
  db?: string;
  timeScale?: string;
  ssrf?: string;
  plan?: string;
  webhookCap?: string;
  rateLimit?: string;
  seed?: string;
  key?: string[];
  proxy?: string;
}

interface Setting {
  key: keyof EmulateFlags;
  flag: string;
  env: string;
}

export const EMULATE_SETTINGS: readonly Setting[] = [
  { key: 'port', flag: '--port', env: 'HOOKRELAY_EMULATE_PORT' },
  { key: 'host', flag: '--host', env: 'HOOKRELAY_EMULATE_HOST' },
  { key: 'db', flag: '--db', env: 'HOOKRELAY_EMULATE_DB' },
  { key: 'timeScale', flag: '--time-scale', env: 'HOOKRELAY_EMULATE_TIME_SCALE' },
  { key: 'ssrf', flag: '--ssrf', env: 'HOOKRELAY_EMULATE_SSRF' },
  { key: 'plan', flag: '--plan', env: 'HOOKRELAY_EMULATE_PLAN' },
  { key: 'webhookCap', flag: '--webhook-cap', env: 'HOOKRELAY_EMULATE_WEBHOOK_CAP' },
  { key: 'rateLimit', flag: '--rate-limit', env: 'HOOKRELAY_EMULATE_RATE_LIMIT' },
  { key: 'seed', flag: '--seed', env: 'HOOKRELAY_EMULATE_SEED' },
  { key: 'key', flag: '--key', env: 'HOOKRELAY_EMULATE_KEY' },
  // One variable for every command's proxy, not an EMULATE_ one: the proxy belongs to the machine's network.
  { key: 'proxy', flag: '--proxy', env: 'HOOKRELAY_PROXY' },
];

const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function resolveEmulateConfig(flags: EmulateFlags, env: NodeJS.ProcessEnv = process.env): { ok: true; config: EmulatorConfig } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const pick = (s: Setting): { value: string; where: string } | null => {
    const flag = flags[s.key];
    if (flag !== undefined && !Array.isArray(flag)) return { value: flag, where: s.flag };
    const fromEnv = env[s.env];
    return fromEnv !== undefined && fromEnv !== '' ? { value: fromEnv, where: s.env } : null;
  };
  const setting = (key: keyof EmulateFlags) => pick(EMULATE_SETTINGS.find((s) => s.key === key)!);
  const int = (key: keyof EmulateFlags, min: number, max: number, fallback: number): number => {
    const given = setting(key);
    if (given === null) return fallback;
    const n = /^\s*\d{1,10}\s*$/.test(given.value) ? Number(given.value) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) problems.push(`${given.where}: must be a whole number from ${min} to ${max}, got ${JSON.stringify(given.value.slice(0, 40))}`);
    return n;
  };
  const oneOf = <T extends string>(key: keyof EmulateFlags, values: readonly T[], fallback: T): T => {
    const given = setting(key);
    if (given === null) return fallback;
    if (!(values as readonly string[]).includes(given.value)) problems.push(`${given.where}: must be one of ${values.join(', ')}, got ${JSON.stringify(given.value.slice(0, 40))}`);
    return given.value as T;
  };

  const port = int('port', 0, 65535, DEFAULT_EMULATOR_PORT);
  const host = setting('host')?.value ?? '127.0.0.1';
  const dbGiven = setting('db');
  const dbPath = dbGiven?.value ?? DEFAULT_EMULATOR_DB;
  const dbUrl = emulatorDbProblem(dbPath, dbGiven?.where ?? '--db');
  if (dbUrl !== null) problems.push(dbUrl);
  const timeScale = positiveNumber(setting('timeScale'), 1, problems);
  const ssrf = oneOf<SsrfMode>('ssrf', ['loopback', 'strict'], 'loopback');
  const plan = oneOf<Plan>('plan', ['core', 'premium'], 'core');
  const webhookCap = int('webhookCap', 1, 10_000, 10);
  const rate = setting('rateLimit');
  let rateLimitScale: number | null = 1;
  if (rate !== null && rate.value !== 'on') rateLimitScale = rate.value === 'off' ? null : positiveNumber(rate, 1, problems, 'on, off, or a window scale such as 0.01');
  const seedGiven = setting('seed');
  const seed = seedGiven === null ? null : int('seed', 0, 4_294_967_295, 0);
  const extraKeys = parseKeys(flags.key ?? (env.HOOKRELAY_EMULATE_KEY ? env.HOOKRELAY_EMULATE_KEY.split('\n') : []), problems);
  const warnings: string[] = [];
  const proxyGiven = setting('proxy');
  const proxy = resolveProxySettings(proxyGiven && { value: proxyGiven.value, from: proxyGiven.where }, env, problems, warnings);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, config: { port, host, dbPath, timeScale, ssrf, plan, webhookCap, rateLimitScale, seed, extraKeys, proxy, warnings } };
}

function positiveNumber(given: { value: string; where: string } | null, fallback: number, problems: string[], expected = 'a number above 0, such as 0.001'): number {
  if (given === null) return fallback;
  const n = /^\s*\d*\.?\d+(e-?\d+)?\s*$/i.test(given.value) ? Number(given.value) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > 1000) {
    problems.push(`${given.where}: must be ${expected} (at most 1000), got ${JSON.stringify(given.value.slice(0, 40))}`);
    return fallback;
  }
  return n;
}

/** `--key NAME:SCOPES`: an extra API key of organization A, e.g. `ci:webhooks:read,webhooks:write`. */
function parseKeys(texts: readonly string[], problems: string[]): Array<{ name: string; scopes: string[] }> {
  const keys: Array<{ name: string; scopes: string[] }> = [];
  for (const text of texts.map((t) => t.trim()).filter((t) => t.length > 0)) {
    const colon = text.indexOf(':');
    const name = colon < 0 ? text : text.slice(0, colon);
    const scopes = colon < 0 ? [] : text.slice(colon + 1).split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    if (!KEY_NAME.test(name)) problems.push(`--key: ${JSON.stringify(name.slice(0, 40))} must be letters, digits, dots, dashes or underscores (at most 64)`);
    const unknown = scopes.filter((s) => !(KNOWN_SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0) problems.push(`--key ${name}: give its scopes as NAME:SCOPE,SCOPE, e.g. ${name}:webhooks:read`);
    if (unknown.length > 0) problems.push(`--key ${name}: unknown scope ${unknown.join(', ')} (known: ${KNOWN_SCOPES.join(', ')})`);
    keys.push({ name, scopes });
  }
  return keys;
}

export interface FireFlags {
  trigger?: string;
  count?: string;
  data?: string;
  apiUrl?: string;
  apiKey?: string;
  db?: string;
}

export interface FireConfig {
  apiUrl: string;
  /** Null: take organization A's full key from the data folder of `dbPath`. */
  apiKey: string | null;
  dbPath: string;
  body: { type: string; count: number; data?: unknown };
}

/** `hookrelay emulate fire`: the API to call (--api-url > HOOKRELAY_API_URL > the default emulator) and the event. */
export function resolveFireConfig(flags: FireFlags, env: NodeJS.ProcessEnv = process.env): { ok: true; config: FireConfig } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const apiUrl = flags.apiUrl ?? (env.HOOKRELAY_API_URL || `http://127.0.0.1:${DEFAULT_EMULATOR_PORT}/v1`);
  try {
    const url = new URL(apiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`--api-url: must be an http or https URL, got ${url.protocol}`);
  } catch {
    problems.push(`--api-url: ${JSON.stringify(apiUrl.slice(0, 100))} is not a URL; e.g. http://127.0.0.1:${DEFAULT_EMULATOR_PORT}/v1`);
  }
  if (flags.trigger === undefined) problems.push('--trigger: which trigger to fire (see `hookrelay triggers`)');
  const countText = flags.count ?? '1';
  const count = /^\d{1,4}$/.test(countText) ? Number(countText) : NaN;
  if (!Number.isInteger(count) || count < 1 || count > 1000) problems.push(`--count: must be a whole number from 1 to 1000, got ${JSON.stringify(countText.slice(0, 20))}`);
  let data: unknown;
  if (flags.data !== undefined) {
    try {
      data = JSON.parse(flags.data);
    } catch (err) {
      problems.push(`--data: not valid JSON (${(err as Error).message})`);
    }
  }
  const dbPath = resolveEmulatorDbPath(flags, env);
  if (!dbPath.ok) problems.push(...dbPath.problems);
  if (problems.length > 0 || !dbPath.ok) return { ok: false, problems };
  return {
    ok: true,
    config: {
      apiUrl: apiUrl.replace(/\/+$/, ''),
      apiKey: flags.apiKey ?? (env.HOOKRELAY_API_KEY || null),
      dbPath: dbPath.dbPath,
      body: { type: flags.trigger!, count, ...(data === undefined ? {} : { data }) },
    },
  };
}

/** The emulator database of `emulate keys` and `fire`: --db > HOOKRELAY_EMULATE_DB > the default. */
export function resolveEmulatorDbPath(flags: { db?: string }, env: NodeJS.ProcessEnv = process.env): { ok: true; dbPath: string } | { ok: false; problems: string[] } {
  const dbPath = flags.db ?? (env.HOOKRELAY_EMULATE_DB || DEFAULT_EMULATOR_DB);
  const problem = emulatorDbProblem(dbPath, flags.db !== undefined ? '--db' : 'HOOKRELAY_EMULATE_DB');
  return problem === null ? { ok: true, dbPath } : { ok: false, problems: [problem] };
}

/**
 * The emulator keeps its own SQLite file: a postgres:// URL given as it would be made a folder of that
 * name, its password in it. Refused, never echoed.
 */
function emulatorDbProblem(value: string, where: string): string | null {
  return isPostgresUrl(value.trim()) ? `${where} is the emulator's SQLite file, and it holds a postgres:// URL: the emulator keeps its own database; give it a file path` : null;
}
