/** `hookrelay events replay` with a selection: a journaled job, resumable, each delivery sent once within it. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verify } from '../../src/index.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { runCli } from '../helpers/run-cli.js';
import { killTwiceAndResume, seededDeliveries } from '../helpers/bulk-replay-kills.js';
import { startTarget, type Received } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SECRET = 'whsec_bulk_replay_secret';

async function seeded(n: number) {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return { dir, ...(await seededDeliveries(dir, n)) };
}

const idOf = (r: Received) => String(r.headers['x-service-delivery']);

/** Starts a bulk replay as a process, and once the app has `after` copies, stops it with `signal`: its exit code, stdout, stderr and job. */
async function interruptedRun(args: string[], target: { waitFor(n: number): Promise<void> }, after: number, signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [...cliEntry(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await Promise.race([target.waitFor(after), exited]);
  child.kill(signal);
  const [code] = await exited;
  const jobId = /replay job (rj_[0-9a-z]{12}):/.exec(stderr)?.[1];
  if (!jobId) throw new Error(`no replay job was made: ${stderr}`);
  return { code, stdout, stderr, jobId };
}

type CopyLine = { deliveryId: string; ok: boolean; relayTry: Record<string, unknown> | null; earlierRun: boolean };
const linesOf = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('hookrelay events replay (bulk)', () => {
  it('selects by time, trigger and body; a dry run sends nothing; the job sends each once, signed and marked with its id', async () => {
    const { db, ids } = await seeded(30);
    const target = await startTarget();
    cleanups.push(() => target.close());

    const dry = await runCli(['events', 'replay', '--db', db, '--since', '20m', '--trigger', 'vendor.*', '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    // A dry run resolves no settings, yet a --secret it was given is in the process list: it says so, never the secret.
    const drySigned = await runCli(['events', 'replay', '--db', db, '--since', '20m', '--trigger', 'vendor.*', '--dry-run', '--secret', 'whsec_dry_run_flag_secret_0123456789']);
    expect(drySigned.stderr).toBe('warning: --secret is visible to every user of this machine in the process list; prefer HOOKRELAY_FORWARD_SECRET\n');
    expect(drySigned.stdout).toMatch(/^would replay 6 deliveries /);
    expect(drySigned.stdout).not.toContain('whsec_dry_run_flag_secret');
    // Minutes 20..1 ago are items 10..29; every third is vendor.*: 12, 15, 18, 21, 24, 27.
    expect(dry.stdout).toMatch(/^would replay 6 deliveries \(since .*, trigger "vendor\.\*"\); nothing sent/);
    expect(target.received).toHaveLength(0);

    const run = await runCli(['events', 'replay', '--db', db, '--since', '20m', '--trigger', 'vendor.*', '--to', target.url, '--secret', SECRET]);
    expect(run.code).toBe(0);
    const jobId = /replay job (rj_[0-9a-z]{12}):/.exec(run.stdout)?.[1];
    expect(run.stdout).toMatch(/: 6 deliveries, 6 handed on, 0 failed/);
    expect(target.received.map(idOf)).toEqual([12, 15, 18, 21, 24, 27].map((i) => ids[i]));
    for (const got of target.received) {
      expect(got.headers['x-hookrelay-replay']).toBe('true');
      expect(got.headers['x-hookrelay-replay-job']).toBe(jobId);
      expect(verify(got.body, String(got.headers['x-service-signature']), { secrets: [SECRET] }).ok).toBe(true);
    }
    const shown = await runCli(['events', 'show', ids[12]!, '--db', db]);
    expect(shown.stdout).toMatch(/replay {2}→ 200/);

    const where = await runCli(['events', 'replay', '--db', db, '--all', '--where', 'data.tier=gold', '--to', target.url, '--secret', SECRET, '--concurrency', '1']);
    expect(where.code).toBe(0);
    expect(target.received.slice(6).map(idOf)).toEqual([0, 5, 10, 15, 20, 25].map((i) => ids[i]));

    const jobs = await runCli(['events', 'replay', '--jobs', '--db', db]);
    expect(jobs.stdout.trim().split('\n')).toHaveLength(2);
    expect(jobs.stdout).toMatch(new RegExp(`${jobId} .* finished .*trigger "vendor\\.\\*"`));
    // A finished job resumed sends nothing again.
    const again = await runCli(['events', 'replay', '--resume', jobId!, '--db', db, '--to', target.url, '--secret', SECRET]);
    expect(again.code).toBe(0);
    expect(target.received).toHaveLength(12);
  }, 60_000);

  it('refuses bad input clearly, naming the cause, with exit code 2', async () => {
    const { db, dir } = await seeded(3);
    const cases: Array<[string[], RegExp]> = [
      [['events', 'replay', '--db', db], /say what to replay: a delivery id, a selection/],
      [['events', 'replay', 'evt-00001', '--all', '--db', db], /give one of: a delivery id, a selection, or --resume JOB/],
      [['events', 'replay', '--since', 'yesterday', '--db', db, '--dry-run'], /--since: must be an ISO date-time/],
      [['events', 'replay', '--all', '--status', 'lost', '--db', db, '--dry-run'], /--status: must be one of all, handed-on, failed, dead/],
      [['events', 'replay', '--all', '--rate', 'fast', '--db', db, '--dry-run'], /--rate: must be a number of copies a second/],
      [['events', 'replay', '--all', '--concurrency', '0', '--db', db, '--dry-run'], /--concurrency: must be an integer from 1 to 64/],
      [['events', 'replay', '--all', '--where', 'nothing', '--db', db, '--dry-run'], /--where "nothing": "nothing" needs an operator .* at column 1/],
      [['events', 'replay', '--resume', 'rj_000000000000', '--db', db, '--to', 'http://127.0.0.1:9/x', '--secret', SECRET], /no replay job rj_000000000000/],
      [['events', 'replay', '--resume', '../../etc', '--db', db, '--to', 'http://127.0.0.1:9/x', '--secret', SECRET], /is not a replay job id/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.code, args.join(' ')).toBe(2);
    }
    const nothing = await runCli(['events', 'replay', '--db', db, '--trigger', 'none.*', '--to', 'http://127.0.0.1:9/x', '--secret', SECRET]);
    expect(nothing.stdout).toMatch(/nothing to replay: no stored delivery matches/);
    expect(nothing.code).toBe(1);
  }, 60_000);

  it('survives kill -9 twice mid-job and, resumed, hands each selected delivery on once within the job; a damaged journal is refused', async () => {
    const { db, dir, ids } = await seeded(600);
    const outcome = await killTwiceAndResume({ db, dir, ids, concurrency: 8, killAfter: [150, 200] });
    expect(outcome.lastRun.code).toBe(0);
    expect(outcome.allArrived).toBe(true);
    expect(outcome.lastRun.stdout).toMatch(/: 600 deliveries, 600 handed on, 0 failed/);
    // Every copy a kill left in flight (answered by the app, its record cut off) may go again, no other.
    expect(outcome.sentTwice).toBeLessThanOrEqual(2 * 8);
    expect(outcome.maxCopies).toBeLessThanOrEqual(2);
    expect(outcome.jobHeaders).toEqual([outcome.jobId]);

    // A journal whose middle was overwritten is refused, naming the file and line.
    const log = join(dir, 'replay-jobs', outcome.jobId, 'progress.log');
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[3] = 'd 3 2\u0000 1';
    writeFileSync(log, lines.join('\n'));
    const damaged = await runCli([...outcome.args, '--resume', outcome.jobId]);
    expect(damaged.stderr).toMatch(/progress\.log line 4 is damaged/);
    expect(damaged.code).toBe(3);
  }, 120_000);

  it('resumed after Ctrl-C, accounts for what the interrupted run sent: with --json a line for each, marked earlierRun, before its own; in text one line with how many', async () => {
    const { db, ids } = await seeded(30);
    const target = await startTarget();
    cleanups.push(() => target.close());
    const args = ['events', 'replay', '--db', db, '--to', target.url, '--secret', SECRET, '--concurrency', '1', '--rate', '5/s'];

    const first = await interruptedRun([...args, '--all', '--json'], target, 4, 'SIGINT');
    expect(first.code, first.stderr).toBe(130);
    const sentFirst = linesOf(first.stdout) as CopyLine[];
    // Ctrl-C lets the copy in flight finish and record: every copy the app got has its line.
    expect(sentFirst.length).toBeGreaterThanOrEqual(4);
    expect(sentFirst.length).toBeLessThan(30);
    expect(sentFirst.map((l) => l.deliveryId)).toEqual(target.received.map(idOf));
    expect(sentFirst.every((l) => l.earlierRun === false && l.ok && l.relayTry !== null)).toBe(true);

    const resumed = await runCli([...args, '--resume', first.jobId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const k = sentFirst.length;
    expect(resumed.stderr).toContain(`replay job ${first.jobId} resumed: ${k} of 30 sent before the resume (${k} handed on, 0 failed), not sent again`);
    const lines = linesOf(resumed.stdout);
    const summary = lines.at(-1)!;
    const copies = lines.slice(0, -1) as CopyLine[];
    // First the earlier run's copies, as it printed them (the same relay try, read back), then this run's.
    expect(copies.slice(0, k)).toEqual(sentFirst.map((l) => ({ ...l, earlierRun: true })));
    expect(copies.slice(k).every((l) => l.earlierRun === false && l.ok)).toBe(true);
    expect(copies.map((l) => l.deliveryId)).toEqual(ids);
    expect(summary).toMatchObject({ jobId: first.jobId, total: 30, done: 30, handedOn: 30, failed: 0, foundRecorded: 0 });
    // Nothing went twice: the earlier copies were accounted for, not sent again.
    expect(target.received.map(idOf)).toEqual(ids);

    // Without --json, one line on stdout says how many the runs before had sent.
    const { db: db2 } = await seeded(30);
    const plainArgs = args.map((a) => (a === db ? db2 : a));
    const received = target.received.length;
    const plain = await interruptedRun([...plainArgs, '--all'], target, received + 3, 'SIGINT');
    expect(plain.code, plain.stderr).toBe(130);
    const before = target.received.length - received;
    const again = await runCli([...plainArgs, '--resume', plain.jobId]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\n')[0]).toBe(`replay job ${plain.jobId} resumed: ${before} of 30 sent before the resume (${before} handed on, 0 failed), not sent again`);
    expect(again.stdout).toMatch(/: 30 deliveries, 30 handed on, 0 failed/);
    expect(target.received.length - received).toBe(30);
  }, 120_000);

  it('resumed after kill -9, its --json lines name each delivery of the job once: those found recorded as earlier copies, the rest sent now', async () => {
    const { db, ids } = await seeded(40);
    const target = await startTarget();
    cleanups.push(() => target.close());
    const args = ['events', 'replay', '--db', db, '--to', target.url, '--secret', SECRET, '--concurrency', '4', '--rate', '20/s'];
    const killed = await interruptedRun([...args, '--all', '--json'], target, 10, 'SIGKILL');
    expect(killed.code).toBe(null);
    const receivedBefore = new Set(target.received.map(idOf));

    const resumed = await runCli([...args, '--resume', killed.jobId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = linesOf(resumed.stdout);
    const copies = lines.slice(0, -1) as CopyLine[];
    const earlier = copies.filter((l) => l.earlierRun);
    expect(earlier.length).toBeGreaterThan(0);
    expect(resumed.stderr).toContain(`resumed: ${earlier.length} of 40 sent before the resume`);
    // The earlier lines come first, each a copy the app did get, with the try that recorded it.
    expect(copies.slice(0, earlier.length)).toEqual(earlier);
    for (const l of earlier) {
      expect(receivedBefore.has(l.deliveryId), l.deliveryId).toBe(true);
      expect(l.relayTry).toMatchObject({ deliveryId: l.deliveryId, replay: true, responseStatus: 200 });
    }
    expect([...copies.map((l) => l.deliveryId)].sort()).toEqual([...ids].sort());
    expect(lines.at(-1)).toMatchObject({ total: 40, done: 40, handedOn: 40 });
  }, 120_000);
});
