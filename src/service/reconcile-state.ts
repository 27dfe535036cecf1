/**
 * Where an unfinished `reconcile` run stands, in the data folder, so a run stopped by Ctrl-C, a
 * network failure or an exhausted budget resumes at its cursor instead of reading 10,000
 * deliveries again (issue 17). One file per API address and webhook; written atomically (temp
 * file + rename, 0600); removed when a run completes. It holds ids, statuses and the opaque
 * cursor, never the API key.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../runtime/atomic-file.js';
import type { LiteDelivery } from './reconcile-classify.js';

export interface ReconcileState {
  version: 1;
  apiUrl: string;
  webhookId: string;
  since: string | null;
  startedAt: string;
  /** The cursor of the next page to read. */
  cursor: string;
  pages: number;
  scanned: number;
  /**
   * Deliveries not in the local store, by the id of the delivery they replay (or their own). The
   * ids come from the service, so the record has no prototype (see emptyPending).
   */
  pending: Record<string, LiteDelivery[]>;
  /** Ids whose replay is in the local store. */
  coveredRoots: string[];
  ackNotKnown: LiteDelivery[];
  lostAttempts: Array<{ deliveryId: string; attemptNumbers: number[] }>;
}

/**
 * An empty `pending` without a prototype: an id such as `constructor`, `toString` or `__proto__`
 * is then an own key like any other, never Object.prototype's member.
 */
export function emptyPending(): Record<string, LiteDelivery[]> {
  return Object.create(null) as Record<string, LiteDelivery[]>;
}

export function reconcileStatePath(dataDir: string, apiUrl: string, webhookId: string): string {
  const id = createHash('sha256').update(`${apiUrl}\n${webhookId}`).digest('hex').slice(0, 16);
  return join(dataDir, 'reconcile', `${id}.json`);
}

/** The saved state of an unfinished run for this API and webhook, or null (absent, damaged, or another --since). */
export function loadReconcileState(file: string, expect: { apiUrl: string; webhookId: string; since: string | null }): ReconcileState | null {
  if (!existsSync(file)) return null;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as ReconcileState;
    if (s?.version !== 1 || s.apiUrl !== expect.apiUrl || s.webhookId !== expect.webhookId || s.since !== expect.since) return null;
    if (typeof s.cursor !== 'string' || s.cursor.length === 0 || !Number.isSafeInteger(s.pages) || !Number.isSafeInteger(s.scanned)) return null;
    if (s.pending === null || typeof s.pending !== 'object' || Array.isArray(s.pending) || !Array.isArray(s.coveredRoots) || !Array.isArray(s.ackNotKnown) || !Array.isArray(s.lostAttempts)) return null;
    // JSON.parse makes `"__proto__"` an own key; copied into a prototype-less record it stays one.
    const pending = emptyPending();
    for (const [root, members] of Object.entries(s.pending)) {
      if (!Array.isArray(members)) return null;
      pending[root] = members;
    }
    return { ...s, pending };
  } catch {
    return null;
  }
}

export function saveReconcileState(file: string, state: ReconcileState): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, JSON.stringify(state));
}

export function clearReconcileState(file: string): void {
  rmSync(file, { force: true });
}
