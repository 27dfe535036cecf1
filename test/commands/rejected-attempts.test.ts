/**
 * A rejected attempt in `events show`, and its export in every format with the signature redacted;
 * exported as a capture (with --include-signature), `hookrelay verify` gives the receiver's verdict
 * again: the same code, the same hints (issue 13, item 8).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { envelopeBody, signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A real receiver gets a delivery signed with its secret plus a trailing newline, one signed with
 * another secret, and one signed 400 s ago; the database is closed after.
 */
async function received() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'rejected.db');
  const app = await buildApp(testListenConfig(db));
  const now = Math.floor(Date.now() / 1000);
  const post = (req: ReturnType<typeof signedRequest>) =>
    request(`http://127.0.0.1:${app.receiverPort}/webhooks`, { method: 'POST', headers: req.headers, body: req.body }).then(async (r) => (await r.body.json()) as { code: string });
  const wrongSecret = signedRequest({ id: 'wrong-secret', secret: `${TEST_SECRET}\n`, t: now, body: Buffer.concat([envelopeBody('wrong-secret'), Buffer.from('\n')]) });
  const otherSecret = signedRequest({ id: 'other-secret', secret: 'whsec_someone_elses_secret_0123456789', t: now });
  const stale = signedRequest({ id: 'stale', t: now - 400 });
  expect((await post(wrongSecret)).code).toBe('SIGNATURE_MISMATCH');
  expect((await post(otherSecret)).code).toBe('SIGNATURE_MISMATCH');
  expect((await post(stale)).code).toBe('TIMESTAMP_TOO_OLD');
  await app.close();
  return { db, dir, wrongSecret, stale };
}

const macOf = (req: ReturnType<typeof signedRequest>) => /v1=([0-9a-f]{64})/.exec(req.headers['x-service-signature']!)![1]!;

describe('rejected attempts in the CLI', () => {
  it('events show prints each attempt numbered, with its hint beside the code, its headers and its body', async () => {
    const { db, wrongSecret } = await received();
    const shown = await runCli(['events', 'show', 'wrong-secret', '--db', db]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^ {2}#1 .*400 rejected .*SIGNATURE_MISMATCH/m);
    expect(shown.stdout).toMatch(/^ {6}hint: the signature matches secret #1 with a trailing newline added/m);
    expect(shown.stdout).toMatch(/^ {6}headers \(\d+\)$/m);
    expect(shown.stdout).toContain(`        x-service-delivery: wrong-secret`);
    expect(shown.stdout).toMatch(/^ {6}body \(\d+ bytes\)\n {8}\{"id":"wrong-secret"/m);
    expect(shown.stdout).toContain('hookrelay events export wrong-secret --attempt <#> --format capture --include-signature');
    const json = JSON.parse((await runCli(['events', 'show', 'wrong-secret', '--db', db, '--json'])).stdout);
    expect(Buffer.from(json.attempts[0].request.bodyBase64, 'base64').equals(wrongSecret.body)).toBe(true);
    expect(json.attempts[0].hints[0]).toMatch(/trailing newline/);
  });

  it('redacts the signature in every export format unless --include-signature', async () => {
    const { db, dir, wrongSecret } = await received();
    const mac = macOf(wrongSecret);
    for (const format of ['capture', 'ndjson', 'har', 'curl']) {
      const out = await runCli(['events', 'export', 'wrong-secret', '--attempt', '1', '--format', format, '--db', db]);
      expect(out.code, `${format}: ${out.stderr}`).toBe(0);
      expect(out.stdout, format).not.toContain(mac);
      expect(out.stdout, format).toMatch(/t=\d+,v1=redacted/);
      const kept = await runCli(['events', 'export', 'wrong-secret', '--attempt', '1', '--format', format, '--include-signature', '--db', db]);
      expect(kept.stdout, format).toContain(mac);
    }
    // A stored delivery's export too.
    const storeDb = join(dir, 'stored.db');
    const store = await createSqliteStore(storeDb);
    const ok = signedRequest({ id: 'stored' });
    const d = makeDelivery({ id: 'stored', rawHeaders: Object.entries(ok.headers).flat(), rawBody: ok.body });
    await store.accept(d, attemptFor(d));
    await store.close();
    for (const format of ['ndjson', 'har', 'curl']) {
      const all = await runCli(['events', 'export', '--format', format, '--db', storeDb]);
      expect(all.stdout, format).not.toContain(macOf(ok));
      expect(all.stdout, format).toMatch(/v1=redacted/);
    }
  }, 120_000);

  it('export --format capture → verify gives the receiver verdict again: same code, same hints, judged at the arrival time', async () => {
    const { db, dir } = await received();
    // The other secret: no guess explains it, so the receiver words the cause its own way (tour finding F8).
    for (const id of ['wrong-secret', 'other-secret', 'stale']) {
      const stored = JSON.parse((await runCli(['events', 'show', id, '--db', db, '--json'])).stdout).attempts[0] as { reason: string; hints: string[] };
      const exported = await runCli(['events', 'export', id, '--attempt', '1', '--format', 'capture', '--include-signature', '--db', db]);
      expect(exported.code, exported.stderr).toBe(0);
      const file = join(dir, `${id}.http`);
      writeFileSync(file, exported.stdout, 'latin1');
      const verdict = await runCli(['verify', file, '--secret', TEST_SECRET, '--json']);
      expect(verdict.code, verdict.stderr).toBe(1);
      const json = JSON.parse(verdict.stdout);
      expect(json.verdict).toMatchObject({ accepted: false, code: stored.reason, hints: stored.hints });
      const text = await runCli(['verify', file, '--secret', TEST_SECRET]);
      expect(text.stdout).toContain(`the receiver would answer 400 ${stored.reason}`);
      expect(text.stdout).toMatch(/judged at .*, when the receiver got it/);
      expect(text.stdout.split('\n').filter((line) => line.startsWith('  hint: ')), id).toEqual(stored.hints.map((hint) => `  hint: ${hint}`));
    }
  }, 90_000);

  it('verify of a redacted capture says so, needs no secret, and still runs the other checks', async () => {
    const { db, dir } = await received();
    const exported = await runCli(['events', 'export', 'wrong-secret', '--attempt', '1', '--format', 'capture', '--db', db]);
    const file = join(dir, 'redacted.http');
    writeFileSync(file, exported.stdout, 'latin1');
    const verdict = await runCli(['verify', file, '--db', join(dir, 'nowhere.db')]);
    expect(verdict.code, verdict.stderr).toBe(3);
    expect(verdict.stdout).toMatch(/^unverified: the signature was redacted/);
    expect(verdict.stdout).toMatch(/signature: the signature was redacted by `hookrelay events export`/);
    expect(verdict.stdout).toMatch(/envelope: ok \(id wrong-secret/);
    // A capture whose other checks fail is refused whatever its signature.
    writeFileSync(file, exported.stdout.replace('x-service-delivery: wrong-secret', 'x-service-delivery: another-id'), 'latin1');
    const refused = await runCli(['verify', file, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).verdict).toMatchObject({ accepted: false, code: 'DELIVERY_ID_MISMATCH', signatureRedacted: true });
  });

  it('refuses what it cannot export, and says what to give instead', async () => {
    const { db } = await received();
    const noId = await runCli(['events', 'export', '--format', 'capture', '--db', db]);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toMatch(/--format capture holds one request: give the delivery id/);
    const notStored = await runCli(['events', 'export', 'wrong-secret', '--db', db]);
    expect(notStored.code).toBe(1);
    expect(notStored.stderr).toMatch(/was never stored .*export one of its 1 attempt with --attempt 1/);
    const beyond = await runCli(['events', 'export', 'wrong-secret', '--attempt', '2', '--db', db]);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toMatch(/has 1 attempt: --attempt must be 1/);
  });
});
