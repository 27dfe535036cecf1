/**
 * `hookrelay/testing`: a real hookrelay receiver in the test's own process, for suites that exercise
 * code which makes the service (or `hookrelay send`) deliver. Built on the composition root
 * (`createApp`) with the in-memory store, so it verifies, checks envelopes and dedupes exactly as
 * `listen` does. `waitFor` resolves on the hub's `delivery` event: no polling, no sleeping.
 */
import { randomBytes } from 'node:crypto';
import { createApp, type AppHandle } from '../app/build-app.js';
import type { ListenConfig } from '../config/listen-config.js';
import { decodeBodyLeniently } from '../core/envelope.js';
import { globMatch } from '../core/faults/glob.js';
import type { WebhookEvent } from '../kit/events.js';
import { createMemoryStore } from '../store/memory-store.js';
import type { AttemptRecord, StoredDelivery } from '../store/store.js';

/** Every option may be left out; docs/library.md has each with an example. */
export interface TestReceiverOptions {
  /** The signing secret (default: a fresh random one, on `secret`). */
  secret?: string;
  /** More secrets accepted besides `secret` (rotation; default none). */
  extraSecrets?: string[];
  /** Seconds of allowed |t - now|, both ways (default 300; must be > 0). */
  toleranceSeconds?: number;
  /** The receiver's path (default `/webhooks`). */
  path?: string;
  /** Default 127.0.0.1; the port is always a free one. */
  host?: string;
  /** A SQLite file instead of the in-memory store (the default; one process per file). */
  dbPath?: string;
  /** The receiver's clock, ms since the epoch (default Date.now): for signatures from a fixed time. */
  clock?: () => number;
}

/** A delivery the receiver verified and stored. */
export interface ReceivedDelivery {
  id: string;
  trigger: string;
  /** The body as the typed event. */
  event: WebhookEvent;
  /** The body exactly as received. */
  rawBody: Buffer;
  headers: Array<[name: string, value: string]>;
  receivedAt: number;
  /** Arrivals of this id answered 2xx after it was stored. */
  duplicateCount: number;
}

/** What to wait for: a predicate, or a trigger (a glob: `trustcenter.*`) and/or a delivery id. */
export type DeliveryMatch = ((delivery: ReceivedDelivery) => boolean) | { trigger?: string; deliveryId?: string };

export interface TestReceiver {
  /** Where to deliver: http://127.0.0.1:<port>/webhooks */
  url: string;
  /** The primary secret deliveries must be signed with. */
  secret: string;
  /**
   * The first delivery (received before or after the call) that matches, or a rejection after
   * `timeoutMs` (default 5000) that lists what did arrive and what was refused, with why.
   */
  waitFor(match: DeliveryMatch, options?: { timeoutMs?: number }): Promise<ReceivedDelivery>;
  /** Every delivery stored so far, oldest first. */
  deliveries(): Promise<ReceivedDelivery[]>;
  /** Arrivals refused (signature, envelope) so far, oldest first: their code and hints say why. */
  refused(): AttemptRecord[];
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5_000;

interface Waiter {
  matches: (delivery: ReceivedDelivery) => boolean;
  resolve: (delivery: ReceivedDelivery) => void;
  reject: (err: unknown) => void;
}

export async function startTestReceiver(options: TestReceiverOptions = {}): Promise<TestReceiver> {
  const secret = options.secret ?? `whsec_test_${randomBytes(16).toString('hex')}`;
  if (typeof secret !== 'string' || secret === '') throw new RangeError('secret must be a non-empty string');
  const tolerance = options.toleranceSeconds ?? 300;
  if (!Number.isSafeInteger(tolerance) || tolerance < 1) throw new RangeError(`toleranceSeconds must be a whole number of seconds > 0, got ${String(options.toleranceSeconds)}`);
  for (const extra of options.extraSecrets ?? []) if (typeof extra !== 'string' || extra === '') throw new RangeError('extraSecrets must be non-empty strings');
  const config: ListenConfig = {
    port: 0,
    host: options.host ?? '127.0.0.1',
    path: options.path ?? '/webhooks',
    secrets: [secret, ...(options.extraSecrets ?? [])],
    toleranceSeconds: tolerance,
    dbPath: options.dbPath ?? '(in memory)',
    skipVerify: false,
    bodyLimitBytes: 1024 * 1024,
    logFormat: 'silent',
    devSecret: null,
    console: null,
    forward: null,
    seed: 0,
  };
  const built = await createApp(config, { store: options.dbPath === undefined ? createMemoryStore() : undefined, clock: options.clock });
  const received: ReceivedDelivery[] = [];
  const refused: AttemptRecord[] = [];
  const waiters = new Set<Waiter>();
  let loading: Promise<void> = Promise.resolve();

  const offer = (delivery: ReceivedDelivery) => {
    received.push(delivery);
    for (const waiter of waiters) {
      let matched: boolean;
      try {
        matched = waiter.matches(delivery);
      } catch (err) {
        waiter.reject(err);
        continue;
      }
      if (matched) waiter.resolve(delivery);
    }
  };
  // The hub announces a stored delivery without its body: read it back, in announcement order.
  const offDelivery = built.hub.on('delivery', ({ delivery }) => {
    loading = loading.then(async () => {
      const stored = await built.store.getDelivery(delivery.id).catch(() => undefined);
      if (stored) offer(toReceived(stored));
    });
  });
  const offAttempt = built.hub.on('attempt', ({ attempt }) => {
    if (attempt.outcome === 'rejected' || attempt.outcome === 'unavailable') refused.push(attempt);
  });

  let handle: AppHandle;
  try {
    handle = await built.start();
  } catch (err) {
    offDelivery();
    offAttempt();
    throw err;
  }
  let closed = false;

  return {
    url: handle.receiverUrl,
    secret,
    waitFor(match, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
      let matches: (delivery: ReceivedDelivery) => boolean;
      try {
        matches = matcher(match);
      } catch (err) {
        return Promise.reject(err);
      }
      if (closed) return Promise.reject(new Error('the test receiver is closed'));
      return new Promise<ReceivedDelivery>((resolve, reject) => {
        try {
          const earlier = received.find(matches);
          if (earlier) return resolve(earlier);
        } catch (err) {
          return reject(err);
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(timeoutMessage(match, timeoutMs, received, refused)));
        }, timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        const waiter: Waiter = {
          matches,
          resolve: (delivery) => (settle(), resolve(delivery)),
          reject: (err) => (settle(), reject(err)),
        };
        waiters.add(waiter);
      });
    },
    async deliveries() {
      // From the store, so repeats show in duplicateCount.
      const all: StoredDelivery[] = [];
      let before: number | undefined;
      for (;;) {
        const page = await built.store.listDeliveries({ limit: 500, before });
        all.push(...page.items);
        if (page.nextCursor === null) break;
        before = page.nextCursor;
      }
      return all.reverse().map(toReceived);
    },
    refused: () => [...refused],
    async close() {
      if (closed) return;
      closed = true;
      offDelivery();
      offAttempt();
      for (const waiter of waiters) waiter.reject(new Error('the test receiver was closed while waiting'));
      await handle.close();
    },
  };
}

function matcher(match: DeliveryMatch): (delivery: ReceivedDelivery) => boolean {
  if (typeof match === 'function') return match;
  if (match === null || typeof match !== 'object' || (match.trigger === undefined && match.deliveryId === undefined)) {
    throw new TypeError('waitFor needs a predicate, or { trigger } and/or { deliveryId }');
  }
  const { trigger, deliveryId } = match;
  return (d) => (trigger === undefined || globMatch(trigger, d.trigger)) && (deliveryId === undefined || d.id === deliveryId);
}

function toReceived(stored: StoredDelivery): ReceivedDelivery {
  let event: WebhookEvent;
  try {
    event = JSON.parse(decodeBodyLeniently(stored.rawBody)) as WebhookEvent;
  } catch {
    // Stored deliveries passed the envelope check; this only guards a store read gone wrong.
    event = { id: stored.id, type: stored.trigger, apiVersion: stored.apiVersion, createdAt: '', organizationId: '', data: {} };
  }
  return { id: stored.id, trigger: stored.trigger, event, rawBody: stored.rawBody, headers: stored.headers, receivedAt: stored.receivedAt, duplicateCount: stored.duplicateCount };
}

function timeoutMessage(match: DeliveryMatch, timeoutMs: number, received: readonly ReceivedDelivery[], refused: readonly AttemptRecord[]): string {
  const what = typeof match === 'function' ? 'the predicate' : JSON.stringify(match);
  const lines = [`no delivery matching ${what} arrived within ${timeoutMs} ms`];
  lines.push(received.length === 0 ? 'received: nothing' : `received ${received.length}: ${received.slice(-5).map((d) => `${d.trigger} ${d.id}`).join(', ')}`);
  for (const attempt of refused.slice(-5)) {
    const hints = attempt.hints?.length ? ` — ${attempt.hints.join('; ')}` : '';
    lines.push(`refused ${attempt.status ?? '-'} ${attempt.reason ?? ''} ${attempt.deliveryId ?? '(no id)'}${hints}`);
  }
  return lines.join('\n');
}
