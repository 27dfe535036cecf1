/**
 * One connected subscriber: hello, then the backlog after its cursor in seq order, then `live` and
 * live deliveries, at most `credit` unacknowledged at a time and within a byte budget. Its acks
 * move the durable cursor (cursor-writes.ts), and the credit comes back only once that is stored.
 */
import type { BridgeSince } from '../core/bridge-since.js';
import type { DeliveryLog } from '../store/store.js';
import type { WebSocket } from 'ws';
import { bridgeVersion, CLOSE, closeReason, encodeServerFrame, parseClientFrame, type BridgeVersion } from '../core/bridge-protocol.js';
import type { StoredDelivery } from '../core/records.js';
import type { EventHub } from '../runtime/event-hub.js';
import { watchLiveness, type Liveness } from '../runtime/liveness.js';
import type { BridgeCursors } from '../store/store.js';
import { startBridgeSend, type BridgeSendSpan } from '../telemetry/tracing.js';
import { CursorWrites, type Freed } from './cursor-writes.js';
import { encodeForSubscriber, framePacker } from './delivery-frames.js';


/** A resume count reads at most this many rows (on the receiver's own thread with SQLite); past it, hello says no number. */
const MAX_COUNTED = 10_000;
/** `--since AGE` reads back at most this many deliveries to find where the window starts; an older start is cut here. */
export const MAX_SINCE_SCAN = 100_000;
/** Deliveries read per page while the window's start is found (with their bodies: kept small). */
const SINCE_PAGE = 50;

/** The seq a `--since` window starts after: a seq as given, or the one before the oldest delivery received within the age. */
async function sinceSeq(store: Pick<DeliveryLog, 'listDeliveries'>, since: BridgeSince, latest: number, now: number): Promise<number> {
  if ('seq' in since) return Math.min(since.seq, latest);
  const from = now - since.ageMs;
  let start = latest;
  let read = 0;
  let before: number | undefined;
  while (read < MAX_SINCE_SCAN) {
    const page = await store.listDeliveries({ limit: SINCE_PAGE, before });
    for (const d of page.items) {
      if (d.receivedAt < from) return start;
      start = d.seq - 1;
    }
    read += page.items.length;
    if (page.nextCursor === null) return start;
    before = page.nextCursor;
  }
  return start;
}
export interface SessionDeps {
  store: BridgeCursors & Pick<DeliveryLog, 'listDeliveries'>;
  hub: EventHub;
  clock: () => number;
  credit: number;
  maxBytes: number;
  pingMs: number;
  deadMs: number;
}

/** A frame's size before the first one is sent: what a small JSON delivery takes. */
const FIRST_FRAME_ESTIMATE = 4096;

export class SubscriberSession {
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
  /** Sent, not yet acknowledged, in order; `span` while tracing is on (telemetry/tracing.ts). */
  private readonly sent: Array<{ seq: number; bytes: number; span: BridgeSendSpan | null }> = [];
  private readonly cursor: CursorWrites;
  private live = false;
  private pumping = false;
  private again = false;
  private closed = false;
  /** Set once `hello` is sent: nothing may be sent before it, whatever wakes the session meanwhile. */
  private ready = false;
  private liveness: Liveness | null = null;
  private done: Promise<void>;
  private finish!: () => void;

  constructor(
    readonly ws: WebSocket,
    private readonly name: string,
    private readonly token: { name: string; triggers: string[] },
    private readonly deps: SessionDeps,
    /** `connect --since`: this connection starts from here when it is before the stored cursor. */
    private readonly since?: BridgeSince,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.version = bridgeVersion(ws.protocol) ?? 1;
    this.cursor = new CursorWrites({
      store: deps.store,
      name,
      clock: deps.clock,
      onStored: (freed) => {
        this.inFlight -= freed.frames;
        this.bytesInFlight -= freed.bytes;
        this.wake();
      },
      onFailed: (err) => {
        this.ws.close(1011, 'the cursor could not be stored');
        this.deps.hub.emit('notice', { level: 'warn', message: `bridge: ${this.name}: cannot store the cursor: ${err.message}` });
      },
    });
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
      // `--since` moves only this connection back: acks below the stored cursor leave it where it is.
      const start = this.since ? Math.min(cursor.ackedSeq, await sinceSeq(deps.store, this.since, latest, deps.clock())) : cursor.ackedSeq;
      this.sentUpTo = this.scannedUpTo = this.acked = start;
      this.cursor.loaded(cursor.updatedAt);
      // What this subscriber will be sent (its token's triggers only), when the store can say it cheaply:
      // best effort, so a backlog too long to count or a count that fails sends hello without it.
      const missed = await deps.store.countDeliveriesAfter(start, latest, this.token.triggers, MAX_COUNTED).catch(() => null);
      if (this.closed) return;
      ws.send(encodeServerFrame({ type: 'hello', protocol: this.version, subscriber: this.name, cursor: start, latest, credit: deps.credit, ...(missed === null ? {} : { missed }) }));
      this.ready = true;
      const again = start < cursor.ackedSeq ? `, sending again from seq ${start + 1} (--since)` : '';
      deps.hub.emit('notice', { level: 'info', message: `bridge: ${this.name} connected (token ${this.token.name}), ${missed ?? `up to ${Math.max(0, latest - start)}`} behind${again}` });
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
    for (const { span } of this.sent) span?.lost('disconnected before its ack');
    this.deps.hub.emit('notice', { level: 'info', message: `bridge: ${this.name} disconnected` });
    void this.cursor.settled().finally(() => this.finish());
  }

  private onFrame(text: string | null): void {
    const parsed = text === null ? ({ ok: false, message: 'binary frames are not part of the protocol' } as const) : parseClientFrame(text);
    if (!parsed.ok) return this.ws.close(CLOSE.badFrame, closeReason(parsed.message));
    const { seq } = parsed.frame;
    if (seq > this.sentUpTo) return this.ws.close(CLOSE.badFrame, `ack ${seq} is beyond the last delivery sent (${this.sentUpTo})`);
    if (seq <= this.acked) return;
    this.acked = seq;
    this.cursor.write(seq, this.sentUpToSeq(seq));
  }

  /** Takes the sent deliveries an ack up to `seq` covers off the list: how many, and their bytes. */
  private sentUpToSeq(seq: number): Freed {
    const freed = { frames: 0, bytes: 0 };
    while (this.sent.length > 0 && this.sent[0]!.seq <= seq) {
      const sent = this.sent.shift()!;
      sent.span?.acked();
      freed.bytes += sent.bytes;
      freed.frames++;
    }
    return freed;
  }

  /**
   * Writes the cursor again when it was last written `refreshMs` ago (by the store's clock) and no
   * write is under way: a connected subscriber with nothing to acknowledge stays "seen" for retention.
   */
  refresh(refreshMs: number): void {
    if (this.closed || !this.cursor.stale(refreshMs)) return;
    this.cursor.write(this.acked);
  }

  wake(): void {
    if (this.closed || !this.ready) return;
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
      if (this.closed) return;
      const frames = framePacker((frame) => this.ws.send(frame));
      for (const d of batch) {
        const encoded = encodeForSubscriber(d, this.version);
        this.frameEstimate = encoded.bytes;
        // Over the budget: it waits for an ack, and is read again then.
        if (this.inFlight > 0 && this.bytesInFlight + encoded.bytes > maxBytes) return frames.flush();
        frames.add(encoded);
        this.sent.push({ seq: d.seq, bytes: encoded.bytes, span: startBridgeSend(d, this.name) });
        this.sentUpTo = this.scannedUpTo = d.seq;
        this.inFlight++;
        this.bytesInFlight += encoded.bytes;
      }
      frames.flush();
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
    if (this.sent.length > 0 || this.cursor.busy() || this.scannedUpTo <= this.acked) return;
    this.acked = this.scannedUpTo;
    this.cursor.write(this.acked);
  }
}
