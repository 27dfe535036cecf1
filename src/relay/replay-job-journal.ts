/**
 * A bulk replay's durable record, a folder per job under the data folder's `replay-jobs/`:
 *
 * - `plan.json`, written once and atomically: what was selected (ids in the order they go), where
 *   they go, the pace. A job never selects again: resuming sends what the plan holds, nothing newer.
 * - `progress.log`, appended: `s <index> <ms>` before an item is sent (synced before the send), and
 *   `d <index> <status> <ok>` once its outcome is recorded in the delivery's relay history.
 *
 * An item with its `d` line is never sent again by this job. One with only its `s` line was being
 * sent when the job stopped: resuming looks in the delivery's history for a replay try begun since,
 * and sends it again only if there is none (so a copy goes twice only when the job was killed
 * between the app's answer and that answer's record: the same window as the relay's, docs/relay.md).
 *
 * Every byte read back is checked: a damaged file is refused with its name and line, never guessed.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../runtime/atomic-file.js';
import { heldElsewhere, tryKernelLock } from '../store/sqlite/kernel-lock.js';

export const JOB_FOLDER = 'replay-jobs';
const JOB_ID = /^rj_[0-9a-z]{12}$/;

export interface ReplayItem {
  seq: number;
  id: string;
}

export interface ReplayPlan {
  version: 1;
  id: string;
  createdAt: number;
  /** The selection in words, for listings ("trigger vendor.*, since …"). */
  selection: string;
  /** `--to`; null: each delivery's route, else the forward target, as a single replay. */
  to: string | null;
  /** Copies a second at most; null: as fast as the concurrency allows. */
  ratePerSecond: number | null;
  concurrency: number;
  items: ReplayItem[];
}

export interface ItemProgress {
  /** When its send began (the last `s` line); absent: never begun. */
  startedAt?: number;
  /** Its recorded outcome; absent: none recorded. */
  done?: { status: number | null; ok: boolean };
}

export interface ReplayJournal {
  readonly dir: string;
  readonly plan: ReplayPlan;
  /** By item index. */
  readonly progress: ItemProgress[];
  /** Writes the `s` lines of items about to be sent, and syncs them: call before the sends. */
  begin(indexes: readonly number[], at: number): void;
  /** Appends an item's `d` line (synced at the next begin, flush or close). */
  finish(index: number, status: number | null, ok: boolean): void;
  flush(): void;
  close(): void;
}

/** `usage`: no such job, or not a job id; `busy`: another process runs it; `damaged`: its files are not as written. */
export class JournalError extends Error {
  constructor(
    message: string,
    readonly kind: 'usage' | 'busy' | 'damaged' = 'usage',
  ) {
    super(message);
  }
}

/**
 * One runner per job: a kernel lock (`run.lock`, store/sqlite/kernel-lock.ts) that the kernel drops
 * when the runner dies, so a killed job is taken over at once and a live one is refused, with no pid
 * trusted. `run.pid` names the runner for the refusal message only.
 */
function takeLock(dir: string, jobId: string): () => void {
  const lock = tryKernelLock(join(dir, LOCK_FILE));
  if (!lock) {
    const pid = runnerPid(dir);
    throw new JournalError(`replay job ${jobId} is running in ${pid === null ? 'another process' : `process ${pid}`}; stop it there first`, 'busy');
  }
  try {
    writeFileSync(join(dir, PID_FILE), String(process.pid), { mode: 0o600 });
  } catch (err) {
    lock.release();
    throw err;
  }
  return () => {
    try {
      rmSync(join(dir, PID_FILE), { force: true });
    } finally {
      lock.release();
    }
  };
}

const LOCK_FILE = 'run.lock';
const PID_FILE = 'run.pid';

/** The pid `run.pid` names, read only for a message: anything odd reads as unknown. */
function runnerPid(dir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dir, PID_FILE), 'utf8'));
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether another live process runs the job in this folder. */
export const runningElsewhere = (dir: string): boolean => heldElsewhere(join(dir, LOCK_FILE));

export const newJobId = (): string => `rj_${BigInt(`0x${randomBytes(8).toString('hex')}`).toString(36).padStart(12, '0').slice(-12)}`;

/** Creates a job's folder and plan; the journal is open for appending. */
export function createJournal(dataDir: string, plan: ReplayPlan): ReplayJournal {
  const dir = join(dataDir, JOB_FOLDER, plan.id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const release = takeLock(dir, plan.id);
  try {
    writeFileAtomic(join(dir, 'plan.json'), JSON.stringify(plan));
    return openJournalAt(dir, plan, Array.from({ length: plan.items.length }, () => ({})), release);
  } catch (err) {
    release();
    throw err;
  }
}

/** Opens a job for resuming; throws JournalError naming the file and line when it is missing or damaged. */
export function openJournal(dataDir: string, jobId: string): ReplayJournal {
  if (!JOB_ID.test(jobId)) throw new JournalError(`${JSON.stringify(jobId)} is not a replay job id (they look like rj_0123456789ab; list them with --jobs)`);
  const dir = join(dataDir, JOB_FOLDER, jobId);
  const plan = readPlan(dir, jobId);
  const release = takeLock(dir, jobId);
  try {
    return openJournalAt(dir, plan, readProgress(join(dir, 'progress.log'), plan.items.length), release);
  } catch (err) {
    release();
    throw err;
  }
}

/** A job of the data folder with its counts, or the error that kept it from being read. */
export interface JobListing {
  id: string;
  plan?: ReplayPlan;
  sent?: number;
  failed?: number;
  error?: string;
}

/**
 * Every job in the data folder with its counts, newest first; a damaged one is listed with its error.
 * A job `known(id)` says the caller has already (one running here, one finished and remembered) is
 * listed by its id alone: its journal is not read again.
 */
export function listJobs(dataDir: string, known: (id: string) => boolean = () => false): JobListing[] {
  const root = join(dataDir, JOB_FOLDER);
  if (!existsSync(root)) return [];
  const jobs = readdirSync(root)
    .filter((name) => JOB_ID.test(name))
    .map((id): JobListing => {
      if (known(id)) return { id };
      try {
        const dir = join(root, id);
        const plan = readPlan(dir, id);
        const progress = readProgress(join(dir, 'progress.log'), plan.items.length);
        return { id, plan, sent: progress.filter((p) => p.done).length, failed: progress.filter((p) => p.done && !p.done.ok).length };
      } catch (err) {
        return { id, error: (err as Error).message };
      }
    });
  return jobs.sort((a, b) => (b.plan?.createdAt ?? 0) - (a.plan?.createdAt ?? 0));
}

/**
 * Where a listed job stands when no process of this one runs it: finished (every copy's outcome
 * recorded), running (another process holds its lock: the CLI's run, or a node's console), or stopped.
 * The one reading for the console's list, `events replay --jobs` and `status`.
 */
export function listedJobState(dataDir: string, job: JobListing & { plan: ReplayPlan }): 'finished' | 'running' | 'stopped' {
  if (job.sent === job.plan.items.length) return 'finished';
  return runningElsewhere(join(dataDir, JOB_FOLDER, job.id)) ? 'running' : 'stopped';
}

function readPlan(dir: string, jobId: string): ReplayPlan {
  const file = join(dir, 'plan.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new JournalError(`no replay job ${jobId} in ${join(dir, '..')} (list them with --jobs)`);
  }
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch {
    throw new JournalError(`${file} is not JSON: the job's plan is damaged`, 'damaged');
  }
  const problem = planProblem(plan, jobId);
  if (problem) throw new JournalError(`${file}: ${problem}`, 'damaged');
  return plan as ReplayPlan;
}

function planProblem(value: unknown, jobId: string): string | null {
  if (typeof value !== 'object' || value === null) return 'not a plan object';
  const p = value as Record<string, unknown>;
  if (p.version !== 1) return `version ${JSON.stringify(p.version)} is not one this hookrelay reads`;
  if (p.id !== jobId) return `its id ${JSON.stringify(p.id)} is not the folder's (${jobId})`;
  if (!Number.isSafeInteger(p.createdAt)) return 'createdAt is not a time';
  if (typeof p.selection !== 'string') return 'selection is not text';
  if (p.to !== null && typeof p.to !== 'string') return 'to is not a URL or null';
  if (p.ratePerSecond !== null && !(typeof p.ratePerSecond === 'number' && p.ratePerSecond > 0)) return 'ratePerSecond is not a positive number or null';
  if (!(Number.isSafeInteger(p.concurrency) && (p.concurrency as number) >= 1)) return 'concurrency is not a positive integer';
  if (!Array.isArray(p.items)) return 'items is not a list';
  for (const [i, item] of (p.items as unknown[]).entries()) {
    const it = item as Record<string, unknown> | null;
    if (typeof it !== 'object' || it === null || !Number.isSafeInteger(it.seq) || typeof it.id !== 'string') return `item ${i} is not {seq, id}`;
  }
  return null;
}

const LINE = /^(?:s (\d+) (\d+)|d (\d+) (\d+|-) ([01]))$/;

function readProgress(file: string, items: number): ItemProgress[] {
  const progress: ItemProgress[] = Array.from({ length: items }, () => ({}));
  if (!existsSync(file)) return progress;
  const lines = readFileSync(file, 'utf8').split('\n');
  // An unterminated last line is a write a kill cut short: its `s` was never synced, so that
  // item was never sent; dropped, whatever it reads like.
  lines.pop();
  for (const [n, line] of lines.entries()) {
    const m = LINE.exec(line);
    const index = m ? Number(m[1] ?? m[3]) : NaN;
    if (!m || !(index < items)) throw new JournalError(`${file} line ${n + 1} is damaged (${JSON.stringify(line.slice(0, 60))}); the job cannot be resumed safely`, 'damaged');
    if (m[1] !== undefined) progress[index]!.startedAt = Number(m[2]);
    else progress[index]!.done = { status: m[4] === '-' ? null : Number(m[4]), ok: m[5] === '1' };
  }
  return progress;
}

function openJournalAt(dir: string, plan: ReplayPlan, progress: ItemProgress[], release: () => void): ReplayJournal {
  const file = join(dir, 'progress.log');
  const fd = openSync(file, 'a', 0o600);
  // A line a kill cut short was dropped when read; cut from the file too, or the next line would join it.
  const text = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
  if (text.length > 0 && text[text.length - 1] !== 0x0a) ftruncateSync(fd, text.lastIndexOf(0x0a) + 1);
  let unsynced = false;
  let closed = false;
  const append = (line: string) => {
    // After close the descriptor may be another file's: a late write must fail, never land there.
    if (closed) throw new Error('the replay job journal is closed');
    writeSync(fd, line);
    unsynced = true;
  };
  const sync = () => {
    if (!unsynced || closed) return;
    fsyncSync(fd);
    unsynced = false;
  };
  return {
    dir,
    plan,
    progress,
    begin(indexes, at) {
      if (indexes.length === 0) return;
      append(indexes.map((i) => `s ${i} ${at}\n`).join(''));
      for (const i of indexes) progress[i]!.startedAt = at;
      sync();
    },
    finish(index, status, ok) {
      append(`d ${index} ${status ?? '-'} ${ok ? 1 : 0}\n`);
      progress[index]!.done = { status, ok };
    },
    flush: sync,
    close() {
      if (closed) return;
      try {
        sync();
      } finally {
        closed = true;
        closeSync(fd);
        release();
      }
    },
  };
}
