/**
 * `reconcile`: pages through the service's deliveries of one webhook (resumably, the cursor kept
 * in the data folder), holds each against the local store by delivery id, and says what was
 * missed, what the service does not know we stored, what is still in flight, the webhook's state,
 * and which of the service's attempts never arrived. With `replay`, asks the service to replay
 * each missed delivery and waits until the replay is in the local store.
 */
import type { StoreReader } from '../store/open-store.js';
import { judgeUncovered, liteOf, lostAttemptNumbers, rootOf, type LiteDelivery } from './reconcile-classify.js';
import { clearReconcileState, emptyPending, loadReconcileState, reconcileStatePath, saveReconcileState, type ReconcileState } from './reconcile-state.js';
import { ServiceError } from './service-error.js';
import type { WebhooksApi } from './webhooks-api.js';

export interface ReconcileOptions {
  api: WebhooksApi;
  store: Pick<StoreReader, 'getDelivery' | 'listAttempts'>;
  apiUrl: string;
  webhookId: string;
  /** Only deliveries created at or after this time (ISO text as given, for the saved state). */
  since: { text: string; ms: number } | null;
  dataDir: string;
  replay: boolean;
  /** How long to wait for each replay to arrive in the local store. */
  confirmTimeoutMs: number;
  /** `--wait`: how long to wait for deliveries still in flight (pending or retrying, not here yet) to arrive; 0: not at all. */
  waitMs?: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  onProgress?: (event: ReconcileProgress) => void;
}

export type ReconcileProgress =
  | { kind: 'resumed'; pages: number; scanned: number }
  | { kind: 'restarted'; reason: string }
  | { kind: 'page'; pages: number; scanned: number }
  | { kind: 'replaying'; count: number }
  | { kind: 'replayed'; deliveryId: string; replayId: string; arrived: boolean }
  | { kind: 'waiting'; count: number; ms: number }
  | { kind: 'arrived'; deliveryId: string };

export interface MissedDelivery {
  deliveryId: string;
  trigger: string;
  status: string;
  lastFailureClass: string | null;
  /** The service's attempts of this delivery and of its replays, as the service saw them. */
  attempts: Array<{ deliveryId: string; attemptNumber: number; startedAt: string | null; responseStatus: number | null; failureClass: string | null; errorMessage: string | null }>;
  replay?: { replayId: string; arrived: boolean } | { error: string };
}

export interface ReconcileReport {
  webhook: { id: string; name: string; status: string; disabledReason: string | null; fix: string | null };
  scanned: number;
  pages: number;
  resumed: boolean;
  missed: MissedDelivery[];
  acknowledgedNotKnown: Array<{ deliveryId: string; trigger: string; status: string; lastFailureClass: string | null; nextAttemptAt: string | null }>;
  inFlight: Array<{ deliveryId: string; trigger: string; status: string; attemptCount: number; nextAttemptAt: string | null }>;
  lostAttempts: Array<{ deliveryId: string; attemptNumbers: number[] }>;
  /**
   * `reconciled`: nothing missed (or every replay arrived), nothing in flight that has not arrived here,
   * nothing unacknowledged, and the webhook active. `gaps`: something missed, unacknowledged, or the
   * webhook inactive. `in-flight`: no gap, but deliveries the service attempted (or is about to) are
   * not here yet: not a gap, not reconciled either.
   */
  verdict: 'reconciled' | 'gaps' | 'in-flight';
  /** verdict === 'reconciled'. */
  reconciled: boolean;
}

export async function reconcile(o: ReconcileOptions): Promise<ReconcileReport> {
  const webhook = (await o.api.get(o.webhookId)).value;
  const stateFile = reconcileStatePath(o.dataDir, o.apiUrl, o.webhookId);
  const saved = loadReconcileState(stateFile, { apiUrl: o.apiUrl, webhookId: o.webhookId, since: o.since?.text ?? null });
  let state: ReconcileState = saved ?? fresh(o);
  let resumed = saved !== null;
  if (saved) o.onProgress?.({ kind: 'resumed', pages: saved.pages, scanned: saved.scanned });
  try {
    await scan(o, state, stateFile, saved?.cursor ?? null);
  } catch (err) {
    // A saved cursor the service no longer takes (a restarted service, an expired cursor): start over once.
    if (saved && err instanceof ServiceError && err.envelope?.code === 'INVALID_CURSOR') {
      o.onProgress?.({ kind: 'restarted', reason: 'the service refused the saved cursor (INVALID_CURSOR)' });
      clearReconcileState(stateFile);
      state = fresh(o);
      resumed = false;
      await scan(o, state, stateFile, null);
    } else {
      // A looping cursor saved for the next run would only loop again.
      if (err instanceof ServiceError && err.code === 'CURSOR_LOOP') clearReconcileState(stateFile);
      throw err;
    }
  }

  const coveredRoots = new Set(state.coveredRoots);
  const inStore = new Map<string, boolean>();
  for (const root of Object.keys(state.pending)) inStore.set(root, coveredRoots.has(root) || (await o.store.getDelivery(root)) !== undefined);
  let verdict = judgeUncovered(state.pending, (root) => inStore.get(root) === true);
  if ((o.waitMs ?? 0) > 0 && verdict.inFlight.length > 0) {
    await waitForInFlight(o, verdict.inFlight, inStore);
    verdict = judgeUncovered(state.pending, (root) => inStore.get(root) === true);
  }

  const missed: MissedDelivery[] = verdict.missed.map(({ root, members }) => {
    const head = members.find((m) => m.id === root) ?? members[0]!;
    return {
      deliveryId: root,
      trigger: head.trigger,
      status: head.status,
      lastFailureClass: head.lastFailureClass,
      attempts: members.flatMap((m) => m.attempts.map((a) => ({ deliveryId: m.id, ...a }))),
    };
  });

  if (o.replay && missed.length > 0) {
    o.onProgress?.({ kind: 'replaying', count: missed.length });
    for (const m of missed) {
      try {
        const replayed = (await o.api.replay(o.webhookId, m.deliveryId)).value;
        const arrived = await waitForArrival(o, replayed.id);
        m.replay = { replayId: replayed.id, arrived };
        o.onProgress?.({ kind: 'replayed', deliveryId: m.deliveryId, replayId: replayed.id, arrived });
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        m.replay = { error: err.message };
      }
    }
  }

  const inactive = webhook.status !== 'active';
  const report: ReconcileReport = {
    webhook: {
      id: webhook.id,
      name: webhook.name,
      status: webhook.status,
      disabledReason: webhook.disabledReason,
      fix: inactive ? `hookrelay webhooks enable ${webhook.id}` : null,
    },
    scanned: state.scanned,
    pages: state.pages,
    resumed,
    missed,
    acknowledgedNotKnown: state.ackNotKnown.map((d) => ({ deliveryId: d.id, trigger: d.trigger, status: d.status, lastFailureClass: d.lastFailureClass, nextAttemptAt: d.nextAttemptAt })),
    inFlight: verdict.inFlight.map((d) => ({ deliveryId: d.id, trigger: d.trigger, status: d.status, attemptCount: d.attempts.length, nextAttemptAt: d.nextAttemptAt })),
    lostAttempts: state.lostAttempts,
    verdict: 'gaps',
    reconciled: false,
  };
  const open = missed.filter((m) => !(m.replay && 'arrived' in m.replay && m.replay.arrived));
  const gaps = open.length > 0 || report.acknowledgedNotKnown.length > 0 || inactive;
  report.verdict = gaps ? 'gaps' : report.inFlight.length > 0 ? 'in-flight' : 'reconciled';
  report.reconciled = report.verdict === 'reconciled';
  clearReconcileState(stateFile);
  return report;
}

function fresh(o: ReconcileOptions): ReconcileState {
  return { version: 1, apiUrl: o.apiUrl, webhookId: o.webhookId, since: o.since?.text ?? null, startedAt: new Date(o.now()).toISOString(), cursor: '', pages: 0, scanned: 0, pending: emptyPending(), coveredRoots: [], ackNotKnown: [], lostAttempts: [] };
}

/** Reads pages from `cursor` (null: the newest), folding each into `state` and saving it after each page. */
async function scan(o: ReconcileOptions, state: ReconcileState, stateFile: string, cursor: string | null): Promise<void> {
  for await (const page of o.api.deliveries(o.webhookId, { startCursor: cursor })) {
    let older = false;
    for (const d of page.items) {
      const created = d.createdAt === null ? NaN : Date.parse(d.createdAt);
      // Newest first (spec 4.1): once one is older than --since, so is the rest.
      if (o.since && Number.isFinite(created) && created < o.since.ms) {
        older = true;
        break;
      }
      state.scanned++;
      await fold(o, state, liteOf(d));
    }
    state.pages++;
    o.onProgress?.({ kind: 'page', pages: state.pages, scanned: state.scanned });
    if (older || page.nextCursor === null) return;
    state.cursor = page.nextCursor;
    saveReconcileState(stateFile, state);
  }
}

async function fold(o: ReconcileOptions, state: ReconcileState, d: LiteDelivery): Promise<void> {
  const stored = await o.store.getDelivery(d.id);
  const local = await o.store.listAttempts({ deliveryId: d.id, limit: 1000 });
  const headers = new Set(local.map((a) => a.attemptHeader).filter((n): n is number => n !== null));
  const lost = lostAttemptNumbers(d.attempts, headers);
  // An attempt the service made that left no trace here: a network path lost it (or it went elsewhere).
  if (lost.length > 0) state.lostAttempts.push({ deliveryId: d.id, attemptNumbers: lost });
  if (stored) {
    if (d.isReplay) state.coveredRoots.push(rootOf(d));
    if (d.status === 'failed' || d.status === 'retrying') state.ackNotKnown.push(d);
    return;
  }
  (state.pending[rootOf(d)] ??= []).push(d);
}

/**
 * Waits up to `waitMs` for the groups of deliveries still in flight to arrive in the local store
 * (the original or any replay of it), marking each that does in `inStore`.
 */
async function waitForInFlight(o: ReconcileOptions, inFlight: readonly LiteDelivery[], inStore: Map<string, boolean>): Promise<void> {
  const waitMs = o.waitMs ?? 0;
  const deadline = o.now() + waitMs;
  const waiting = new Map<string, string[]>();
  for (const d of inFlight) (waiting.get(rootOf(d)) ?? waiting.set(rootOf(d), [rootOf(d)]).get(rootOf(d))!).push(d.id);
  o.onProgress?.({ kind: 'waiting', count: waiting.size, ms: waitMs });
  for (;;) {
    for (const [root, ids] of waiting) {
      for (const id of ids) {
        if ((await o.store.getDelivery(id)) === undefined) continue;
        inStore.set(root, true);
        waiting.delete(root);
        o.onProgress?.({ kind: 'arrived', deliveryId: root });
        break;
      }
    }
    if (waiting.size === 0 || o.now() >= deadline) return;
    await o.sleep(Math.min(500, Math.max(1, deadline - o.now())));
  }
}

async function waitForArrival(o: ReconcileOptions, replayId: string): Promise<boolean> {
  const deadline = o.now() + o.confirmTimeoutMs;
  for (;;) {
    if ((await o.store.getDelivery(replayId)) !== undefined) return true;
    if (o.now() >= deadline) return false;
    await o.sleep(Math.min(250, Math.max(1, deadline - o.now())));
  }
}
