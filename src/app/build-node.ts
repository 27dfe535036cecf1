/**
 * The one node assembly: `listen` and `connect` are this node fed by another intake (the HTTP
 * receiver, http-intake.ts; the bridge client, bridge-intake.ts). Everything a delivery meets once it
 * has arrived is built here, once, from one frozen config: the store, the relay or passthrough, the
 * replayer, retention, the ingest pipeline, readiness, the console and its /metrics.
 *
 * `createNode` builds without binding; `start()` opens the console first (so /metrics counts the
 * first delivery) and then the intake. `close()` stops accepting, lets in-flight commits and hand-offs
 * finish, and closes the store.
 */
import { randomInt } from 'node:crypto';
import { dataDirOf } from '../config/data-dir.js';
import type { NodeConfig } from '../config/node-config.js';
import type { BridgeView } from '../console/console-options.js';
import { createFaultRules, type FaultRules } from '../faults/rules-controller.js';
import type { Passthrough } from '../handoff/passthrough.js';
import type { Readiness } from '../ingest/build-receiver.js';
import { createIngestPipeline, type IngestPipeline } from '../ingest/pipeline.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RelayWorker } from '../relay/relay-worker.js';
import type { Replayer, ReplayResult } from '../relay/replay.js';
import { createEventHub, emitterOf, type EventHub } from '../runtime/event-hub.js';
import { openStore, type StoreLocation } from '../store/open-store.js';
import { acquireInstanceLock, type InstanceLock } from '../store/sqlite/instance-lock.js';
import type { DeliveryStore } from '../store/store.js';
import type { RelayTargets } from '../core/routes.js';
import { startTracing } from '../telemetry/start-tracing.js';
import { closer } from './closer.js';
import { settleDevSecret } from './dev-secret.js';
import { assertPortsFree, type WantedPort } from './ports-free.js';
import { createReadiness } from './readiness.js';
import { settleRelayBacklog, type StartNotice } from './relay-backlog.js';
import { replayAdviceOf, replaySettingsOf } from './replay-wiring.js';
import { startRetentionWithNotices } from './retention-notices.js';
import { outboxTargetsOf, relayPort, relayTargetsOf, startRelayWorker } from './start-relay.js';
import { startConsole } from './start-console.js';

// Loaded on first use: a node with neither a forward target, PostgreSQL nor a console starts
// without undici, pg or prom-client (cold start is measured in npm run bench).
const lazy = {
  passthrough: () => import('../handoff/passthrough.js'),
  replay: () => import('../relay/replay.js'),
  pgSharedHub: () => import('../store/postgres/pg-shared-hub.js'),
};

export interface NodeDeps {
  /** Milliseconds since the epoch; injected by tests. */
  clock?: () => number;
  /** A store to use instead of the one config names. */
  store?: DeliveryStore;
  hub?: EventHub;
  /** The console's built page (tests pass their own build). */
  webRoot?: string;
}

/** What an intake is given: the node's parts it feeds, and where to register what it opens. */
export interface NodeParts<C extends NodeConfig = NodeConfig> {
  config: Readonly<C>;
  store: DeliveryStore;
  hub: EventHub;
  clock: () => number;
  faults: FaultRules;
  pipeline: IngestPipeline;
  readiness: () => Promise<Readiness>;
  /** Closed with the node, after whatever was registered later. */
  onClose(step: () => unknown): void;
}

/** Where deliveries come in: the HTTP receiver (`listen`) or the bridge client (`connect`). */
export interface Intake<C extends NodeConfig = NodeConfig> {
  /** The command that runs this node, for the advice its errors give ("start listen with --forward-to"). */
  command: 'listen' | 'connect';
  /** The listeners it binds, tried before anything is created. */
  ports: readonly WantedPort[];
  /** `listen --bridge-port`: what a subscriber seen within this has not acknowledged outlives --retain. */
  bridgeRetainMs?: number;
  /** Builds what needs no socket yet (the receiver's routes). */
  build(node: NodeParts<C>): BuiltIntake;
}

export interface BuiltIntake {
  /** The bridge as this node sees it, for the console; absent without one. */
  bridgeView?: () => BridgeView | Promise<BridgeView>;
  /** Binds or connects; says where deliveries come in. */
  open(): Promise<{ receiverUrl: string }>;
  /** Once open, with the console's metrics: the bridge's series. */
  watch?(metrics: Metrics): void;
}

export interface NodeHandle<C extends NodeConfig = NodeConfig> {
  config: Readonly<C>;
  store: DeliveryStore;
  hub: EventHub;
  faults: FaultRules;
  /** Where deliveries come in: the receiver's URL, or the bridge's. */
  receiverUrl: string;
  /** The console page, with `?token=` when one is required; null with --no-console. */
  consoleUrl: string | null;
  /** The console's token: generated when the console is bound beyond loopback without one. */
  consoleToken: string | null;
  /** Re-sends a stored delivery, freshly signed and marked (default target: its --route, else --forward-to). */
  replay(deliveryId: string, targetUrl?: string): Promise<ReplayResult | null>;
  /** What the operator is told once the start is shown: the relay jobs an earlier run left, by target. */
  startNotices: StartNotice[];
  close(): Promise<void>;
}

export interface BuiltNode<C extends NodeConfig = NodeConfig> {
  config: Readonly<C>;
  store: DeliveryStore;
  hub: EventHub;
  faults: FaultRules;
  start(): Promise<NodeHandle<C>>;
  close(): Promise<void>;
}

export async function createNode<C extends NodeConfig>(given: C, intake: Intake<C>, deps: NodeDeps = {}): Promise<BuiltNode<C>> {
  const clock = deps.clock ?? Date.now;
  const hub = deps.hub ?? createEventHub();
  const location: StoreLocation = given.storeUrl ? { kind: 'postgres', url: given.storeUrl } : { kind: 'sqlite', path: given.dbPath };
  const started = closer();
  try {
    // A busy port fails the start before anything is created: no data folder, database or secret.
    await assertPortsFree([
      ...intake.ports,
      ...(given.console ? [{ port: given.console.port, host: given.console.host, code: 'CONSOLE_PORT_IN_USE', hostFlag: '--console-host', busy: `console port ${given.console.port} on ${given.console.host} is already in use: pass --console-port, or --no-console` }] : []),
    ]);
    // Traces, when the standard OTEL_* variables ask for them (docs: "Traces"); closed last, so it
    // exports the spans of everything that closes before it.
    const tracing = await startTracing();
    started.add(() => tracing.close());
    // From here every part reads one frozen config, the development secret settled in it.
    const settled = settleDevSecret(given);
    const config = settled.config;
    const forward = config.forward ?? null;
    // One node per SQLite file: a second relay over the same outbox would hand deliveries on twice.
    let describeOwner: InstanceLock['describe'] | null = null;
    if (!deps.store && location.kind === 'sqlite') {
      const lock = acquireInstanceLock(location.path);
      started.add(() => lock.release());
      describeOwner = lock.describe;
    }
    const relayTargets: RelayTargets | null = forward?.mode === 'async' ? outboxTargetsOf(forward) : null;
    const store = deps.store ?? (await openStore(location, { outbox: relayTargets ?? false, commitDelayMs: config.testCommitDelayMs, onCommit: emitterOf(hub, 'commit') }));
    started.add(() => store.close());
    // Several nodes on one PostgreSQL database: each shows what all of them receive.
    if (location.kind === 'postgres' && !deps.store) {
      const shared = await (await lazy.pgSharedHub()).shareHubThroughPostgres(location.url, hub);
      started.add(() => shared.close());
    }
    const faults = createFaultRules({ rules: config.faultRules ?? [], seed: config.seed ?? randomInt(2 ** 32), hub });

    // Before the relay takes a job: jobs queued for other targets are held, this run's own released.
    const startNotices = await settleRelayBacklog(store, relayTargets, clock());
    if (settled.notice) startNotices.push({ level: 'warn', message: settled.notice });
    for (const warning of tracing.warnings) startNotices.push({ level: 'warn', message: warning });
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
    let relayStopped = false;
    started.add(() => (relayStopped = true));

    let replayer: Replayer | null = null;
    started.add(() => replayer?.close());
    const replay = async (deliveryId: string, targetUrl?: string): Promise<ReplayResult | null> => {
      replayer ??= (await lazy.replay()).createReplayer({ store, hub, clock, settings: replaySettingsOf(forward, config.secrets[0] ?? null), advice: replayAdviceOf(intake.command) });
      return replayer.replay(deliveryId, targetUrl);
    };

    if (config.retainMs) {
      const retention = startRetentionWithNotices(store, hub, config.retainMs, clock, intake.bridgeRetainMs);
      started.add(() => retention.stop());
    }

    const pipeline = createIngestPipeline({
      path: config.path,
      secrets: config.secrets,
      toleranceSeconds: config.toleranceSeconds,
      skipVerify: config.skipVerify,
      bodyLimitBytes: config.bodyLimitBytes,
      store,
      hub,
      clock,
      faults,
      ...(passthrough ? { passthrough } : {}),
      ...(relay ? { outbox: relayPort(relay, hub) } : {}),
    });
    const readiness = createReadiness(store, () => (relay ? (relayStopped ? 'stopped' : 'alive') : 'off'));
    const built = intake.build({ config, store, hub, clock, faults, pipeline, readiness, onClose: (step) => started.add(step) });

    // Binds the console and the intake; a failure closes everything built.
    const openAll = async (): Promise<NodeHandle<C>> => {
      let receiverUrl = '';
      let metrics: Metrics | null = null;
      let consoleUrl: string | null = null;
      let consoleToken: string | null = null;
      if (config.console) {
        // Bulk replay jobs of the data folder (the console's /api/replay-jobs), through the replayer's settings.
        const bulkReplays = (await import('../relay/bulk-replays.js')).createBulkReplays({
          dataDir: dataDirOf(config.dbPath), store, hub, clock, settings: replaySettingsOf(forward, config.secrets[0] ?? null), advice: replayAdviceOf(intake.command),
        });
        started.add(() => bulkReplays.close());
        const consoleStarted = await startConsole({
          settings: config.console, store, hub, faults, forward, replay, clock, bulkReplays,
          receiverUrl: () => receiverUrl,
          path: config.path,
          secrets: config.secrets,
          skipVerify: config.skipVerify,
          toleranceSeconds: config.toleranceSeconds,
          forget: (id) => relay?.forget(id),
          ...(relay ? { relayTargets: relayTargetsOf(relay, store) } : {}),
          ...(built.bridgeView ? { bridge: built.bridgeView } : {}),
          ...(deps.webRoot ? { webRoot: deps.webRoot } : {}),
        });
        ({ metrics, url: consoleUrl, token: consoleToken } = consoleStarted);
        started.add(() => consoleStarted.metrics.close());
        started.add(() => consoleStarted.server.close());
      }
      ({ receiverUrl } = await built.open());
      if (metrics) built.watch?.(metrics);
      describeOwner?.({ command: intake.command, receiverUrl, consoleUrl });
      return { config, store, hub, faults, receiverUrl, consoleUrl, consoleToken, replay, startNotices, close: started.close };
    };
    const start = async (): Promise<NodeHandle<C>> => {
      try {
        return await openAll();
      } catch (err) {
        await started.close();
        throw err;
      }
    };
    return { config, store, hub, faults, start, close: started.close };
  } catch (err) {
    await started.close();
    throw err;
  }
}
