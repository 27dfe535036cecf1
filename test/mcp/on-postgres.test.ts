/** The tools on a PostgreSQL store: the same answers, and the password of its URL in none of them. */
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/pg-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { connect } from './harness.js';

const server = useTestPostgres();
const PASSWORD = 'Pg-mcp-not-shown';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('hookrelay mcp on PostgreSQL', () => {
  it('lists, shows, checks and reports the store, with the status a PostgreSQL reader offers, and never its password', { timeout: 60_000 }, async () => {
    const url = new URL(await server.freshSchema());
    // The throwaway server trusts loopback, so a made-up password connects; a given server keeps its own.
    if (!url.password) url.password = PASSWORD;
    const password = decodeURIComponent(url.password);
    const store = await createPostgresStore(url.href, { outbox: true });
    const a = makeDelivery({ id: 'pg-a', receivedAt: Date.now() - 1000 });
    const { deliverySeq } = await store.accept(a, attemptFor(a, { receivedAt: a.receivedAt }));
    await store.recordRelay({ deliverySeq, startedAt: 1, finishedAt: 2, status: 500, error: null, replay: false, target: 'http://127.0.0.1:1/h', try: 1, next: { state: 'dead' } });
    await store.close();

    const h = await connect(url.href);
    cleanups.push(() => h.close());
    expect((await h.call('list_deliveries')).json.deliveries.map((d: any) => d.untrustedContent.id)).toEqual(['pg-a']);
    const shown = await h.call('show_delivery', { id: 'pg-a' });
    expect(shown.json.relay.jobs).toMatchObject([{ state: 'dead', tries: 1, lastResponseStatus: 500, lastStatus: 500, target: null }]);
    expect((await h.call('check')).json.summary.deliveries).toBe(1);
    const stats = await h.call('store_stats');
    expect(stats.json.stats.deliveries).toBe(1);
    expect(stats.json.status.relay).toMatchObject({ dead: 1 });
    expect((await h.call('show_delivery', { id: 'nope' })).result.isError).toBe(true);
    for (const text of h.answers) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(encodeURIComponent(password));
    }
    expect(stats.json.store).toMatch(/^postgres/);
  });
});
