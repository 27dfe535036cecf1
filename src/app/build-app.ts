/**
 * `hookrelay listen`: the one node (build-node.ts) fed by the HTTP receiver (http-intake.ts).
 * `createApp` builds without binding a port; `start()` binds the console, the receiver and the
 * bridge; `buildApp` is both. `close()` stops accepting, lets in-flight commits and hand-offs finish,
 * and closes the store.
 */
import type { FastifyInstance } from 'fastify';
import type { ListenConfig } from '../config/listen-config.js';
import type { FaultRules } from '../faults/rules-controller.js';
import type { ReplayResult } from '../relay/replay.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { DeliveryStore } from '../store/store.js';
import { createNode, type NodeDeps } from './build-node.js';
import { httpIntake } from './http-intake.js';
import type { StartNotice } from './relay-backlog.js';

export interface AppDeps extends NodeDeps {
  /** Longest a `hang` fault holds a socket (default 120 s); tests shorten it. */
  hangCapMs?: number;
}

export interface AppHandle {
  config: Readonly<ListenConfig>;
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
export async function createApp(config: ListenConfig, deps: AppDeps = {}): Promise<BuiltApp> {
  const intake = httpIntake(config, { hangCapMs: deps.hangCapMs });
  const node = await createNode(config, intake, deps);
  const receiver = intake.receiver();
  return {
    store: node.store,
    hub: node.hub,
    faults: node.faults,
    receiver,
    close: node.close,
    async start() {
      const started = await node.start();
      const address = receiver.server.address();
      const receiverPort = typeof address === 'object' && address ? address.port : config.port;
      return { ...started, receiverPort, bridgeUrl: intake.bridgeUrl(), receiver };
    },
  };
}
