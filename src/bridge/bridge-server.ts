/**
 * The public side of the bridge: a listener of its own (never the receiver's, never the
 * console's) that streams stored deliveries to named, token-holding subscribers. Each subscriber
 * has a durable cursor in the store; on connect it gets the backlog after its cursor in sequence
 * order, then live deliveries, at most `credit` unacknowledged at a time. A client acknowledges
 * only after its own commit, and the server moves the cursor only after its own.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOL, CLOSE, closeReason, encodeServerFrame, isSubscriberName, parseClientFrame } from '../core/bridge-protocol.js';
import type { StoredDelivery } from '../core/records.js';
import type { EventHub } from '../runtime/event-hub.js';
import { urlHost } from '../runtime/hosts.js';
import type { DeliveryStore } from '../store/store.js';

export interface BridgeToken {
  /** Shown in logs instead of the token. */
  name: string;
  token: string;
  /** Trigger globs this token may receive; empty: every trigger. */
  triggers: string[];
}

export interface BridgeServerOptions {
  host: string;
  port: number;
  tokens: readonly BridgeToken[];
  store: DeliveryStore;
  hub: EventHub;
  clock: () => number;
  /** Unacknowledged deliveries in flight per subscriber (default 64). */
  credit?: number;
  /** Ping interval; a peer silent for three intervals is dead (default 15 s). */
  pingMs?: number;
  /** `--tls-cert`/`--tls-key` (PEM, already checked): serve wss:// instead of ws://. */
  tls?: { cert: string; key: string };
}

export interface BridgeServer {
  url: string;
  close(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Constant-time: every configured token is compared, whichever matches. */
function findToken(tokens: readonly BridgeToken[], presented: string | undefined): BridgeToken | null {
  if (!presented) return null;
  const given = digest(presented);
  let found: BridgeToken | null = null;
  for (const token of tokens) if (timingSafeEqual(digest(token.token), given) && !found) found = token;
  return found;
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${reason.length}\r\n\r\n${reason}`);
}

export async function startBridgeServer(options: BridgeServerOptions): Promise<BridgeServer> {
  const { store, hub, clock } = options;
  const credit = options.credit ?? 64;
  const pingMs = options.pingMs ?? 15_000;
  const sessions = new Map<string, Session>();
  const answer: RequestListener = (_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end(`the bridge speaks WebSocket (${BRIDGE_PROTOCOL}) at ${BRIDGE_PATH}\n`);
  };
  const http: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, answer) : createServer(answer);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, handleProtocols: (offered) => (offered.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false) });

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const path = (req.url ?? '').split('?')[0];
    if (path !== BRIDGE_PATH) return refuseUpgrade(socket, 404, `the bridge is at ${BRIDGE_PATH}`);
    const auth = req.headers.authorization;
    const token = findToken(options.tokens, typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined);
    if (!token) return refuseUpgrade(socket, 401, 'a valid bridge token is required');
    const name = req.headers['x-hookrelay-subscriber'];
    if (typeof name !== 'string' || !isSubscriberName(name)) return refuseUpgrade(socket, 400, 'x-hookrelay-subscriber must be a name of letters, digits, dots, dashes and underscores');
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (!protocols.includes(BRIDGE_PROTOCOL)) return refuseUpgrade(socket, 400, `this bridge speaks ${BRIDGE_PROTOCOL}`);
    // A subscriber belongs to its token: the same name under another token is another subscriber,
    // so no token can move a cursor it was not given.
    const key = `${token.name}/${name}`;
    wss.handleUpgrade(req, socket, head, (ws) => {
      // One connection per subscriber: a reconnect replaces the old one, which may be half-dead.
      sessions.get(key)?.ws.close(CLOSE.goingAway, 'replaced by a new connection of this subscriber');
      const session = new Session(ws, key, token, { store, hub, clock, credit, pingMs });
      sessions.set(key, session);
      ws.on('close', () => {
        if (sessions.get(key) === session) sessions.delete(key);
      });
      session.start();
    });
  });

  const unsubscribe = hub.on('delivery', () => {
    for (const session of sessions.values()) session.wake();
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? Object.assign(new Error(`bridge port ${options.port} on ${options.host} is already in use: pass another --bridge-port`), { code: 'BRIDGE_PORT_IN_USE' }) : err),
    );
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `${options.tls ? 'wss' : 'ws'}://${urlHost(options.host)}:${port}${BRIDGE_PATH}`,
    async close() {
      unsubscribe();
      for (const session of sessions.values()) session.ws.close(CLOSE.goingAway, 'the server is stopping');
      await Promise.all([...sessions.values()].map((s) => s.stopped()));
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

interface SessionDeps {
  store: DeliveryStore;
  hub: EventHub;
  clock: () => number;
  credit: number;
  pingMs: number;
}

class Session {
  private sentUpTo = 0;
  private acked = 0;
  private inFlight = 0;
  private live = false;
  private pumping = false;
  private again = false;
  private closed = false;
  private alive = true;
  private acking: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private done: Promise<void>;
  private finish!: () => void;

  constructor(
    readonly ws: WebSocket,
    private readonly name: string,
    private readonly token: { name: string; triggers: string[] },
    private readonly deps: SessionDeps,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  stopped(): Promise<void> {
    return this.done;
  }

  async start(): Promise<void> {
    const { ws, deps } = this;
    ws.on('close', () => this.end());
    ws.on('error', () => ws.terminate());
    ws.on('pong', () => (this.alive = true));
    ws.on('message', (data, isBinary) => {
      try {
        this.onFrame(isBinary ? null : data.toString());
      } catch {
        ws.terminate(); // a frame must never take the server down
      }
    });
    this.timer = setInterval(() => {
      if (!this.alive) return ws.terminate();
      this.alive = false;
      ws.ping();
    }, deps.pingMs);
    this.timer.unref();
    try {
      const latest = await deps.store.latestDeliverySeq();
      // A subscriber seen for the first time starts at the newest delivery: it gets what comes next.
      const cursor = (await deps.store.bridgeCursor(this.name)) ?? (await deps.store.registerBridgeSubscriber(this.name, latest, deps.clock()));
      this.sentUpTo = this.acked = cursor.ackedSeq;
      if (this.closed) return;
      ws.send(encodeServerFrame({ type: 'hello', protocol: 1, subscriber: this.name, cursor: cursor.ackedSeq, latest, credit: deps.credit }));
      deps.hub.emit('notice', { level: 'info', message: `bridge: ${this.name} connected (token ${this.token.name}), ${Math.max(0, latest - cursor.ackedSeq)} behind` });
      this.wake();
    } catch (err) {
      ws.close(1011, 'the store cannot be read');
      deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name}: ${(err as Error).message}` });
    }
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.deps.hub.emit('notice', { level: 'info', message: `bridge: ${this.name} disconnected` });
    void this.acking.finally(() => this.finish());
  }

  private onFrame(text: string | null): void {
    const parsed = text === null ? ({ ok: false, message: 'binary frames are not part of the protocol' } as const) : parseClientFrame(text);
    if (!parsed.ok) return this.ws.close(CLOSE.badFrame, closeReason(parsed.message));
    const { seq } = parsed.frame;
    if (seq > this.sentUpTo) return this.ws.close(CLOSE.badFrame, `ack ${seq} is beyond the last delivery sent (${this.sentUpTo})`);
    if (seq <= this.acked) return;
    const frees = this.inFlightUpTo(seq);
    this.acked = seq;
    // The cursor moves in ack order, each only after the one before it is stored.
    this.acking = this.acking.then(async () => {
      try {
        await this.deps.store.ackBridge(this.name, seq, this.deps.clock());
        this.inFlight -= frees;
        this.wake();
      } catch (err) {
        this.ws.close(1011, 'the cursor could not be stored');
        this.deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name}: cannot store the cursor: ${(err as Error).message}` });
      }
    });
  }

  private readonly sent: number[] = [];

  /** How many sent deliveries an ack up to `seq` covers. */
  private inFlightUpTo(seq: number): number {
    let n = 0;
    while (this.sent.length > 0 && this.sent[0]! <= seq) {
      this.sent.shift();
      n++;
    }
    return n;
  }

  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async pump(): Promise<void> {
    const { store, credit } = this.deps;
    while (!this.closed) {
      const room = credit - this.inFlight;
      if (room <= 0) return;
      let batch: StoredDelivery[];
      try {
        batch = await store.deliveriesAfter(this.sentUpTo, room, this.token.triggers);
      } catch (err) {
        // Not a silent stall: the client reconnects and resumes from its cursor.
        this.ws.close(1011, 'the store cannot be read');
        this.deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name}: cannot read the store: ${(err as Error).message}` });
        return;
      }
      for (const d of batch) {
        if (this.closed) return;
        this.ws.send(encodeServerFrame({ type: 'delivery', delivery: { seq: d.seq, id: d.id, trigger: d.trigger, receivedAt: d.receivedAt, headers: d.headers, body: Buffer.from(d.rawBody), signature: d.signature, secretIndex: d.secretIndex, signatureTimestamp: d.signatureTimestamp } }));
        this.sent.push(d.seq);
        this.sentUpTo = d.seq;
        this.inFlight++;
      }
      if (batch.length < room) {
        if (!this.live) {
          this.live = true;
          this.ws.send(encodeServerFrame({ type: 'live' }));
        }
        return;
      }
    }
  }
}
