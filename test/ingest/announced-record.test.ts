/**
 * The attempt the hub announces (what the live console and the log show) is the attempt the store
 * holds (what a reload, `events show` and `check` read): field for field, finishedAt included.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createFaultRules } from '../../src/faults/rules-controller.js';
import { testReceiver } from '../helpers/test-receiver.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { AttemptRecord, DeliveryStore } from '../../src/store/store.js';
import { signedRequest, T0, TEST_SECRET, type SignedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rules } from './fault-helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const stores: Array<[string, () => Promise<DeliveryStore>]> = [
  ['memory', async () => createMemoryStore()],
  [
    'sqlite',
    async () => {
      const dir = tempDir();
      cleanups.push(dir.remove);
      const store = await createSqliteStore(join(dir.dir, 'announced.db'));
      cleanups.push(() => store.close());
      return store;
    },
  ],
];

/** The store assigns `seq`; the hub's copy carries 0 (the store does not hand it back). Everything else must agree. */
const withoutSeq = ({ seq: _seq, ...rest }: AttemptRecord) => rest;

describe.each(stores)('the announced attempt is the stored attempt (%s store)', (_name, openStore) => {
  it('for an accepted, a duplicate, a rejected, a refused-unread and a faulted arrival', async () => {
    const store = await openStore();
    const hub = createEventHub();
    const announced: AttemptRecord[] = [];
    hub.on('attempt', ({ attempt }) => announced.push(attempt));
    // A clock that moves on every reading: a record taken at two moments cannot look the same.
    let ms = T0 * 1000;
    const app: FastifyInstance = testReceiver({
      path: '/webhooks',
      secrets: [TEST_SECRET],
      toleranceSeconds: 300,
      skipVerify: false,
      bodyLimitBytes: 4096,
      store,
      hub,
      clock: () => (ms += 7),
      faults: createFaultRules({ rules: rules('503 retry-after=120 attempt=9'), seed: 1, hub }),
    });
    cleanups.push(() => app.close());
    const post = (req: SignedRequest) => app.inject({ method: 'POST', url: '/webhooks', headers: req.headers, payload: req.body });

    const first = signedRequest({ attempt: 1 });
    expect((await post(first)).statusCode).toBe(200);
    expect((await post(signedRequest({ id: first.id, attempt: 2 }))).json().data.duplicate).toBe(true);
    expect((await post(signedRequest({ secret: 'whsec_other' }))).statusCode).toBe(400);
    expect((await post(signedRequest({ body: Buffer.alloc(5000, 0x20) }))).statusCode).toBe(413);
    expect((await post(signedRequest({ attempt: 9 }))).statusCode).toBe(503);

    expect(announced.map((a) => a.outcome)).toEqual(['accepted', 'duplicate', 'rejected', 'rejected', 'faulted']);
    const stored = (await store.listAttempts({ limit: 10 })).reverse();
    expect(stored.map(withoutSeq)).toEqual(announced.map(withoutSeq));
    // An accepted attempt ends after it arrived (its checks took clock readings), as it does live.
    expect(stored[0]!.finishedAt).toBeGreaterThan(stored[0]!.receivedAt);
  });
});
