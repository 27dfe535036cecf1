/**
 * The settings every command that talks to the service shares (issue 17): `--api-url` and
 * `--api-key`, flag > HOOKRELAY_API_URL / HOOKRELAY_API_KEY > default, every problem at once.
 * The key is never read from hookrelay.config.json (a file is where keys leak from), never
 * echoed in a problem, and a key typed as a flag earns a warning: the process list shows it.
 * Also the proxy settings of every command that reaches out (`--proxy`, docs/operate.md): the
 * service commands, `send`, `emulate` and `connect` read them here.
 */
import { displayUrl } from '../core/url-secrets.js';
import type { ProxySettings, ProxySource } from '../runtime/proxy.js';
import { dataDirOf } from './data-dir.js';
import { resolveDbPath } from './db-path.js';
import { secretFlagWarning } from './secret-flags.js';

export interface ServiceFlags {
  apiUrl?: string;
  apiKey?: string;
  proxy?: string;
}

export interface ServiceSettings {
  /** `{base_url}` including `/v1`, without a trailing slash. */
  apiUrl: string;
  apiKey: string;
  /** Which proxy the API is reached through (decided per URL by src/runtime/proxy.ts). */
  proxy: ProxySettings;
  /** Lines to print once on stderr (a key given as a flag). Never holds the key. */
  warnings: string[];
}

export type ServiceCheck = { ok: true; settings: ServiceSettings } | { ok: false; problems: string[] };

export const API_KEY_FLAG_WARNING = `warning: ${secretFlagWarning('--api-key', 'HOOKRELAY_API_KEY')}`;

/** The API's base URL and key. `requireKey: false` for a command that can fall back (triggers --live). */
export function resolveServiceSettings(flags: ServiceFlags, env: NodeJS.ProcessEnv = process.env): ServiceCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const url = flags.apiUrl ?? nonEmpty(env.HOOKRELAY_API_URL);
  const urlSource = flags.apiUrl !== undefined ? '--api-url' : 'HOOKRELAY_API_URL';
  let apiUrl = '';
  if (url === undefined) problems.push('no API address: pass --api-url URL (the base URL including /v1, e.g. http://127.0.0.1:4100/v1) or set HOOKRELAY_API_URL');
  else {
    const checked = checkApiUrl(url);
    if (checked.ok) apiUrl = checked.url;
    else problems.push(`${urlSource}: ${checked.message}`);
  }
  const key = flags.apiKey ?? nonEmpty(env.HOOKRELAY_API_KEY);
  if (flags.apiKey !== undefined) warnings.push(API_KEY_FLAG_WARNING);
  if (key === undefined) problems.push('no API key: set HOOKRELAY_API_KEY (or pass --api-key, which the process list shows)');
  else if (key.trim() !== key || /[\r\n\0]/.test(key)) {
    // Named without the key itself: a pasted key with a newline is the usual cause.
    problems.push(`${flags.apiKey !== undefined ? '--api-key' : 'HOOKRELAY_API_KEY'}: the key has leading or trailing whitespace or a control character (a pasted newline?)`);
  } else if (key.length === 0) problems.push('--api-key: is empty');
  const proxyWarnings: string[] = [];
  const proxy = resolveProxySettings(proxyFlagOrEnv(flags.proxy, env), env, problems, proxyWarnings);
  warnings.push(...proxyWarnings.map((warning) => `warning: ${warning}`));
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, settings: { apiUrl, apiKey: key!, proxy, warnings } };
}

/** `--proxy` > HOOKRELAY_PROXY: the explicit proxy of a command without a config file (connect reads its file too). */
export function proxyFlagOrEnv(flag: string | undefined, env: NodeJS.ProcessEnv): { value: string; from: '--proxy' | 'HOOKRELAY_PROXY' } | null {
  if (flag !== undefined) return { value: flag, from: '--proxy' };
  const fromEnv = nonEmpty(env.HOOKRELAY_PROXY);
  return fromEnv === undefined ? null : { value: fromEnv, from: 'HOOKRELAY_PROXY' };
}

/**
 * The proxy settings of a command that reaches out: the explicit proxy (`--proxy`, HOOKRELAY_PROXY,
 * connect's "proxy") as given; without one, the standard variables, the lower-case name first as
 * curl and undici read them (https_proxy, HTTPS_PROXY; http_proxy, HTTP_PROXY); and NO_PROXY in every
 * case. An empty variable is unset. A proxy URL that cannot be used is a problem naming where it was
 * set, its credentials redacted; one with credentials typed as `--proxy` earns the process-list warning.
 */
export function resolveProxySettings(explicit: { value: string; from: string } | null, env: NodeJS.ProcessEnv, problems: string[], warnings: string[]): ProxySettings {
  const variable = (lower: string, upper: string): { value: string; from: string } | null => {
    const value = nonEmpty(env[lower]) ?? nonEmpty(env[upper]);
    return value === undefined ? null : { value, from: nonEmpty(env[lower]) !== undefined ? lower : upper };
  };
  const noProxyText = nonEmpty(env.no_proxy) ?? nonEmpty(env.NO_PROXY) ?? '';
  const noProxy = noProxyText.split(/[\s,]+/).filter((entry) => entry.length > 0);
  if (explicit !== null) {
    const source = proxySource(explicit, problems);
    if (source !== null && explicit.from === '--proxy' && hasCredentials(source)) warnings.push(secretFlagWarning('--proxy (its user name and password)', 'HOOKRELAY_PROXY'));
    // An explicit proxy stands for both: the variables are not read, so a bad one there does not matter.
    return { explicit: source, https: null, http: null, noProxy };
  }
  const https = variable('https_proxy', 'HTTPS_PROXY');
  const http = variable('http_proxy', 'HTTP_PROXY');
  return { explicit: null, https: https && proxySource(https, problems), http: http && proxySource(http, problems), noProxy };
}

/** A proxy URL as undici and https-proxy-agent take it: http or https, a host, an optional port; `host:port` alone reads as http://, as curl reads it. */
export function proxySource(given: { value: string; from: string }, problems: string[]): ProxySource | null {
  const text = given.value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  const shown = JSON.stringify(displayUrl(withScheme).slice(0, 200));
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    problems.push(`${given.from}: ${shown} is not a proxy URL; give one such as http://proxy.example.com:3128`);
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`${given.from}: ${url.protocol}// proxies are not supported, only HTTP proxies (http:// or https://); give ${given.from} one${given.from.startsWith('--') ? '' : `, or unset it for this command`}`);
    return null;
  }
  if (url.hostname === '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    problems.push(`${given.from}: ${shown} must be http://[user:password@]host:port, without a path or query`);
    return null;
  }
  return { url: url.href.replace(/\/$/, ''), from: given.from };
}

/** Only the base URL, for `triggers --live`, which falls back to the built-in catalogue without it. */
export function resolveApiUrlOnly(flags: ServiceFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return flags.apiUrl ?? nonEmpty(env.HOOKRELAY_API_URL);
}

/** The data folder (where the secret set and reconcile's cursor live): the folder of --db, as listen finds it. */
export function resolveDataDir(flags: { db?: string; config?: string }, env: NodeJS.ProcessEnv = process.env): { ok: true; dataDir: string } | { ok: false; problems: string[] } {
  const db = resolveDbPath({ db: flags.db, config: flags.config }, env);
  if (!db.ok) return db;
  return { ok: true, dataDir: dataDirOf(db.dbPath) };
}

function checkApiUrl(value: string): { ok: true; url: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: `is not a URL (got ${JSON.stringify(value.slice(0, 200))})` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: `must be an http or https URL (got ${JSON.stringify(value.slice(0, 200))})` };
  if (url.username !== '' || url.password !== '') return { ok: false, message: 'must not carry a user name or password: the key goes in HOOKRELAY_API_KEY' };
  if (url.search !== '' || url.hash !== '') return { ok: false, message: 'must be the base URL without a query or fragment, e.g. https://api.example.com/v1' };
  return { ok: true, url: url.href.replace(/\/+$/, '') };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

export function hasCredentials(source: ProxySource): boolean {
  const url = new URL(source.url);
  return url.username !== '' || url.password !== '';
}
