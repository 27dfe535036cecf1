/** `hookrelay events wait` beside a running `listen`: on SQLite and PostgreSQL, a match, a timeout, and --since. */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';

const HARNESS = fileURLToPath(new URL('./events-wait-harness.ts', import.meta.url));
const SECRET = 'whsec_wait_0123456789';
const pg = useTestPostgres();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(args: string[]): Promise<ListenProcess> {
  const listening = await startListenProcess(['--no-console', '--secret', SECRET, ...args]);
  cleanups.push(async () => {
    listening.child.kill();
    await listening.exited;
  });
  return listening;
}

async function sqliteListen(): Promise<{ listening: ListenProcess; db: string }> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = join(dir, 'hookrelay.db');
  return { listening: await listen(['--db', db]), db };
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `events wait` to its end. */
function waitCli(args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', HARNESS, 'events', 'wait', ...args], (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Starts `events wait` and resolves once it says it is waiting; `done` resolves at its exit. */
async function startWait(args: string[]): Promise<{ done: Promise<Result> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', HARNESS, 'events', 'wait', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const exited = once(child, 'exit');
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes('hookrelay: waiting for')) resolve();
    });
    exited.then(() => reject(new Error(`events wait exited before waiting:\n${stderr}`)));
  });
  return { done: exited.then(([code]) => ({ code: code as number | null, stdout, stderr })) };
}

async function send(url: string, trigger: string, data?: Record<string, unknown>): Promise<string> {
  const sent = await runCli(['send', '--to', url, '--secret', SECRET, '--trigger', trigger, '--json', ...(data ? ['--data', JSON.stringify(data)] : [])]);
  expect(sent.code, sent.stderr).toBe(0);
  const id = /"deliveryId":\s*"([^"]+)"/.exec(sent.stdout)?.[1] ?? /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(sent.stdout)?.[0];
  expect(id, sent.stdout).toBeDefined();
  return id!;
}

const approved = (accessRequestId: string) => ({ accessRequestId, visitorTokenId: 'vt_1', decidedBy: 'reviewer' });

describe('hookrelay events wait', () => {
  it('beside listen on SQLite: exits 0 with the first delivery matching --trigger and --where, skipping others', async () => {
    const { listening, db } = await sqliteListen();
    const waiting = await startWait(['--db', db, '--trigger', 'trustcenter.*', '--where', 'data.accessRequestId=ar_wanted', '--timeout', '30s']);
    await send(listening.url, 'vendor.rating_dropped');
    await send(listening.url, 'trustcenter.access_approved', approved('ar_other'));
    const id = await send(listening.url, 'trustcenter.access_approved', approved('ar_wanted'));
    const result = await waiting.done;
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { id: string; trigger: string; event: { data: { accessRequestId: string } }; body: string };
    expect(printed.id).toBe(id);
    expect(printed.trigger).toBe('trustcenter.access_approved');
    expect(printed.event.data.accessRequestId).toBe('ar_wanted');
    expect(JSON.parse(printed.body)).toEqual(printed.event);
  }, 90_000);

  it('takes the filter language in --where: a prefix on the body and a header condition, every problem with its column', async () => {
    const { listening, db } = await sqliteListen();
    const waiting = await startWait(['--db', db, '--where', '/data/accessRequestId prefix ar_want and header:X-Service-Event != trustcenter.access_rejected', '--timeout', '30s']);
    await send(listening.url, 'trustcenter.access_approved', approved('ar_other'));
    await send(listening.url, 'trustcenter.access_rejected', approved('ar_wanted_but_rejected'));
    const id = await send(listening.url, 'trustcenter.access_approved', approved('ar_wanted'));
    const result = await waiting.done;
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }).id).toBe(id);

    const bad = await waitCli(['--db', db, '--where', '/data/x >= soon and /data/y ~ 1', '--timeout', '1s']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/compares with a number .* not "soon" at column 12; unknown operator "~".* at column 29/);
  }, 90_000);

  it('exits 1 at the timeout, naming what it waited for; --since finds a delivery stored before the wait, --since now does not', async () => {
    const { listening, db } = await sqliteListen();
    const before = new Date(Date.now() - 1000).toISOString();
    const id = await send(listening.url, 'trustcenter.access_requested', { accessRequestId: 'ar_early' });

    const fromNow = await waitCli(['--db', db, '--delivery', id, '--timeout', '1s']);
    expect(fromNow.code).toBe(1);
    expect(fromNow.stdout).toBe('');
    expect(fromNow.stderr).toMatch(new RegExp(`no delivery matching delivery "${id}" stored after the wait started within 1s`));

    const since = await waitCli(['--db', db, '--delivery', id, '--since', before, '--timeout', '10s']);
    expect(since.code, since.stderr).toBe(0);
    expect((JSON.parse(since.stdout) as { id: string }).id).toBe(id);

    const sinceAgo = await waitCli(['--db', db, '--where', '$.data.accessRequestId=ar_early', '--since', '5m', '--timeout', '10s']);
    expect(sinceAgo.code, sinceAgo.stderr).toBe(0);

    const later = await waitCli(['--db', db, '--delivery', id, '--since', new Date(Date.now() + 60_000).toISOString(), '--timeout', '1s']);
    expect(later.code).toBe(1);
  }, 90_000);

  it('refuses bad flags with exit 2, every problem at once', async () => {
    const result = await waitCli(['--timeout', 'soon', '--since', 'yesterday', '--where', 'noequals', '--where', 'a..b=1', '--db', '/nonexistent/x.db']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/4 problems/);
    expect(result.stderr).toMatch(/--timeout: must be a duration/);
    expect(result.stderr).toMatch(/--since: must be now, a date/);
    expect(result.stderr).toMatch(/--where "noequals": "noequals" needs an operator .* at column 1/);
    expect(result.stderr).toMatch(/--where: cannot read the path "a\.\.b"/);
  }, 30_000);

  it('refuses a --where name with a bad escape with exit 2, naming the segment', async () => {
    const result = await waitCli(['--where', 'data["\\x"]=1', '--db', '/nonexistent/x.db']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--where: cannot read the name in .*\\x/);
    expect(result.stderr).not.toMatch(/SyntaxError/);
  }, 30_000);

  it('says there is no store, with exit 2, when the SQLite file never appears', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const result = await waitCli(['--db', join(dir, 'missing.db'), '--timeout', '300ms']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no database at .*missing\.db/);
  }, 30_000);

  it('exits 3 (could not run), not 1 (nothing matched), when the store is there but cannot be read', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    writeFileSync(join(dir, 'damaged.db'), Buffer.alloc(8192, 0x5a));
    const result = await waitCli(['--db', join(dir, 'damaged.db'), '--timeout', '2s']);
    expect(result.code).toBe(3);
  }, 30_000);

  it('beside listen on PostgreSQL: woken by LISTEN/NOTIFY', async () => {
    const url = await pg.freshSchema();
    const listening = await listen(['--store', url]);
    const waiting = await startWait(['--store', url, '--trigger', 'sod.violation_detected', '--timeout', '30s']);
    await send(listening.url, 'trustcenter.access_requested', { accessRequestId: 'ar_pg' });
    const id = await send(listening.url, 'sod.violation_detected');
    const result = await waiting.done;
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { id: string }).id).toBe(id);
    const timeout = await waitCli(['--store', url, '--trigger', 'sod.*', '--timeout', '500ms']);
    expect(timeout.code).toBe(1);
  }, 90_000);
});
