/** Where a command finds the store, with `listen`'s precedence: flag > HOOKRELAY_* > config file > default. */
import type { StoreLocation } from '../store/open-store.js';
import { isPostgresUrl, parsePostgresUrl } from '../store/postgres/pg-url.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from './option-specs.js';
import { resolveOptions, type Resolved } from './resolve-config.js';

export interface StoreFlags {
  db?: string;
  store?: string;
  config?: string;
}

type Problems = { ok: false; problems: string[] };

function resolveKeys(keys: readonly string[], flags: StoreFlags, env: NodeJS.ProcessEnv) {
  return resolveOptions(
    LISTEN_OPTIONS.filter((s) => keys.includes(s.key)),
    { flags: { db: flags.db, store: flags.store }, env, configFile: flags.config, configFileRequired: flags.config !== undefined },
    CONFIG_FILE_KEYS,
  );
}

/**
 * A PostgreSQL URL given as the SQLite file (`--db postgres://…`, HOOKRELAY_DB): read as a path it would
 * make a file of that name. Named without the URL, which may hold a password.
 */
export function dbUrlProblem(resolved: Pick<Resolved, 'values' | 'sources'>): string | null {
  const db = resolved.values.db;
  if (typeof db !== 'string' || !isPostgresUrl(db.trim())) return null;
  const from = resolved.sources.db === 'env' ? 'HOOKRELAY_DB' : resolved.sources.db === 'file' ? 'the config file\'s "db"' : '--db';
  const to = from === 'HOOKRELAY_DB' ? 'HOOKRELAY_STORE' : from === '--db' ? '--store' : '"store"';
  return `${from} is the SQLite file, and it holds a postgres:// URL: give a PostgreSQL store as ${to}`;
}

/** The SQLite path (its folder is the data folder, where the development secret lives). */
export function resolveDbPath(flags: StoreFlags, env: NodeJS.ProcessEnv = process.env): { ok: true; dbPath: string } | Problems {
  const resolved = resolveKeys(['db'], flags, env);
  const problems = [...resolved.problems];
  const url = dbUrlProblem(resolved);
  if (url !== null) problems.push(url);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, dbPath: resolved.values.db as string };
}

/** The store: `--store postgres://…` when given (flag, HOOKRELAY_STORE or the file), else the SQLite file of --db. */
export function resolveStoreLocation(flags: StoreFlags, env: NodeJS.ProcessEnv = process.env): { ok: true; location: StoreLocation; dbPath: string } | Problems {
  const resolved = resolveKeys(['db', 'store'], flags, env);
  const problems = [...resolved.problems];
  const dbUrl = dbUrlProblem(resolved);
  if (dbUrl !== null) problems.push(dbUrl);
  const url = resolved.values.store as string | undefined;
  if (url !== undefined) {
    const parsed = parsePostgresUrl(url);
    if (!parsed.ok) problems.push(`--store: ${parsed.message === 'must start with postgres:// or postgresql://' ? 'must be a postgres:// or postgresql:// URL (the SQLite file is --db)' : parsed.message}`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const dbPath = resolved.values.db as string;
  return { ok: true, dbPath, location: url !== undefined ? { kind: 'postgres', url } : { kind: 'sqlite', path: dbPath } };
}
