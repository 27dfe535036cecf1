/** The bridge contract on PostgreSQL (on a server of this file's own), and its known limit. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/pg-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../setup/postgres-global-setup.js';
import { describeBridgeContract } from './store-contract.js';

let server: ThrowawayPostgres;
beforeAll(() => {
  server = startThrowawayPostgres();
}, 120_000);
afterAll(() => server?.stop());

async function freshSchema(): Promise<string> {
  const schema = `hr_bridge_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`).finally(() => client.end());
  const url = new URL(server.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

describeBridgeContract('postgres', async (options) => createPostgresStore(await freshSchema(), options));

describe('postgres bridge: seqs committed out of order', () => {
  // Another instance's accept, caught between drawing its seq and its commit: the read must stop
  // below it, or a cursor acknowledged past it would skip it for good.
  async function openTransactionWithSeq(other: pg.Client): Promise<{ id: string; seq: number }> {
    await other.query('BEGIN');
    await other.query('SELECT pg_current_xact_id()'); // as accept does: the transaction id before the seq
    const slow = makeDelivery();
    const { rows } = await other.query<{ seq: string }>(
      `INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, headers, raw_body, last_attempt_at)
       VALUES ($1, $2, '2026-06-01', true, 1, 'valid', '{}', '\\x7b7d', 1) RETURNING seq`,
      [slow.id, slow.trigger],
    );
    return { id: slow.id, seq: Number(rows[0]!.seq) };
  }

  it('holds back every delivery above a transaction that drew a smaller seq and is still open, and sends them in seq order once it commits', async () => {
    const url = await freshSchema();
    const store = await createPostgresStore(url);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const first = makeDelivery();
      const firstSeq = (await store.accept(first, attemptFor(first))).deliverySeq;
      expect((await store.deliveriesAfter(0, 10)).map((d) => d.seq)).toEqual([firstSeq]);
      const slow = await openTransactionWithSeq(other);
      const fast = makeDelivery();
      const fastSeq = (await store.accept(fast, attemptFor(fast))).deliverySeq;
      expect(fastSeq).toBeGreaterThan(slow.seq);
      // Committed and visible, but a smaller seq may still come: nothing past the open one is read.
      expect(await store.deliveriesAfter(firstSeq, 10)).toEqual([]);
      expect(await store.latestDeliverySeq()).toBe(firstSeq);
      await other.query('COMMIT');
      expect((await store.deliveriesAfter(firstSeq, 10)).map((d) => d.id)).toEqual([slow.id, fast.id]);
      expect(await store.latestDeliverySeq()).toBe(fastSeq);
    } finally {
      await other.end();
      await store.close();
    }
  });

  it('reads past a seq whose transaction rolled back', async () => {
    const url = await freshSchema();
    const store = await createPostgresStore(url);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await openTransactionWithSeq(other);
      const fast = makeDelivery();
      await store.accept(fast, attemptFor(fast));
      await other.query('ROLLBACK');
      expect((await store.deliveriesAfter(0, 10)).map((d) => d.id)).toEqual([fast.id]);
    } finally {
      await other.end();
      await store.close();
    }
  });

  it('keeps cursors in the shared database: any instance sees another\'s acknowledgement', async () => {
    const url = await freshSchema();
    const [a, b] = await Promise.all([createPostgresStore(url), createPostgresStore(url)]);
    try {
      await a.registerBridgeSubscriber('laptop', 0, 1);
      await b.ackBridge('laptop', 42, 2);
      expect(await a.bridgeCursor('laptop')).toEqual({ name: 'laptop', ackedSeq: 42, updatedAt: 2 });
      expect(await b.registerBridgeSubscriber('laptop', 0, 3)).toEqual({ name: 'laptop', ackedSeq: 42, updatedAt: 2 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
