/**
 * Shared pieces of the reliability suite: a `listen` child on a given database, a load loop
 * that remembers every acknowledged delivery, the checks run on the database after a fault,
 * and one summary line per scenario (docs/reliability.md is filled from these lines).
 */
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import type { ListenConfig } from '../../../src/config/listen-config.js';
import { startListenProcess, type ListenProcess } from '../../helpers/listen-process.js';
import { signedRequest, TEST_SECRET, type SignedRequest } from '../../helpers/signed-delivery.js';
import { testListenConfig } from '../../helpers/listen-config.js';

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The in-process config every scenario starts from: loopback, port 0, no console, silent. */
export function baseConfig(dbPath: string, overrides: Partial<ListenConfig> = {}): ListenConfig {
  return testListenConfig(dbPath, { console: null, ...overrides });
}

/** `hookrelay listen` from source on `dbPath`, without a console (its fixed port would collide). */
export function startListen(dbPath: string, extra: string[] = []): Promise<ListenProcess> {
  return startListenProcess(['--db', dbPath, '--secret', TEST_SECRET, '--no-console', ...extra]);
}

/** A small seeded generator (mulberry32): the kill points of a run can be repeated from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Answer {
  id: string;
  status: number | null;
  code: string | null;
  duplicate: boolean | null;
  ms: number;
  error: string | null;
}

/** POSTs one signed delivery and reads the answer; a socket error is an answer with status null. */
export async function post(url: string, req: SignedRequest, dispatcher: Agent): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await request(url, { method: 'POST', headers: req.headers, body: req.body, dispatcher });
    const text = await res.body.text();
    let code: string | null = null;
    let duplicate: boolean | null = null;
    try {
      const parsed = JSON.parse(text) as { code?: string; data?: { duplicate?: boolean } };
      code = parsed.code ?? null;
      duplicate = parsed.data?.duplicate ?? null;
    } catch {
      /* not JSON: status alone tells */
    }
    return { id: req.id, status: res.statusCode, code, duplicate, ms: performance.now() - started, error: null };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { id: req.id, status: null, code: null, duplicate: null, ms: performance.now() - started, error: e.code ?? e.message ?? String(err) };
  }
}

export interface LoadOptions {
  url: string;
  dispatcher: Agent;
  concurrency: number;
  /** Makes the next request; return null to stop this worker. */
  next: () => SignedRequest | null;
  /** Called with every answer; return true to stop every worker. */
  onAnswer?: (answer: Answer, req: SignedRequest) => boolean | void;
  /** A worker stops after its first socket error (the process is gone). */
  stopOnError?: boolean;
}

/** Runs `concurrency` request loops until `next` runs dry, `onAnswer` says stop, or (optionally) the socket fails. */
export async function runLoad(options: LoadOptions): Promise<void> {
  let stop = false;
  const worker = async () => {
    while (!stop) {
      const req = options.next();
      if (!req) return;
      const answer = await post(options.url, req, options.dispatcher);
      if (options.onAnswer?.(answer, req)) stop = true;
      if (answer.status === null && options.stopOnError) return;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}

/** A fresh signed delivery, timestamped now. */
export const fresh = (): SignedRequest => signedRequest({ t: nowSeconds() });

export interface DbCheck {
  integrity: string;
  /** Acknowledged ids that are absent or whose bytes differ. */
  missing: string[];
  /** Ids stored more than once. */
  doubled: string[];
  stored: number;
  /** Stored deliveries without an outbox job (only meaningful with forwarding on). */
  withoutJob: number;
}

/** Opens the file as the next start would (recovering the WAL), checks it, and closes it. */
export function checkDatabase(dbPath: string, acked: ReadonlyMap<string, Buffer>): DbCheck {
  const db = new Database(dbPath);
  try {
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    const byId = db.prepare<[string], { raw_body: Buffer }>('SELECT raw_body FROM deliveries WHERE id = ?');
    const missing: string[] = [];
    for (const [id, body] of acked) {
      const row = byId.get(id);
      if (!row || !row.raw_body.equals(body)) missing.push(id);
    }
    const doubled = db.prepare<[], { id: string }>('SELECT id FROM deliveries GROUP BY id HAVING COUNT(*) > 1').all().map((r) => r.id);
    const stored = (db.prepare('SELECT COUNT(*) n FROM deliveries').get() as { n: number }).n;
    const withoutJob = (db.prepare('SELECT COUNT(*) n FROM deliveries d LEFT JOIN relay_jobs j ON j.delivery_seq = d.seq WHERE j.delivery_seq IS NULL').get() as { n: number }).n;
    return { integrity, missing, doubled, stored, withoutJob };
  } finally {
    db.close();
  }
}

/** Latency percentile (ms) of a list of samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * One line per scenario, `RELIABILITY {...}`, printed to stdout so a run's numbers can be
 * copied into docs/reliability.md.
 */
export function summary(scenario: string, numbers: Record<string, unknown>): void {
  // eslint-disable-next-line no-console
  console.log(`RELIABILITY ${JSON.stringify({ scenario, ...numbers })}`);
}

/**
 * Waits for `condition` to hold, checking every `everyMs` until `deadlineMs`. Only for states
 * that announce no event (a file's size, SQLite's WAL index): each caller says why.
 */
export async function pollUntil(condition: () => boolean, what: string, deadlineMs: number, everyMs = 50): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export { TEST_SECRET };
