/** Where a command finds the SQLite file, with `listen`'s precedence. */
import { LISTEN_OPTIONS } from './option-specs.js';
import { resolveOptions } from './resolve-config.js';

/** The database path by flag > HOOKRELAY_DB > config file > default, or the problems found. */
export function resolveDbPath(flags: { db?: string; config?: string }): { ok: true; dbPath: string } | { ok: false; problems: string[] } {
  const dbSpec = LISTEN_OPTIONS.filter((s) => s.key === 'db');
  const resolved = resolveOptions(
    dbSpec,
    { flags: { db: flags.db }, env: process.env, configFile: flags.config, configFileRequired: flags.config !== undefined },
    LISTEN_OPTIONS.map((s) => s.key),
  );
  if (resolved.problems.length > 0) return { ok: false, problems: resolved.problems };
  return { ok: true, dbPath: resolved.values.db as string };
}
