/**
 * The composition root: the only place that constructs stores, listeners and workers.
 * `buildApp` builds and listens, and returns a handle; `close()` stops accepting, lets in-flight
 * commits and hand-offs finish, and closes the store.
 */
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { settleDevSecret } from './dev-secret.js';
import type { ListenConfig } from '../config/listen-config.js';
import { createFaultRules, type FaultRules } from '../faults/rules-controller.js';
import type { Passthrough } from '../handoff/passthrough.js';
import type { BridgeServer } from '../bridge/bridge-server.js';
import { buildReceiver } from '../ingest/build-receiver.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RelayWorker } from '../relay/relay-worker.js';
import type { Replayer, ReplayResult } from '../relay/replay.js';
import { LISTEN_REPLAY_ADVICE, replaySettingsOf } from './replay-wiring.js';
import { createEventHub, type EventHub } from '../runtime/event-hub.js';
import { urlHost } from '../runtime/hosts.js';
import { openStore, type StoreLocation } from '../store/open-store.js';
import type { SharedHub } from '../store/postgres/pg-shared-hub.js';
import type { Retention } from '../store/retention.js';
import { acquireInstanceLock, type InstanceLock } from '../store/sqlite/instance-lock.js';
import type { DeliveryStore } from '../store/store.js';
import { createReadiness } from './readiness.js';
import { startRetentionWithNotices } from './retention-notices.js';
import { settleRelayBacklog, type StartNotice } from './relay-backlog.js';
import type { RelayTargets } from '../core/routes.js';
import { closer } from './closer.js';
import { relayPort, startRelayWorker } from './start-relay.js';
import { assertPortsFree } from './ports-free.js';
import { startConsole } from './start-console.js';

// Loaded on first use: `listen` with neither a forward target, PostgreSQL nor a console starts
// without undici, pg or prom-client (cold start is measured in npm run bench).
const lazy = {
  passthrough: () => import('../handoff/passthrough.js'),
  replay: () => import('../relay/replay.js'),
  pgSharedHub: () => import('../store/postgres/pg-shared-hub.js'),
  bridgeServer: () => import('../bridge/bridge-server.js'),
};

export interface AppDeps {
  /** Milliseconds since the epoch; injected by tests. */
  clock?: () => number;
  /** A store to use instead of the one config names. */
  store?: DeliveryStore;
  hub?: EventHub;
  /** Longest a `hang` fault holds a socket (default 120 s); tests shorten it. */
  hangCapMs?: number;
}

export interface AppHandle {
  config: ListenConfig;
  /** Where deliveries go: http://host:port/path (https:// with --tls-cert) */
  receiverUrl: string;
  /** The bound receiver port (useful when config.port is 0). */
  receiverPort: number;
  /** The console page, with `?token=` when one is required; null with --no-console. */
  consoleUrl: string | null;
  /** The console's token: generated when the console is bound beyond loopback without one. */
  consoleToken: string | null;
  /** Where `hookrelay connect` subscribes (`--bridge-port`); null when the bridge is off. */
  bridgeUrl: string | null;
  store: DeliveryStore;
  hub: EventHub;
  /** The fault rules, changeable while the receiver runs (the console's control API uses them). */
  faults: FaultRules;
  /** Re-sends a stored delivery, freshly signed and marked (default target: its --route, else --forward-to). */
  replay(deliveryId: string, targetUrl?: string): Promise<ReplayResult | null>;
  receiver: FastifyInstance;
  /** What the operator is told once the start is shown: the relay jobs an earlier run left, by target. */
  startNotices: StartNotice[];
  close(): Promise<void>;
}

/** A built app that does not listen yet: `start()` binds the receiver, the bridge and the console. */
export interface BuiltApp {
  store: DeliveryStore;
  hub: EventHub;
  faults: FaultRules;
  receiver: FastifyInstance;
  start(): Promise<AppHandle>;
  close(): Promise<void>;
}

/** Builds and listens: `createApp(config).start()`. */
export async function buildApp(config: ListenConfig, deps: AppDeps = {}): Promise<AppHandle> {
  return (await createApp(config, deps)).start();
}

/** Builds every part (store, relay, receiver routes) without binding a port. */
export async function createApp(given: ListenConfig, deps: AppDeps = {}): Promise<BuiltApp> {
  const clock = deps.clock ?? Date.now;
  const hub = deps.hub ?? createEventHub();
  const location: StoreLocation = given.storeUrl ? { kind: 'postgres', url: given.storeUrl } : { kind: 'sqlite', path: given.dbPath };
  const started = closer();
  let describeOwner: InstanceLock['describe'] | null = null;
  try {
    // A busy port fails the start before anything is created: no data folder, database or secret.
    await assertPortsFree([
      { port: given.port, host: given.host, code: 'EADDRINUSE', hostFlag: '--host', busy: `port ${given.port} on ${given.host} is already in use: stop the other process or pass --port` },
      ...(given.console ? [{ port: given.console.port, host: given.console.host, code: 'CONSOLE_PORT_IN_USE', hostFlag: '--console-host', busy: `console port ${given.console.port} on ${given.console.host} is already in use: pass --console-port, or --no-console` }] : []),
      ...(given.bridge ? [{ port: given.bridge.port, host: given.bridge.host, code: 'BRIDGE_PORT_IN_USE', hostFlag: '--bridge-host', busy: `bridge port ${given.bridge.port} on ${given.bridge.host} is already in use: pass another --bridge-port` }] : []),
    ]);
    // From here every part reads one frozen config, the development secret settled in it.
    const settled = settleDevSecret(given);
    const config = settled.config;
    const forward = config.forward ?? null;
    // One `listen` per SQLite file: a second relay over the same outbox would hand deliveries on twice.
    if (!deps.store && location.kind === 'sqlite') {
      const lock = acquireInstanceLock(location.path);
      started.add(() => lock.release());
      describeOwner = lock.describe;
    }
    const relayTargets: RelayTargets | null = forward?.mode === 'async' ? { to: forward.to, routes: forward.routes ?? [] } : null;
    const store = deps.store ?? (await openStore(location, { outbox: relayTargets ?? false, forwardTimeoutMs: forward?.timeoutMs, commitDelayMs: config.testCommitDelayMs, onCommit: (c) => hub.emit('commit', c) }));
    started.add(() => store.close());
    // Several instances on one PostgreSQL database: each shows what all of them receive.
    if (location.kind === 'postgres' && !deps.store) {
      const shared: SharedHub = await (await lazy.pgSharedHub()).shareHubThroughPostgres(location.url, hub);
      started.add(() => shared.close());
    }
    const faults = createFaultRules({ rules: config.faultRules ?? [], seed: config.seed ?? randomInt(2 ** 32), hub });

    // Before the relay takes a job: jobs queued for other targets are held, this run's own released.
    const startNotices = await settleRelayBacklog(store, relayTargets, clock());
    let relay: RelayWorker | null = null;
    let passthrough: Passthrough | null = null;
    if (forward?.mode === 'async') {
      const worker = await startRelayWorker(forward, store, hub, clock);
      relay = worker;
      started.add(() => worker.stop());
    } else if (forward?.mode === 'sync') {
      const handOn = (await lazy.passthrough()).createPassthrough(forward, clock);
      passthrough = handOn;
      started.add(() => handOn.close());
    }

    let replayer: Replayer | null = null;
    started.add(() => replayer?.close());
    const replay = async (deliveryId: string, targetUrl?: string): Promise<ReplayResult | null> => {
      replayer ??= (await lazy.replay()).createReplayer({ store, hub, clock, settings: replaySettingsOf(forward, config.secrets[0] ?? null), advice: LISTEN_REPLAY_ADVICE });
      return replayer.replay(deliveryId, targetUrl);
    };

    let relayStopped = false;
    started.add(() => (relayStopped = true));
    if (config.retainMs) {
      const retention: Retention = startRetentionWithNotices(store, hub, config.retainMs, clock, config.bridge?.retainMs);
      started.add(() => retention.stop());
    }

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
      ...(config.tls ? { tls: { cert: config.tls.cert, key: config.tls.key } } : {}),
      readiness: createReadiness(store, () => (relay ? (relayStopped ? 'stopped' : 'alive') : 'off')),
      ...(passthrough ? { passthrough } : {}),
      ...(relay ? { outbox: relayPort(relay, hub) } : {}),
    });
    started.add(() => receiver.close());

    const start = async (): Promise<AppHandle> => {
      try {
        return await listenAll();
      } catch (err) {
        await started.close();
        throw err;
      }
    };
    // Binds the listeners and says who holds the store; a failure closes everything built.
    const listenAll = async (): Promise<AppHandle> => {
      await receiver.listen({ port: config.port, host: config.host });
      const address = receiver.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      const receiverUrl = `${config.tls ? 'https' : 'http'}://${urlHost(config.host)}:${port}${config.path}`;

      let bridgeUrl: string | null = null;
      let bridgeStatus: BridgeServer['status'] | null = null;
      if (config.bridge) {
        const bridge = await (await lazy.bridgeServer()).startBridgeServer({
          host: config.bridge.host, port: config.bridge.port, tokens: config.bridge.tokens, store, hub, clock,
          ...(config.tls ? { tls: { cert: config.tls.cert, key: config.tls.key } } : {}),
        });
        started.add(() => bridge.close());
        bridgeUrl = bridge.url;
        bridgeStatus = bridge.status;
      }

      let metrics: Metrics | null = null;
      let consoleUrl: string | null = null;
      let consoleToken: string | null = null;
      if (config.console) {
        const consoleStarted = await startConsole({
          settings: config.console, store, hub, faults, receiverUrl, forward, replay, clock,
          path: config.path,
          secrets: config.secrets,
          skipVerify: config.skipVerify,
          toleranceSeconds: config.toleranceSeconds,
          forget: (id) => relay?.forget(id),
          ...(bridgeStatus ? { bridge: async () => ({ side: 'public' as const, subscribers: await bridgeStatus!() }) } : {}),
        });
        ({ metrics, url: consoleUrl, token: consoleToken } = consoleStarted);
        if (bridgeStatus) metrics.setBridgeSubscribers(bridgeStatus);
        started.add(() => metrics?.close());
        started.add(() => consoleStarted.server.close());
      }
      describeOwner?.({ receiverUrl, consoleUrl });
      if (settled.notice) startNotices.push({ level: 'warn', message: settled.notice });

      return { config, receiverUrl, receiverPort: port, consoleUrl, consoleToken, bridgeUrl, store, hub, faults, replay, receiver, startNotices, close: started.close };
    };
    return { store, hub, faults, receiver, start, close: started.close };
  } catch (err) {
    await started.close();
    throw err;
  }
}

