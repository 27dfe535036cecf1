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

export type FeedMessageType = 'attempt' | 'delivery' | 'relay' | 'rules' | 'notice' | 'deleted';

export interface Feed {
  /** Numbers, serialises and sends a message to every client, and keeps it in the backlog. */
  publish(type: FeedMessageType, data: unknown): void;
  /**
   * Adds an open socket. `since`/`epoch` are what a reconnecting client saw last: it gets the
   * backlog after `since`, or `resync: true` when it missed more than the backlog holds.
   */
  attach(ws: WebSocket, resume: { since: number | null; epoch: string | null }): void;
  clientCount(): number;
  /** Terminates every client and stops the keepalive. */
  close(): void;
}

interface Client {
  ws: WebSocket;
  alive: boolean;
}

/** A message as numbered; `text` once it was serialised (its `data` is then let go). */
interface Message {
  n: number;
  type: FeedMessageType;
  data: unknown;
  text: string | null;
  bytes: number;
}

/** Messages made of the console's per-request views, each field clipped (views.ts): small enough to keep unserialised. */
const DEFERRABLE: ReadonlySet<FeedMessageType> = new Set(['attempt', 'delivery', 'relay']);

/** The message's JSON, made once, within `maxBytes` (past it: the message without its data, marked truncated). */
function serialised(m: Message, maxBytes: number): Message & { text: string } {
  if (m.text === null) {
    let text = JSON.stringify({ n: m.n, type: m.type, data: m.data });
    let bytes = Buffer.byteLength(text);
    if (bytes > maxBytes) {
      text = JSON.stringify({ n: m.n, type: m.type, data: null, truncated: true });
      bytes = Buffer.byteLength(text);
    }
    m.text = text;
    m.bytes = bytes;
    m.data = null;
  }
  return m as Message & { text: string };
}

export function createFeed(limits: FeedLimits, onDrop: (reason: string) => void): Feed {
  const clients = new Set<Client>();
  const backlog: Message[] = [];
  // Distinguishes this process's numbering from a previous run's, for reconnecting pages.
  const epoch = randomBytes(6).toString('base64url');
  let n = 0;
  // Messages of one event-loop turn travel as one frame (a JSON array): with many consoles and a
  // busy receiver, a frame per message per client would cost more than the intake itself.
  let pending: Array<Message & { text: string }> = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    const text = batch.length === 1 ? batch[0]!.text : `[${batch.map((m) => m.text).join(',')}]`;
    // Encoded once for every client: ws would otherwise encode the string again for each one.
    const frame = Buffer.from(text);
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
      const message: Message = { n, type, data, text: null, bytes: 0 };
      if (!DEFERRABLE.has(type)) serialised(message, limits.maxMessageBytes);
      backlog.push(message);
      if (backlog.length > limits.backlog) backlog.shift();
      // With messages still waiting for this turn's flush, this one joins them even if the last
      // client just left: a client that attaches in this turn gets the backlog only up to them.
      if (clients.size === 0 && pending.length === 0) return;
      if (pending.length === 0) setImmediate(flush);
      pending.push(serialised(message, limits.maxMessageBytes));
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
      // Messages still waiting for this turn's flush reach the new client with it.
      const flushedUpTo = pending[0] ? pending[0].n - 1 : n;
      const missed = backlog.filter((entry) => entry.n > after && entry.n <= flushedUpTo).map((entry) => serialised(entry, limits.maxMessageBytes));
      if (missed.length > 0) send(client, `[${missed.map((m) => m.text).join(',')}]`, missed.reduce((sum, m) => sum + m.bytes, missed.length + 1));
    },

    clientCount: () => clients.size,

    close() {
      clearInterval(timer);
      for (const client of clients) client.ws.terminate();
      clients.clear();
    },
  };
}
