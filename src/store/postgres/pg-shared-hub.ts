/**
 * Consoles on any instance see what every instance receives: each local `delivery` and
 * `attempt` event is sent as a small JSON NOTIFY on a channel of the store's schema, and what
 * other instances send is emitted on the local hub (never echoing this instance's own).
 * Best effort: a message lost while the connection is down is not replayed; the store has it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { EventHub, HubEvents } from '../../runtime/event-hub.js';
import { describePgError, parsePostgresUrl } from './pg-connection.js';

/** NOTIFY payloads must stay under 8000 bytes; a larger event is not shared. */
const MAX_PAYLOAD_BYTES = 7_900;
const BRIDGED = ['delivery', 'attempt'] as const;
type Bridged = (typeof BRIDGED)[number];

interface Message {
  /** The sending instance. */
  o: string;
  k: Bridged;
  p: HubEvents[Bridged];
}

export interface SharedHub {
  readonly channel: string;
  close(): Promise<void>;
}

export interface SharedHubOptions {
  /** Wait before reconnecting after the connection is lost (default 1 s). */
  reconnectMs?: number;
}

/** The channel of a schema: one per hookrelay database/schema, a valid identifier. */
export function channelOf(schema: string): string {
  return `hookrelay_${schema.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}

function isMessage(value: unknown): value is Message {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Partial<Message>;
  if (typeof m.o !== 'string' || !BRIDGED.includes(m.k as Bridged) || typeof m.p !== 'object' || m.p === null) return false;
  const p = m.p as Partial<HubEvents['delivery'] & HubEvents['attempt']>;
  return m.k === 'delivery' ? typeof p.delivery?.id === 'string' : typeof p.attempt?.receivedAt === 'number';
}

/**
 * Connects, LISTENs on the schema's channel and starts bridging. Rejects when the first
 * connection fails; later losses reconnect on their own.
 */
export async function shareHubThroughPostgres(url: string, hub: EventHub, options: SharedHubOptions = {}): Promise<SharedHub> {
  const parsed = parsePostgresUrl(url);
  if (!parsed.ok) throw new Error(`--store: ${parsed.message}`);
  const { connectionString } = parsed.settings;
  const origin = randomBytes(8).toString('hex');
  const reconnectMs = options.reconnectMs ?? 1_000;
  let client: pg.Client | null = null;
  let closed = false;
  let channel = '';
  let reemitting = false;
  let retry: NodeJS.Timeout | null = null;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString, application_name: 'hookrelay-events' });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return;
      let parsedMessage: unknown;
      try {
        parsedMessage = JSON.parse(message.payload);
      } catch {
        return;
      }
      if (!isMessage(parsedMessage) || parsedMessage.o === origin) return;
      reemitting = true;
      try {
        // Marked remote: this instance's metrics, logs and terminal count only its own arrivals.
        const payload = parsedMessage.k === 'attempt' ? { ...(parsedMessage.p as object), remote: true } : parsedMessage.p;
        hub.emit(parsedMessage.k, payload as never);
      } finally {
        reemitting = false;
      }
    });
    await next.connect();
    if (!channel) {
      const { rows } = await next.query<{ schema: string }>('SELECT current_schema() AS schema');
      channel = channelOf(rows[0]?.schema ?? 'public');
    }
    await next.query(`LISTEN "${channel}"`);
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
  }

  function lost(which: pg.Client): void {
    if (client !== which) return;
    client = null;
    void which.end().catch(() => {});
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().catch(() => scheduleReconnect());
    }, reconnectMs);
    retry.unref();
  }

  function publish(kind: Bridged, payload: HubEvents[Bridged]): void {
    if (reemitting || !client) return;
    const text = JSON.stringify({ o: origin, k: kind, p: payload } satisfies Message);
    if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) return;
    // One query at a time on a client (pg 9 refuses overlapping ones): notifies queue in order.
    const target = client;
    notifying = notifying
      .then(() => target.query('SELECT pg_notify($1, $2)', [channel, text]))
      .then(
        () => {},
        () => {
          /* the connection is going; 'error'/'end' reconnects */
        },
      );
  }
  let notifying: Promise<void> = Promise.resolve();

  try {
    await connect();
  } catch (err) {
    throw new Error(`cannot listen for other instances' events: ${describePgError(err)}`, { cause: err });
  }
  const offs = BRIDGED.map((kind) => hub.on(kind, (payload) => publish(kind, payload)));

  return {
    channel,
    async close() {
      closed = true;
      offs.forEach((off) => off());
      if (retry) clearTimeout(retry);
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
