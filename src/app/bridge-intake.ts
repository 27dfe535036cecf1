/**
 * `connect`'s intake: the bridge client, fed into the node's pipeline (source `bridge`), so a bridged
 * delivery is deduped on its id, stored and handed on exactly as `listen` does it. Until the client
 * is started (after the console), the console's bridge line says "connecting".
 */
import type { ConnectConfig } from '../config/connect-config.js';
import type { NodeConfig } from '../config/node-config.js';
import type { BridgeClient, BridgeState } from '../bridge/bridge-client.js';
import { startBridgeClient } from '../bridge/bridge-client.js';
import { webSocketAgent } from '../runtime/proxy.js';
import type { Intake } from './build-node.js';

const CONNECTED: ReadonlySet<BridgeState> = new Set(['connected', 'resuming', 'live']);

export interface BridgeIntakeOptions {
  /** Liveness of the bridge client: its ping interval and the silence after which the server is dead (tests shorten them). */
  pingMs?: number;
  deadMs?: number;
}

export interface BridgeIntake extends Intake<ConnectConfig & NodeConfig> {
  /** The client, once the node has started. */
  client(): BridgeClient;
  /** Resolves when the bridge refused this client for good (a wrong or revoked token). */
  refused: Promise<string>;
}

export function bridgeIntake(config: ConnectConfig, options: BridgeIntakeOptions = {}): BridgeIntake {
  let client: BridgeClient | null = null;
  let refuse!: (message: string) => void;
  const refused = new Promise<string>((resolve) => (refuse = resolve));
  const bridgeHost = hostOf(config.url);
  return {
    command: 'connect',
    ports: [],
    refused,
    client: () => {
      if (!client) throw new Error('the bridge client starts with the node');
      return client;
    },
    build({ config: settled, hub, clock, pipeline, onClose }) {
      return {
        bridgeView: () => ({
          side: 'laptop' as const,
          state: client?.state() ?? 'connecting',
          host: bridgeHost,
          name: settled.name,
          ...(client?.progress() ?? { receivedSeq: 0, ackedSeq: 0, lag: 0, reconnects: 0 }),
        }),
        async open() {
          const started = startBridgeClient({
            url: settled.url,
            token: settled.token,
            name: settled.name,
            pipeline,
            clock,
            ...(options.pingMs ? { pingMs: options.pingMs } : {}),
            ...(options.deadMs ? { deadMs: options.deadMs } : {}),
            ...(settled.bridgeCa ? { ca: settled.bridgeCa.pem } : {}),
            ...(settled.proxy ? { agent: webSocketAgent(settled.url, settled.proxy) } : {}),
            ...(settled.since ? { since: settled.since } : {}),
            onState: (state: BridgeState, message: string) => hub.emit('notice', { level: state === 'refused' ? 'error' : state === 'lost' ? 'warn' : 'info', message }),
            onRefused: (message) => refuse(message),
          });
          client = started;
          onClose(() => started.close());
          return { receiverUrl: settled.url };
        },
        watch(metrics) {
          metrics.setBridgeClient(() => ({ ...client!.progress(), connected: CONNECTED.has(client!.state()) }));
        },
      };
    },
  };
}

/** The bridge's `host[:port]` for the console: never its path, query or userinfo. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}
