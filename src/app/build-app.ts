/**
 * The composition root: the only place that constructs stores, listeners and workers.
 * `buildApp` listens and returns a handle; `close()` stops accepting, lets in-flight commits and
 * hand-offs finish, and closes the database.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Agent } from 'undici';
import { secretHint } from '../config/data-dir.js';
import type { ListenConfig } from '../config/listen-config.js';
import { createFaultRules, type FaultRules } from '../faults/rules-controller.js';
import { buildReceiver, type Readiness } from '../ingest/build-receiver.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Passthrough } from '../handoff/passthrough.js';
import { DEFAULT_RELAY_RETRY } from '../relay/relay-backoff.js';
import type { RelayWorker } from '../relay/relay-worker.js';
import type { ReplayResult } from '../relay/replay.js';
import type { HubBridge } from '../store/postgres/pg-hub-bridge.js';
import { acquireInstanceLock } from '../store/sqlite/instance-lock.js';
import { createSqliteStore } from '../store/sqlite/sqlite-store.js';
import { formatRetainDuration, startRetention, type Retention } from '../store/retention.js';
import type { DeliveryStore } from '../store/store.js';
import { createEventHub, type EventHub } from '../runtime/event-hub.js';
import { isLoopbackHost, urlHost } from '../runtime/hosts.js';

export const VERSION = '0.1.0';

// Loaded on first use: `listen` with neither a forward target, PostgreSQL nor a console starts
// without undici, pg or prom-client (cold start is measured in npm run bench).
const lazy = {
  undici: () => import('undici'),
  relayWorker: () => import('../relay/relay-worker.js'),
  passthrough: () => import('../handoff/passthrough.js'),
  replay: () => import('../relay/replay.js'),
  pgStore: () => import('../store/postgres/pg-store.js'),
  pgBridge: () => import('../store/postgres/pg-hub-bridge.js'),
  console: () => import('../console/console-server.js'),
  staticFiles: () => import('../console/static-files.js'),
  metrics: () => import('../metrics/metrics.js'),
  conformance: () => import('../conformance/judge-stored.js'),
};

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
  /** The console page, with `?token=` when one is required; null with --no-console. */
  consoleUrl: string | null;
  /** The console's token: generated when the console is bound beyond loopback without one. */
  consoleToken: string | null;
  store: DeliveryStore;
  hub: EventHub;
  /** The fault rules, changeable while the receiver runs (the console's control API uses them). */
  faults: FaultRules;
  /** Re-sends a stored delivery, freshly signed and marked (default target: --forward-to). */
  replay(deliveryId: string, targetUrl?: string): Promise<ReplayResult | null>;
  receiver: FastifyInstance;
  close(): Promise<void>;
}

export async function buildApp(config: ListenConfig, deps: AppDeps = {}): Promise<AppHandle> {
  const clock = deps.clock ?? Date.now;
  const hub = deps.hub ?? createEventHub();
  const forward = config.forward ?? null;
  // One `listen` per SQLite file: a second relay over the same outbox would hand deliveries on twice.
  const lock = deps.store || config.storeUrl ? null : acquireInstanceLock(config.dbPath);
  let store: DeliveryStore;
  try {
    store =
      deps.store ??
      (config.storeUrl
        ? await (await lazy.pgStore()).createPostgresStore(config.storeUrl, { outbox: forward?.mode === 'async', forwardTimeoutMs: forward?.timeoutMs })
        : await createSqliteStore(config.dbPath, { commitDelayMs: config.testCommitDelayMs, outbox: forward?.mode === 'async', onCommit: (c) => hub.emit('commit', c) }));
  } catch (err) {
    lock?.release();
    throw err;
  }
  const closeStore = async () => {
    await store.close();
    lock?.release();
  };
  // Several instances on one PostgreSQL database: each shows what all of them receive.
  let bridge: HubBridge | null = null;
  if (config.storeUrl && !deps.store) {
    try {
      bridge = await (await lazy.pgBridge()).createPostgresHubBridge(config.storeUrl, hub);
    } catch (err) {
      await closeStore();
      throw err;
    }
  }
  const faults = createFaultRules({ rules: config.faultRules ?? [], seed: config.seed ?? randomInt(2 ** 32), hub });

  let relay: RelayWorker | null = null;
  let passthrough: Passthrough | null = null;
  if (forward?.mode === 'async') {
    relay = (await lazy.relayWorker()).createRelayWorker({
      store, hub, clock,
      target: forward.to,
      secret: forward.secret,
      timeoutMs: forward.timeoutMs,
      retry: { ...DEFAULT_RELAY_RETRY, maxTries: forward.maxTries },
      extraHeaders: forward.headers,
    });
    const worker = relay;
    hub.on('delivery', () => worker.poke());
  } else if (forward?.mode === 'sync') {
    passthrough = (await lazy.passthrough()).createPassthrough(forward, clock);
  }

  let replayDispatcher: Agent | null = null;
  const replay = async (deliveryId: string, targetUrl?: string): Promise<ReplayResult | null> => {
    const target = targetUrl ?? forward?.to;
    if (!target) throw new Error('no target: pass a URL, or start listen with --forward-to');
    const secret = forward?.secret ?? config.secrets[0];
    if (!secret) throw new Error('no secret to sign the replay with: start listen with --secret or --forward-secret');
    replayDispatcher ??= new (await lazy.undici()).Agent({ keepAliveTimeout: 5_000 });
    return (await lazy.replay()).replayDelivery({ store, hub, dispatcher: replayDispatcher, secret, timeoutMs: forward?.timeoutMs ?? 30_000, extraHeaders: forward?.headers ?? [], clock }, deliveryId, target);
  };

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
    readiness: () => readiness(),
    ...(passthrough ? { passthrough } : {}),
  });

  // /readyz: a real write through the store's write path (shared while one is in flight), and the relay worker.
  let relayStopped = false;
  let lastWriteFailed = false;
  hub.on('attempt', ({ attempt, remote }) => {
    if (remote) return;
    if (attempt.outcome === 'unavailable') lastWriteFailed = true;
    else if (attempt.outcome === 'accepted' || attempt.outcome === 'duplicate') lastWriteFailed = false;
  });
  let probing: Promise<string | null> | null = null;
  const probeStore = (): Promise<string | null> =>
    (probing ??= (store.probe ? store.probe().then(() => null) : Promise.resolve(lastWriteFailed ? 'the last write failed' : null))
      .catch((err: unknown) => (err as Error).message)
      .finally(() => (probing = null)));
  const readiness = async (): Promise<Readiness> => {
    const storeProblem = await probeStore();
    const relayState = relay ? (relayStopped ? 'stopped' : 'alive') : 'off';
    const reasons = [...(storeProblem ? [`the store cannot write: ${storeProblem}`] : []), ...(relayState === 'stopped' ? ['the relay worker has stopped'] : [])];
    return { ready: reasons.length === 0, store: storeProblem ? 'unavailable' : 'writable', relay: relayState, ...(reasons.length ? { reason: reasons.join('; ') } : {}) };
  };

  // Retention (--retain): at start, then hourly; never a delivery whose relay is pending.
  let retention: Retention | null = null;
  if (config.retainMs) {
    const window = formatRetainDuration(config.retainMs);
    retention = startRetention({
      store,
      retainMs: config.retainMs,
      clock,
      onPrune: (r) => {
        if (r.deliveries + r.attempts === 0) return;
        hub.emit('notice', {
          level: 'info',
          message: `retention (${window}): pruned ${r.deliveries} deliveries, ${r.attempts} attempts and ${r.relayAttempts} relay tries last seen before ${new Date(r.before).toISOString()}${r.keptPending ? `; kept ${r.keptPending} whose relay is pending` : ''}`,
        });
      },
      onError: (err) => hub.emit('notice', { level: 'warn', message: `retention: cannot prune: ${err.message}` }),
    });
  }

  const stopWorkers = async () => {
    relayStopped = true;
    await retention?.stop();
    await bridge?.close();
    await relay?.stop();
    await passthrough?.close();
    await replayDispatcher?.close();
  };
  try {
    await receiver.listen({ port: config.port, host: config.host });
  } catch (err) {
    await stopWorkers();
    await closeStore();
    throw err;
  }
  const address = receiver.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const receiverUrl = `http://${urlHost(config.host)}:${port}${config.path}`;

  // The console never shares the receiver's listener: a tunnel to the receiver must not expose it.
  let consoleServer: FastifyInstance | null = null;
  let metrics: Metrics | null = null;
  let consoleUrl: string | null = null;
  let consoleToken: string | null = null;
  if (config.console) {
    const settings = config.console;
    consoleToken = settings.token ?? (isLoopbackHost(settings.host) ? null : randomBytes(24).toString('base64url'));
    const secrets = [...config.secrets, ...(forward ? [forward.secret] : [])];
    metrics = (await lazy.metrics()).createMetrics({ hub, relayCounts: () => store.relayCounts() });
    try {
      const { judgeStoredDelivery } = await lazy.conformance();
      const { DEFAULT_WEB_ROOT } = await lazy.staticFiles();
      consoleServer = await (await lazy.console()).createConsoleServer({
        metrics,
        store,
        hub,
        status: () => ({
          version: VERSION,
          receiverUrl,
          path: config.path,
          secretHints: config.secrets.map(secretHint),
          skipVerify: config.skipVerify,
          forwardTo: forward?.to ?? null,
          toleranceSeconds: config.toleranceSeconds,
        }),
        listenHost: settings.host,
        listenPort: settings.port,
        allowedHosts: settings.allowedHosts,
        token: consoleToken,
        webRoot: DEFAULT_WEB_ROOT,
        faults,
        replay: async (id, targetUrl) => {
          const result = await replay(id, targetUrl ?? undefined);
          if (!result) return { ok: false, status: null, error: 'no stored delivery with that id' };
          return { ok: result.ok, status: result.status, ...(result.error ? { error: result.error } : {}) };
        },
        relayHistory: async (id) =>
          (await store.relayHistory(id)).attempts.map((a) => ({
            at: a.finishedAt,
            ok: a.status !== null && a.status >= 200 && a.status < 300,
            status: a.status,
            latencyMs: a.finishedAt - a.startedAt,
            replay: a.replay,
            target: a.target,
            ...(a.error ? { error: a.error } : {}),
          })),
        conformance: (id) => judgeStoredDelivery(store, id),
        remove: (id) => {
          relay?.forget(id);
          return store.deleteDelivery(id);
        },
        redact: (text) => secrets.reduce((out, secret) => out.split(secret).join(secretHint(secret)), text),
        now: clock,
      });
      await consoleServer.listen({ host: settings.host, port: settings.port });
    } catch (err) {
      await consoleServer?.close();
      await receiver.close();
      await stopWorkers();
      await closeStore();
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EADDRINUSE') {
        throw Object.assign(new Error(`console port ${settings.port} on ${settings.host} is already in use: pass --console-port, or --no-console`), { code: 'CONSOLE_PORT_IN_USE' });
      }
      throw err;
    }
    const consoleAddress = consoleServer.server.address();
    const consolePort = typeof consoleAddress === 'object' && consoleAddress ? consoleAddress.port : settings.port;
    const host = isLoopbackHost(settings.host) || settings.host === '0.0.0.0' || settings.host === '::' ? 'localhost' : urlHost(settings.host);
    consoleUrl = `http://${host}:${consolePort}/${consoleToken ? `?token=${encodeURIComponent(consoleToken)}` : ''}`;
  }

  lock?.describe({ receiverUrl, consoleUrl });

  let closing: Promise<void> | null = null;
  return {
    config,
    receiverUrl,
    receiverPort: port,
    consoleUrl,
    consoleToken,
    store,
    hub,
    faults,
    replay,
    receiver,
    close() {
      closing ??= (async () => {
        await consoleServer?.close();
        await receiver.close();
        await stopWorkers();
        metrics?.close();
        await closeStore();
      })();
      return closing;
    },
  };
}
