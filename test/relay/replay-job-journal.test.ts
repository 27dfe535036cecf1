/** The bulk replay journal: one runner per job, a torn last line cut, no write after close, damage refused. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createJournal, JournalError, newJobId, openJournal, runningElsewhere, type ReplayPlan } from '../../src/relay/replay-job-journal.js';
import { tempDir } from '../helpers/temp-dir.js';

function plan(n: number): ReplayPlan {
  return { version: 1, id: newJobId(), createdAt: 1, selection: 'test', to: null, ratePerSecond: null, concurrency: 2, items: Array.from({ length: n }, (_, i) => ({ seq: i + 1, id: `evt-${i}` })) };
}

function folder(): string {
  const { dir, remove } = tempDir();
  onTestFinished(remove);
  return dir;
}

describe('the replay job journal', () => {
  it('lets one process run a job at a time, and another once it is closed', () => {
    const dir = folder();
    const p = plan(3);
    const first = createJournal(dir, p);
    expect(() => openJournal(dir, p.id)).toThrow(JournalError);
    try {
      openJournal(dir, p.id);
    } catch (err) {
      expect((err as JournalError).kind).toBe('busy');
      expect((err as Error).message).toMatch(new RegExp(`running in process ${process.pid}`));
    }
    first.close();
    const second = openJournal(dir, p.id);
    second.close();
  });

  it('refuses a job another process runs, and takes it over the moment that process is killed, whatever pid file it left', async () => {
    const dir = folder();
    const p = plan(1);
    createJournal(dir, p).close();
    const jobDir = join(dir, 'replay-jobs', p.id);
    // Another process holding the job's kernel lock, as a runner does.
    const holder = spawn(process.execPath, ['-e', `const D=require('better-sqlite3');const db=new D(${JSON.stringify(join(jobDir, 'run.lock'))},{timeout:0});db.pragma('journal_mode = DELETE');db.exec('BEGIN EXCLUSIVE');require('fs').writeFileSync(${JSON.stringify(join(jobDir, 'run.pid'))},String(process.pid));console.log('held');setInterval(()=>{},1000)`], { stdio: ['ignore', 'pipe', 'inherit'] });
    onTestFinished(() => void holder.kill('SIGKILL'));
    await once(holder.stdout!, 'data');
    expect(runningElsewhere(jobDir)).toBe(true);
    expect(() => openJournal(dir, p.id)).toThrow(new RegExp(`running in process ${holder.pid}`));
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    // Its pid file stays, naming a pid that may be reused (a container's pid 1): the kernel lock alone decides.
    writeFileSync(join(jobDir, 'run.pid'), '1');
    expect(runningElsewhere(jobDir)).toBe(false);
    openJournal(dir, p.id).close();
  });

  it('asks whether a job runs without writing: a lock file that is not there is made by no reader', () => {
    const dir = folder();
    const p = plan(1);
    createJournal(dir, p).close();
    const jobDir = join(dir, 'replay-jobs', p.id);
    rmSync(join(jobDir, 'run.lock'), { force: true });
    expect(runningElsewhere(jobDir)).toBe(false);
    expect(existsSync(join(jobDir, 'run.lock'))).toBe(false);
  });

  it('does not count its own run as running elsewhere', () => {
    const dir = folder();
    const p = plan(1);
    const journal = createJournal(dir, p);
    expect(runningElsewhere(join(dir, 'replay-jobs', p.id))).toBe(false);
    journal.close();
  });

  it('cuts a torn last line, so lines written after it read back whole', () => {
    const dir = folder();
    const p = plan(3);
    const journal = createJournal(dir, p);
    journal.begin([0], 100);
    journal.finish(0, 200, true);
    journal.close();
    const log = join(dir, 'replay-jobs', p.id, 'progress.log');
    appendFileSync(log, 's 1 1');
    const again = openJournal(dir, p.id);
    expect(again.progress[1]).toEqual({});
    again.begin([1], 200);
    again.close();
    expect(readFileSync(log, 'utf8')).toBe('s 0 100\nd 0 200 1\ns 1 200\n');
    const third = openJournal(dir, p.id);
    expect(third.progress.map((x) => x.startedAt ?? null)).toEqual([100, 200, null]);
    third.close();
  });

  it('refuses a write after close instead of writing to a descriptor that may be another file now', () => {
    const dir = folder();
    const journal = createJournal(dir, plan(2));
    journal.close();
    expect(() => journal.finish(0, 200, true)).toThrow(/closed/);
    expect(() => journal.begin([1], 1)).toThrow(/closed/);
  });

  it('refuses a damaged plan or log as damaged, an unknown job as usage', () => {
    const dir = folder();
    const p = plan(2);
    createJournal(dir, p).close();
    const kind = (run: () => unknown) => {
      try {
        run();
      } catch (err) {
        return (err as JournalError).kind;
      }
      return null;
    };
    expect(kind(() => openJournal(dir, 'rj_000000000000'))).toBe('usage');
    writeFileSync(join(dir, 'replay-jobs', p.id, 'progress.log'), 'd 7 200 1\n');
    expect(kind(() => openJournal(dir, p.id))).toBe('damaged');
    writeFileSync(join(dir, 'replay-jobs', p.id, 'plan.json'), '{"version": 2}');
    expect(kind(() => openJournal(dir, p.id))).toBe('damaged');
  });
});
