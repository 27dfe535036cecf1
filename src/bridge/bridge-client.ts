/**
 * The laptop side of the bridge: subscribes to a public hookrelay, feeds each delivery to the
 * local ingest pipeline (source `bridge`), and acknowledges it only after the local commit.
 * Frames are untrusted: one that is malformed, oversized or out of order closes the connection
 * with a message, and nothing of it is stored. A delivery whose frame is whole but which breaks a
 * limit (core/limits.ts) or a rule is recorded here as refused, with why, and acknowledged: the
 * subscription moves on instead of being sent it forever. The connection is watched (a ping every 15 s, dead
 * after 45 s of silence) and made again forever, with backoff and jitter capped at 30 s.
 */
import { sinceHeader, SINCE_HEADER, type BridgeSince } from '../core/bridge-since.js';
import type { Agent as HttpAgent } from 'node:http';
import { rootCertificates } from 'node:tls';
import WebSocket from 'ws';
import { BRIDGE_PROTOCOLS, bridgeVersion, CLOSE, closeReason, encodeClientFrame, parseDeliveryFrames, parseServerFrame, type BridgeDelivery, type BridgeVersion } from '../core/bridge-protocol.js';
import { jitteredBackoffMs } from '../core/backoff.js';
import { asciiOnly } from '../core/printable-text.js';
import { secretHint } from '../core/secret-hint.js';
import { untrustedCertificate } from '../core/untrusted-certificate.js';
import { watchLiveness, type Liveness } from '../runtime/liveness.js';
import { NO_SENDER, type Arrival } from '../ingest/arrival.js';
import type { IngestPipeline } from '../ingest/pipeline.js';

export interface BridgeClientOptions {
  /** ws:// or wss:// URL of the bridge, e.g. wss://hooks.example.com/bridge */
  url: string;
  token: string;
  name: string;
  pipeline: IngestPipeline;
  clock: () => number;
  random?: () => number;
  /** Each change of state, in words for the terminal and the console. */
  onState: (state: BridgeState, message: string) => void;
  /** Called once when the server refuses this client for good (wrong token): retrying cannot help. */
  onRefused?: (message: string) => void;
  /** Ping interval (default 15 s). */
  pingMs?: number;
  /** The server silent this long (no pong, ping or frame) is dead: the client reconnects (default three ping intervals, 45 s). */
  deadMs?: number;
  /** Largest frame accepted (default 96 MiB: a 64 MiB body in base64, with its headers). */
  maxFrameBytes?: number;
  /** `--bridge-ca`: PEM certificate(s) trusted for a wss:// bridge, besides Node's bundled roots. */
  ca?: string;
  /** The agent every connection is made through: a proxy's CONNECT tunnel (src/runtime/proxy.ts); absent: direct. */
  agent?: HttpAgent;
  /** `--since`: asked of the first connection that says hello; reconnects resume from the cursor as usual. */
  since?: BridgeSince;
}

const sinceHeaderOf = (since: BridgeSince | undefined): Record<string, string> => (since ? { [SINCE_HEADER]: sinceHeader(since) } : {});

export type BridgeState = 'connecting' | 'connected' | 'resuming' | 'live' | 'lost' | 'refused' | 'stopped';

export interface BridgeClient {
  state(): BridgeState;
  /**
   * In this process: the last sequence number received and acknowledged, how far behind the
   * server's newest it is, and how many times the connection was lost (or could not be made).
   */
  progress(): { receivedSeq: number; ackedSeq: number; lag: number; reconnects: number };
  close(): Promise<void>;
}

/** Reconnects wait by the one backoff (core/backoff.ts), never longer than 30 s. */
const RECONNECT = { initialMs: 1000, maxMs: 30_000 };

export function startBridgeClient(options: BridgeClientOptions): BridgeClient {
  const { pipeline, clock } = options;
  const random = options.random ?? Math.random;
  const pingMs = options.pingMs ?? 15_000;
  const deadMs = options.deadMs ?? pingMs * 3;
  let state: BridgeState = 'connecting';
  let stopped = false;
  let ws: WebSocket | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let reconnects = 0;
  let ackedSeq = 0;
  let receivedSeq = 0;
  let latest = 0;
  const host = safeHost(options.url);

  // The window of --since is asked for until the server says `live`: a connection lost during the
  // window asks again from what was acknowledged (acks below the stored cursor do not move it, so a
  // plain reconnect would resume past the rest of the window).
  let since: BridgeSince | undefined = options.since;
  // Where the window started (hello's cursor), once a server said hello to it.
  let sinceFrom: number | null = null;
  const setState = (next: BridgeState, message: string) => {
    state = next;
    options.onState(next, message);
  };

  function connect(): void {
    if (stopped) return;
    setState('connecting', `connecting to ${host} as ${options.name}`);
    const socket = new WebSocket(options.url, [...BRIDGE_PROTOCOLS], {
      headers: { authorization: `Bearer ${options.token}`, 'x-hookrelay-subscriber': options.name, ...sinceHeaderOf(since === undefined ? undefined : sinceFrom === null ? since : { seq: Math.max(sinceFrom, ackedSeq) }) },
      maxPayload: options.maxFrameBytes ?? 96 * 1024 * 1024,
      handshakeTimeout: 10_000,
      // Besides the bundled roots, not instead: the same flag works behind a public certificate.
      ...(options.ca ? { ca: [...rootCertificates, options.ca] } : {}),
      ...(options.agent ? { agent: options.agent } : {}),
    });
    ws = socket;
    const session = createSession(socket);
    let liveness: Liveness | null = null;
    const heard = () => liveness?.heard();
    socket.on('open', () => {
      liveness = watchLiveness({
        pingMs,
        deadMs,
        isOpen: () => socket.readyState === WebSocket.OPEN,
        ping: () => socket.ping(),
        onSilent: () => {
          session.lost(`no pong in ${formatSeconds(deadMs)}`);
          socket.terminate();
        },
      });
    });
    socket.on('pong', heard);
    socket.on('ping', heard);
    socket.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      let text = '';
      // A refusal is read for at most 5 s and 300 characters: a trickling body cannot hold the client.
      const giveUp = setTimeout(() => {
        session.lost(`the server answered ${status} and did not finish`);
        socket.terminate();
      }, 5_000);
      giveUp.unref();
      res.on('data', (c: Buffer) => (text = (text + c.toString('utf8')).slice(0, 300)));
      res.on('end', () => {
        clearTimeout(giveUp);
        const why = `${status} ${printableReason(text)}`.trim();
        // Only a refused token is final; anything else (a proxy's 404 or 502 while the public side
        // restarts) is retried like a lost connection.
        if (status === 401 || status === 403) {
          stopped = true;
          const refused = `the bridge at ${host} refused this client: ${why}`;
          setState('refused', refused);
          options.onRefused?.(`${refused}. ${tokenAdvice(options.token)}`);
        } else session.lost(`the server answered ${why}`);
        socket.terminate();
      });
      res.on('error', () => socket.terminate());
    });
    socket.on('message', (data, isBinary) => {
      heard();
      try {
        session.frame(data as Buffer, isBinary);
      } catch (err) {
        session.lost(`a frame could not be handled: ${(err as Error).message}`);
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const untrusted = untrustedCertificate(err.code);
      session.lost(untrusted ? `TLS: the bridge's certificate is not trusted: ${untrusted} (${err.code}); pass --bridge-ca FILE` : err.message);
    });
    socket.on('close', (code, reason) => {
      liveness?.stop();
      session.lost(code === 1005 || code === 1006 ? 'connection closed' : `closed ${code}${reason.length ? `: ${printableReason(reason.toString())}` : ''}`);
    });
  }

  function createSession(socket: WebSocket) {
    let ended = false;
    let lastSeq = 0;
    let helloSeen = false;
    let credit = 0;
    /** Deliveries taken between a hello that said this subscriber is behind and `live`; null otherwise. */
    let resumed: number | null = null;
    // A socket that never opened was never a connection to lose: the terminal says "could not connect".
    let opened = false;
    socket.once('open', () => (opened = true));
    // Received, in order; each is acknowledged once it and every one before it is committed.
    const pending: Array<{ seq: number; done: boolean }> = [];

    const fail = (message: string) => {
      if (ended) return;
      socket.close(CLOSE.badFrame, closeReason(message));
      lost(`refused a frame from the server: ${message}`);
    };

    function lost(why: string): void {
      if (ended) return;
      ended = true;
      socket.terminate();
      if (stopped) return;
      failures++;
      reconnects++;
      const wait = Math.min(jitteredBackoffMs(RECONNECT, failures, random), RECONNECT.maxMs);
      setState('lost', `${opened ? 'connection lost' : 'could not connect'} (${why}), retrying in ${Math.max(1, Math.round(wait / 1000))} s`);
      // Not unref'd: a client waiting to reconnect is what keeps a headless `connect`
      // (--no-console, nothing else listening) running; stop() clears it.
      retryTimer = setTimeout(connect, wait);
    }

    // One ack per event-loop turn, not one per delivery: a group commit settles many deliveries
    // in one turn, and each ack is a frame the server parses and a wake-up of its process.
    let ackScheduled = false;
    function ackSoon(): void {
      if (ackScheduled) return;
      ackScheduled = true;
      setImmediate(() => {
        ackScheduled = false;
        ackDone();
      });
    }

    function ackDone(): void {
      let upTo = 0;
      while (pending.length > 0 && pending[0]!.done) upTo = pending.shift()!.seq;
      if (upTo > 0 && !ended && socket.readyState === WebSocket.OPEN) {
        // The backoff starts over only once something was stored and acknowledged: a laptop that
        // cannot store does not reconnect every second.
        failures = 0;
        ackedSeq = upTo;
        socket.send(encodeClientFrame({ type: 'ack', seq: upTo }));
      }
    }

    async function store(delivery: BridgeDelivery, entry: { seq: number; done: boolean }): Promise<void> {
      const outcome = await pipeline.handle(arrivalOf(delivery, clock()));
      const recorded = await outcome.recorded.catch(() => null);
      const action = outcome.action;
      const status = action.kind === 'answer' ? action.status : 0;
      // Stored (2xx), or refused by a check and that refusal stored (4xx, seq > 0): sending it again
      // would be refused again, forever, so the record is what is acknowledged and the cursor moves on.
      if ((status >= 200 && status < 300) || (status >= 400 && status < 500 && recorded !== null && recorded.seq > 0)) {
        entry.done = true;
        ackSoon();
      } else {
        // Not stored here (the local store is down, say): not acknowledged; the server sends it again.
        lost(`delivery ${delivery.seq} was not stored here (${status || action.kind}); resuming from the last acknowledged one`);
      }
    }

    // The version the server chose among those offered: 2 sends deliveries as binary frames.
    let version: BridgeVersion | null = null;

    function frame(data: Buffer, isBinary: boolean): void {
      if (ended) return;
      version ??= bridgeVersion(socket.protocol);
      if (version === null) return fail(`the server chose subprotocol ${JSON.stringify(socket.protocol.slice(0, 40))}, which was not offered`);
      if (isBinary && version === 1) return fail('binary frames are not part of protocol version 1');
      if (isBinary) return deliveries(data);
      const parsed = parseServerFrame(data.toString());
      if (!parsed.ok) return fail(parsed.message);
      const f = parsed.frame;
      if (f.type === 'hello') {
        if (helloSeen) return fail('a second hello');
        if (f.protocol !== version) return fail(`hello says protocol ${f.protocol}, but version ${version} was negotiated`);
        helloSeen = true;
        if (since !== undefined && sinceFrom === null) sinceFrom = f.cursor;
        credit = f.credit;
        lastSeq = f.cursor;
        latest = f.latest;
        setState('connected', `connected to ${host} as ${f.subscriber}`);
        // Without `missed` (an older server), latest - cursor counts every delivery stored since, also
        // those of triggers this token is not sent: no number is said until the backlog ends (live).
        if (f.missed !== undefined ? f.missed > 0 : f.latest > f.cursor) {
          resumed = 0;
          setState('resuming', f.missed !== undefined ? `resuming ${missedDeliveries(f.missed)}` : 'resuming missed deliveries');
        }
        return;
      }
      if (!helloSeen) return fail(`a ${f.type} frame before hello`);
      if (f.type === 'live') {
        since = undefined;
        if (resumed !== null) setState('resuming', resumed === 0 ? 'no missed deliveries to resume' : `resumed ${missedDeliveries(resumed)}`);
        resumed = null;
        setState('live', 'live');
        return;
      }
      const problem = refusal([f.delivery]);
      if (problem) return fail(problem);
      take(f.delivery);
    }

    /** A binary frame of version 2: every delivery in it is checked before any is taken. */
    function deliveries(data: Buffer): void {
      if (!helloSeen) return fail('a delivery frame before hello');
      const parsed = parseDeliveryFrames(data, Math.max(0, credit - pending.length));
      if (!parsed.ok) return fail(parsed.overMost ? overCredit() : parsed.message);
      const problem = refusal(parsed.deliveries);
      if (problem) return fail(problem);
      for (const delivery of parsed.deliveries) take(delivery);
    }

    /** Why these deliveries, next in line, break the order or the credit; null when they do not. */
    function refusal(next: readonly BridgeDelivery[]): string | null {
      let last = lastSeq;
      for (const delivery of next) {
        if (delivery.seq <= last) return `delivery ${delivery.seq} is out of order (after ${last})`;
        last = delivery.seq;
      }
      return pending.length + next.length > credit ? overCredit() : null;
    }

    const overCredit = () => `more than ${credit} unacknowledged deliveries (the credit of hello)`;

    function take(delivery: BridgeDelivery): void {
      if (resumed !== null) resumed++;
      lastSeq = delivery.seq;
      receivedSeq = delivery.seq;
      latest = Math.max(latest, delivery.seq);
      const entry = { seq: delivery.seq, done: false };
      pending.push(entry);
      // Handed to the pipeline at once (the credit bounds how many): the writer commits them in
      // groups, in the order they were handed over; acks follow that order (ackDone).
      store(delivery, entry).catch((err: unknown) => lost((err as Error).message));
    }

    return { frame, lost };
  }

  connect();

  return {
    state: () => state,
    progress: () => ({ receivedSeq, ackedSeq, lag: Math.max(0, latest - ackedSeq), reconnects }),
    async close() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      ws?.close(1000, 'the client is stopping');
      ws?.terminate();
      setState('stopped', 'bridge stopped');
    },
  };
}

/** A bridged delivery as an Arrival of the local pipeline. */
function arrivalOf(d: BridgeDelivery, now: number): Arrival {
  const headers: Record<string, string> = {};
  const rawHeaders: string[] = [];
  for (const [name, value] of d.headers) {
    const lower = name.toLowerCase();
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
    rawHeaders.push(name, value);
  }
  return {
    source: 'bridge',
    receivedAt: now,
    rawBody: d.body,
    headers,
    rawHeaders,
    connection: NO_SENDER,
    requestId: `bridge-${d.seq}`,
    upstream: { signature: d.signature, secretIndex: d.secretIndex, signatureTimestamp: d.signatureTimestamp, acceptedAt: d.receivedAt },
    ...(d.untaken !== undefined ? { untaken: d.untaken } : {}),
  };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

const missedDeliveries = (n: number) => `${n} missed deliver${n === 1 ? 'y' : 'ies'}`;

const formatSeconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

const printableReason = (text: string) => asciiOnly(text, 200);

/** What to check when the public side refuses the token: which token was sent (by its hint) and where its twin lives. */
export function tokenAdvice(token: string): string {
  return (
    `This client sent the token ${secretHint(token)}: it must be the TOKEN of one of the public listen's ` +
    '--bridge-token NAME:TOKEN values (or its HOOKRELAY_BRIDGE_TOKEN lines), and not one it revoked; `hookrelay bridge token` makes a new one for both sides'
  );
}
