/**
 * `listen`'s intake: the HTTP receiver (its routes built with the node, bound on start), and with
 * `--bridge-port` the bridge listener that `connect` subscribes to. The console's bridge line and the
 * bridge's /metrics series read the bridge listener once it is open.
 */
import type { FastifyInstance } from 'fastify';
import type { ListenConfig } from '../config/listen-config.js';
import type { BridgeServer } from '../bridge/bridge-server.js';
import { buildReceiver } from '../ingest/build-receiver.js';
import { urlHost } from '../runtime/hosts.js';
import type { Intake } from './build-node.js';

// Loaded on first use: a listen without --bridge-port never loads ws.
const loadBridgeServer = () => import('../bridge/bridge-server.js');

export interface HttpIntakeOptions {
  /** Longest a `hang` fault holds a socket (default 120 s); tests shorten it. */
  hangCapMs?: number;
}

/** The intake, and the receiver it builds (for inject() before start, in tests and hookrelay/testing). */
export interface HttpIntake extends Intake<ListenConfig> {
  receiver(): FastifyInstance;
  /** Where `hookrelay connect` subscribes, once open; null when the bridge is off. */
  bridgeUrl(): string | null;
}

export function httpIntake(config: ListenConfig, options: HttpIntakeOptions = {}): HttpIntake {
  let receiver: FastifyInstance | null = null;
  let bridgeUrl: string | null = null;
  let bridgeStatus: BridgeServer['status'] | null = null;
  return {
    command: 'listen',
    ports: [
      { port: config.port, host: config.host, code: 'EADDRINUSE', hostFlag: '--host', busy: `port ${config.port} on ${config.host} is already in use: stop the other process or pass --port` },
      ...(config.bridge ? [{ port: config.bridge.port, host: config.bridge.host, code: 'BRIDGE_PORT_IN_USE', hostFlag: '--bridge-host', busy: `bridge port ${config.bridge.port} on ${config.bridge.host} is already in use: pass another --bridge-port` }] : []),
    ],
    ...(config.bridge ? { bridgeRetainMs: config.bridge.retainMs } : {}),
    receiver: () => {
      if (!receiver) throw new Error('the receiver is built with the node');
      return receiver;
    },
    bridgeUrl: () => bridgeUrl,
    build(node) {
      const { config: settled, store, hub, clock, pipeline, readiness } = node;
      const tls = settled.tls ? { tls: { cert: settled.tls.cert, key: settled.tls.key } } : {};
      const built = buildReceiver({ path: settled.path, bodyLimitBytes: settled.bodyLimitBytes, clock, hub, pipeline, readiness, hangCapMs: options.hangCapMs, ...tls });
      receiver = built;
      node.onClose(() => built.close());
      return {
        ...(settled.bridge ? { bridgeView: async () => ({ side: 'public' as const, subscribers: bridgeStatus ? await bridgeStatus() : [] }) } : {}),
        async open() {
          await built.listen({ port: settled.port, host: settled.host });
          const address = built.server.address();
          const port = typeof address === 'object' && address ? address.port : settled.port;
          if (settled.bridge) {
            const bridge = await (await loadBridgeServer()).startBridgeServer({ host: settled.bridge.host, port: settled.bridge.port, tokens: settled.bridge.tokens, store, hub, clock, ...tls });
            node.onClose(() => bridge.close());
            bridgeUrl = bridge.url;
            bridgeStatus = bridge.status;
          }
          return { receiverUrl: `${settled.tls ? 'https' : 'http'}://${urlHost(settled.host)}:${port}${settled.path}` };
        },
        watch(metrics) {
          if (bridgeStatus) metrics.setBridgeSubscribers(bridgeStatus);
        },
      };
    },
  };
}
