/**
 * One store opener for every command: a SQLite path or a `postgres://` URL. `listen` (through
 * buildApp) opens it to write; `events`, `check` and `db stats` open it to read, which on SQLite
 * is a read-only connection beside a running `listen` and never creates a file.
 */
import type { RelayTargets } from '../core/routes.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { redactPostgresUrl } from './postgres/pg-url.js';
import type { CommitReport, DeliveryStore } from './store.js';

export type StoreLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface OpenStoreOptions {
  /** Accepting a delivery also queues its relay job (`--forward-to`, async). */
  outbox?: boolean | RelayTargets;
  /** SQLite: the hidden slow-disk knob (`--test-commit-delay`). */
  commitDelayMs?: number;
  /** Each group commit of accepts, for metrics (SQLite and PostgreSQL). */
  onCommit?: (report: CommitReport) => void;
}

/** What reading commands use: every read of the contract, and close. */
export type StoreReader = Pick<
  DeliveryStore,
  'getDelivery' | 'listDeliveries' | 'listAttempts' | 'countArrivals' | 'relayHistory' | 'relayBacklog' | 'stats' | 'deliveriesAfter' | 'bridgeCursors' | 'latestDeliverySeq' | 'close'
>;

/** The location for messages: a path made absolute, a URL without its password. */
export function describeStoreLocation(location: StoreLocation): string {
  return location.kind === 'sqlite' ? resolve(location.path) : redactPostgresUrl(location.url);
}

import { NoStoreError } from './no-store-error.js';

export { NoStoreError };

export async function openStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<DeliveryStore> {
  if (location.kind === 'postgres') {
    const { createPostgresStore } = await import('./postgres/pg-store.js');
    return createPostgresStore(location.url, { outbox: options.outbox, onCommit: options.onCommit });
  }
  const { createSqliteStore } = await import('./sqlite/sqlite-store.js');
  return createSqliteStore(location.path, { outbox: options.outbox, commitDelayMs: options.commitDelayMs, onCommit: options.onCommit });
}

/** Like openStore, for a command that works on what is stored: a missing SQLite file is an error, not a new store. */
export async function openExistingStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<DeliveryStore> {
  assertExists(location);
  return openStore(location, options);
}

export async function openStoreReader(location: StoreLocation): Promise<StoreReader> {
  if (location.kind === 'postgres') {
    const { createPostgresStore } = await import('./postgres/pg-store.js');
    return createPostgresStore(location.url, { readOnly: true });
  }
  assertExists(location);
  const [{ openDatabase }, { createSqliteReader }, { readStoreStats }] = await Promise.all([
    import('./sqlite/open-database.js'),
    import('./sqlite/sqlite-reader.js'),
    import('./sqlite/sqlite-stats.js'),
  ]);
  const db = openDatabase(location.path, { readonly: true });
  let reader: ReturnType<typeof createSqliteReader>;
  try {
    reader = createSqliteReader(db);
  } catch (err) {
    db.close();
    throw new Error(`${resolve(location.path)} is not a hookrelay store that can be read: ${(err as Error).message}`);
  }
  return {
    getDelivery: async (id) => reader.getDelivery(id),
    listDeliveries: async (query) => reader.listDeliveries(query),
    listAttempts: async (query) => reader.listAttempts(query),
    countArrivals: async (id) => reader.countArrivals(id),
    relayHistory: async (id, options) => reader.relayHistory(id, options),
    relayBacklog: async () => reader.relayBacklog(),
    stats: async () => readStoreStats(db),
    deliveriesAfter: async (afterSeq, limit, triggers) => reader.deliveriesAfter(afterSeq, limit, triggers),
    bridgeCursors: async () => reader.bridgeCursors(),
    latestDeliverySeq: async () => reader.latestDeliverySeq(),
    close: async () => {
      db.close();
    },
  };
}

function assertExists(location: StoreLocation): void {
  if (location.kind === 'sqlite' && !existsSync(location.path)) {
    throw new NoStoreError(`no database at ${resolve(location.path)}: start \`hookrelay listen\` first, or pass --db (or --store postgres://…)`);
  }
}
