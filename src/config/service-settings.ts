/**
 * The settings every command that talks to the service shares (issue 17): `--api-url` and
 * `--api-key`, flag > HOOKRELAY_API_URL / HOOKRELAY_API_KEY > default, every problem at once.
 * The key is never read from hookrelay.config.json (a file is where keys leak from), never
 * echoed in a problem, and a key typed as a flag earns a warning: the process list shows it.
 */
import { dataDirOf } from './data-dir.js';
import { resolveDbPath } from './db-path.js';
import { secretFlagWarning } from './secret-flags.js';

export interface ServiceFlags {
  apiUrl?: string;
  apiKey?: string;
}

export interface ServiceSettings {
  /** `{base_url}` including `/v1`, without a trailing slash. */
  apiUrl: string;
  apiKey: string;
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
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, settings: { apiUrl, apiKey: key!, warnings } };
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
