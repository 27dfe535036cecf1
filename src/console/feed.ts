/**
 * The console's WebSocket feed: typed messages, numbered, with a small backlog for a console that
 * joins late or reconnects (`since`). A console must never slow intake or grow memory: each
 * message is serialised once, capped in size, and a client with more than `bufferCapBytes`
 * waiting is dropped instead of being waited for. With no console connected, a message is
 * serialised only if one joins while it is still in the backlog: the JSON of every message
 * cost the receiver ~6 µs a request that nobody read.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { FeedLimits } from './console-options.js';

export type FeedMessageType = 'attempt' | 'delivery' | 'relay' | 'rules' | 'notice' | 'deleted' | 'replayJob';

export interface Feed {
  /** Numbers a message and keeps it in the backlog; with a client attached, serialises it into the window's frame (sent by a timer, never from within this call). */
  publish(type: FeedMessageType, data: unknown): void;
  /**
   * Adds an open socket. `since`/`epoch` are what a reconnecting client saw last: it gets the
   * backlog after `since`, or `resync: true` when it missed more than the backlog holds.
   */
  attach(ws: WebSocket, resume: { since: number | null; epoch: string | null }): void;
  clientCount(): number;
  /** Terminates every client, stops the keepalive, and drops the window not yet sent. */
  close(): void;
}

interface Client {
  ws: WebSocket;
  alive: boolean;
}

/** A message as numbered; `json` once it was serialised (its `data` is then let go). */
interface Message {
  n: number;
  type: FeedMessageType;
  data: unknown;
  /** Its JSON as UTF-8. Bytes, not a string: joining a window's strings into one frame and encoding that cost ~7 µs a message. */
  json: Buffer | null;
}

/** Messages made of the console's per-request views, each field clipped (views.ts): small enough to keep unserialised. */
const DEFERRABLE: ReadonlySet<FeedMessageType> = new Set(['attempt', 'delivery', 'relay']);

/** The message's JSON, made once, within `maxBytes` (past it: the message without its data, marked truncated). */
function serialised(m: Message, maxBytes: number): Message & { json: Buffer } {
  if (m.json === null) {
    let json = Buffer.from(JSON.stringify({ n: m.n, type: m.type, data: m.data }));
    if (json.length > maxBytes) json = Buffer.from(JSON.stringify({ n: m.n, type: m.type, data: null, truncated: true }));
    m.json = json;
    m.data = null;
  }
  return m as Message & { json: Buffer };
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** Serialised messages as one frame: the JSON array of them, or a live message alone (the backlog goes as an array, even of one). */
function frameOf(messages: ReadonlyArray<Message & { json: Buffer }>, array: 'always' | 'of-several'): Buffer {
  if (messages.length === 1 && array === 'of-several') return messages[0]!.json;
  const parts: Buffer[] = [OPEN];
  for (const m of messages) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(m.json);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

export function createFeed(limits: FeedLimits, onDrop: (reason: string) => void): Feed {
  const clients = new Set<Client>();
  const backlog: Message[] = [];
  // Distinguishes this process's numbering from a previous run's, for reconnecting pages.
  const epoch = randomBytes(6).toString('base64url');
  let n = 0;
  // Messages of one flush window (limits.flushIntervalMs) travel as one frame (a JSON array): with
  // many consoles and a busy receiver, a frame per message per client would cost more than the
  // intake itself, and a frame per event-loop turn (one a group commit, ~190 a second to each
  // client under the bench's load) still cost ten consoles ~5 µs a request in sends.
  let pending: Array<Message & { json: Buffer }> = [];
  let pendingBytes = 0;
  // A window's frame goes out on the next turn once it holds this much: a frame stays near this size
  // (plus one turn's messages), far under a reading client's cap.
  const frameBytes = Math.max(1, Math.floor(limits.bufferCapBytes / 16));
  let flushTimer: NodeJS.Timeout | null = null;
  let flushSoon: NodeJS.Immediate | null = null;
  const flush = () => {
    if (flushTimer) clearTimeout(flushTimer);
    if (flushSoon) clearImmediate(flushSoon);
    flushTimer = flushSoon = null;
    const batch = pending;
    pending = [];
    pendingBytes = 0;
    if (batch.length === 0 || clients.size === 0) return;
    // One buffer for every client: ws would otherwise encode a string again for each one.
    const frame = frameOf(batch, 'of-several');
    for (const client of clients) send(client, frame, frame.length);
  };

  const drop = (client: Client, reason: string) => {
    if (!clients.delete(client)) return;
    client.ws.terminate();
    // Deferred: the drop may happen inside a hub emit, which must stay re-entrancy free.
    setImmediate(() => onDrop(reason));
  };

  const send = (client: Client, data: string | Buffer, bytes: number) => {
    if (client.ws.readyState !== client.ws.OPEN) return;
    if (client.ws.bufferedAmount + bytes > limits.bufferCapBytes) {
      drop(client, `console feed: dropped a client that is not reading (more than ${limits.bufferCapBytes} bytes waiting)`);
      return;
    }
    // A text frame either way: the page parses JSON.
    client.ws.send(data, { binary: false });
  };

  const timer = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        drop(client, 'console feed: dropped a client that did not answer the keepalive ping');
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }, limits.pingIntervalMs);
  timer.unref();

  return {
    publish(type, data) {
      n += 1;
      // Callers hand over fresh objects (views made for the feed), so a message serialised later
      // reads the same. Only the per-request views, whose fields are clipped, wait unserialised:
      // a rules message can carry fault answers of 64 KiB each, and is cut to its limit now.
      const message: Message = { n, type, data, json: null };
      if (!DEFERRABLE.has(type)) serialised(message, limits.maxMessageBytes);
      backlog.push(message);
      if (backlog.length > limits.backlog) backlog.shift();
      // With messages still waiting for the flush, this one joins them even if the last client
      // just left: a client that attaches before the flush gets the backlog only up to them.
      if (clients.size === 0 && pending.length === 0) return;
      const ready = serialised(message, limits.maxMessageBytes);
      pending.push(ready);
      pendingBytes += ready.json.length;
      // Deferred either way: publish runs inside a hub emit, which must stay re-entrancy free.
      if (pendingBytes >= frameBytes) flushSoon ??= setImmediate(flush);
      else flushTimer ??= setTimeout(flush, limits.flushIntervalMs);
    },

    attach(ws, resume) {
      const client: Client = { ws, alive: true };
      clients.add(client);
      // A socket error (bad frame, too-large message, reset) closes the socket; it must never throw.
      ws.on('error', () => clients.delete(client));
      ws.on('close', () => clients.delete(client));
      ws.on('pong', () => {
        client.alive = true;
      });
      // The page sends nothing; anything it does send is ignored (and capped by maxPayload).
      const first = backlog[0]?.n ?? n + 1;
      const known = resume.since !== null && resume.epoch === epoch && resume.since <= n;
      const resync = resume.since !== null && (!known || resume.since < first - 1);
      const after = known && !resync ? resume.since! : 0;
      const hello = JSON.stringify({ type: 'hello', data: { epoch, n, resync } });
      send(client, hello, Buffer.byteLength(hello));
      // Messages still waiting for the flush reach the new client with it.
      const flushedUpTo = pending[0] ? pending[0].n - 1 : n;
      const missed = backlog.filter((entry) => entry.n > after && entry.n <= flushedUpTo).map((entry) => serialised(entry, limits.maxMessageBytes));
      if (missed.length > 0) {
        const frame = frameOf(missed, 'always');
        send(client, frame, frame.length);
      }
    },

    clientCount: () => clients.size,

    close() {
      clearInterval(timer);
      if (flushTimer) clearTimeout(flushTimer);
      if (flushSoon) clearImmediate(flushSoon);
      flushTimer = flushSoon = null;
      pending = [];
      pendingBytes = 0;
      for (const client of clients) client.ws.terminate();
      clients.clear();
    },
  };
}
