/** `hookrelay db backup | stats | prune` against a temporary SQLite database, with the store open (as while listen runs). */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;
let dir: string;
let remove: () => void;
let db: string;
let store: SqliteStore;

beforeEach(async () => {
  ({ dir, remove } = tempDir());
  db = join(dir, 'hookrelay.db');
  store = await createSqliteStore(db, { outbox: true });
});
afterEach(async () => {
  await store.close();
  remove();
});

/** Two old deliveries (one relayed, one still pending), one recent, and an old refused attempt. */
async function seed(): Promise<{ done: string; pending: string; recent: string }> {
  const now = Date.now();
  const done = makeDelivery({ receivedAt: now - 40 * DAY });
  const pending = makeDelivery({ receivedAt: now - 40 * DAY });
  const recent = makeDelivery({ receivedAt: now - DAY });
  // In arrival order, as a receiver records them.
  for (const d of [done, pending]) await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
  await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISSING', receivedAt: now - 35 * DAY }));
  await store.accept(recent, attemptFor(recent, { receivedAt: recent.receivedAt }));
  const seq = (await store.getDelivery(done.id))!.seq;
  await store.recordRelay({ deliverySeq: seq, startedAt: now, finishedAt: now, status: 204, error: null, replay: false, target: 'http://127.0.0.1:1/', try: 1, next: { state: 'done' } });
  return { done: done.id, pending: pending.id, recent: recent.id };
}

describe('hookrelay db', () => {
  it('stats: counts, relay jobs, file sizes and schema version, as JSON and as text', async () => {
    await seed();
    const json = await runCli(['db', 'stats', '--db', db, '--json']);
    expect(json.code).toBe(0);
    const stats = JSON.parse(json.stdout) as Record<string, any>;
    expect(stats).toMatchObject({
      deliveries: 3,
      attempts: { accepted: 3, duplicate: 0, rejected: 1, faulted: 0, unavailable: 0 },
      relayJobs: { pending: 2, held: 0, done: 1, dead: 0 },
      schemaVersion: stats.knownSchemaVersion,
    });
    expect(stats.files.db).toBeGreaterThan(0);
    expect(stats.files.wal).toBeGreaterThan(0);
    expect(Date.parse(stats.oldestReceivedAt)).toBeLessThan(Date.parse(stats.newestReceivedAt));
    const text = await runCli(['db', 'stats', '--db', db]);
    expect(text.stdout).toMatch(/deliveries\s+3/);
    expect(text.stdout).toMatch(/relay jobs\s+pending 2, held 0, done 1, dead 0/);
  });

  it('backup: an online backup while the store is open, consistent and complete; refuses to overwrite', async () => {
    const ids = await seed();
    const target = join(dir, 'backup.db');
    const result = await runCli(['db', 'backup', target, '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('quick_check ok');
    const copy = new Database(target, { readonly: true });
    expect((copy.prepare('SELECT count(*) AS n FROM deliveries').get() as { n: number }).n).toBe(3);
    expect(copy.prepare('SELECT id FROM deliveries WHERE id = ?').get(ids.recent)).toBeDefined();
    copy.close();
    // The live store keeps working after the backup.
    const later = makeDelivery();
    expect((await store.accept(later, attemptFor(later))).outcome).toBe('accepted');
    const again = await runCli(['db', 'backup', target, '--db', db]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
    expect((await runCli(['db', 'backup', target, '--db', db, '--force'])).code).toBe(0);
  });

  it('backup shows its progress on stderr, never among what stdout prints; prune prints its JSON alone', async () => {
    const old = Date.now() - 40 * DAY;
    // No relay: nothing is kept for a pending job. About 600 pages: a backup of several steps.
    const plainDb = join(dir, 'plain.db');
    const plain = await createSqliteStore(plainDb);
    for (let i = 0; i < 300; i++) {
      const d = makeDelivery({ receivedAt: old + i, rawBody: Buffer.from(JSON.stringify({ pad: 'x'.repeat(8_000), n: i })) });
      await plain.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
    }
    await plain.close();
    const backup = await runCli(['db', 'backup', join(dir, 'copy.db'), '--db', plainDb]);
    expect(backup.code).toBe(0);
    const pages = /backup \(pages\): ([\d,]+)\/([\d,]+) \(100%\)/.exec(backup.stderr);
    expect(pages?.[1]).toBe(pages?.[2]);
    expect(Number(pages![2]!.replace(/,/g, ''))).toBeGreaterThan(100);
    expect(backup.stdout).not.toContain('pages):');
    const prune = await runCli(['db', 'prune', '--db', plainDb, '--older-than', '30d', '--json']);
    expect(prune.code).toBe(0);
    expect(JSON.parse(prune.stdout)).toMatchObject({ deliveries: 300 });
  });

  it('prune: a dry run counts, the real one removes old deliveries but never one whose relay is pending', async () => {
    const ids = await seed();
    const dry = await runCli(['db', 'prune', '--db', db, '--older-than', '30d', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^would remove 1 deliveries, 2 attempts and 1 relay tries/);
    expect(dry.stdout).toContain('kept 1 older deliveries whose relay is still pending');
    expect(await store.getDelivery(ids.done)).toBeDefined();
    const real = await runCli(['db', 'prune', '--db', db, '--older-than', '30d', '--json']);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.stdout)).toMatchObject({ deliveries: 1, attempts: 2, relayAttempts: 1, keptPending: 1, dryRun: false });
    expect(await store.getDelivery(ids.done)).toBeUndefined();
    expect(await store.getDelivery(ids.pending)).toBeDefined();
    expect(await store.getDelivery(ids.recent)).toBeDefined();
  });

  it.each([
    [['db', 'prune', '--older-than', 'soon'], /--older-than: must be a duration/],
    [['db', 'prune', '--older-than', 'off'], /0\/off would prune nothing/],
    [['db', 'stats', '--db', '{dir}/missing.db'], /no database at/],
    [['db', 'backup', '{dir}/x.db', '--db', '{dir}/missing.db'], /no database at/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(args.map((a) => a.replace('{dir}', dir)));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(dir, 'x.db'))).toBe(false);
  });
});
