import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { verify } from '../../src/core/signature/verify.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A database with three deliveries (one received twice) and one rejected attempt. */
async function seeded(outbox = false) {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'events.db');
  const store = await createSqliteStore(db, { outbox });
  const a = makeDelivery({ id: 'evt-a', trigger: 'vendor.rating_dropped', receivedAt: 1_000 });
  const b = makeDelivery({ id: 'evt-b', receivedAt: 2_000, rawBody: Buffer.concat([Buffer.from('{"x":"\u001b[31mred'), Buffer.from([0xff]), Buffer.from('"}')]) });
  const c = makeDelivery({ id: 'evt-c', receivedAt: 3_000 });
  for (const d of [a, b, c]) await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
  await store.accept(a, attemptFor(a, { receivedAt: 4_000, attemptHeader: 2 }));
  await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt: 5_000 }));
  await store.close();
  return { db, dir };
}

describe('hookrelay events', () => {
  it('lists newest first, filters by trigger and status, and prints JSON', async () => {
    const { db } = await seeded();
    const all = await runCli(['events', 'list', '--db', db]);
    expect(all.code).toBe(0);
    expect(all.stdout.trim().split('\n').map((l) => /evt-\w/.exec(l)?.[0])).toEqual(['evt-c', 'evt-b', 'evt-a']);
    expect(all.stdout).toMatch(/duplicate ×1 .*evt-a/);
    const vendor = await runCli(['events', 'list', '--db', db, '--trigger', 'vendor.rating_dropped', '--json']);
    expect((JSON.parse(vendor.stdout) as Array<{ id: string }>).map((d) => d.id)).toEqual(['evt-a']);
    const rejected = await runCli(['events', 'list', '--db', db, '--status', 'rejected']);
    expect(rejected.stdout).toMatch(/400 rejected .*SIGNATURE_MISMATCH/);
    const bad = await runCli(['events', 'list', '--db', db, '--status', 'lost', '--limit', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--limit: must be a whole number from 1 to 1000/);
    expect(bad.stderr).toMatch(/--status: must be one of/);
  });

  it('pages with --cursor, streams every delivery with --all, and never changes a limit without saying so', async () => {
    const { db } = await seeded();
    const first = await runCli(['events', 'list', '--db', db, '--limit', '2']);
    expect(first.stdout.trim().split('\n').map((l) => /evt-\w/.exec(l)?.[0])).toEqual(['evt-c', 'evt-b']);
    const cursor = /more: hookrelay events list --cursor (\d+) \(or --all\)/.exec(first.stderr)![1]!;
    const second = await runCli(['events', 'list', '--db', db, '--limit', '2', '--cursor', cursor]);
    expect(second.stdout.trim().split('\n').map((l) => /evt-\w/.exec(l)?.[0])).toEqual(['evt-a']);
    expect(second.stderr).toBe('');
    const all = await runCli(['events', 'list', '--db', db, '--all']);
    expect(all.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['evt-c', 'evt-b', 'evt-a']);
    const tooMany = await runCli(['events', 'list', '--db', db, '--limit', '5000']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toMatch(/--limit: must be a whole number from 1 to 1000 \(page with --cursor, or stream them all with --all\)/);
    const both = await runCli(['events', 'list', '--db', db, '--all', '--limit', '5']);
    expect(both.stderr).toMatch(/--all lists every delivery: leave out --limit/);
    const none = await runCli(['events', 'list', '--db', db, '--trigger', 'nope']);
    expect(none.stdout).toBe('no stored delivery matches --trigger nope\n');
  });

  it('shows one delivery with its attempts, escaping control characters; --raw gives the exact bytes', async () => {
    const { db } = await seeded();
    const shown = await runCli(['events', 'show', 'evt-b', '--db', db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('\\u001b[31mred');
    expect(shown.stdout).not.toContain('\u001b[31m');
    expect(shown.stdout).toMatch(/attempts\n .*200 accepted/);
    const raw = await runCli(['events', 'show', 'evt-a', '--db', db, '--raw']);
    expect(JSON.parse(raw.stdout).id).toBe('evt-a');
    const missing = await runCli(['events', 'show', 'nope', '--db', db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no delivery or attempt with id nope/);
  });

  it('says where to start when there is no database', async () => {
    const { dir } = await seeded();
    const result = await runCli(['events', 'list', '--db', join(dir, 'none.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no database at .*none.db: start `hookrelay listen` first/);
  });

  it('replays a stored delivery to a URL, freshly signed and marked, and records it', async () => {
    const { db } = await seeded();
    const target = await startTarget();
    cleanups.push(() => target.close());
    const result = await runCli(['events', 'replay', 'evt-c', '--db', db, '--to', target.url, '--secret', 'whsec_replay']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^replayed: 200 from http/);
    const got = target.received[0]!;
    expect(got.headers['x-hookrelay-replay']).toBe('true');
    expect(verify(got.body, got.headers['x-service-signature'] as string, { secrets: ['whsec_replay'] }).ok).toBe(true);
    const shown = await runCli(['events', 'show', 'evt-c', '--db', db]);
    expect(shown.stdout).toMatch(/replay {2}→ 200/);
    const none = await runCli(['events', 'replay', 'evt-c', '--db', db]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no target: pass --to URL/);
  });

  it('requeues only a dead relay job, and sends anything else to replay', async () => {
    const { db } = await seeded(true);
    const store = await createSqliteStore(db, { outbox: true });
    const seqOf = async (id: string) => (await store.getDelivery(id))!.seq;
    const outcome = { startedAt: 10, finishedAt: 11, error: null, replay: false, target: 'http://127.0.0.1:1/hook', try: 1 };
    await store.recordRelay({ ...outcome, deliverySeq: await seqOf('evt-a'), status: 500, next: { state: 'dead' } });
    await store.recordRelay({ ...outcome, deliverySeq: await seqOf('evt-b'), status: 200, next: { state: 'done' } });
    await store.close();

    const result = await runCli(['events', 'retry', 'evt-a', '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/queued again: evt-a/);
    const done = await runCli(['events', 'retry', 'evt-b', '--db', db]);
    expect(done.code).toBe(1);
    expect(done.stdout).toBe('');
    expect(done.stderr).toMatch(/evt-b was already handed on; retry only requeues a dead job.*hookrelay events replay evt-b --to <url>/);
    const pending = await runCli(['events', 'retry', 'evt-c', '--db', db]);
    expect(pending.code).toBe(1);
    expect(pending.stderr).toMatch(/evt-c is still queued/);
    const unknown = await runCli(['events', 'retry', 'nope', '--db', db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/nope has no relay job/);

    const reopened = await createSqliteStore(db, { outbox: true });
    cleanups.push(() => reopened.close());
    expect((await reopened.relayHistory('evt-b')).job).toMatchObject({ state: 'done' });
  });
});
