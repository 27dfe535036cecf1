/** Read queries on their own connection: WAL lets them run while the writer thread commits. */
import type Database from 'better-sqlite3';
import { clampLimit, triggerFilter } from '../bridge-cursors.js';
import { deliveryKey } from '../delivery-key.js';
import { splitHeaders } from '../../core/limits.js';
import {
  ANSWER_COLUMNS, ANSWER_COLUMNS_ABSENT, ATTEMPT_COLUMNS, RELAY_ATTEMPT_COLUMNS, toAttempt, toJob, toKeptAnswer, toRelayAttempt, type AnswerRow, type AttemptRow, type JobRow, type RelayAttemptRow,
} from '../rows.js';
import { foldBacklog, type AttemptQuery, type AttemptRecord, type BlockedOrderKey, type BridgeCursor, type DeliveryPage, type DeliveryQuery, type OutboxDelivery, type RelayAttemptRecord, type RelayBacklog, type RelayHistoryOptions, type RelayJob, type StoredDelivery } from '../store.js';

/** An attempt row read with its kept request (`withRequest`). */
interface RequestRow extends AttemptRow {
  request_headers?: string | null;
  request_body?: Buffer | null;
}

function toAttemptWith(row: RequestRow, withRequest: boolean): AttemptRecord {
  const attempt = toAttempt(row);
  if (!withRequest) return attempt;
  const lines = row.request_headers ?? null;
  return { ...attempt, request: lines === null ? null : { headers: splitHeaders(lines), body: row.request_body ?? null } };
}

interface DeliveryRow {
  seq: number;
  id: string;
  trigger: string;
  api_version: string;
  api_version_known: number;
  received_at: number;
  signature: 'valid' | 'skipped';
  secret_index: number | null;
  signature_t: number | null;
  headers: string;
  raw_body: Buffer;
  duplicate_count: number;
  last_attempt_at: number;
}

/** A due job with what its hand-off sends, as the outbox read returns it: one array a row, in SELECT order. */
type DueRow = [
  seq: DeliveryRow['seq'],
  id: DeliveryRow['id'],
  trigger: DeliveryRow['trigger'],
  receivedAt: DeliveryRow['received_at'],
  headers: DeliveryRow['headers'],
  rawBody: DeliveryRow['raw_body'],
  state: JobRow['state'],
  tries: JobRow['tries'],
  nextAt: JobRow['next_at'],
  lastStatus: JobRow['last_status'],
  lastError: JobRow['last_error'],
  target: string | null,
];

function toDue([seq, id, trigger, receivedAt, headers, rawBody, state, tries, nextAt, lastStatus, lastError, target]: DueRow): { job: RelayJob; delivery: OutboxDelivery } {
  return {
    job: { deliverySeq: seq, deliveryId: id, state, target, tries, nextAt, lastStatus, lastError },
    delivery: { seq, id, trigger, receivedAt, headers: splitHeaders(headers), rawBody },
  };
}

export function toDelivery(row: DeliveryRow): StoredDelivery {
  return {
    seq: row.seq,
    id: row.id,
    trigger: row.trigger,
    apiVersion: row.api_version,
    apiVersionKnown: row.api_version_known === 1,
    receivedAt: row.received_at,
    signature: row.signature,
    secretIndex: row.secret_index,
    signatureTimestamp: row.signature_t,
    headers: splitHeaders(row.headers),
    rawBody: row.raw_body,
    duplicateCount: row.duplicate_count,
    lastAttemptAt: row.last_attempt_at,
  };
}

/** LIKE with the user's text taken literally. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An earlier job of the same target and key in `states` (each a partial index of schema 7: done rows never walked). */
const earlierOfKey = (states: string) => `SELECT 1 FROM relay_jobs e WHERE e.target = j.target AND e.order_key = j.order_key AND e.delivery_seq < j.delivery_seq AND e.state ${states}`;

/**
 * An ordered job (`order_key` set) is due only while no earlier job of its target and key is owed:
 * pending or held, or dead where its target's dead jobs block (the one parameter: those targets).
 */
const KEY_FREE = `(NOT EXISTS (${earlierOfKey("IN ('pending', 'held')")})
  AND (j.target NOT IN (SELECT value FROM json_each(?)) OR NOT EXISTS (${earlierOfKey("= 'dead'")})))`;

export function createSqliteReader(db: Database.Database) {
  const byId = db.prepare<[number, string], DeliveryRow>('SELECT * FROM deliveries WHERE id_key = ? AND id = ?');
  // The kept-request columns come with schema version 4: a read-only command on an older file
  // (never migrated by a reader) reads them as absent rather than failing.
  const hasKept = db.prepare("SELECT 1 FROM pragma_table_info('attempts') WHERE name = 'request_headers'").get() !== undefined;
  const lightColumns = hasKept ? ATTEMPT_COLUMNS : ATTEMPT_COLUMNS.replace('hints', 'NULL AS hints');
  const columnsOf = (withRequest: boolean) =>
    !withRequest ? lightColumns : `${lightColumns}, ${hasKept ? 'request_headers, request_body' : 'NULL AS request_headers, NULL AS request_body'}`;
  const prepareBoth = <P extends unknown[]>(sql: (columns: string) => string) => {
    const light = db.prepare<P, RequestRow>(sql(columnsOf(false)));
    let full: Database.Statement<P, RequestRow> | null = null;
    return (withRequest: boolean) => (withRequest ? (full ??= db.prepare<P, RequestRow>(sql(columnsOf(true)))) : light);
  };
  const attemptsOfDelivery = prepareBoth<[number, number, string]>(
    (columns) => `SELECT ${columns} FROM attempts WHERE delivery_seq = ?
     UNION ALL
     SELECT ${columns} FROM attempts WHERE delivery_seq IS NULL AND delivery_key = ? AND delivery_id = ?`,
  );
  const attemptsOfClaimedId = prepareBoth<[number, string]>(
    (columns) => `SELECT ${columns} FROM attempts WHERE delivery_seq IS NULL AND delivery_key = ? AND delivery_id = ?`,
  );

  const countOfDelivery = db.prepare<[number, number, string], { n: number }>(
    `SELECT (SELECT COUNT(*) FROM attempts WHERE delivery_seq = ?)
          + (SELECT COUNT(*) FROM attempts WHERE delivery_seq IS NULL AND delivery_key = ? AND delivery_id = ?) AS n`,
  );

  // The limit is written into the SQL, one statement per limit: bound as a parameter it measured ~8x
  // slower (18-22 µs against 2.7 µs, even with no row to return) and the relay runs it constantly.
  // Likely why: this SQLite is built with STAT4, which re-prepares statements whose bound values
  // may change the plan.
  const dueJobsByLimit = new Map<number, Database.Statement<[number, string, string, string, string], DueRow>>();
  const dueJobs = (limit: number) => {
    const n = Math.max(0, Math.floor(limit));
    let statement = dueJobsByLimit.get(n);
    if (!statement) {
      // Only what a hand-off sends: all of a delivery's columns made a row ~2x slower to read.
      // As arrays (raw), not objects: an object of 11 named columns a row cost ~4 µs of a ~10 µs read.
      statement = db
        .prepare<[number, string, string, string, string], DueRow>(
          // A job is skipped by its key (relayJobKey), compared as text only for the rows of a delivery
          // that has a skipped job: every other row passes on its seq, an integer.
          `SELECT d.seq, d.id, d.trigger, d.received_at, d.headers, d.raw_body, j.state, j.tries, j.next_at, j.last_status, j.last_error, j.target FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq
         WHERE j.state = 'pending' AND j.next_at <= ?
           AND (j.delivery_seq NOT IN (SELECT value FROM json_each(?)) OR (j.delivery_seq || '|' || coalesce(j.target, '')) NOT IN (SELECT value FROM json_each(?)))
           AND (j.target IS NULL OR j.target NOT IN (SELECT value FROM json_each(?)))
           AND (j.order_key IS NULL OR ${KEY_FREE}) ORDER BY j.next_at, j.rowid LIMIT ${n}`,
        )
        .raw(true);
      if (dueJobsByLimit.size < 16) dueJobsByLimit.set(n, statement);
    }
    return statement;
  };
  // Targets are kept from schema version 6: an older file (a reader never migrates) reads none.
  const hasTargets = db.prepare("SELECT 1 FROM pragma_table_info('relay_jobs') WHERE name = 'target'").get() !== undefined;
  // In the order queued: before schema 8 the rowid is the delivery's seq, and a delivery had one job.
  const jobsOf = db.prepare<[number], JobRow>(`SELECT state, tries, next_at, last_status, last_error${hasTargets ? ', target' : ''} FROM relay_jobs WHERE delivery_seq = ? ORDER BY rowid`);
  const backlogRows = db.prepare<[], { target: string | null; state: string; n: number; oldest: number | null; retrying: number | null }>(
    `SELECT ${hasTargets ? 'j.target' : 'NULL'} AS target, j.state, COUNT(*) AS n, MIN(d.received_at) AS oldest, SUM(j.tries > 0) AS retrying
     FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq WHERE j.state <> 'done' GROUP BY 1, 2`,
  );
  const relayAttemptsOf = db.prepare<[number], RelayAttemptRow>(`SELECT ${RELAY_ATTEMPT_COLUMNS} FROM relay_attempts WHERE delivery_seq = ? ORDER BY seq`);
  // The kept answers come with schema version 5: on an older file (a reader never migrates) every
  // try reads as recorded before answers were kept.
  const hasAnswers = db.prepare("SELECT 1 FROM pragma_table_info('relay_attempts') WHERE name = 'answer_headers'").get() !== undefined;
  const answerColumns = hasAnswers ? ANSWER_COLUMNS : ANSWER_COLUMNS_ABSENT;
  let relayAnswersOf: Database.Statement<[number, number], AnswerRow> | null = null;
  // The newest `limit` tries with their answers, newest first (-1: every one).
  const answersOf = () =>
    (relayAnswersOf ??= db.prepare<[number, number], AnswerRow>(`SELECT ${RELAY_ATTEMPT_COLUMNS}, ${answerColumns} FROM relay_attempts WHERE delivery_seq = ? ORDER BY seq DESC LIMIT ?`));
  // Order keys come with schema version 7: an older file (a reader never migrates) has none.
  const hasOrderKeys = db.prepare("SELECT 1 FROM pragma_table_info('relay_jobs') WHERE name = 'order_key'").get() !== undefined;
  let blockedKeys: Database.Statement<[string, string, string, number], BlockedOrderKey> | undefined;
  const jobCounts = db.prepare<[], { state: string; n: number }>('SELECT state, COUNT(*) AS n FROM relay_jobs GROUP BY state');

  // The bridge: along the seq primary key, never a scan of the table.
  const after = db.prepare<[number, number], DeliveryRow>('SELECT * FROM deliveries WHERE seq > ? ORDER BY seq LIMIT ?');
  // With a trigger filter: seq and trigger only (they sit before the body in the row, so a
  // large body's overflow pages are never read for a delivery that does not match).
  const triggersAfter = db.prepare<[number, number], { seq: number; trigger: string }>('SELECT seq, trigger FROM deliveries WHERE seq > ? ORDER BY seq LIMIT ?');
  const bySeq = db.prepare<[number], DeliveryRow>('SELECT * FROM deliveries WHERE seq = ?');
  // Bounded: at most `most` + 1 rows are looked at, on this (the receiver's) thread.
  const countBetween = db.prepare<[number, number, number], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM deliveries WHERE seq > ? AND seq <= ? LIMIT ?)');
  const triggersBetween = db.prepare<[number, number, number], { trigger: string }>('SELECT trigger FROM deliveries WHERE seq > ? AND seq <= ? LIMIT ?');
  const latestSeq = db.prepare<[], { seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM deliveries');
  const filteredAfter = db.transaction((afterSeq: number, limit: number, matches: (trigger: string) => boolean): StoredDelivery[] => {
    const out: StoredDelivery[] = [];
    const chunk = Math.max(256, limit);
    for (let from = afterSeq; out.length < limit; ) {
      const rows = triggersAfter.all(from, chunk);
      for (const row of rows) {
        if (!matches(row.trigger)) continue;
        out.push(toDelivery(bySeq.get(row.seq)!));
        if (out.length === limit) return out;
      }
      if (rows.length < chunk) break;
      from = rows[rows.length - 1]!.seq;
    }
    return out;
  });
  // The cursor table comes with schema version 3: a read-only command on an older file (never
  // migrated by a reader) sees no subscribers rather than failing.
  let cursorStatements: { one: Database.Statement<[string], BridgeCursor>; all: Database.Statement<[], BridgeCursor> } | null = null;
  const cursors = () => {
    if (cursorStatements) return cursorStatements;
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bridge_subscribers'").get();
    if (!exists) return null;
    const columns = 'name, acked_seq AS ackedSeq, updated_at AS updatedAt';
    return (cursorStatements = {
      one: db.prepare<[string], BridgeCursor>(`SELECT ${columns} FROM bridge_subscribers WHERE name = ?`),
      all: db.prepare<[], BridgeCursor>(`SELECT ${columns} FROM bridge_subscribers ORDER BY name`),
    });
  };


  return {
    deliveriesAfter(afterSeq: number, limit: number, triggers?: readonly string[]): StoredDelivery[] {
      const n = clampLimit(limit);
      if (n === 0) return [];
      const matches = triggerFilter(triggers);
      // One read transaction: every chunk sees the same snapshot.
      return matches ? filteredAfter(afterSeq, n, matches) : after.all(afterSeq, n).map(toDelivery);
    },

    countDeliveriesAfter(afterSeq: number, upToSeq: number, triggers?: readonly string[], most = Number.MAX_SAFE_INTEGER): number | null {
      if (upToSeq <= afterSeq) return 0;
      const rows = countBetween.get(afterSeq, upToSeq, Math.min(most, Number.MAX_SAFE_INTEGER - 1) + 1)!.n;
      if (rows > most) return null;
      const matches = triggerFilter(triggers);
      if (!matches) return rows;
      let n = 0;
      for (const row of triggersBetween.iterate(afterSeq, upToSeq, rows)) if (matches(row.trigger)) n++;
      return n;
    },

    bridgeCursor(name: string): BridgeCursor | null {
      return cursors()?.one.get(name) ?? null;
    },

    bridgeCursors(): BridgeCursor[] {
      return cursors()?.all.all() ?? [];
    },

    latestDeliverySeq(): number {
      return latestSeq.get()!.seq;
    },

    /** `skip`: job keys (relayJobKey); `deadBlocks`: the ordered targets where a dead job keeps the later ones of its key waiting (`on-dead=block`). */
    dueRelayJobs(now: number, limit: number, skip: ReadonlySet<string> = new Set(), skipTargets: readonly string[] = [], deadBlocks: readonly string[] = []): Array<{ job: RelayJob; delivery: OutboxDelivery }> {
      const seqs = new Set<number>();
      for (const key of skip) seqs.add(Number(key.slice(0, key.indexOf('|'))));
      return dueJobs(limit).all(now, JSON.stringify([...seqs]), JSON.stringify([...skip]), JSON.stringify(skipTargets), JSON.stringify(deadBlocks)).map(toDue);
    },

    relayHistory(deliveryId: string, { withAnswers = false, answersOfNewest }: RelayHistoryOptions = {}): { jobs: RelayJob[]; attempts: RelayAttemptRecord[] } {
      const delivery = byId.get(deliveryKey(deliveryId), deliveryId);
      if (!delivery) return { jobs: [], attempts: [] };
      const jobs = jobsOf.all(delivery.seq).map((row) => toJob(delivery.seq, deliveryId, row));
      let attempts: RelayAttemptRecord[];
      if (!withAnswers) attempts = relayAttemptsOf.all(delivery.seq).map(toRelayAttempt);
      else if (answersOfNewest === undefined) attempts = answersOf().all(delivery.seq, -1).reverse().map((row) => ({ ...toRelayAttempt(row), answer: toKeptAnswer(row) }));
      else {
        // Only the newest tries' answers are read: a delivery replayed thousands of times reads no more.
        const answered = new Map(answersOf().all(delivery.seq, Math.max(0, answersOfNewest)).map((row) => [row.seq, toKeptAnswer(row)]));
        attempts = relayAttemptsOf.all(delivery.seq).map((row) => ({ ...toRelayAttempt(row), answer: answered.get(row.seq) ?? null }));
      }
      return { jobs, attempts };
    },

    relayBacklog(): RelayBacklog[] {
      return foldBacklog(backlogRows.all());
    },

    blockedOrderKeys(target: string, limit: number, deadBlocks: readonly string[] = []): BlockedOrderKey[] {
      if (!hasOrderKeys) return [];
      const blocks = JSON.stringify(deadBlocks);
      return (blockedKeys ??= db.prepare<[string, string, string, number], BlockedOrderKey>(
        `SELECT j.target, j.order_key AS key, d.id AS deliveryId, j.state, j.tries, j.last_status AS lastStatus, j.last_error AS lastError,
           (SELECT COUNT(*) FROM relay_jobs f WHERE f.target = j.target AND f.order_key = j.order_key AND f.delivery_seq > j.delivery_seq AND f.state IN ('pending', 'held')) AS waiting
         FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq
         WHERE j.target = ? AND j.order_key IS NOT NULL AND ((j.state = 'pending' AND j.tries > 0) OR (j.state = 'dead' AND j.target IN (SELECT value FROM json_each(?))))
           AND ${KEY_FREE}
           AND EXISTS (SELECT 1 FROM relay_jobs f WHERE f.target = j.target AND f.order_key = j.order_key AND f.delivery_seq > j.delivery_seq AND f.state IN ('pending', 'held'))
         ORDER BY j.delivery_seq LIMIT ?`,
      )).all(target, blocks, blocks, Math.max(0, Math.floor(limit)));
    },

    relayCounts() {
      const counts = { pending: 0, held: 0, done: 0, dead: 0 };
      for (const { state, n } of jobCounts.all()) if (state in counts) counts[state as keyof typeof counts] = n;
      return counts;
    },

    countArrivals(deliveryId: string): number {
      const key = deliveryKey(deliveryId);
      const delivery = byId.get(key, deliveryId);
      return countOfDelivery.get(delivery ? delivery.seq : -1, key, deliveryId)!.n;
    },

    getDelivery(id: string): StoredDelivery | undefined {
      const row = byId.get(deliveryKey(id), id);
      return row ? toDelivery(row) : undefined;
    },

    listDeliveries(query: DeliveryQuery): DeliveryPage {
      const where: string[] = [];
      const params: Array<string | number> = [];
      if (query.before !== undefined) (where.push('seq < ?'), params.push(query.before));
      if (query.trigger !== undefined) (where.push('trigger = ?'), params.push(query.trigger));
      if (query.duplicatesOnly) where.push('duplicate_count > 0');
      if (query.text) {
        where.push("(id LIKE ? ESCAPE '\\' OR trigger LIKE ? ESCAPE '\\' OR CAST(raw_body AS TEXT) LIKE ? ESCAPE '\\')");
        const pattern = likePattern(query.text);
        params.push(pattern, pattern, pattern);
      }
      const sql = `SELECT * FROM deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
      const rows = db.prepare<unknown[], DeliveryRow>(sql).all(...params, query.limit + 1);
      const more = rows.length > query.limit;
      const items = rows.slice(0, query.limit).map(toDelivery);
      return { items, nextCursor: more ? items[items.length - 1]!.seq : null };
    },

    listAttempts(query: AttemptQuery): AttemptRecord[] {
      const withRequest = query.withRequest === true;
      const toRecord = (row: RequestRow) => toAttemptWith(row, withRequest);
      let rows: RequestRow[];
      if (query.deliveryId !== undefined) {
        const key = deliveryKey(query.deliveryId);
        const delivery = byId.get(key, query.deliveryId);
        rows = delivery
          ? attemptsOfDelivery(withRequest).all(delivery.seq, key, query.deliveryId)
          : attemptsOfClaimedId(withRequest).all(key, query.deliveryId);
        rows.sort((a, b) => b.seq - a.seq);
        if (query.before !== undefined) rows = rows.filter((r) => r.seq < query.before!);
        if (query.since !== undefined) rows = rows.filter((r) => r.received_at >= query.since!);
        if (query.outcomes) rows = rows.filter((r) => query.outcomes!.includes(r.outcome));
        return rows.slice(0, query.limit).map(toRecord);
      }
      const where: string[] = [];
      const params: Array<string | number> = [];
      if (query.before !== undefined) (where.push('seq < ?'), params.push(query.before));
      if (query.since !== undefined) (where.push('received_at >= ?'), params.push(query.since));
      if (query.outcomes && query.outcomes.length > 0) {
        where.push(`outcome IN (${query.outcomes.map(() => '?').join(', ')})`);
        params.push(...query.outcomes);
      }
      const sql = `SELECT ${columnsOf(withRequest)} FROM attempts ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
      return db.prepare<unknown[], RequestRow>(sql).all(...params, query.limit).map(toRecord);
    },
  };
}
