/**
 * `hookrelay connect`: the one node (build-node.ts) fed by the bridge client (bridge-intake.ts)
 * instead of an HTTP receiver. Its own store, relay and console; the same ingest pipeline with the
 * receiver settings a bridged delivery is checked with (bridgedNodeConfig), so deliveries are
 * deduped on their id and handed on, re-signed with the local forward secret, exactly as `listen`
 * hands them on.
 */
import { bridgedNodeConfig, type ConnectConfig } from '../config/connect-config.js';
import type { BridgeClient } from '../bridge/bridge-client.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { DeliveryStore } from '../store/store.js';
import type { ReplayResult } from '../relay/replay.js';
import { createNode, type NodeDeps } from './build-node.js';
import { bridgeIntake, type BridgeIntakeOptions } from './bridge-intake.js';
import type { StartNotice } from './relay-backlog.js';

export interface ConnectHandle {
  config: Readonly<ConnectConfig>;
  store: DeliveryStore;
  hub: EventHub;
  bridge: BridgeClient;
  consoleUrl: string | null;
  /** The console's token: the one given, or one generated for a console beyond loopback; null without one. */
  consoleToken: string | null;
  /** Re-sends a stored delivery, freshly signed and marked (default target: its --route, else --forward-to). */
  replay(deliveryId: string, targetUrl?: string): Promise<ReplayResult | null>;
  /** Resolves when the bridge refused this client for good (a wrong or revoked token). */
  refused: Promise<string>;
  /** What the operator is told once the start is shown: the relay jobs an earlier run left, by target. */
  startNotices: StartNotice[];
  close(): Promise<void>;
}

export type ConnectDeps = NodeDeps & BridgeIntakeOptions;

export async function buildConnect(config: ConnectConfig, deps: ConnectDeps = {}): Promise<ConnectHandle> {
  const intake = bridgeIntake(config, deps);
  const node = await createNode(bridgedNodeConfig(config), intake, deps);
  const started = await node.start();
  return {
    config: started.config,
    store: started.store,
    hub: started.hub,
    bridge: intake.client(),
    consoleUrl: started.consoleUrl,
    consoleToken: started.consoleToken,
    replay: started.replay,
    refused: intake.refused,
    startNotices: started.startNotices,
    close: started.close,
  };
}
