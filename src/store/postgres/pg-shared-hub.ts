/**
 * Consoles on any instance see what every instance receives: each local `delivery` and `attempt`
 * event is shared through NOTIFY on a channel of the store's schema, and what other instances send
 * is emitted on the local hub (never echoing this instance's own).
 *
 * Coalesced: the events of one event-loop turn (a commit group's deliveries and attempts are
 * announced in the turn their COMMIT returned), and those emitted while the previous NOTIFY was in
 * flight, go out in ONE statement, so at most one notifying transaction per commit group. A commit
 * that notifies holds a lock on the whole database cluster until it ends; here it is a transaction
 * of its own on this connection, with `synchronous_commit` off (a wake-up need not be durable), so it
 * never waits for a WAL flush while holding that lock, and the accepting transactions carry none.
 * Its events travel in as few payloads as fit under NOTIFY's 8000 bytes, in the order they were
 * emitted; each payload carries the highest delivery seq in it (`s`). A delivery travels as its
 * summary only (what the local event carries less `rawBody` and `rawHeaders`, with `headers`
 * empty as there): another instance's relay and bridge only need the wake-up (the relay reads the
 * shared outbox when a `delivery` comes without a body; the bridge server reads the store up to
 * its horizon), and a console shows the summary as it did before. An attempt travels without its
 * request id (only this instance's logs read it).
 *
 * Shared only with someone to share with: each instance says hello when it connects (every one
 * that hears it answers) and says it is there every heartbeat (an empty message), and one that has
 * heard from no other for `aloneAfterMs` (after a grace of `startGraceMs` from its hello) publishes
 * nothing, so one instance alone pays for no JSON, no NOTIFY and no reading back of its own. One
 * that starts is heard, and hears the others, within a round trip (a `hookrelay events wait` on the
 * store says hello as an instance does). An instance of an earlier version, which sends no hello
 * or heartbeat, is heard only when it sends events.
 *
 * Best effort: a message lost while the connection is down, or sent in the moment before an
 * instance that just started is heard, is not replayed (the store has it; the relay polls the
 * outbox, `events wait` polls the store), an event larger than a payload is not shared, and past
 * MAX_PENDING events waiting for the connection the newest are not shared.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { EventHub, HubEvents } from '../../runtime/event-hub.js';
import { describePgError, parsePostgresUrl } from './pg-connection.js';

/** NOTIFY payloads must stay under 8000 bytes; a larger event is not shared. */
const MAX_PAYLOAD_BYTES = 7_900;
/** Events waiting for the NOTIFY in flight; past this, new ones are not shared (the store has them). */
const MAX_PENDING = 20_000;
const BRIDGED = ['delivery', 'attempt'] as const;
type Bridged = (typeof BRIDGED)[number];

/** Version 1 (before coalescing): one event a payload. Still read, from an instance not yet upgraded. */
interface MessageV1 {
  /** The sending instance. */
  o: string;
  k: Bridged;
  p: HubEvents[Bridged];
}

type DeliverySummary = HubEvents['delivery']['delivery'];
/** One event of a version 2 payload: a delivery's summary, or an attempt with its skipVerify flag. */
type Item = ['d', DeliverySummary] | ['a', HubEvents['attempt']['attempt'], boolean];

/** Version 2: the events of one flush that fit in one payload, in the order they were emitted. */
interface MessageV2 {
  o: string;
  v: 2;
  /** The highest delivery seq among the payload's events (0 when it holds none). */
  s: number;
  e: Item[];
  /** A hello: the sender just started listening, and every instance that hears it answers (an empty message). */
  h?: 1;
}

/** Every payload of one flush in one statement: JSON never holds a raw newline, so it separates them. */
const NOTIFY_SQL = "SELECT pg_notify($1, p) FROM unnest(string_to_array($2, E'\\n')) AS p";

export interface SharedHub {
  readonly channel: string;
  /** Whether this instance shares its events now: another was heard from lately, or it is still in its start grace. */
  sharing(): boolean;
  close(): Promise<void>;
}

export interface SharedHubOptions {
  /** Wait before reconnecting after the connection is lost (default 1 s). */
  reconnectMs?: number;
  /** How often this instance says it is there (an empty message), so that others keep sharing (default 10 s). */
  heartbeatMs?: number;
  /** Events are shared only while another instance was heard from within this long (default 35 s: three heartbeats missed and a half). */
  aloneAfterMs?: number;
  /** And for this long after connecting, while the others' answers to its hello come in (default 2 s). */
  startGraceMs?: number;
}

/** The channel of a schema: one per hookrelay database/schema, a valid identifier. */
export function channelOf(schema: string): string {
  return `hookrelay_${schema.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isDelivery = (value: unknown): value is DeliverySummary => isObject(value) && typeof value.id === 'string' && typeof value.seq === 'number';
const isAttempt = (value: unknown): value is HubEvents['attempt']['attempt'] => isObject(value) && typeof value.receivedAt === 'number';

function isMessageV1(value: unknown): value is MessageV1 {
  if (!isObject(value)) return false;
  const m = value as Partial<MessageV1>;
  if (typeof m.o !== 'string' || !BRIDGED.includes(m.k as Bridged) || !isObject(m.p)) return false;
  const p = m.p as Partial<HubEvents['delivery'] & HubEvents['attempt']>;
  return m.k === 'delivery' ? isDelivery(p.delivery) : isAttempt(p.attempt);
}

const isMessageV2 = (value: unknown): value is MessageV2 => isObject(value) && value.v === 2 && typeof value.o === 'string' && Array.isArray(value.e);

/**
 * The payloads of one flush: each event serialised once, packed in order into payloads under
 * MAX_PAYLOAD_BYTES, each with the highest delivery seq it holds. An event too large alone is left out.
 */
export function packPayloads(origin: string, items: readonly Item[]): string[] {
  const payloads: string[] = [];
  // {"o":"…","v":2,"s":<seq>,"e":[…]}: the frame around the events, with room for the seq's digits.
  const frame = Buffer.byteLength(JSON.stringify({ o: origin, v: 2, s: 0, e: [] })) + 16;
  let texts: string[] = [];
  let bytes = frame;
  let highest = 0;
  const close = () => {
    if (texts.length > 0) payloads.push(`{"o":${JSON.stringify(origin)},"v":2,"s":${highest},"e":[${texts.join(',')}]}`);
    texts = [];
    bytes = frame;
    highest = 0;
  };
  for (const item of items) {
    const text = JSON.stringify(item);
    const size = Buffer.byteLength(text) + 1;
    if (frame + size > MAX_PAYLOAD_BYTES) continue;
    if (bytes + size > MAX_PAYLOAD_BYTES) close();
    texts.push(text);
    bytes += size;
    if (item[0] === 'd' && item[1].seq > highest) highest = item[1].seq;
  }
  close();
  return payloads;
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
  // Every payload this instance sends starts so (JSON.stringify puts "o" first): its own come back unparsed.
  const ownPrefix = `{"o":${JSON.stringify(origin)}`;
  const reconnectMs = options.reconnectMs ?? 1_000;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const aloneAfterMs = options.aloneAfterMs ?? 35_000;
  const startGraceMs = options.startGraceMs ?? 2_000;
  let startedAt = Date.now();
  // When another instance was last heard from (any message of another origin).
  let heardAt = Number.NEGATIVE_INFINITY;
  const anyoneElse = (): boolean => {
    const now = Date.now();
    return now - heardAt < aloneAfterMs || now - startedAt < startGraceMs;
  };
  let client: pg.Client | null = null;
  let closed = false;
  let channel = '';
  let reemitting = false;
  let retry: NodeJS.Timeout | null = null;

  /** Another instance's events, on this hub: attempts marked remote (this instance's metrics, logs and terminal count only their own). */
  function reemit(payload: string): void {
    let message: unknown;
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    reemitting = true;
    try {
      if (isMessageV2(message)) {
        if (message.o === origin) return;
        heardAt = Date.now();
        // A newcomer: it shares with this instance once it hears from it.
        if (message.h === 1) sayHere(false);
        for (const item of message.e) {
          if (!Array.isArray(item)) continue;
          if (item[0] === 'd' && isDelivery(item[1])) hub.emit('delivery', { delivery: { ...item[1], headers: [] } });
          else if (item[0] === 'a' && isAttempt(item[1])) hub.emit('attempt', { attempt: item[1], skipVerify: item[2] === true, remote: true });
        }
      } else if (isMessageV1(message) && message.o !== origin) {
        heardAt = Date.now();
        if (message.k === 'attempt') hub.emit('attempt', { ...(message.p as HubEvents['attempt']), remote: true });
        // Only the summary: a body an older instance sent along would read as a local delivery's.
        else hub.emit('delivery', { delivery: (message.p as HubEvents['delivery']).delivery });
      }
    } finally {
      reemitting = false;
    }
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString, application_name: 'hookrelay-events' });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      if (message.channel !== channel || !message.payload || message.payload.startsWith(ownPrefix)) return;
      reemit(message.payload);
    });
    await next.connect();
    if (!channel) {
      const { rows } = await next.query<{ schema: string }>('SELECT current_schema() AS schema');
      channel = channelOf(rows[0]?.schema ?? 'public');
    }
    // The notifying transactions of this connection wait for no WAL flush (see the header).
    await next.query('SET synchronous_commit TO off');
    await next.query(`LISTEN "${channel}"`);
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    // A hello: the others share with this instance from now on, and answer, so it shares with them.
    startedAt = Date.now();
    sayHere(true);
  }

  /** This instance is listening: with the next flush, which sends an empty message if it has no events. */
  function sayHere(hello: boolean): void {
    if (!client || closed) return;
    herePending = true;
    helloPending ||= hello;
    schedule();
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

  // Events waiting for the next flush, and whether a flush is scheduled or a NOTIFY in flight.
  let pending: Item[] = [];
  let scheduled = false;
  let sending = false;
  let herePending = false;
  let helloPending = false;

  function publish(item: Item): void {
    if (reemitting || !client || closed || !anyoneElse()) return;
    if (pending.length >= MAX_PENDING) return;
    pending.push(item);
    schedule();
  }

  function schedule(): void {
    if (scheduled || sending) return;
    scheduled = true;
    setImmediate(flush);
  }

  /** One statement for everything pending: one notifying transaction, its payloads in order. */
  function flush(): void {
    scheduled = false;
    const target = client;
    const items = pending;
    pending = [];
    if (!target || closed) return;
    const payloads = items.length > 0 ? packPayloads(origin, items) : [];
    // Any message says this instance is there; with no events, an empty one.
    // A hello goes as a message of its own, so that an older reader that drops unknown fields loses nothing.
    if (helloPending) payloads.push(JSON.stringify({ o: origin, v: 2, s: 0, e: [], h: 1 } satisfies MessageV2));
    else if (payloads.length === 0 && herePending) payloads.push(JSON.stringify({ o: origin, v: 2, s: 0, e: [] } satisfies MessageV2));
    herePending = false;
    helloPending = false;
    if (payloads.length === 0) return;
    sending = true;
    // One query at a time on a client (pg 9 refuses overlapping ones): the next flush waits for this one.
    void target
      .query(NOTIFY_SQL, [channel, payloads.join('\n')])
      .then(
        () => {},
        () => {
          /* the connection is going; 'error'/'end' reconnects */
        },
      )
      .finally(() => {
        sending = false;
        if (pending.length > 0 || herePending) schedule();
      });
  }

  try {
    await connect();
  } catch (err) {
    throw new Error(`cannot listen for other instances' events: ${describePgError(err)}`, { cause: err });
  }
  const heartbeat = setInterval(() => sayHere(false), heartbeatMs);
  heartbeat.unref();
  const offs = [
    // The summary only: the body and the header list stay on this instance.
    hub.on('delivery', ({ delivery }) => publish(['d', delivery.headers.length === 0 ? delivery : { ...delivery, headers: [] }])),
    hub.on('attempt', ({ attempt, skipVerify }) => publish(['a', attempt, skipVerify])),
  ];

  return {
    channel,
    sharing: anyoneElse,
    async close() {
      closed = true;
      clearInterval(heartbeat);
      offs.forEach((off) => off());
      if (retry) clearTimeout(retry);
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
