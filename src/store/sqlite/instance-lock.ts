/**
 * One `listen` per SQLite file. Two would each run a relay over the same outbox and hand the
 * same deliveries on twice (several instances need PostgreSQL, whose relay claims jobs).
 *
 * The lock is a kernel lock (kernel-lock.ts), not a pid file: `<db>.lock` beside the database,
 * dropped by the kernel when the process dies, `kill -9` included. Read-only
 * commands never take it. Who holds it (pid, listeners) is written to `<db>.owner.json` once the
 * listeners are bound, for the refusal message only: the lock alone decides.
 */
import { asciiOnly } from '../../core/printable-text.js';
import { displayUrl } from '../../core/url-secrets.js';
import { tryKernelLock } from './kernel-lock.js';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface InstanceOwner {
  pid: number;
  /** The command that holds it: `listen`, or `connect` (whose receiverUrl is the bridge it is fed by). */
  command: 'listen' | 'connect';
  receiverUrl: string;
  consoleUrl: string | null;
  startedAt: string;
}

export interface InstanceLock {
  /** Records who holds the lock, for the message a second `listen` prints. */
  describe(owner: Omit<InstanceOwner, 'pid' | 'startedAt'>): void;
  release(): void;
}

export class InstanceLockedError extends Error {
  readonly code = 'DB_IN_USE';
}

const lockPathOf = (dbPath: string) => `${dbPath}.lock`;
const ownerPathOf = (dbPath: string) => `${dbPath}.owner.json`;

/** Takes the lock, or throws InstanceLockedError naming the `listen` that holds it. */
export function acquireInstanceLock(dbPath: string): InstanceLock {
  mkdirSync(dirname(dbPath), { recursive: true });
  const lock = tryKernelLock(lockPathOf(dbPath));
  if (!lock) throw new InstanceLockedError(refusal(dbPath));
  const startedAt = new Date().toISOString();
  let released = false;
  return {
    describe(owner) {
      // Never the console's token: the URL is written without its query.
      // Nor a URL's credentials or secret query values (core/url-secrets.ts).
      const record: InstanceOwner = { pid: process.pid, startedAt, command: owner.command, receiverUrl: displayUrl(owner.receiverUrl), consoleUrl: owner.consoleUrl?.replace(/\?.*$/, '') ?? null };
      writeFileSync(ownerPathOf(dbPath), `${JSON.stringify(record)}\n`, { mode: 0o600 });
    },
    release() {
      if (released) return;
      released = true;
      rmSync(ownerPathOf(dbPath), { force: true });
      lock.release();
    },
  };
}

function refusal(dbPath: string): string {
  const owner = readOwner(dbPath);
  const who = owner
    ? `pid ${owner.pid}, ${owner.command === 'connect' ? 'fed by' : 'receiving at'} ${owner.receiverUrl}${owner.consoleUrl ? `, console at ${owner.consoleUrl.replace(/\?token=.*$/, '')}` : ''}, since ${owner.startedAt}`
    : 'it is still starting';
  return (
    `${dbPath} is already served by another \`hookrelay ${owner?.command ?? 'listen'}\` (${who}). ` +
    'Two on one SQLite file would hand the same deliveries on twice. Stop that one, pass another --db, ' +
    'or run several instances on one PostgreSQL database with --store postgres://… (docs/deploy.md)'
  );
}

/** The owner file is written by another process and read only for a message: anything odd reads as unknown. */
function readOwner(dbPath: string): InstanceOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(ownerPathOf(dbPath), 'utf8')) as Partial<InstanceOwner>;
    const clean = (value: unknown) => (typeof value === 'string' ? asciiOnly(value, 200) : null);
    if (!Number.isSafeInteger(parsed.pid) || typeof parsed.receiverUrl !== 'string') return null;
    return { pid: parsed.pid!, command: parsed.command === 'connect' ? 'connect' : 'listen', receiverUrl: displayUrl(clean(parsed.receiverUrl)!), consoleUrl: clean(parsed.consoleUrl), startedAt: clean(parsed.startedAt) ?? '?' };
  } catch {
    return null;
  }
}
