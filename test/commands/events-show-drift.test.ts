/** `events show` flags drift (a known field missing or mistyped) as a warning, in text and --json; a matching body shows none. */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const ID = '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const body = (id: string, data: unknown) => Buffer.from(JSON.stringify({ id, type: 'trustcenter.access_approved', apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org', data }));

async function seeded() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'drift.db');
  const store = await createSqliteStore(db, {});
  const drifted = makeDelivery({ id: 'evt-drift', trigger: 'trustcenter.access_approved', rawBody: body('evt-drift', { accessRequestId: ID, decidedBy: '\u202e\u001b[31msso', extra: 1 }) });
  const fine = makeDelivery({ id: 'evt-fine', trigger: 'trustcenter.access_approved', rawBody: body('evt-fine', { accessRequestId: ID, visitorTokenId: ID, decidedBy: 'reviewer', later: true }) });
  for (const d of [drifted, fine]) await store.accept(d, attemptFor(d));
  await store.close();
  return db;
}

describe('hookrelay events show: schema drift', () => {
  it('warns with each JSON pointer and what was expected, printable, and keeps the delivery as it was', async () => {
    const db = await seeded();
    const shown = await runCli(['events', 'show', 'evt-drift', '--db', db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^schema {4}WARNING: 2 known fields missing or of another type than the trustcenter\.access_approved schema says \(accepted all the same: hookrelay schema trustcenter\.access_approved\)$/m);
    expect(shown.stdout).toContain('\n  /data/visitorTokenId: missing (uuid string expected)\n');
    expect(shown.stdout).toMatch(/\n {2}\/data\/decidedBy: ".*sso" \(one of reviewer, access_rule, api_client expected\)\n/);
    // The hostile value's bidi override and escape are not printed as they are.
    expect(shown.stdout).not.toMatch(/[\u202e\u001b]/);
    const json = JSON.parse((await runCli(['events', 'show', 'evt-drift', '--db', db, '--json'])).stdout);
    expect(json.drift).toEqual({
      trigger: 'trustcenter.access_approved',
      problems: ['/data/visitorTokenId: missing (uuid string expected)', expect.stringMatching(/^\/data\/decidedBy: "/)],
      more: 0,
    });
  });

  it('says nothing for a body that matches its schema, extra fields included', async () => {
    const db = await seeded();
    const shown = await runCli(['events', 'show', 'evt-fine', '--db', db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toMatch(/^schema/m);
    expect(JSON.parse((await runCli(['events', 'show', 'evt-fine', '--db', db, '--json'])).stdout).drift).toBeNull();
  });
});
