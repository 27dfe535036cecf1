/** The `--store postgres://…` URL, the bounded pool, and how BIGINT values arrive. */
import pg from 'pg';

export { isPostgresUrl, redactPostgresUrl } from './pg-url.js';

/** hookrelay's own settings in the store URL's query; removed before the URL reaches `pg`. */
export { parsePostgresUrl, type PostgresUrlResult, type PostgresUrlSettings } from './pg-url.js';

/**
 * BIGINT (int8) and COUNT(*) arrive as strings by default; every BIGINT here is a time in ms
 * or a sequence number, well inside the safe-integer range, so they are read as numbers. Set
 * per pool, never on the global `pg.types`.
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PoolOptions {
  max: number;
  /** Give up waiting for a connection (or for the server to answer a connect) after this long. */
  connectionTimeoutMs?: number;
  /** Give up on one query after this long: a hung server answers 503, it does not hold requests forever. */
  queryTimeoutMs?: number;
  applicationName?: string;
}

/** A bounded pool; idle connections that break are dropped quietly (the next query reconnects). */
export function createPool(connectionString: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    query_timeout: options.queryTimeoutMs ?? 15_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: options.applicationName ?? 'hookrelay',
    types: TYPES,
  });
  // A client whose server went away emits 'error' (on the pool when idle, on itself when checked
  // out between queries); unhandled, it would crash the process. The query in flight, if any,
  // rejects on its own, and the pool drops the broken client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** A one-line description of a driver error: code and message, never the URL. */
export function describePgError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? String(err);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
