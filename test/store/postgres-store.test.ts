import pg from 'pg';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresStore, type PostgresStore } from '../../src/store/postgres/pg-store.js';
import { migratePostgres, PG_SCHEMA_VERSION } from '../../src/store/postgres/pg-schema.js';
import { openStore } from '../../src/store/open-store.js';
import { relayJobKey, StoreUnavailableError, type CommitReport } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { startThrowawayPostgres } from '../setup/postgres-global-setup.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { until } from '../helpers/until.js';
import { describeRelayContract, describeRetentionContract, describeStoreContract } from './store-contract.js';

const server = useTestPostgres();

describeStoreContract('postgres', async (options) => createPostgresStore(await server.freshSchema(), options));
describeRelayContract('postgres', async (options) => createPostgresStore(await server.freshSchema(), options));
describeRetentionContract('postgres', async (options) => createPostgresStore(await server.freshSchema(), options));

const opened: PostgresStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
async function open(url: string, options: Parameters<typeof createPostgresStore>[1] = {}): Promise<PostgresStore> {
  const store = await createPostgresStore(url, options);
  opened.push(store);
  return store;
}

describe('postgres store', () => {
  it('migrates once when several instances start at once, and records the version', async () => {
    const url = await server.freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(url)));
    const delivery = makeDelivery();
    await stores[0]!.accept(delivery, attemptFor(delivery));
    expect((await stores[3]!.getDelivery(delivery.id))?.id).toBe(delivery.id);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT version FROM hookrelay_schema');
    await client.end();
    expect(rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
  });

  it('refuses a schema from a newer hookrelay', async () => {
    const url = await server.freshSchema();
    await (await open(url)).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('UPDATE hookrelay_schema SET version = 99');
    await client.end();
    await expect(createPostgresStore(url)).rejects.toThrow(/schema version 99/);
  });

  it('makes one accepted delivery from copies of one id racing on different instances', async () => {
    const url = await server.freshSchema();
    const stores = await Promise.all([open(url, { outbox: true }), open(url, { outbox: true }), open(url, { outbox: true })]);
    const delivery = makeDelivery();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.accept(delivery, attemptFor(delivery, { attemptHeader: i + 1 }))));
    expect(results.filter((r) => r.outcome === 'accepted')).toHaveLength(1);
    expect((await stores[1]!.getDelivery(delivery.id))!.duplicateCount).toBe(29);
    expect(await stores[2]!.countArrivals(delivery.id)).toBe(30);
    expect(await stores[0]!.relayCounts()).toEqual({ pending: 1, held: 0, done: 0, dead: 0 });
  });

  it('hands each due job to exactly one of several claiming instances', async () => {
    const url = await server.freshSchema();
    const stores = await Promise.all([open(url, { outbox: true }), open(url, { outbox: true }), open(url, { outbox: true })]);
    const ids = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const d = makeDelivery();
      ids.add(d.id);
      await stores[i % 3]!.accept(d, attemptFor(d));
    }
    const now = makeDelivery().receivedAt;
    // Each instance's worker passes the jobs it holds, as relay-worker.ts does.
    const holding = stores.map(() => new Set<string>());
    // The instances claim at once, each one claim at a time (its worker never asks twice at once).
    const claims = await Promise.all(
      stores.map(async (store, n) => {
        const got = [];
        for (let round = 0; round < 4; round++) {
          const read = await store.dueRelayJobs(now, 7, new Set(holding[n]));
          for (const c of read) holding[n]!.add(relayJobKey(c.job));
          got.push(...read);
        }
        return got;
      }),
    );
    const claimed = claims.flat().map((c) => c.delivery.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    const rest = await stores[0]!.dueRelayJobs(now, 100, holding[0]);
    expect(new Set([...claimed, ...rest.map((c) => c.delivery.id)])).toEqual(ids);
    // Nothing is left for another instance while the claimants live, however late it asks.
    expect(await stores[1]!.dueRelayJobs(now + 86_400_000, 100, holding[1])).toEqual([]);
  });

  it('gives back the claims of jobs its relay let go (a paused target): another live instance takes them', async () => {
    const url = await server.freshSchema();
    const holder = await open(url, { outbox: true });
    const other = await open(url, { outbox: true });
    const delivery = makeDelivery();
    await holder.accept(delivery, attemptFor(delivery));
    const t = delivery.receivedAt;
    const [claim] = await holder.dueRelayJobs(t, 10);
    expect(await other.dueRelayJobs(t, 10)).toEqual([]);
    await holder.releaseRelayClaims!([relayJobKey(claim!.job)]);
    expect((await other.dueRelayJobs(t, 10)).map((c) => c.job.deliveryId)).toEqual([delivery.id]);
    // Only the claimant's own claim is given back: the holder cannot free the other's now.
    await holder.releaseRelayClaims!([relayJobKey(claim!.job)]);
    expect(await holder.dueRelayJobs(t, 10)).toEqual([]);
  });

  it('never takes over a live instance\'s claim, however long its hand-off; gives the job back to its own worker once that lets it go', async () => {
    const url = await server.freshSchema();
    const holder = await open(url, { outbox: true, relayLeaseMs: 300 });
    const other = await open(url, { outbox: true, relayLeaseMs: 300 });
    const delivery = makeDelivery();
    await holder.accept(delivery, attemptFor(delivery));
    const t = delivery.receivedAt;
    const [claim] = await holder.dueRelayJobs(t, 10);
    expect(claim!.job.deliveryId).toBe(delivery.id);
    // Ten times the time to live on the server's clock: the holder's heartbeat keeps the claim.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await other.dueRelayJobs(t + 86_400_000, 10)).toEqual([]);
    expect(await holder.dueRelayJobs(t, 10, new Set([relayJobKey(claim!.job)]))).toEqual([]);
    // Its worker no longer holds it (a try whose record failed): read again by the same instance.
    expect((await holder.dueRelayJobs(t, 10)).map((c) => c.job.deliveryId)).toEqual([delivery.id]);
  });

  it('gives a stopped instance\'s claims back at once, and a killed one\'s within its time to live', async () => {
    const url = await server.freshSchema();
    const stopping = await createPostgresStore(url, { outbox: true });
    const survivor = await open(url, { outbox: true });
    const first = makeDelivery();
    await stopping.accept(first, attemptFor(first));
    expect(await stopping.dueRelayJobs(first.receivedAt, 10)).toHaveLength(1);
    await stopping.close();
    expect((await survivor.dueRelayJobs(first.receivedAt, 10)).map((c) => c.job.deliveryId)).toEqual([first.id]);

    // A killed instance: its row stops being renewed (here: written once, as its last beat, 600 ms to live).
    const second = makeDelivery();
    await survivor.accept(second, attemptFor(second));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    onTestFinished(() => client.end());
    await client.query("INSERT INTO relay_instances (id, alive_until) VALUES ('killed', (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 600)");
    await client.query("UPDATE relay_jobs SET leased_by = 'killed', leased_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 600 WHERE state = 'pending'");
    const started = Date.now();
    expect(await survivor.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    await until(async () => (await survivor.dueRelayJobs(second.receivedAt, 10)).some((c) => c.job.deliveryId === second.id), "the killed instance's job", 5_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('never lets a stale worker undo a done', async () => {
    const url = await server.freshSchema();
    const stale = await open(url, { outbox: true });
    const survivor = await open(url, { outbox: true });
    const delivery = makeDelivery();
    const { deliverySeq } = await stale.accept(delivery, attemptFor(delivery));
    const t = delivery.receivedAt;
    expect(await stale.dueRelayJobs(t, 10)).toHaveLength(1);
    // Its heartbeat lapsed (the next beat would be 5 s away) and the claim with it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    onTestFinished(() => client.end());
    await client.query('UPDATE relay_instances SET alive_until = 0 WHERE id = $1', [stale.instanceId]);
    await client.query('UPDATE relay_jobs SET leased_until = 0');
    const taken = await survivor.dueRelayJobs(t + 5_000, 10);
    expect(taken.map((c) => c.job.deliveryId)).toEqual([delivery.id]);
    const base = { deliverySeq, replay: false, target: 'http://127.0.0.1:1/hook', error: null };
    await survivor.recordRelay({ ...base, startedAt: t + 5_000, finishedAt: t + 5_001, status: 204, try: 1, next: { state: 'done' } });
    // The first claimant comes back late with a failure: recorded in the history, the job stays done.
    await stale.recordRelay({ ...base, startedAt: t, finishedAt: t + 6_000, status: 500, try: 1, next: { state: 'pending', nextAt: t + 7_000 } });
    expect(await survivor.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    const history = await survivor.relayHistory(delivery.id);
    expect(history.jobs).toMatchObject([{ state: 'done', lastStatus: 204 }]);
    expect(history.attempts.map((a) => a.status)).toEqual([204, 500]);
  });

  it('reports each group commit of accepts to onCommit (the /metrics commit series), through openStore', async () => {
    const reports: CommitReport[] = [];
    const store = await openStore({ kind: 'postgres', url: await server.freshSchema() }, { onCommit: (r) => reports.push(r) });
    onTestFinished(() => store.close());
    const deliveries = Array.from({ length: 5 }, () => makeDelivery());
    await Promise.all(deliveries.map((d) => store.accept(d, attemptFor(d))));
    await store.accept(deliveries[0]!, attemptFor(deliveries[0]!));
    expect(reports.reduce((n, r) => n + r.size, 0)).toBe(6);
    expect(reports.length).toBeLessThan(6);
    expect(reports.every((r) => r.ok && r.ms >= 0)).toBe(true);
  });

  it('keeps a text with U+0000 findable and the body byte for byte', async () => {
    const store = await open(await server.freshSchema());
    const body = Buffer.from([0, 1, 2, 0xff, 0x00, 0x7b]);
    const delivery = makeDelivery({ apiVersion: 'x\u0000y', rawBody: body, rawHeaders: ['X-A', 'é', 'X-B', ''] });
    await store.accept(delivery, attemptFor(delivery));
    const stored = await store.getDelivery(delivery.id);
    expect(stored!.rawBody.equals(body)).toBe(true);
    expect(stored!.apiVersion).toBe('x\uFFFDy');
    expect(stored!.headers).toEqual([['X-A', 'é'], ['X-B', '']]);
    expect((await store.listDeliveries({ limit: 5, text: '\u00ff' })).items).toHaveLength(1);
  });

  it('reads a relay try whose answer columns are null (no answer, or a row migration 4 found) as not kept, beside one that kept its answer', async () => {
    const url = await server.freshSchema();
    const store = await open(url, { outbox: true });
    const delivery = makeDelivery();
    const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
    // As migration 3 left a row: no answer columns written.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try) VALUES ($1, 1, 2, 503, 'responded 503', false, 'http://127.0.0.1:1/h', 1)", [deliverySeq]);
    await client.end();
    const answer = { headers: [['X-Null', '\u0000 in JSON']] as Array<[string, string]>, headerLines: 1, body: Buffer.from([0x00, 0xff]), bodyBytes: 2, complete: true };
    await store.recordRelay({ deliverySeq, startedAt: 3, finishedAt: 4, status: 200, error: null, replay: false, target: 'http://127.0.0.1:1/h', try: 2, answer, next: { state: 'done' } });
    const tries = (await store.relayHistory(delivery.id, { withAnswers: true })).attempts;
    expect(tries.map((a) => a.answer && { ...a.answer, body: Buffer.from(a.answer.body).toString('hex') })).toEqual([null, { ...answer, body: '00ff' }]);
  });

  it('reads a schema-3 database without migrating it (answers read as not kept), and a listen then migrates it to 4 with its rows intact', async () => {
    const url = await server.freshSchema();
    // A database as hookrelay left it before migration 4: only the first 3 migrations applied.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    onTestFinished(async () => {
      client.release();
      await pool.end();
    });
    await migratePostgres(client, 3);
    const version = async () => (await client.query('SELECT version FROM hookrelay_schema')).rows;
    expect(await version()).toEqual([{ version: 3 }]);
    const delivery = makeDelivery({ id: 'evt-v3', rawHeaders: ['Content-Type', 'application/json', 'X-Service-Delivery', 'evt-v3'] });
    const { rows } = await client.query<{ seq: number }>(
      `INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body, last_attempt_at)
       VALUES ($1, $2, $3, true, $4, 'valid', 0, $5, $6, $7, $4) RETURNING seq`,
      [delivery.id, delivery.trigger, delivery.apiVersion, delivery.receivedAt, delivery.signatureTimestamp, delivery.rawHeaders, delivery.rawBody],
    );
    const seq = rows[0]!.seq;
    const accepted = attemptFor(delivery, { attemptHeader: 2, receivedAt: delivery.receivedAt });
    // Attempt 1 was refused (what it sent kept, migration 3), attempt 2 accepted.
    await client.query(
      `INSERT INTO attempts (delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, hints, request_headers, request_body)
       VALUES ($1, $2, $3, $4, 1, $5, $6, $7, 'rejected', 400, 'SIGNATURE_MISMATCH', $8, $9, $10)`,
      [delivery.id, delivery.trigger, delivery.receivedAt - 1000, delivery.receivedAt - 999, accepted.signatureTimestamp, accepted.bodySha256, accepted.bodyBytes,
        JSON.stringify(['the signature matches secret #1 with a trailing newline added']), ['X-Service-Delivery', 'evt-v3'], delivery.rawBody],
    );
    await client.query(
      `INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status)
       VALUES ($1, $2, $3, $4, $5, 2, $6, $7, $8, 'accepted', 200)`,
      [seq, delivery.id, delivery.trigger, accepted.receivedAt, accepted.finishedAt, accepted.signatureTimestamp, accepted.bodySha256, accepted.bodyBytes],
    );
    await client.query("INSERT INTO relay_jobs (delivery_seq, state, tries, next_at, last_status, last_error, updated_at) VALUES ($1, 'pending', 1, 5, 503, 'responded 503', 3)", [seq]);
    await client.query("INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try) VALUES ($1, 1, 3, 503, 'responded 503', false, 'http://127.0.0.1:1/h', 1)", [seq]);

    // A reading command (events show, check, db stats) reads it as it is.
    const reader = await open(url, { readOnly: true });
    expect((await reader.getDelivery('evt-v3'))!.rawBody.equals(delivery.rawBody)).toBe(true);
    const attempts = await reader.listAttempts({ deliveryId: 'evt-v3', limit: 10, withRequest: true });
    expect(attempts.map((a) => [a.outcome, a.hints, a.request?.body?.equals(delivery.rawBody) ?? null])).toEqual([
      ['accepted', undefined, null],
      ['rejected', ['the signature matches secret #1 with a trailing newline added'], true],
    ]);
    const read = await reader.relayHistory('evt-v3', { withAnswers: true });
    expect(read.jobs).toMatchObject([{ state: 'pending', tries: 1, lastStatus: 503 }]);
    expect(read.attempts.map((a) => [a.status, a.answer])).toEqual([[503, null]]);
    expect((await reader.relayHistory('evt-v3')).attempts).toHaveLength(1);
    expect(await version()).toEqual([{ version: 3 }]);

    // An older schema than that is still refused, and says how to migrate it.
    await client.query('UPDATE hookrelay_schema SET version = 2');
    await expect(createPostgresStore(url, { readOnly: true })).rejects.toThrow(/schema version 2, older than this hookrelay reads \(3 to \d+\); start `hookrelay listen --store` once/);
    await client.query('UPDATE hookrelay_schema SET version = 3');

    // The next listen migrates it: the rows stay, the old try still reads as not kept, a new one keeps its answer.
    const writer = await open(url, { outbox: true });
    expect(await version()).toEqual([{ version: PG_SCHEMA_VERSION }]);
    const answer = { headers: [['Content-Type', 'text/plain']] as Array<[string, string]>, headerLines: 1, body: Buffer.from('ok'), bodyBytes: 2, complete: true };
    await writer.recordRelay({ deliverySeq: seq, startedAt: 6, finishedAt: 7, status: 200, error: null, replay: false, target: 'http://127.0.0.1:1/h', try: 2, answer, next: { state: 'done' } });
    for (const store of [writer, await open(url, { readOnly: true })]) {
      const history = await store.relayHistory('evt-v3', { withAnswers: true });
      expect(history.jobs).toMatchObject([{ state: 'done', tries: 2 }]);
      expect(history.attempts.map((a) => a.answer && Buffer.from(a.answer.body).toString())).toEqual([null, 'ok']);
      expect((await store.listAttempts({ deliveryId: 'evt-v3', limit: 10 })).map((a) => a.outcome)).toEqual(['accepted', 'rejected']);
    }
  });

  it('migrates a schema-7 database with relay jobs in every state to one job per delivery and target: every job kept, a previous build still accepting', async () => {
    const url = await server.freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    onTestFinished(async () => {
      client.release();
      await pool.end();
    });
    await migratePostgres(client, 7);
    const app = 'http://127.0.0.1:3000/webhooks';
    const audit = 'http://127.0.0.1:3001/audit';
    // Jobs as the previous build left them: one per delivery, with or without a target, in every state, one claimed.
    const old = [
      { id: 'old-untargeted', state: 'pending', target: null, tries: 0, leasedBy: null },
      { id: 'old-claimed', state: 'pending', target: app, tries: 2, leasedBy: 'gone-instance' },
      { id: 'old-held', state: 'held', target: audit, tries: 0, leasedBy: null },
      { id: 'old-done', state: 'done', target: app, tries: 1, leasedBy: null },
      { id: 'old-dead', state: 'dead', target: app, tries: 5, leasedBy: null },
    ];
    const seqs = new Map<string, number>();
    for (const [i, job] of old.entries()) {
      const { rows } = await client.query<{ seq: number }>(
        `INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, headers, raw_body, last_attempt_at)
         VALUES ($1, 'trustcenter.access_requested', '2026-06-01', true, $2, 'valid', '{}', '\x7b7d', $2) RETURNING seq`,
        [job.id, 1000 + i],
      );
      seqs.set(job.id, Number(rows[0]!.seq));
      await client.query(
        `INSERT INTO relay_jobs (delivery_seq, state, tries, next_at, last_status, last_error, updated_at, target, leased_by, leased_until)
         VALUES ($1, $2, $3, $4, $5, NULL, $4, $6, $7, CASE WHEN $7::text IS NULL THEN NULL ELSE 0 END)`,
        [rows[0]!.seq, job.state, job.tries, 1000 + i, job.tries > 0 ? 503 : null, job.target, job.leasedBy],
      );
    }
    const before = (await client.query('SELECT delivery_seq, state, tries, next_at, last_status, target, leased_by FROM relay_jobs ORDER BY delivery_seq')).rows;
    // A reader of the old schema (never migrated by it) reads each delivery's one job, and no order keys.
    const reader = await open(url, { readOnly: true });
    expect((await reader.relayHistory('old-dead')).jobs).toMatchObject([{ state: 'dead', tries: 5, target: app }]);
    expect(await reader.blockedOrderKeys(app, 10)).toEqual([]);

    const store = await open(url, { outbox: { to: app, routes: [{ glob: '*', urls: [audit], also: true }] } });
    expect((await client.query('SELECT version FROM hookrelay_schema')).rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
    // Every job kept as it was, each its delivery's first, with no order key.
    const after = await client.query('SELECT delivery_seq, state, tries, next_at, last_status, target, leased_by, job_n, order_key FROM relay_jobs ORDER BY delivery_seq');
    expect(after.rows).toEqual(before.map((row) => ({ ...row, job_n: 1, order_key: null })));
    for (const job of old) expect((await store.relayHistory(job.id)).jobs).toMatchObject([{ deliverySeq: seqs.get(job.id), state: job.state, target: job.target, tries: job.tries }]);
    expect(await store.relayCounts()).toEqual({ pending: 2, held: 1, done: 1, dead: 1 });

    // A new delivery beside them gets one job per target; the old ones are claimed (the lapsed claim too) and moved as before.
    const fresh = makeDelivery({ id: 'new-fanned', receivedAt: 2000 });
    const { deliverySeq } = await store.accept(fresh, attemptFor(fresh, { receivedAt: 2000 }));
    const due = await store.dueRelayJobs(3000, 10);
    expect(due.map((d) => relayJobKey(d.job))).toEqual([`${seqs.get('old-untargeted')}|`, `${seqs.get('old-claimed')}|${app}`, `${deliverySeq}|${app}`, `${deliverySeq}|${audit}`]);
    await store.recordRelay({ deliverySeq: seqs.get('old-untargeted')!, startedAt: 3000, finishedAt: 3001, status: 204, error: null, replay: false, target: app, try: 1, next: { state: 'done' } });
    expect((await store.relayHistory('old-untargeted')).jobs).toMatchObject([{ state: 'done', target: null, tries: 1 }]);
    expect(await store.requeueRelay('old-dead', 3000, app)).toBe(true);

    // The previous build, still running while the fleet is upgraded, accepts through the function it knows: its one job fits.
    await client.query(
      `SELECT * FROM hookrelay_accept_group_v1(
        '{"from-v1"}', '{"trustcenter.access_requested"}', '{"2026-06-01"}', '{t}', '{2500}', '{"valid"}', '{0}', '{NULL}', '{}', '{1}', '{0}', '\x7b7d'::bytea,
        '{1}', '{2}', '{}', '{}', true, '{1}', '{}', '{}', '{}', '{}', '{2501}', '{1}', '{}', '{"e3b0"}', '{}', '{200}', '{}', '{}', '{}', '{}', '{}', '{}', $1::text[])`,
      [[app]],
    );
    expect((await store.relayHistory('from-v1')).jobs).toMatchObject([{ state: 'pending', target: app, tries: 0 }]);
  });

  it('refuses a URL that is not postgres:// or has a bad hookrelay parameter', async () => {
    await expect(createPostgresStore('mysql://x')).rejects.toThrow(/postgres:\/\//);
    await expect(createPostgresStore(`${server.url()}?relay_lease_ms=abc`)).rejects.toThrow(/relay_lease_ms/);
  });
});

describe('postgres store: losing the server', () => {
  it('rejects every write with StoreUnavailableError while the server is down, and recovers when it is back', async () => {
    const own = startThrowawayPostgres();
    try {
      const store = await open(own.url, { queryTimeoutMs: 5_000 });
      const first = makeDelivery();
      expect((await store.accept(first, attemptFor(first))).outcome).toBe('accepted');
      own.crash();
      const lost = makeDelivery();
      await expect(store.accept(lost, attemptFor(lost))).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.recordAttempt(attemptFor(lost, { outcome: 'rejected', status: 400 }))).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.dueRelayJobs(Date.now(), 5)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.getDelivery(first.id)).rejects.toThrow(/PostgreSQL store cannot read/);
      own.restart();
      expect((await store.accept(lost, attemptFor(lost))).outcome).toBe('accepted');
      expect((await store.getDelivery(first.id))?.id).toBe(first.id);
    } finally {
      own.stop();
    }
  }, 60_000);
});

describe('postgres store probe', () => {
  it('resolves on a writable server; a server whose transactions are read-only is refused at open', async () => {
    const url = await server.freshSchema();
    const store = await open(url);
    await expect(store.probe()).resolves.toBeUndefined();
    const readOnly = new URL(url);
    readOnly.searchParams.set('options', `${readOnly.searchParams.get('options') ?? ''} -c default_transaction_read_only=on`.trim());
    const refused = await open(readOnly.href).then(() => null, (err: Error) => err);
    expect(refused?.message).toMatch(/cannot open the PostgreSQL store: .*read-only/);
  });
});

describe('postgres store: group commit', () => {
  async function sql(url: string, text: string): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }

  it('fails every request of a group whose transaction fails, stores none of it, and writes again once the fault is gone', async () => {
    const url = await server.freshSchema();
    const store = await open(url, { outbox: true });
    // A store failure in the middle of the group's statements: one attempt row refused by the server.
    await sql(
      url,
      `CREATE FUNCTION refuse_99() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.attempt_header = 99 THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER refuse_99 BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION refuse_99();`,
    );
    const deliveries = Array.from({ length: 6 }, () => makeDelivery());
    const settled = await Promise.allSettled(deliveries.map((d, i) => store.accept(d, attemptFor(d, { attemptHeader: i === 3 ? 99 : 1 }))));
    for (const result of settled) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    expect((await store.listDeliveries({ limit: 10 })).items).toEqual([]);
    expect(await store.listAttempts({ limit: 10 })).toEqual([]);
    expect(await store.relayCounts()).toEqual({ pending: 0, held: 0, done: 0, dead: 0 });
    await sql(url, 'DROP TRIGGER refuse_99 ON attempts');
    const again = await Promise.all(deliveries.map((d) => store.accept(d, attemptFor(d))));
    expect(again.map((r) => r.outcome)).toEqual(deliveries.map(() => 'accepted'));
    expect(await store.relayCounts()).toEqual({ pending: 6, held: 0, done: 0, dead: 0 });
  });

  it('fails only the request whose value PostgreSQL refuses, not the others of its group', async () => {
    const store = await open(await server.freshSchema());
    const deliveries = Array.from({ length: 5 }, (_, i) => makeDelivery(i === 2 ? { signatureTimestamp: 1e20 } : {}));
    const settled = await Promise.allSettled(deliveries.map((d) => store.accept(d, attemptFor(d))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    expect((await store.listDeliveries({ limit: 10 })).items.map((d) => d.id).sort()).toEqual(deliveries.filter((_, i) => i !== 2).map((d) => d.id).sort());
    expect(await store.listAttempts({ limit: 10 })).toHaveLength(4);
  });

  it('takes a group\'s transaction id before it draws the first delivery seq (the commit-order horizon relies on it), on both of its statements', async () => {
    const url = await server.freshSchema();
    const store = await open(url);
    // A BEFORE trigger sees each row with its seq drawn and before it is written: had the seq come
    // first, the first row of a transaction would see no transaction id yet.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    onTestFinished(() => client.end());
    await client.query(`CREATE TABLE xid_seen (seq BIGINT, had_xid BOOLEAN);
      CREATE FUNCTION note_xid() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO xid_seen VALUES (NEW.seq, pg_current_xact_id_if_assigned() IS NOT NULL); RETURN NEW; END $$;
      CREATE TRIGGER note_xid BEFORE INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION note_xid();`);
    const stored = makeDelivery();
    await store.accept(stored, attemptFor(stored));
    // A group of fresh ids, and one mixing a fresh id with a copy of a stored one (two statements).
    const fresh = Array.from({ length: 4 }, () => makeDelivery());
    await Promise.all(fresh.map((d) => store.accept(d, attemptFor(d))));
    const more = makeDelivery();
    const mixed = await Promise.all([store.accept(more, attemptFor(more)), store.accept(stored, attemptFor(stored))]);
    expect(mixed.map((r) => r.outcome)).toEqual(['accepted', 'duplicate']);
    // Every row the statements formed, a copy's too (a BEFORE trigger fires before the conflict is found).
    const { rows } = await client.query<{ seq: string; had_xid: boolean }>('SELECT seq, had_xid FROM xid_seen ORDER BY seq');
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.filter((r) => !r.had_xid)).toEqual([]);
  });

  it('answers the fresh requests of a group whose copies of stored ids then fail, and fails only those copies, counting nothing twice', async () => {
    const url = await server.freshSchema();
    const store = await open(url);
    const stored = makeDelivery();
    await store.accept(stored, attemptFor(stored));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    onTestFinished(() => client.end());
    // The second statement writes a copy's attempt: refused here, as a lost connection or a deadlock would fail it.
    await client.query(`CREATE FUNCTION refuse_copies() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.outcome = 'duplicate' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_copies BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION refuse_copies();`);
    const fresh = makeDelivery();
    const settled = await Promise.allSettled([store.accept(fresh, attemptFor(fresh)), store.accept(stored, attemptFor(stored))]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected']);
    expect((settled[0] as PromiseFulfilledResult<{ outcome: string }>).value.outcome).toBe('accepted');
    expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    expect((await store.getDelivery(fresh.id))!.duplicateCount).toBe(0);
    expect((await store.getDelivery(stored.id))!.duplicateCount).toBe(0);
    expect(await store.countArrivals(fresh.id)).toBe(1);
    expect(await store.countArrivals(stored.id)).toBe(1);
  });

  it('takes copies of the same ids on two instances in opposite orders at once without a deadlock, each id accepted once', async () => {
    const url = await server.freshSchema();
    const [a, b] = await Promise.all([open(url, { outbox: true }), open(url, { outbox: true })]);
    const deliveries = Array.from({ length: 40 }, () => makeDelivery());
    const calls: Array<Promise<{ outcome: string; deliverySeq: number }>> = [];
    for (let round = 0; round < 3; round++) {
      for (const d of deliveries) calls.push(a.accept(d, attemptFor(d)));
      for (const d of [...deliveries].reverse()) calls.push(b.accept(d, attemptFor(d)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.outcome === 'accepted')).toHaveLength(40);
    for (const d of deliveries) expect(await a.getDelivery(d.id)).toMatchObject({ duplicateCount: 5 });
    expect((await a.stats()).attempts).toMatchObject({ accepted: 40, duplicate: 200 });
    expect(await b.relayCounts()).toEqual({ pending: 40, held: 0, done: 0, dead: 0 });
  }, 30_000);
});
