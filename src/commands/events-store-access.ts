/** What every `hookrelay events` subcommand shares: the store flags, `withStore`, and the time format of its rows. */
import { resolveStoreLocation, type StoreFlags } from '../config/db-path.js';
import { NoStoreError, type openExistingStore, type openStoreReader, type StoreReader } from '../store/open-store.js';
import { reportProblems } from './shared-options.js';

export const STORE_FLAG = ['--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]'] as const;
export const DB_FLAG = ['--db <file>', 'SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]'] as const;
export const CONFIG_FLAG = ['--config <file>', 'config file to read db and store from'] as const;

/** Opens the store named by the flags (read-only on SQLite), runs `use`, and closes it; reports why not. */
export async function withStore<S extends StoreReader>(flags: StoreFlags, open: typeof openStoreReader | typeof openExistingStore, use: (store: S) => Promise<void> | void): Promise<void> {
  const where = resolveStoreLocation(flags);
  if (!where.ok) {
    reportProblems(where.problems);
    process.exitCode = 2;
    return;
  }
  let store: S;
  try {
    store = (await open(where.location)) as S;
  } catch (err) {
    process.stderr.write(`hookrelay: ${(err as Error).message}\n`);
    // No store at the path given: usage. One there that cannot be read: could not run (core/exit-codes.ts).
    process.exitCode = err instanceof NoStoreError ? 2 : 3;
    return;
  }
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

export const time = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
