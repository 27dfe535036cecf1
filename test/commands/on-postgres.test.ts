import pg from 'pg';
/** Every store command works on `--store postgres://…` (and HOOKRELAY_STORE), not only on the SQLite file. */
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/pg-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { runCli as runCliUnchecked } from '../helpers/run-cli.js';
import { startTarget } from '../helpers/target-server.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';

const server = useTestPostgres();

/**
 * Every store URL here carries a password that no command may print. The throwaway server uses
 * trust authentication on loopback, so a made-up password still connects; a server given with
 * HOOKRELAY_TEST_PG_URL keeps its own password, which is then the one that must not show.
 */
const PASSWORD = 'S3cret-not-shown';
let password = PASSWORD;
function withPassword(href: string): string {
  const url = new URL(href);
  if (url.password) password = decodeURIComponent(url.password);
  else url.password = PASSWORD;
  return url.href;
}

/** Output of every command a test ran, checked after it: the password appears in none. */
const outputs: Array<{ args: string[]; stdout: string; stderr: string }> = [];
async function runCli(...params: Parameters<typeof runCliUnchecked>): ReturnType<typeof runCliUnchecked> {
  const result = await runCliUnchecked(...params);
  outputs.push({ args: params[0], stdout: result.stdout, stderr: result.stderr });
  return result;
}
afterEach(() => {
  const ran = outputs.splice(0);
  expect(ran.length).toBeGreaterThan(0);
  const shown = (text: string) => text.includes(password) || text.includes(encodeURIComponent(password));
  const leaks = ran.filter((o) => shown(o.stdout) || shown(o.stderr)).map((o) => o.args.filter((a) => !a.includes('://')).join(' '));
  expect(leaks, 'commands that printed the store password').toEqual([]);
});

/** A schema with two deliveries (one with a dead relay job) and one refused attempt; its URL carries a password. */
async function seeded(): Promise<string> {
  const url = withPassword(await server.freshSchema());
  const store = await createPostgresStore(url, { outbox: true });
  const a = makeDelivery({ id: 'pg-a', trigger: 'vendor.rating_dropped', receivedAt: Date.now() - 1000 });
  const b = makeDelivery({ id: 'pg-b', receivedAt: Date.now() });
  const { deliverySeq } = await store.accept(a, attemptFor(a, { receivedAt: a.receivedAt }));
  await store.accept(b, attemptFor(b, { receivedAt: b.receivedAt }));
  await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' }));
  await store.recordRelay({ deliverySeq, startedAt: 1, finishedAt: 2, status: 500, error: null, replay: false, target: 'http://127.0.0.1:1/h', try: 1, next: { state: 'dead' } });
  await store.close();
  return url;
}

describe('commands on PostgreSQL', () => {
  it('events list, show, export, replay and retry read and write the PostgreSQL store', async () => {
    const url = await seeded();
    const list = await runCli(['events', 'list', '--store', url]);
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n').map((l) => /pg-\w/.exec(l)?.[0])).toEqual(['pg-b', 'pg-a']);
    const viaEnv = await runCli(['events', 'list', '--json'], { env: { HOOKRELAY_STORE: url } });
    expect((JSON.parse(viaEnv.stdout) as Array<{ id: string }>).map((d) => d.id)).toEqual(['pg-b', 'pg-a']);
    const show = await runCli(['events', 'show', 'pg-a', '--store', url]);
    expect(show.stdout).toMatch(/delivery {2}pg-a/);
    expect(show.stdout).toMatch(/relay {5}dead after 1 try/);
    const exported = await runCli(['events', 'export', '--store', url]);
    expect(exported.stdout.trim().split('\n')).toHaveLength(2);

    const target = await startTarget();
    try {
      const replay = await runCli(['events', 'replay', 'pg-b', '--store', url, '--to', target.url, '--secret', 'whsec_pg']);
      expect(replay.code).toBe(0);
      expect(target.received[0]!.headers['x-service-delivery']).toBe('pg-b');
    } finally {
      await target.close();
    }
    const retry = await runCli(['events', 'retry', 'pg-a', '--store', url]);
    expect(retry.stdout).toMatch(/queued again: pg-a/);
    const again = await runCli(['events', 'retry', 'pg-a', '--store', url]);
    expect(again.stderr).toMatch(/pg-a is still queued/);
  }, 60_000);

  it('db stats and db prune work on PostgreSQL; db backup says to use pg_dump', async () => {
    const url = await seeded();
    const stats = await runCli(['db', 'stats', '--store', url, '--json']);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ deliveries: 2, attempts: { accepted: 2, rejected: 1 }, relayJobs: { dead: 1, pending: 1 } });
    const prune = await runCli(['db', 'prune', '--store', url, '--older-than', '1m', '--dry-run']);
    expect(prune.code).toBe(0);
    expect(prune.stdout).toMatch(/would remove 0 deliveries/);
    const backup = await runCli(['db', 'backup', '/tmp/never-written.db', '--store', url]);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toMatch(/pg_dump/);
  }, 60_000);

  it('check judges the attempts recorded in PostgreSQL', async () => {
    const url = await seeded();
    const check = await runCli(['check', '--store', url]);
    expect(check.stdout).toMatch(/records {3}3 attempt records \(every recorded attempt\) in postgres:\/\//);
    expect(check.stdout).toMatch(/delivery pg-a  vendor.rating_dropped  succeeded/);
  }, 60_000);

  it('reading commands never write: on a schema with no store they say so, and create nothing', async () => {
    const url = withPassword(await server.freshSchema());
    const list = await runCli(['events', 'list', '--store', url]);
    // No store there: usage, as a --db with no file (docs/exit-codes.md).
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/this database holds no hookrelay store \(no hookrelay_schema table\)/);
    const check = await runCli(['check', '--store', url]);
    expect(check.stderr).toMatch(/no hookrelay store/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT to_regclass('hookrelay_schema') IS NOT NULL AS exists");
      expect(rows[0].exists).toBe(false);
    } finally {
      await client.end();
    }
  }, 60_000);
});
