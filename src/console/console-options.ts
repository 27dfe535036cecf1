/** What the composition root hands the console listener (issue 6). */
import type { BulkReplays } from '../relay/bulk-replays.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { BlockedOrderKey, DeliveryStore, KeptAnswer } from '../store/store.js';

/**
 * The configuration summary the console shows. Never a secret: `secretHints` are
 * `secretHint(secret)` values. Only these fields are ever sent; anything else on the object
 * returned by `status()` is dropped.
 */
export interface ConsoleStatus {
  /** hookrelay's version. */
  version: string;
  /** Where senders POST, e.g. `http://127.0.0.1:4000/webhooks`. */
  receiverUrl: string;
  /** The receiver path, e.g. `/webhooks`. */
  path: string;
  /** One hint per configured secret, primary first. */
  secretHints: string[];
  /** `--skip-verify`: shown loudly on the page. */
  skipVerify: boolean;
  /** `--forward-to`, or null. Userinfo in it is redacted before it is shown. */
  forwardTo: string | null;
  /** `--tolerance`, seconds. */
  toleranceSeconds: number;
}

/** The answer of a fault-rule change: the rule as stored, or why it was refused. */
export type FaultChange =
  | { ok: true; rule: unknown }
  | { ok: false; message: string; column?: number; notFound?: boolean };

/** The fault rules registry (issue 4). Methods may answer synchronously or with a promise. */
export interface FaultsAdapter {
  /** The rules in evaluation order; each should carry its `id`. */
  list(): unknown[] | Promise<unknown[]>;
  /** `rule` is the JSON form, or a string in the one-line form. */
  add(rule: unknown): FaultChange | Promise<FaultChange>;
  /** Checks a rule without adding it (live validation on the page); optional. */
  validate?(rule: unknown): FaultChange | Promise<FaultChange>;
  replace(id: string, rule: unknown): FaultChange | Promise<FaultChange>;
  /** False when there is no rule with that id. */
  remove(id: string): boolean | Promise<boolean>;
  /** Moves rule `id` to `position` (1 = first, so tried first); optional. */
  move?(id: string, position: number): FaultChange | Promise<FaultChange>;
  clear(): void | Promise<void>;
}

/** Result of one replay hand-off. */
export interface ReplayResult {
  ok: boolean;
  status: number | null;
  error?: string;
  /** Where it went (its route, else the forward target, or the URL given), credentials redacted. */
  target?: string;
}

/**
 * Replays a stored delivery. `targetUrl` null means where the relay would send it (its route, else the forward target). The console
 * only ever passes the configured target or a loopback URL.
 */
export type ReplayFn = (deliveryId: string, targetUrl: string | null) => Promise<ReplayResult>;

/** One relay try, as the relay (issue 5) records it. */
export interface RelayRecordView {
  /** When the try finished, ms since the epoch. */
  at: number;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  replay: boolean;
  error?: string;
  nextRetryAt?: number | null;
  /** Where it was sent, when the relay records it. */
  target?: string;
  /**
   * What the target answered (its headers, the first 4 KiB of its body), when asked `withAnswers`:
   * null when none was kept (no answer came, or the try was recorded before hookrelay kept answers).
   */
  answer?: KeptAnswer | null;
}

/** A known subscriber of the public side's bridge. `subscriber` (`token/name`) is chosen by whoever holds a token: hostile text. */
export interface BridgeSubscriberView {
  subscriber: string;
  connected: boolean;
  /** The durable cursor: the last delivery seq it acknowledged. */
  ackedSeq: number;
  /** The newest stored seq minus `ackedSeq`. */
  lag: number;
}

/** The laptop's bridge client (`hookrelay connect`): never its token, only the server's host. */
export interface BridgeClientView {
  /** `connecting`, `connected`, `resuming`, `live`, `lost`, `refused` or `stopped`. */
  state: string;
  /** The bridge's `host[:port]`. */
  host: string;
  /** This subscriber's name. */
  name: string;
  receivedSeq: number;
  ackedSeq: number;
  lag: number;
  reconnects: number;
}

/** The bridge as this process sees it: the public side (`listen --bridge-port`) or the laptop (`connect`). */
export type BridgeView = { side: 'public'; subscribers: BridgeSubscriberView[] } | ({ side: 'laptop' } & BridgeClientView);

/** Limits of the WebSocket feed. */
export interface FeedLimits {
  /** Messages kept for a console that joins late or reconnects. */
  backlog: number;
  /** A feed message larger than this is sent without its data (`truncated: true`). */
  maxMessageBytes: number;
  /** A client with more than this many bytes waiting to be sent is dropped. */
  bufferCapBytes: number;
  /** Interval of keepalive pings; a client that missed the previous pong is dropped. */
  pingIntervalMs: number;
  /** How long a message waits for others to share its frame (feed.ts says why). */
  flushIntervalMs: number;
}

export const DEFAULT_FEED_LIMITS: FeedLimits = {
  backlog: 100,
  maxMessageBytes: 64 * 1024,
  bufferCapBytes: 4 * 1024 * 1024,
  pingIntervalMs: 30_000,
  flushIntervalMs: 50,
};

/** One target of the running relay as the console shows it (its URL's credentials hidden). */
export interface RelayTargetView {
  /** Its place in the list, 1 first: what the pause and resume routes name. */
  id: string;
  target: string;
  concurrency: number;
  /** Hand-offs started a second at most; null: no rate. */
  ratePerSecond: number | null;
  burst: number;
  paused: boolean;
  inFlight: number;
  /** Jobs read and waiting in memory for the target's pace (the rest wait in the store). */
  waiting: number;
  /** `order=…` as written (`trigger`, `/data/accessRequestId`), null when the target is not ordered. */
  order: string | null;
  onDead: 'skip' | 'block' | null;
  /** Keys of an ordered target held up by their head (the oldest first, at most 20). */
  blockedKeys: BlockedKeyView[];
}

/** A blocked key as the console shows it: the store's, without the target it is listed under. */
export type BlockedKeyView = Omit<BlockedOrderKey, 'target'>;

/** The relay's targets and their pause (`/api/targets`): absent when this process has no async relay. */
export interface RelayTargetsAdapter {
  /** Every target, in a fixed order, with its URL as given (the console hides its credentials). */
  list(): Array<Omit<RelayTargetView, 'id' | 'blockedKeys'>>;
  /** Keys of ordered targets held up by their head, read from the store. */
  blocked(): Promise<BlockedOrderKey[]>;
  setPaused(target: string, paused: boolean): boolean;
}

export interface ConsoleServerOptions {
  store: DeliveryStore;
  hub: EventHub;
  /** Called per request: the summary can change while `listen` runs. */
  status: () => ConsoleStatus;
  /** The address the console will be bound to (`--console-host`). Not loopback → `token` is required. */
  listenHost: string;
  /** `--console-port`; 0 is fine, the bound port is read from the server once it listens. */
  listenPort: number;
  /** `--console-allowed-host` values: `name` (any port) or `name:port`. */
  allowedHosts?: readonly string[];
  /** `--console-token`; required (non-null) when `listenHost` is not loopback. */
  token: string | null;
  /** Folder of the built page (`web/dist`). */
  webRoot: string;
  faults?: FaultsAdapter;
  replay?: ReplayFn;
  /** Bulk replay jobs (`/api/replay-jobs`); absent when this process cannot replay. */
  bulkReplays?: BulkReplays;
  /** Retry conformance verdict of one delivery (issue 7), or null when there is none. */
  conformance?: (deliveryId: string) => Promise<unknown>;
  /** Deletes a stored delivery and its attempts; false when it did not exist. */
  remove?: (deliveryId: string) => Promise<boolean>;
  /** The bridge's state (`GET /api/bridge`); absent when this process has no bridge. */
  bridge?: () => BridgeView | Promise<BridgeView>;
  /** The relay's targets, their pace and pause. */
  relayTargets?: RelayTargetsAdapter;
  /** Applied to hub notices and relay/replay error texts before they are shown (e.g. replace any secret by its hint). */
  redact?: (text: string) => string;
  feed?: Partial<FeedLimits>;
  /** Clock for envelope timestamps; defaults to Date.now. */
  now?: () => number;
}
