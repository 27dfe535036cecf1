/**
 * `hookrelay connect`: a full local hookrelay whose deliveries come from a public one through the
 * bridge instead of an HTTP receiver. Its own store, relay and console; the same ingest pipeline
 * (source `bridge`), so deliveries are deduped on their id and handed on, re-signed with the
 * local forward secret, exactly as `listen` hands them on.
 */
import type { ConnectConfig } from '../config/connect-config.js';
import { createFaultRules } from '../faults/rules-controller.js';
import type { BridgeClient, BridgeState } from '../bridge/bridge-client.js';
import { startBridgeClient } from '../bridge/bridge-client.js';
import { createIngestPipeline } from '../ingest/pipeline.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RelayWorker } from '../relay/relay-worker.js';
import type { Replayer } from '../relay/replay.js';
import { CONNECT_REPLAY_ADVICE, replaySettingsOf } from './replay-wiring.js';
import { createEventHub, type EventHub } from '../runtime/event-hub.js';
import { openStore, type StoreLocation } from '../store/open-store.js';
import { acquireInstanceLock } from '../store/sqlite/instance-lock.js';
import type { DeliveryStore } from '../store/store.js';
import { MAX_BODY_LIMIT_BYTES } from '../core/limits.js';
import { closer } from './closer.js';
import { settleRelayBacklog, type StartNotice } from './relay-backlog.js';
import type { RelayTargets } from '../core/routes.js';
import { relayPort, startRelayWorker } from './start-relay.js';
import { startRetentionWithNotices } from './retention-notices.js';
import { startConsole } from './start-console.js';

const CONNECTED: ReadonlySet<BridgeState> = new Set(['connected', 'resuming', 'live']);

export interface ConnectHandle {
  config: ConnectConfig;
  store: DeliveryStore;
  hub: EventHub;
  bridge: BridgeClient;
  consoleUrl: string | null;
  /** Resolves when the bridge refused this client for good (a wrong or revoked token). */
  refused: Promise<string>;
  /** What the operator is told once the start is shown: the relay jobs an earlier run left, by target. */
  startNotices: StartNotice[];
  close(): Promise<void>;
}

export interface ConnectDeps {
  clock?: () => number;
  hub?: EventHub;
  /** Liveness of the bridge client: its ping interval and the silence after which the server is dead (tests shorten them). */
  pingMs?: number;
  deadMs?: number;
  /** The console's built page (tests pass their own build). */
  webRoot?: string;
}

export async function buildConnect(config: ConnectConfig, deps: ConnectDeps = {}): Promise<ConnectHandle> {
  const clock = deps.clock ?? Date.now;
  const hub = deps.hub ?? createEventHub();
  const forward = config.forward;
  const location: StoreLocation = config.storeUrl ? { kind: 'postgres', url: config.storeUrl } : { kind: 'sqlite', path: config.dbPath };
  const started = closer();
  try {
    if (location.kind === 'sqlite') {
      const lock = acquireInstanceLock(location.path);
      started.add(() => lock.release());
    }
    const relayTargets: RelayTargets | null = forward ? { to: forward.to, routes: forward.routes ?? [] } : null;
    const store = await openStore(location, { outbox: relayTargets ?? false, forwardTimeoutMs: forward?.timeoutMs, onCommit: (c) => hub.emit('commit', c) });
    started.add(() => store.close());
    // Before the relay takes a job: jobs queued for other targets are held, this run's own released.
    const startNotices = await settleRelayBacklog(store, relayTargets, clock());

    let relay: RelayWorker | null = null;
    if (forward) {
      const worker = await startRelayWorker(forward, store, hub, clock);
      relay = worker;
      started.add(() => worker.stop());
    }
    if (config.retainMs) {
      const retention = startRetentionWithNotices(store, hub, config.retainMs, clock);
      started.add(() => retention.stop());
    }

    // Bridged deliveries were verified upstream: no secret here, and no fault rules.
    // The receiver's settings where they apply to a bridged delivery: its body limit is the largest
    // --body-limit a public listen can have. No secret here: the public side verified it (its verdict
    // rides along), and no fault rules: they are for the service's retries.
    const pipeline = createIngestPipeline({
      path: '/', secrets: [], toleranceSeconds: 300, skipVerify: false, bodyLimitBytes: MAX_BODY_LIMIT_BYTES, store, hub, clock,
      ...(relay ? { outbox: relayPort(relay, hub) } : {}),
    });

    // The console starts before the client: until then the line says "connecting".
    let bridge: BridgeClient | null = null;
    const bridgeHost = hostOf(config.url);
    const bridgeView = () => ({
      side: 'laptop' as const,
      state: bridge?.state() ?? 'connecting',
      host: bridgeHost,
      name: config.name,
      ...(bridge?.progress() ?? { receivedSeq: 0, ackedSeq: 0, lag: 0, reconnects: 0 }),
    });

    let consoleUrl: string | null = null;
    let metrics: Metrics | null = null;
    let replayer: Replayer | null = null;
    started.add(() => replayer?.close());
    if (config.console) {
      const started_ = await startConsole({
        settings: config.console, store, hub, clock, forward,
        faults: createFaultRules({ rules: [], seed: 0, hub }),
        receiverUrl: config.url,
        path: '/',
        secrets: [],
        skipVerify: false,
        toleranceSeconds: 300,
        replay: async (id, target) => {
          replayer ??= (await import('../relay/replay.js')).createReplayer({ store, hub, clock, settings: replaySettingsOf(forward, null), advice: CONNECT_REPLAY_ADVICE });
          return replayer.replay(id, target);
        },
        forget: (id) => relay?.forget(id),
        bridge: bridgeView,
        ...(deps.webRoot ? { webRoot: deps.webRoot } : {}),
      });
      metrics = started_.metrics;
      started.add(() => started_.metrics.close());
      started.add(() => started_.server.close());
      consoleUrl = started_.url;
    }

    let refuse!: (message: string) => void;
    const refused = new Promise<string>((resolve) => (refuse = resolve));
    const client = startBridgeClient({
      url: config.url,
      token: config.token,
      name: config.name,
      pipeline,
      clock,
      ...(deps.pingMs ? { pingMs: deps.pingMs } : {}),
      ...(deps.deadMs ? { deadMs: deps.deadMs } : {}),
      ...(config.bridgeCa ? { ca: config.bridgeCa.pem } : {}),
      onState: (state: BridgeState, message: string) => hub.emit('notice', { level: state === 'refused' ? 'error' : state === 'lost' ? 'warn' : 'info', message }),
      onRefused: (message) => refuse(message),
    });
    bridge = client;
    started.add(() => client.close());
    metrics?.setBridgeClient(() => ({ ...client.progress(), connected: CONNECTED.has(client.state()) }));

    return { config, store, hub, bridge: client, consoleUrl, refused, startNotices, close: started.close };
  } catch (err) {
    await started.close();
    throw err;
  }
}

/** The bridge's `host[:port]` for the console: never its path, query or userinfo. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}
