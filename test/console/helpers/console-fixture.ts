/** A console server on a real socket (127.0.0.1, port 0) over the in-memory store. */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createEventHub, type EventHub } from '../../../src/runtime/event-hub.js';
import { secretHint } from '../../../src/config/data-dir.js';
import { createConsoleServer } from '../../../src/console/console-server.js';
import type { ConsoleServerOptions, ConsoleStatus } from '../../../src/console/console-options.js';
import { createMemoryStore } from '../../../src/store/memory-store.js';
import type { AttemptInput, DeliveryStore, NewDelivery } from '../../../src/store/store.js';
import { attemptFor, makeDelivery } from '../../helpers/fixtures.js';

export const SECRET = 'whsec_console_test_7f3a9c1e5b2d4f6a8c0e2b4d6f8a1c3e';

export function cleanStatus(): ConsoleStatus {
  return {
    version: '0.1.0-test',
    receiverUrl: 'http://127.0.0.1:4000/webhooks',
    path: '/webhooks',
    secretHints: [secretHint(SECRET)],
    skipVerify: false,
    forwardTo: 'http://127.0.0.1:3000/hooks',
    toleranceSeconds: 300,
  };
}

export interface ConsoleFixture {
  app: FastifyInstance;
  store: DeliveryStore;
  hub: EventHub;
  port: number;
  /** `http://127.0.0.1:<port>`: also the console's own Origin. */
  base: string;
  host: string;
  close(): Promise<void>;
}

export async function startConsole(overrides: Partial<ConsoleServerOptions> = {}): Promise<ConsoleFixture> {
  const store = overrides.store ?? createMemoryStore();
  const hub = overrides.hub ?? createEventHub();
  const app = await createConsoleServer({
    store,
    hub,
    status: cleanStatus,
    listenHost: '127.0.0.1',
    listenPort: 0,
    allowedHosts: [],
    token: null,
    webRoot: '/nonexistent-web-root',
    ...overrides,
  });
  await app.listen({ host: '127.0.0.1', port: overrides.listenPort ?? 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const port = address.port;
  return {
    app,
    store,
    hub,
    port,
    base: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    close: () => app.close(),
  };
}

let clock = 1_763_719_200_000;

/**
 * Stores a delivery and announces it on the hub as the receiver does (attempt, then delivery).
 * Each call is a little later than the previous one.
 */
export async function receive(
  store: DeliveryStore,
  hub: EventHub,
  overrides: Partial<NewDelivery> = {},
  attempt: Partial<AttemptInput> = {},
): Promise<NewDelivery> {
  clock += 1000;
  const delivery = makeDelivery({ receivedAt: clock, signatureTimestamp: Math.floor(clock / 1000) - 2, ...overrides });
  const result = await store.accept(delivery, attemptFor(delivery, { receivedAt: clock, finishedAt: clock + 3, ...attempt }));
  const [record] = await store.listAttempts({ deliveryId: delivery.id, limit: 1 });
  hub.emit('attempt', { attempt: record!, skipVerify: false });
  if (result.outcome === 'accepted') {
    const stored = (await store.getDelivery(delivery.id))!;
    const { rawBody, ...rest } = stored;
    hub.emit('delivery', { delivery: { ...rest, bodyBytes: rawBody.length } });
  }
  return delivery;
}

/** Records a refused arrival (nothing stored) and announces it. */
export async function refuse(store: DeliveryStore, hub: EventHub, attempt: Partial<AttemptInput>): Promise<void> {
  clock += 1000;
  await store.recordAttempt(
    attemptFor(null, {
      receivedAt: clock,
      finishedAt: clock + 1,
      outcome: 'rejected',
      status: 400,
      reason: 'signature_mismatch',
      bodySha256: createHash('sha256').update('').digest('hex'),
      ...attempt,
    }),
  );
  const [record] = await store.listAttempts({ limit: 1 });
  hub.emit('attempt', { attempt: record!, skipVerify: false });
}

/** A JSON delivery body for `id` and `trigger`, with `data` as given. */
export function envelopeBody(id: string, trigger: string, data: Record<string, unknown>): Buffer {
  return Buffer.from(
    JSON.stringify({ id, type: trigger, apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org_1', data }),
  );
}
