/**
 * The public side of the bridge: a listener of its own (bridge-listener.ts) that streams stored
 * deliveries to named, token-holding subscribers (subscriber-auth.ts), one session each
 * (subscriber-session.ts). Each subscriber has a durable cursor in the store; on connect it gets the
 * backlog after its cursor in sequence order, then live deliveries, at most `credit` unacknowledged
 * at a time. A client acknowledges only after its own commit, and the server moves the cursor only
 * after its own.
 */
import type { WebSocket } from 'ws';
import { CLOSE } from '../core/bridge-protocol.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { DeliveryStore } from '../store/store.js';
import { openBridgeListener } from './bridge-listener.js';
import { subscriberAuth, type BridgeToken, type Subscriber } from './subscriber-auth.js';
import { SubscriberSession } from './subscriber-session.js';

export type { BridgeToken } from './subscriber-auth.js';

export interface BridgeServerOptions {
  host: string;
  port: number;
  tokens: readonly BridgeToken[];
  store: DeliveryStore;
  hub: EventHub;
  clock: () => number;
  /** Unacknowledged deliveries in flight per subscriber (default 64). */
  credit?: number;
  /** Encoded bytes of unacknowledged deliveries in flight per subscriber (default 8 MiB; always at least one delivery). */
  maxBytesInFlight?: number;
  /** Ping interval (default 15 s). */
  pingMs?: number;
  /** A peer silent this long is dead and its session dropped (default three ping intervals, 45 s). */
  deadMs?: number;
  /**
   * How often a connected subscriber's cursor time is written again when it has nothing to
   * acknowledge (default 10 min), so retention keeps counting a quiet subscriber as seen.
   */
  refreshMs?: number;
  /** `--tls-cert`/`--tls-key` (PEM, already checked): serve wss:// instead of ws://. */
  tls?: { cert: string; key: string };
}

/** One known subscriber, for /metrics: its durable cursor, how far behind it is, and whether it is connected here. */
export interface BridgeSubscriberStatus {
  /** `token/name`, as the cursor is kept. */
  subscriber: string;
  ackedSeq: number;
  /** The newest stored seq minus the cursor. */
  lag: number;
  connected: boolean;
}

export interface BridgeServer {
  url: string;
  /** Every known subscriber, read from the store now. */
  status(): Promise<BridgeSubscriberStatus[]>;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BYTES_IN_FLIGHT = 8 * 1024 * 1024;

export async function startBridgeServer(options: BridgeServerOptions): Promise<BridgeServer> {
  const { store, hub, clock } = options;
  const credit = options.credit ?? 64;
  const maxBytes = Math.max(1, options.maxBytesInFlight ?? DEFAULT_MAX_BYTES_IN_FLIGHT);
  const pingMs = options.pingMs ?? 15_000;
  const deadMs = options.deadMs ?? pingMs * 3;
  const refreshMs = options.refreshMs ?? 600_000;
  const sessions = new Map<string, SubscriberSession>();

  const connected = (ws: WebSocket, { key, token, since }: Subscriber) => {
    // One connection per subscriber: a reconnect replaces the old one, which may be half-dead.
    sessions.get(key)?.ws.close(CLOSE.goingAway, 'replaced by a new connection of this subscriber');
    const session = new SubscriberSession(ws, key, token, { store, hub, clock, credit, maxBytes, pingMs, deadMs }, since);
    sessions.set(key, session);
    ws.on('close', () => {
      if (sessions.get(key) === session) sessions.delete(key);
    });
    void session.start();
  };
  const listener = await openBridgeListener({ host: options.host, port: options.port, tls: options.tls, admit: subscriberAuth(options.tokens, hub), onConnection: connected });

  const unsubscribe = hub.on('delivery', () => {
    for (const session of sessions.values()) session.wake();
  });
  // A quiet subscriber (nothing to acknowledge) would look gone to retention after --bridge-retain.
  const refresher = setInterval(() => {
    for (const session of sessions.values()) session.refresh(refreshMs);
  }, refreshMs);
  refresher.unref();

  return {
    url: listener.url,
    async status() {
      const [cursors, latest] = await Promise.all([store.bridgeCursors(), store.latestDeliverySeq()]);
      return cursors.map((c) => ({ subscriber: c.name, ackedSeq: c.ackedSeq, lag: Math.max(0, latest - c.ackedSeq), connected: sessions.has(c.name) }));
    },
    async close() {
      unsubscribe();
      clearInterval(refresher);
      for (const session of sessions.values()) session.ws.close(CLOSE.goingAway, 'the server is stopping');
      await Promise.all([...sessions.values()].map((s) => s.stopped()));
      await listener.close();
    },
  };
}
