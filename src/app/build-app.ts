/**
 * The composition root: the only place that constructs stores, listeners and workers.
 * `buildApp` listens and returns a handle; `close()` stops accepting, lets in-flight commits
 * finish and closes the database.
 */
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ListenConfig } from '../config/listen-config.js';
import { createFaultRules, type FaultRules } from '../faults/rules-controller.js';
import { buildReceiver } from '../ingest/build-receiver.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../store/store.js';
import { createEventHub, type EventHub } from './event-hub.js';

export interface AppDeps {
  /** Milliseconds since the epoch; injected by tests. */
  clock?: () => number;
  /** A store to use instead of the SQLite file at config.dbPath. */
  store?: DeliveryStore;
  hub?: EventHub;
  /** Longest a `hang` fault holds a socket (default 120 s); tests shorten it. */
  hangCapMs?: number;
}

export interface AppHandle {
  config: ListenConfig;
  /** Where deliveries go: http://host:port/path */
  receiverUrl: string;
  /** The bound receiver port (useful when config.port is 0). */
  receiverPort: number;
  store: DeliveryStore;
  hub: EventHub;
  /** The fault rules, changeable while the receiver runs (the console's control API uses them). */
  faults: FaultRules;
  receiver: FastifyInstance;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function buildApp(config: ListenConfig, deps: AppDeps = {}): Promise<AppHandle> {
  const clock = deps.clock ?? Date.now;
  const hub = deps.hub ?? createEventHub();
  const store = deps.store ?? (await createSqliteStore(config.dbPath, { commitDelayMs: config.testCommitDelayMs }));
  const faults = createFaultRules({ rules: config.faultRules ?? [], seed: config.seed ?? randomInt(2 ** 32), hub });

  const receiver = buildReceiver({
    path: config.path,
    secrets: config.secrets,
    toleranceSeconds: config.toleranceSeconds,
    skipVerify: config.skipVerify,
    bodyLimitBytes: config.bodyLimitBytes,
    store,
    hub,
    clock,
    faults,
    hangCapMs: deps.hangCapMs,
  });
  try {
    await receiver.listen({ port: config.port, host: config.host });
  } catch (err) {
    await store.close();
    throw err;
  }
  const address = receiver.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let closing: Promise<void> | null = null;
  return {
    config,
    receiverUrl: `http://${urlHost(config.host)}:${port}${config.path}`,
    receiverPort: port,
    store,
    hub,
    faults,
    receiver,
    close() {
      closing ??= (async () => {
        await receiver.close();
        await store.close();
      })();
      return closing;
    },
  };
}
