/**
 * The public side of the bridge: a listener of its own (never the receiver's, never the
 * console's) that streams stored deliveries to named, token-holding subscribers. Each subscriber
 * has a durable cursor in the store; on connect it gets the backlog after its cursor in sequence
 * order, then live deliveries, at most `credit` unacknowledged at a time. A client acknowledges
 * only after its own commit, and the server moves the cursor only after its own.
 */
import { watchLiveness, type Liveness } from '../runtime/liveness.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOLS, bridgeVersion, CLOSE, closeReason, encodeDeliveryFrame, encodeServerFrame, fitsDeliveryFrame, isSubscriberName, parseClientFrame, type BridgeDelivery, type BridgeVersion } from '../core/bridge-protocol.js';
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

/** At most one notice of refused tokens this often. */
const REFUSAL_NOTICE_MS = 10_000;

export async function startBridgeServer(options: BridgeServerOptions): Promise<BridgeServer> {
  const { store, hub, clock } = options;
  const credit = options.credit ?? 64;
  const maxBytes = Math.max(1, options.maxBytesInFlight ?? DEFAULT_MAX_BYTES_IN_FLIGHT);
  const pingMs = options.pingMs ?? 15_000;
  const deadMs = options.deadMs ?? pingMs * 3;
  const refreshMs = options.refreshMs ?? 600_000;
  const sessions = new Map<string, Session>();
  // A refused token is worth an operator's notice, but a client retrying (or a scan) must not flood the
  // log: one notice per REFUSAL_NOTICE_MS, which counts the refusals it did not print.
  let refusalNoticeAt = -Infinity;
  let refusalsUnnoticed = 0;
  const noticeRefusal = (req: IncomingMessage) => {
    const now = performance.now();
    if (now - refusalNoticeAt < REFUSAL_NOTICE_MS) {
      refusalsUnnoticed++;
      return;
    }
    const more = refusalsUnnoticed > 0 ? ` (and ${refusalsUnnoticed} more since the last notice)` : '';
    refusalNoticeAt = now;
    refusalsUnnoticed = 0;
    // Behind the TLS proxy of docs/deploy.md the socket's address is the proxy's: its X-Forwarded-For too (sender-supplied, shown as text).
    const forwarded = req.headers['x-forwarded-for'];
    const via = typeof forwarded === 'string' ? ` (forwarded for ${forwarded.slice(0, 100).replace(/[^\x20-\x7e]/g, '?')})` : '';
    hub.emit('notice', { level: 'warn', message: `bridge: refused a client from ${req.socket.remoteAddress ?? 'an unknown address'}${via}: no valid bridge token${more}` });
  };
  const answer: RequestListener = (_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end(`the bridge speaks WebSocket (${BRIDGE_PROTOCOLS.join(' or ')}) at ${BRIDGE_PATH}\n`);
  };
  const http: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, answer) : createServer(answer);
  // The newest version the client offers (BRIDGE_PROTOCOLS is newest first).
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, handleProtocols: (offered) => BRIDGE_PROTOCOLS.find((p) => offered.has(p)) ?? false });

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const path = (req.url ?? '').split('?')[0];
    if (path !== BRIDGE_PATH) return refuseUpgrade(socket, 404, `the bridge is at ${BRIDGE_PATH}`);
    const auth = req.headers.authorization;
    const token = findToken(options.tokens, typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined);
    if (!token) {
      noticeRefusal(req);
      return refuseUpgrade(socket, 401, 'a valid bridge token is required');
    }
    const name = req.headers['x-hookrelay-subscriber'];
    if (typeof name !== 'string' || !isSubscriberName(name)) return refuseUpgrade(socket, 400, 'x-hookrelay-subscriber must be a name of letters, digits, dots, dashes and underscores');
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (!BRIDGE_PROTOCOLS.some((p) => protocols.includes(p))) return refuseUpgrade(socket, 400, `this bridge speaks ${BRIDGE_PROTOCOLS.join(' or ')}`);
    // A subscriber belongs to its token: the same name under another token is another subscriber,
    // so no token can move a cursor it was not given.
    const key = `${token.name}/${name}`;
    wss.handleUpgrade(req, socket, head, (ws) => {
      // One connection per subscriber: a reconnect replaces the old one, which may be half-dead.
      sessions.get(key)?.ws.close(CLOSE.goingAway, 'replaced by a new connection of this subscriber');
      const session = new Session(ws, key, token, { store, hub, clock, credit, maxBytes, pingMs, deadMs });
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
  // A quiet subscriber (nothing to acknowledge) would look gone to retention after --bridge-retain.
  const refresher = setInterval(() => {
    for (const session of sessions.values()) session.refresh(refreshMs);
  }, refreshMs);
  refresher.unref();

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
    async status() {
      const [cursors, latest] = await Promise.all([store.bridgeCursors(), store.latestDeliverySeq()]);
      return cursors.map((c) => ({ subscriber: c.name, ackedSeq: c.ackedSeq, lag: Math.max(0, latest - c.ackedSeq), connected: sessions.has(c.name) }));
    },
    async close() {
      unsubscribe();
      clearInterval(refresher);
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
  maxBytes: number;
  pingMs: number;
  deadMs: number;
}

/** Records of one read are joined into frames of at most this many bytes (one record over it goes alone). */
const RECORDS_PER_FRAME_BYTES = 1024 * 1024;

/** A frame's size before the first one is sent: what a small JSON delivery takes. */
const FIRST_FRAME_ESTIMATE = 4096;

class Session {
  /** The last delivery sent (acks beyond it are refused). */
  private sentUpTo = 0;
  /** Every row up to here was read: sent, or not for this subscriber (its token's triggers). */
  private scannedUpTo = 0;
  /** The cursor as this session has moved it (acks, and skips over rows this subscriber cannot see). */
  private acked = 0;
  /** Sent and not yet freed by a stored ack: deliveries and their encoded bytes. */
  private inFlight = 0;
  private bytesInFlight = 0;
  private frameEstimate = FIRST_FRAME_ESTIMATE;
  /** The negotiated version: 2 sends deliveries as binary records, those of one read in one frame; 1 as a JSON frame each. */
  private readonly version: BridgeVersion;
  /** Sent, not yet acknowledged, in order. */
  private readonly sent: Array<{ seq: number; bytes: number }> = [];
  private live = false;
  private pumping = false;
  private again = false;
  private closed = false;
  /** Cursor writes queued or running, and when the cursor was last written (the store's clock). */
  private writes = 0;
  private writtenAt = 0;
  private acking: Promise<void> = Promise.resolve();
  private liveness: Liveness | null = null;
  private done: Promise<void>;
  private finish!: () => void;

  constructor(
    readonly ws: WebSocket,
    private readonly name: string,
    private readonly token: { name: string; triggers: string[] },
    private readonly deps: SessionDeps,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.version = bridgeVersion(ws.protocol) ?? 1;
  }

  stopped(): Promise<void> {
    return this.done;
  }

  async start(): Promise<void> {
    const { ws, deps } = this;
    ws.on('close', () => this.end());
    ws.on('error', () => ws.terminate());
    this.liveness = watchLiveness({
      pingMs: deps.pingMs,
      deadMs: deps.deadMs,
      isOpen: () => ws.readyState === ws.OPEN,
      ping: () => ws.ping(),
      onSilent: () => {
        deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name} silent for ${Math.round(deps.deadMs / 1000)} s, dropping its connection` });
        ws.terminate();
      },
    });
    ws.on('pong', () => this.liveness?.heard());
    ws.on('message', (data, isBinary) => {
      this.liveness?.heard();
      try {
        this.onFrame(isBinary ? null : data.toString());
      } catch {
        ws.terminate(); // a frame must never take the server down
      }
    });
    try {
      const latest = await deps.store.latestDeliverySeq();
      // A subscriber seen for the first time starts at the newest delivery: it gets what comes next.
      const cursor = (await deps.store.bridgeCursor(this.name)) ?? (await deps.store.registerBridgeSubscriber(this.name, latest, deps.clock()));
      this.sentUpTo = this.scannedUpTo = this.acked = cursor.ackedSeq;
      this.writtenAt = cursor.updatedAt;
      if (this.closed) return;
      ws.send(encodeServerFrame({ type: 'hello', protocol: this.version, subscriber: this.name, cursor: cursor.ackedSeq, latest, credit: deps.credit }));
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
    this.liveness?.stop();
    this.deps.hub.emit('notice', { level: 'info', message: `bridge: ${this.name} disconnected` });
    void this.acking.finally(() => this.finish());
  }

  private onFrame(text: string | null): void {
    const parsed = text === null ? ({ ok: false, message: 'binary frames are not part of the protocol' } as const) : parseClientFrame(text);
    if (!parsed.ok) return this.ws.close(CLOSE.badFrame, closeReason(parsed.message));
    const { seq } = parsed.frame;
    if (seq > this.sentUpTo) return this.ws.close(CLOSE.badFrame, `ack ${seq} is beyond the last delivery sent (${this.sentUpTo})`);
    if (seq <= this.acked) return;
    this.acked = seq;
    this.writeCursor(seq, this.sentUpToSeq(seq));
  }

  /** Takes the sent deliveries an ack up to `seq` covers off the list: how many, and their bytes. */
  private sentUpToSeq(seq: number): { frames: number; bytes: number } {
    const freed = { frames: 0, bytes: 0 };
    while (this.sent.length > 0 && this.sent[0]!.seq <= seq) {
      freed.bytes += this.sent.shift()!.bytes;
      freed.frames++;
    }
    return freed;
  }

  /** The write waiting for its turn behind the one in flight: acks that arrive meanwhile fold into it. */
  private queuedWrite: { seq: number; frames: number; bytes: number } | null = null;

  /**
   * The cursor moves in order, each write only after the one before it is stored; credit returns
   * only then. While one write is in flight, the acks that arrive fold into the next one: a cursor
   * write is a durable commit, and one per frame held a catch-up to the commit rate (≈250 frames/s
   * on a loaded 2-core machine) where one per round trip keeps pace with the client.
   */
  private writeCursor(seq: number, freed: { frames: number; bytes: number } = { frames: 0, bytes: 0 }): void {
    if (this.queuedWrite) {
      this.queuedWrite.seq = Math.max(this.queuedWrite.seq, seq);
      this.queuedWrite.frames += freed.frames;
      this.queuedWrite.bytes += freed.bytes;
      return;
    }
    const entry = { seq, frames: freed.frames, bytes: freed.bytes };
    this.queuedWrite = entry;
    this.writes++;
    this.acking = this.acking.then(async () => {
      if (this.queuedWrite === entry) this.queuedWrite = null; // its turn: later acks start the next write
      try {
        const now = this.deps.clock();
        await this.deps.store.ackBridge(this.name, entry.seq, now);
        this.writtenAt = now;
        this.inFlight -= entry.frames;
        this.bytesInFlight -= entry.bytes;
        this.writes--;
        this.wake();
      } catch (err) {
        this.writes--;
        this.ws.close(1011, 'the cursor could not be stored');
        this.deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name}: cannot store the cursor: ${(err as Error).message}` });
      }
    });
  }

  /**
   * Writes the cursor again when it was last written `refreshMs` ago (by the store's clock) and no
   * write is under way: a connected subscriber with nothing to acknowledge stays "seen" for retention.
   */
  refresh(refreshMs: number): void {
    if (this.closed || this.writes > 0 || this.deps.clock() - this.writtenAt < refreshMs) return;
    this.writeCursor(this.acked);
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

  /**
   * Sends what is stored after what was read, within the credit (deliveries) and the byte budget
   * (their encoded bytes; one delivery always goes, however big). Reads no more rows than the
   * budget's room at the size of the last delivery, so big bodies are not read `credit` at a time.
   */
  private async pump(): Promise<void> {
    const { store, credit, maxBytes } = this.deps;
    while (!this.closed) {
      const room = credit - this.inFlight;
      const byteRoom = maxBytes - this.bytesInFlight;
      if (room <= 0 || (this.inFlight > 0 && byteRoom <= 0)) return;
      const limit = Math.max(1, Math.min(room, Math.floor(byteRoom / this.frameEstimate)));
      let batch: StoredDelivery[];
      let latest: number;
      try {
        // Read before the rows: every row up to `latest` is in the read that follows.
        latest = await store.latestDeliverySeq();
        batch = await store.deliveriesAfter(this.scannedUpTo, limit, this.token.triggers);
      } catch (err) {
        // Not a silent stall: the client reconnects and resumes from its cursor.
        this.ws.close(1011, 'the store cannot be read');
        this.deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name}: cannot read the store: ${(err as Error).message}` });
        return;
      }
      // Version 2: the records of one read travel in one binary frame (up to RECORDS_PER_FRAME_BYTES).
      const records: Buffer[] = [];
      let recordBytes = 0;
      const sendRecords = () => {
        if (records.length === 0) return;
        this.ws.send(records.length === 1 ? records[0]! : Buffer.concat(records, recordBytes));
        records.length = 0;
        recordBytes = 0;
      };
      if (this.closed) return;
      for (const d of batch) {
        const delivery: BridgeDelivery = { seq: d.seq, id: d.id, trigger: d.trigger, receivedAt: d.receivedAt, headers: d.headers, body: Buffer.from(d.rawBody.buffer, d.rawBody.byteOffset, d.rawBody.byteLength), signature: d.signature, secretIndex: d.secretIndex, signatureTimestamp: d.signatureTimestamp };
        const record = this.version === 2 && fitsDeliveryFrame(delivery) ? encodeDeliveryFrame(delivery) : null;
        const frame = record ?? encodeServerFrame({ type: 'delivery', delivery });
        const bytes = typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
        this.frameEstimate = bytes;
        // Over the budget: it waits for an ack, and is read again then.
        if (this.inFlight > 0 && this.bytesInFlight + bytes > maxBytes) return sendRecords();
        if (record) {
          if (recordBytes + bytes > RECORDS_PER_FRAME_BYTES) sendRecords();
          records.push(record);
          recordBytes += bytes;
        } else {
          sendRecords(); // in order: what came before this JSON frame leaves first
          this.ws.send(frame);
        }
        this.sent.push({ seq: d.seq, bytes });
        this.sentUpTo = this.scannedUpTo = d.seq;
        this.inFlight++;
        this.bytesInFlight += bytes;
      }
      sendRecords();
      if (batch.length < limit) {
        // The read reached the end: nothing up to `latest` is left for this subscriber.
        this.scannedUpTo = Math.max(this.scannedUpTo, latest);
        this.skipUnseen();
        if (!this.live) {
          this.live = true;
          this.ws.send(encodeServerFrame({ type: 'live' }));
        }
        return;
      }
    }
  }

  /**
   * A subscriber limited to some triggers acknowledges only what it is sent; the rows it cannot
   * see would stay after its cursor, be read again from there on every wake, and hold retention.
   * So once everything sent is acknowledged, the server moves the cursor past what it read for it
   * (one write at a time: a long run of other deliveries is many wakes, a few writes).
   */
  private skipUnseen(): void {
    if (this.sent.length > 0 || this.writes > 0 || this.scannedUpTo <= this.acked) return;
    this.acked = this.scannedUpTo;
    this.writeCursor(this.acked);
  }
}
