import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { parseFaultRule } from '../../src/core/faults/index.js';
import type { RelayTargets } from '../../src/core/routes.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { verify } from '../../src/index.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A database with three deliveries (one received twice) and one rejected attempt. */
async function seeded(outbox: boolean | RelayTargets = false) {
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

  it('with no delivery stored, counts the attempts that stored nothing and gives the command that lists each (tour finding F4)', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'refused.db');
    const store = await createSqliteStore(db, {});
    for (const receivedAt of [1_000, 2_000]) await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt }));
    await store.recordAttempt(attemptFor(null, { outcome: 'faulted', status: 503, reason: 'fault', receivedAt: 3_000 }));
    await store.close();
    const listed = await runCli(['events', 'list', '--db', db]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(
      [
        'no deliveries stored yet; 3 attempts arrived and stored nothing:',
        `  2 rejected, refused by the receiver's checks (size, signature or envelope): hookrelay events list --status rejected --db ${db}`,
        `  1 faulted, answered by a fault rule: hookrelay events list --status faulted --db ${db}`,
        '',
      ].join('\n'),
    );
    // The command printed lists them.
    const command = /: hookrelay (events list --status rejected .*)$/m.exec(listed.stdout)![1]!.split(' ');
    const rejected = await runCli(command);
    expect(rejected.stdout.trim().split('\n')).toHaveLength(2);
    expect(rejected.stdout).toMatch(/400 rejected .*SIGNATURE_MISMATCH/);
    // --json stays the list alone.
    expect((await runCli(['events', 'list', '--db', db, '--json'])).stdout).toBe('[]\n');
    // An empty database: nothing to point at.
    const empty = join(dir, 'empty.db');
    await (await createSqliteStore(empty, {})).close();
    expect((await runCli(['events', 'list', '--db', empty])).stdout).toBe('no deliveries stored yet\n');
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
    // Into a pipe, a listing of a moment adds nothing to stderr (a long one counts there: events-replay-tty.test.ts).
    expect(all.stderr).toBe('');
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
    expect((await reopened.relayHistory('evt-b')).jobs).toMatchObject([{ state: 'done' }]);
  });

  it('with several targets: shows one job per target, requeues the dead ones or --target\'s only, and says per target why not', async () => {
    const APP = 'http://127.0.0.1:1/hook';
    const AUDIT = 'http://audit:pw-audit-91@127.0.0.1:2/audit';
    const SHOWN_AUDIT = 'http://[redacted]@127.0.0.1:2/audit';
    const targets: RelayTargets = { to: APP, routes: [{ glob: '*', urls: [AUDIT], also: true }] };
    const { db } = await seeded(targets);
    const store = await createSqliteStore(db, { outbox: targets });
    const seq = (await store.getDelivery('evt-a'))!.seq;
    const outcome = { deliverySeq: seq, startedAt: 10, finishedAt: 11, replay: false, try: 1 };
    await store.recordRelay({ ...outcome, status: 204, error: null, target: APP, next: { state: 'done' } });
    await store.recordRelay({ ...outcome, status: 500, error: 'responded 500', target: SHOWN_AUDIT, jobTarget: AUDIT, next: { state: 'dead' } });
    await store.close();

    const shown = await runCli(['events', 'show', 'evt-a', '--db', db]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('relay     2 jobs, one per target\n');
    expect(shown.stdout).toContain(`  job  done after 1 try for ${APP} (last answer 204)\n`);
    expect(shown.stdout).toContain(`  job  dead after 1 try for ${SHOWN_AUDIT} (last answer 500: responded 500)\n`);
    expect(shown.stdout).toMatch(/try 1 {2}→ 500 {2}1 ms {2}http:\/\/\[redacted\]@127\.0\.0\.1:2\/audit/);
    const json = JSON.parse((await runCli(['events', 'show', 'evt-a', '--db', db, '--json'])).stdout);
    expect(json.relay.jobs.map((j: { target: string; state: string }) => [j.target, j.state])).toEqual([[APP, 'done'], [SHOWN_AUDIT, 'dead']]);
    expect(json.relay.job).toEqual(json.relay.jobs[0]);
    expect(shown.stdout + JSON.stringify(json)).not.toContain('pw-audit-91');

    const unknown = await runCli(['events', 'retry', 'evt-a', '--target', 'http://127.0.0.1:9/x', '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`--target: "http://127.0.0.1:9/x" is not a target of this delivery; its relay jobs go to ${APP}, ${SHOWN_AUDIT}`);
    expect(unknown.stderr).not.toContain('pw-audit-91');
    const done = await runCli(['events', 'retry', 'evt-a', '--target', APP, '--db', db]);
    expect(done.code).toBe(1);
    expect(done.stderr).toContain(`evt-a has no dead relay job for ${APP}; retry only requeues a dead job. By target: ${APP} was already handed on; ${SHOWN_AUDIT} is dead. To send it again, marked as a replay: hookrelay events replay evt-a --to <url>`);

    // Named as `events show` printed it (credentials hidden): normalised, then matched.
    const retried = await runCli(['events', 'retry', 'evt-a', '--target', SHOWN_AUDIT, '--db', db, '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    const answer = JSON.parse(retried.stdout);
    expect(answer).toMatchObject({ deliveryId: 'evt-a', queued: true, target: SHOWN_AUDIT, requeuedTargets: [SHOWN_AUDIT], reason: null });
    expect(answer.jobs.map((j: { state: string }) => j.state)).toEqual(['done', 'pending']);
    expect(answer.job).toEqual(answer.jobs[0]);

    const again = await runCli(['events', 'retry', 'evt-a', '--db', db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`By target: ${APP} was already handed on; ${SHOWN_AUDIT} is still queued for the relay`);
  }, 60_000); // six runs of the CLI, one after the other
});

describe('hookrelay events show: the detail order (issue 13, item 13)', () => {
  it('shows what the target answered to each relay try, hostile bytes escaped, in text and --json; an older try says it was not kept', async () => {
    const { db } = await seeded(true);
    const store = await createSqliteStore(db, { outbox: true });
    const deliverySeq = (await store.getDelivery('evt-a'))!.seq;
    const base = { deliverySeq, replay: false, target: 'http://127.0.0.1:1/hook' };
    const head = Buffer.concat([Buffer.from('<script>alert(1)</script>\u001b[31mred\n'), Buffer.from([0xff, 0xfe])]);
    const body = Buffer.concat([head, Buffer.alloc(4096 - head.length, 0x7a)]);
    const answer = { headers: [['X-Evil', '<script>alert(1)</script>\t\u00ff'], ['Content-Type', 'text/html']] as Array<[string, string]>, headerLines: 2, body, bodyBytes: 9000, complete: true };
    await store.recordRelay({ ...base, startedAt: 10, finishedAt: 12, status: 503, error: 'responded 503', try: 1, answer: null, next: { state: 'pending', nextAt: 20 } });
    await store.recordRelay({ ...base, startedAt: 20, finishedAt: 2020, status: null, error: 'timeout after 2000 ms', try: 2, answer: null, next: { state: 'pending', nextAt: 30 } });
    await store.recordRelay({ ...base, startedAt: 30, finishedAt: 42, status: 500, error: 'responded 500', try: 3, answer, next: { state: 'dead' } });
    await store.close();

    const shown = await runCli(['events', 'show', 'evt-a', '--db', db]);
    expect(shown.code, shown.stderr).toBe(0);
    const relay = shown.stdout.slice(shown.stdout.indexOf('\nrelay '));
    expect(relay).toMatch(/try 1 {2}→ 503 {2}2 ms .*responded 503\n {6}answer not kept \(recorded before hookrelay kept answers\)\n/);
    expect(relay).toMatch(/try 2 {2}→ --- {2}2000 ms .*timeout after 2000 ms\n .*try 3/);
    expect(relay).toContain('      answer headers (2)\n        X-Evil: <script>alert(1)</script>\\u0009\u00ff\n        Content-Type: text/html\n');
    expect(relay).toContain('      answer body (9000 bytes, the first 4096 kept; not UTF-8: shown as \uFFFD, --json has the exact bytes)\n        <script>alert(1)</script>\\u001b[31mred\n        \uFFFD\uFFFDzzz');
    expect(shown.stdout).not.toContain('\u001b');

    const json = JSON.parse((await runCli(['events', 'show', 'evt-a', '--db', db, '--json'])).stdout);
    const tries = json.relay.attempts;
    expect(tries.map((t: { answer: unknown }) => t.answer === null)).toEqual([true, true, false]);
    expect(tries[2].answer).toMatchObject({ headers: answer.headers, headerLines: 2, bodyBytes: 9000, complete: true, invalidUtf8: true });
    expect(Buffer.from(tries[2].answer.bodyBase64, 'base64').equals(body)).toBe(true);
    expect(json.relay.jobs).toMatchObject([{ state: 'dead', tries: 3, lastStatus: 500 }]);
    expect(json.relay.job).toEqual(json.relay.jobs[0]);
  });

  it('lists the redirect hops of one attempt under it, numbered by the sender\'s attempt; export --attempt numbers as show does', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'hops.db');
    const rule = parseFaultRule('redirect hops=3 attempt=1');
    if (!rule.ok) throw new Error(rule.message);
    const app = await buildApp(testListenConfig(db, { faultRules: [rule.rule] }));
    const t = Math.floor(Date.now() / 1000);
    const first = signedRequest({ t });
    // fetch follows a 307 with the same method, body and headers: a sender's followed redirect.
    expect((await fetch(app.receiverUrl, { method: 'POST', headers: first.headers, body: first.body.toString('latin1'), redirect: 'follow' })).status).toBe(200);
    const retry = signedRequest({ id: first.id, body: first.body, t: t + 1, attempt: 2 });
    expect((await fetch(app.receiverUrl, { method: 'POST', headers: retry.headers, body: retry.body.toString('latin1') })).status).toBe(200);
    await app.close();

    const shown = await runCli(['events', 'show', first.id, '--db', db]);
    expect(shown.code, shown.stderr).toBe(0);
    const attempts = shown.stdout.slice(shown.stdout.indexOf('\nattempts\n') + 1).split('\n');
    const heads = attempts.filter((line) => /^ {2}#\d/.test(line));
    expect(heads).toHaveLength(2);
    expect(heads[0]).toMatch(/^ {2}#1 .* 200 accepted .*fault-hop:3\/3 {2}attempt 1 {2}\(3 redirect hops followed\)$/);
    expect(heads[1]).toMatch(/^ {2}#2 .* 200 duplicate .* attempt 2$/);
    const hops = attempts.filter((line) => /^ {6}(request|hop \d)/.test(line)).map((line) => line.replace(/ {2}\d{4}-[\d-]+ [\d:.]+ {2}/, '  '));
    expect(hops).toEqual([
      '      request  307 faulted  fault:redirect hops=3 attempt=1  → redirect to hop 1',
      '      hop 1    307 faulted  fault-hop:1/3  → redirect to hop 2',
      '      hop 2    307 faulted  fault-hop:2/3  → redirect to hop 3',
      '      hop 3    200 accepted  fault-hop:3/3',
    ]);
    expect(shown.stdout).toMatch(/^ {8}headers \(\d+\)\n {10}.*$/m);
    expect(shown.stdout).toContain(`      body (${first.body.length} bytes, sent on every hop)`);

    const json = JSON.parse((await runCli(['events', 'show', first.id, '--db', db, '--json'])).stdout);
    expect(json.attempts.map((a: { senderAttempt: number; hop: number }) => [a.senderAttempt, a.hop])).toEqual([[1, 0], [1, 1], [1, 2], [1, 3], [2, 0]]);

    // An attempt exports as the hop that ended it: show prints #1 as 200 accepted, and so it exports.
    const exported = async (n: number) => JSON.parse((await runCli(['events', 'export', first.id, '--attempt', String(n), '--format', 'ndjson', '--db', db])).stdout);
    const one = await exported(1);
    expect(one).toMatchObject({ attempt: 1, hop: 3, attemptHeader: 1, outcome: 'accepted', status: 200, reason: 'fault-hop:3/3', hints: [] });
    expect(Buffer.from(one.bodyBase64, 'base64').equals(first.body)).toBe(true);
    expect(await exported(2)).toMatchObject({ attempt: 2, hop: 0, attemptHeader: 2, outcome: 'duplicate' });
    const beyond = await runCli(['events', 'export', first.id, '--attempt', '3', '--format', 'ndjson', '--db', db]);
    expect(beyond.stderr).toMatch(/has 2 attempts: --attempt must be 1\.\.2/);
  });
});

describe('hookrelay events: one reading of a kept body, one export of an attempt', () => {
  it('does not call a valid UTF-8 answer invalid in --json because the 4 KiB cut fell inside a character, as the text and the console do', async () => {
    const { db } = await seeded(true);
    const store = await createSqliteStore(db, { outbox: true });
    const deliverySeq = (await store.getDelivery('evt-a'))!.seq;
    // 4095 bytes of "a", then "€" (3 bytes): the first 4096 bytes end inside it.
    const whole = Buffer.concat([Buffer.alloc(4095, 0x61), Buffer.from('€ and more')]);
    const answer = { headers: [['Content-Type', 'text/plain; charset=utf-8']] as Array<[string, string]>, headerLines: 1, body: whole.subarray(0, 4096), bodyBytes: whole.length, complete: true };
    await store.recordRelay({ deliverySeq, replay: false, target: 'http://127.0.0.1:1/hook', startedAt: 10, finishedAt: 12, status: 500, error: 'responded 500', try: 1, answer, next: { state: 'dead' } });
    await store.close();

    const json = JSON.parse((await runCli(['events', 'show', 'evt-a', '--db', db, '--json'])).stdout);
    const kept = json.relay.attempts[0].answer;
    expect(kept).toMatchObject({ invalidUtf8: false, bodyBytes: whole.length, body: 'a'.repeat(4095) });
    expect(Buffer.from(kept.bodyBase64, 'base64').equals(whole.subarray(0, 4096))).toBe(true);
    const text = await runCli(['events', 'show', 'evt-a', '--db', db]);
    expect(text.stdout).toContain(`      answer body (${whole.length} bytes, the first 4096 kept)\n`);
  });

  it('exports a faulted attempt whose body was longer than the 64 KiB it kept with the stored delivery\'s body when their SHA-256 agree', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'long.db');
    const body = Buffer.from(JSON.stringify({ id: 'evt-long', type: 'trustcenter.access_requested', data: { note: 'x'.repeat(100 * 1024) } }));
    const delivery = makeDelivery({ id: 'evt-long', rawBody: body, receivedAt: 2_000 });
    const store = await createSqliteStore(db);
    // Attempt 1 was answered 503 by a fault rule, keeping the first 64 KiB of what it sent; attempt 2 was accepted.
    await store.recordAttempt(attemptFor(delivery, {
      receivedAt: 1_000, outcome: 'faulted', status: 503, reason: 'fault:status 503 attempt=1',
      request: { headers: [['Content-Type', 'application/json'], ['X-Service-Delivery', 'evt-long']], body: body.subarray(0, 64 * 1024) },
    }));
    await store.accept(delivery, attemptFor(delivery, { receivedAt: 2_000, attemptHeader: 2 }));
    await store.close();

    const capture = await runCli(['events', 'export', 'evt-long', '--attempt', '1', '--format', 'capture', '--db', db]);
    expect(capture.code, capture.stderr).toBe(0);
    expect(capture.stdout.endsWith(body.toString('latin1'))).toBe(true);
    const line = JSON.parse((await runCli(['events', 'export', 'evt-long', '--attempt', '1', '--format', 'ndjson', '--db', db])).stdout);
    expect(line).toMatchObject({ attempt: 1, outcome: 'faulted', status: 503, bodyBytes: body.length });
    expect(Buffer.from(line.bodyBase64, 'base64').equals(body)).toBe(true);
  });

  it('exports a redirect-grouped attempt whose body is over 64 KiB as the hop that ended it, whole', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = join(dir, 'long-hops.db');
    const rule = parseFaultRule('redirect hops=1 attempt=1');
    if (!rule.ok) throw new Error(rule.message);
    const app = await buildApp(testListenConfig(db, { faultRules: [rule.rule] }));
    const id = 'evt-long-hops';
    const sent = signedRequest({ id, t: Math.floor(Date.now() / 1000), body: Buffer.from(JSON.stringify({ id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org_1', data: { note: 'x'.repeat(100 * 1024) } })) });
    expect((await fetch(app.receiverUrl, { method: 'POST', headers: sent.headers, body: sent.body.toString('latin1'), redirect: 'follow' })).status).toBe(200);
    await app.close();

    const capture = await runCli(['events', 'export', id, '--attempt', '1', '--format', 'capture', '--db', db]);
    expect(capture.code, capture.stderr).toBe(0);
    expect(capture.stdout.endsWith(sent.body.toString('latin1'))).toBe(true);
    const line = JSON.parse((await runCli(['events', 'export', id, '--attempt', '1', '--format', 'ndjson', '--db', db])).stdout);
    expect(line).toMatchObject({ attempt: 1, hop: 1, outcome: 'accepted', status: 200, reason: 'fault-hop:1/1' });
  });
});
