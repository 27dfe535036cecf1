/**
 * The secret set: the signing secrets the service returned once (spec 2.11, 4.3), kept in the
 * data folder so `listen` verifies with them with no flag and no copy-paste (issue 17).
 *
 * `<data folder>/secrets.json`, mode 0600, `{"version":1,"secrets":[{secret, origin, webhookId,
 * addedAt}]}`. Every change is read-modify-write under a lock file and lands by rename of a
 * fsynced temp file, so a crash or a concurrent `webhooks create` never leaves half a file or
 * loses an entry. A recreated webhook's old secret stays beside the new one (the rotation path)
 * until `hookrelay secrets remove`. Messages name the file and the cause, never a secret.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../runtime/atomic-file.js';

export const SECRET_SET_FILE = 'secrets.json';
const LOCK_WAIT_MS = 5_000;
/** A lock older than this was left by a process that died mid-write. */
const STALE_LOCK_MS = 30_000;

export interface SecretEntry {
  secret: string;
  /** Where it came from, for `secrets list`: "webhook <id> created <date>". */
  origin: string;
  webhookId: string | null;
  /** ISO date-time. */
  addedAt: string;
}

export class SecretSetError extends Error {
  readonly code = 'SECRET_SET';
}

export const secretSetPath = (dataDir: string) => join(dataDir, SECRET_SET_FILE);

/** Every entry, oldest first; empty when there is no file. Throws SecretSetError on a damaged file. */
export function readSecretSet(dataDir: string): SecretEntry[] {
  const file = secretSetPath(dataDir);
  if (!existsSync(file)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    // The parser's message can quote the file's text, which holds secrets: name the cause only.
    throw new SecretSetError(`${file} is not valid JSON (${(err as NodeJS.ErrnoException).code ?? 'unreadable or damaged'}): fix or move it away; nothing was changed`);
  }
  const list = (parsed as { secrets?: unknown } | null)?.secrets;
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray(list)) throw new SecretSetError(`${file} must hold {"version":1,"secrets":[...]}: fix or move it away; nothing was changed`);
  return list.map((e, i) => {
    const o = e as Record<string, unknown> | null;
    if (o === null || typeof o !== 'object' || typeof o.secret !== 'string' || o.secret.length === 0) {
      throw new SecretSetError(`${file}: entry ${i + 1} has no "secret" string: fix or move the file away; nothing was changed`);
    }
    return {
      secret: o.secret,
      origin: typeof o.origin === 'string' ? o.origin : 'unknown origin',
      webhookId: typeof o.webhookId === 'string' ? o.webhookId : null,
      addedAt: typeof o.addedAt === 'string' ? o.addedAt : '',
    };
  });
}

/**
 * The secrets `listen` verifies with when no --secret is given, newest first (the newest is the
 * primary, which also signs relayed deliveries). Empty when the set is empty or absent.
 */
export function secretsForListen(dataDir: string): string[] {
  return readSecretSet(dataDir).map((e) => e.secret).reverse();
}

/** Adds a secret (a repeat of one already kept is not added twice). Returns the entry kept. */
export function addToSecretSet(dataDir: string, entry: { secret: string; webhookId: string | null; origin: string }, nowMs: number): SecretEntry {
  return withLock(dataDir, () => {
    const entries = readSecretSet(dataDir);
    const existing = entries.find((e) => e.secret === entry.secret);
    if (existing) return existing;
    const added: SecretEntry = { secret: entry.secret, origin: entry.origin, webhookId: entry.webhookId, addedAt: new Date(nowMs).toISOString() };
    writeSecretSet(dataDir, [...entries, added]);
    return added;
  });
}

/**
 * Removes entries by their number in `secrets list` (1-based) or by webhook id (all of that
 * webhook's). Returns what was removed (empty: nothing matched, the file is untouched).
 */
export function removeFromSecretSet(dataDir: string, selector: string): SecretEntry[] {
  return withLock(dataDir, () => {
    const entries = readSecretSet(dataDir);
    const index = /^\d{1,6}$/.test(selector) ? Number(selector) - 1 : -1;
    const removed = index >= 0 ? entries.filter((_, i) => i === index) : entries.filter((e) => e.webhookId === selector);
    if (removed.length === 0) return [];
    writeSecretSet(dataDir, entries.filter((e) => !removed.includes(e)));
    return removed;
  });
}

function writeSecretSet(dataDir: string, entries: SecretEntry[]): void {
  writeFileAtomic(secretSetPath(dataDir), `${JSON.stringify({ version: 1, secrets: entries }, null, 2)}\n`);
}

function withLock<T>(dataDir: string, work: () => T): T {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = `${secretSetPath(dataDir)}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > deadline) throw new SecretSetError(`${lock} is held by another hookrelay (or left behind): try again, or remove the lock file if no hookrelay is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return work();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      /* already gone */
    }
  }
}
