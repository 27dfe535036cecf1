/**
 * Group commit of accepts on PostgreSQL, as the SQLite writer does it: the accepts of one
 * event-loop turn, and those queued while earlier groups were committing, go into ONE transaction
 * on one of a few connections (two by default), and each is answered only after its group's COMMIT.
 *
 * A group is ONE statement in its own implicit transaction, which commits before the server
 * answers: one round trip and one WAL flush for the whole group. On this kind of machine each round
 * trip to the server costs the receiver ~100 µs of CPU (the socket write and the wake-up of the
 * backend): as separate statements (BEGIN, the insert, the attempts, COMMIT) a group cost four, more
 * than everything else the store does for it (bench/notes.md, "Outgrow one machine"). The statement,
 * `acceptFresh` (pg-queries.ts), takes the transaction id before any seq is drawn (the bridge's
 * commit-order horizon: pg-settled-horizon.ts); inserts one row per distinct id from `unnest(…)`
 * with `ON CONFLICT (id) DO NOTHING` (two copies of one id in the group: the first, in call order,
 * is accepted, the others are its duplicates, counted on the new row as it is inserted); and writes
 * the attempt row of every request whose id it inserted and the relay jobs of each new delivery
 * (when the outbox is on): one per target, with its order key. Attempt seqs follow the group's order.
 *
 * The requests it leaves unwritten, copies of ids stored already (by an earlier group, or another
 * instance whose transaction ON CONFLICT waited for), are a second group, committed right after as a
 * call of `hookrelay_accept_group_v2` (pg-schema.ts, migration 8), which counts them in one set-based
 * UPDATE with a fresh snapshot and writes their attempts. So a group of copies only costs two
 * statements and two flushes (a retry storm of the service); the usual group costs one. Until session
 * 31 every group was that function's call: it costs the database ~35% more a request than its first
 * statement sent as it is (bench/notes.md, session 31).
 *
 * The parameters are array literals built here (textArray, intArray): see there why.
 *
 * A statement that fails fails every request it carries (each caller gets the error: the receiver
 * answers 503), never half of them: nothing of it is committed. The fresh requests of a group are
 * answered before its copies of stored ids are written, so a failed second statement fails only those
 * copies. One exception keeps bad input from failing its neighbours: when PostgreSQL refused a value
 * (a data exception, class 22 and the like), the statement was rolled back as a whole, and its
 * requests are written again one by one, so only the request that carried the value fails.
 */
import type pg from 'pg';
import { relayJobsOf, type RelayTargets } from '../../core/routes.js';
import type { AcceptResult, AttemptInput, CommitReport, NewDelivery } from '../store.js';
import { hintsColumn } from '../rows.js';
import { pgText } from './pg-rows.js';
import { named } from './pg-queries.js';

export interface AcceptGroupOptions {
  /** Write the relay jobs of every accepted delivery, one per target it is routed to (relayJobsOf; true: one job, no target kept). */
  outbox: boolean | RelayTargets;
  /** Groups committing at once, each on a connection of the pool (default 2). */
  connections?: number;
  /** The most requests in one group (default 1,000); the rest wait for the next. */
  maxRequests?: number;
  /** The most body bytes in one group (default 16 MiB; a larger body goes alone). */
  maxBytes?: number;
  /** Each group's commit, for metrics. */
  onCommit?: (report: CommitReport) => void;
}

export interface AcceptGroups {
  /** Queues the accept into the next group; resolves after that group's COMMIT, or rejects with its error. */
  accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult>;
}

interface Entry {
  delivery: NewDelivery;
  attempt: AttemptInput;
  resolve: (result: AcceptResult) => void;
  reject: (err: unknown) => void;
}

/** A distinct id of a group: its first copy, and how many copies the group holds. */
interface Candidate {
  key: string;
  first: Entry;
  copies: number;
  /** The last copy's receivedAt: the row's last_attempt_at, as counting each copy in turn would leave it. */
  lastAt: number;
  /** Its position (1-based) among the group's distinct ids, as sent. */
  position: number;
}

/**
 * The statements' array parameters are array literals built here and sent as text (the statement
 * casts each): pg would quote every element, numbers too, through two regular expressions each, about
 * a tenth of the store's CPU in a profile. Inside double quotes only `"` and `\` need a backslash.
 */
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

export function textArray(values: ReadonlyArray<string | null>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else out += `"${NEEDS_ESCAPE.test(v) ? v.replace(ESCAPED, '\\$&') : v}"`;
  }
  return `${out}}`;
}

/** Integers (or null) as an array literal; anything else is refused by the server as a value error. */
export function intArray(values: ReadonlyArray<number | null>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null || v === undefined ? 'NULL' : String(v);
  }
  return `${out}}`;
}

const boolArray = (values: readonly boolean[]): string => `{${values.map((v) => (v ? 't' : 'f')).join(',')}}`;

/** SQLSTATE classes of a value PostgreSQL refused (data exception, integrity, a limit): the request's own fault, not the store's. */
const VALUE_ERRORS = new Set(['22', '23', '54']);
const isValueError = (err: unknown): boolean => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && VALUE_ERRORS.has(code.slice(0, 2));
};

export function createAcceptGroups(pool: pg.Pool, options: AcceptGroupOptions): AcceptGroups {
  const { outbox } = options;
  const connections = options.connections ?? 2;
  const maxRequests = options.maxRequests ?? 1_000;
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  let queue: Entry[] = [];
  let scheduled = false;
  let running = 0;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      start();
    });
  }

  /** Starts groups on free connections while requests wait. */
  function start(): void {
    while (running < connections && queue.length > 0) {
      const group = take();
      running++;
      void run(group).finally(() => {
        running--;
        // What queued during this commit goes now: it has waited a commit already.
        start();
      });
    }
  }

  /** The next group: the oldest waiting requests, within the bounds (at least one). */
  function take(): Entry[] {
    let n = 0;
    let bytes = 0;
    while (n < queue.length && n < maxRequests) {
      const size = queue[n]!.delivery.rawBody.length;
      if (n > 0 && bytes + size > maxBytes) break;
      bytes += size;
      n++;
    }
    const group = n === queue.length ? queue : queue.slice(0, n);
    queue = n === queue.length ? [] : queue.slice(n);
    return group;
  }

  /**
   * Commits a group and answers each request in it. `fresh` first (acceptFresh): the requests it
   * leaves unwritten, copies of ids stored before, are a group of their own for `stored` (migration
   * 8's function), committed after it.
   */
  async function run(group: Entry[], statement: 'fresh' | 'stored' = 'fresh'): Promise<void> {
    let results: Array<AcceptResult | undefined>;
    const started = performance.now();
    try {
      results = statement === 'fresh' ? await commitFresh(group) : await commitCopiesOfStored(group);
    } catch (err) {
      try {
        options.onCommit?.({ ms: performance.now() - started, size: group.length, ok: false });
      } finally {
        // Rolled back as a whole; when one request's value is to blame, each goes alone, so only it fails.
        if (group.length > 1 && isValueError(err)) for (const entry of group) await run([entry], statement);
        else for (const entry of group) entry.reject(err);
      }
      return;
    }
    const ms = performance.now() - started;
    const rest: Entry[] = [];
    for (let i = 0; i < group.length; i++) {
      const result = results[i];
      if (result === undefined) rest.push(group[i]!);
      else group[i]!.resolve(result);
    }
    // Each statement that wrote requests is one commit for the metrics; the copies' is reported by their own run.
    const written = group.length - rest.length;
    try {
      // After the answers, outside the try above: an observer that throws must not fail a committed group.
      if (written > 0) options.onCommit?.({ ms, size: written, ok: true });
    } finally {
      if (rest.length > 0) await run(rest, 'stored');
    }
  }

  /**
   * The requests of a group whose ids this statement inserts (each id's first copy, and the later
   * copies of it in the group) in one top-level statement, `acceptFresh` (pg-queries.ts), its own
   * implicit transaction; undefined for the others, copies of ids stored before (a retry of the
   * service, or another instance's), which run() commits next. The usual group is all fresh and
   * costs one statement: migration 8's function costs the database ~35% more a request than the
   * same statement sent as it is (bench/notes.md, session 31), so it only counts copies of stored ids.
   */
  async function commitFresh(group: Entry[]): Promise<Array<AcceptResult | undefined>> {
    const { values, first } = parameters(group);
    const { rows } = await pool.query<{ done: string[]; deliveries: string[]; attempts: string[] }>(named('acceptFresh', values));
    const { done, deliveries, attempts } = rows[0] ?? { done: [], deliveries: [], attempts: [] };
    if (done.length !== deliveries.length || done.length !== attempts.length) {
      throw new Error(`the group wrote ${attempts.length} attempts and ${deliveries.length} delivery seqs for ${done.length} requests`);
    }
    const results: Array<AcceptResult | undefined> = new Array(group.length);
    // By request, in the group's order: the k-th smallest request number has the k-th smallest attempt seq (attempts are written in that order).
    for (let k = 0; k < done.length; k++) {
      const i = Number(done[k]) - 1;
      if (!(i >= 0 && i < group.length) || results[i] !== undefined) throw new Error(`the group wrote an attempt for a request it did not send (${done[k]})`);
      results[i] = { outcome: first[i] ? 'accepted' : 'duplicate', deliverySeq: Number(deliveries[k]), attemptSeq: Number(attempts[k]) };
    }
    return results;
  }

  /** Copies of stored ids (and any id deleted since): hookrelay_accept_group_v2 (pg-schema.ts, migration 8), in its own implicit transaction. */
  async function commitCopiesOfStored(group: Entry[]): Promise<AcceptResult[]> {
    const { values, first, cand, m } = parameters(group);
    const n = group.length;
    const { rows } = await pool.query<{ seqs: string[]; fresh: boolean[]; attempts: string[] }>(named('acceptGroup', values));
    const { seqs, fresh, attempts } = rows[0] ?? { seqs: [], fresh: [], attempts: [] };
    if (seqs.length !== m || attempts?.length !== n) throw new Error(`the group wrote ${attempts?.length ?? 0} attempts for ${n} requests and ${seqs.length} deliveries for ${m} ids`);
    const results: AcceptResult[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const at = cand[i]! - 1;
      results[i] = { outcome: fresh[at] && first[i] ? 'accepted' : 'duplicate', deliverySeq: Number(seqs[at]), attemptSeq: Number(attempts[i]) };
    }
    return results;
  }

  /**
   * One group's statement parameters, the same for both statements (their order is migration 8's
   * function's arguments), with whether each request is its id's first copy, the position of its id
   * among the distinct ids sent, and how many distinct ids there are.
   */
  function parameters(group: Entry[]): { values: unknown[]; first: boolean[]; cand: number[]; m: number } {
    // The distinct ids, each with its first copy; sorted, so every group locks new ids in one order.
    const byKey = new Map<string, Candidate>();
    const candidateOf: Candidate[] = new Array(group.length);
    for (let i = 0; i < group.length; i++) {
      const entry = group[i]!;
      const key = pgText(entry.delivery.id);
      let candidate = byKey.get(key);
      if (candidate === undefined) {
        candidate = { key, first: entry, copies: 0, lastAt: entry.attempt.receivedAt, position: 0 };
        byKey.set(key, candidate);
      }
      candidate.copies++;
      candidate.lastAt = entry.attempt.receivedAt;
      candidateOf[i] = candidate;
    }
    const candidates = [...byKey.values()];
    if (candidates.length > 1) candidates.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

    const m = candidates.length;
    const d = {
      id: new Array<string>(m), trigger: new Array<string>(m), version: new Array<string>(m), known: new Array<boolean>(m), receivedAt: new Array<number>(m),
      signature: new Array<string>(m), secretIndex: new Array<number | null>(m), signatureT: new Array<number | null>(m), headersFrom: new Array<number>(m),
      headersTo: new Array<number>(m), bodyFrom: new Array<number>(m), bodyLength: new Array<number>(m), copies: new Array<number>(m), lastAt: new Array<number>(m),
    };
    // One entry per relay job: its delivery's position in d, its target and order key (migration 8).
    const jobs = { cand: [] as number[], target: [] as Array<string | null>, orderKey: [] as Array<string | null> };
    let anyKey = false;
    const headers: string[] = [];
    const bodies: Uint8Array[] = new Array(m);
    let offset = 1;
    for (let i = 0; i < m; i++) {
      const c = candidates[i]!;
      const delivery = c.first.delivery;
      c.position = i + 1;
      d.id[i] = c.key;
      d.trigger[i] = pgText(delivery.trigger);
      d.version[i] = pgText(delivery.apiVersion);
      d.known[i] = delivery.apiVersionKnown;
      d.receivedAt[i] = delivery.receivedAt;
      d.signature[i] = delivery.signature;
      d.secretIndex[i] = delivery.secretIndex;
      d.signatureT[i] = delivery.signatureTimestamp;
      d.headersFrom[i] = headers.length + 1;
      for (const h of delivery.rawHeaders) headers.push(pgText(h));
      d.headersTo[i] = headers.length;
      bodies[i] = delivery.rawBody;
      d.bodyFrom[i] = offset;
      d.bodyLength[i] = delivery.rawBody.length;
      offset += delivery.rawBody.length;
      d.copies[i] = c.copies;
      d.lastAt[i] = c.lastAt;
      // The outbox jobs are part of the accepting transaction: accepted means handed on, to each target.
      if (outbox === true) jobs.cand.push(c.position);
      else if (outbox !== false) {
        for (const job of relayJobsOf(outbox, { trigger: delivery.trigger, rawBody: delivery.rawBody, headers: delivery.rawHeaders })) {
          jobs.cand.push(c.position);
          jobs.target.push(pgText(job.target));
          const key = pgText(job.orderKey);
          jobs.orderKey.push(key);
          anyKey ||= key !== null;
        }
      }
    }
    // One binary parameter (pg sends a Buffer as bytes; a bytea[] would go as hex text).
    const body = m === 1 && Buffer.isBuffer(bodies[0]) ? bodies[0] : Buffer.concat(bodies);

    const n = group.length;
    const a = {
      cand: new Array<number>(n), first: new Array<boolean>(n), id: new Array<string | null>(n), trigger: new Array<string | null>(n), receivedAt: new Array<number>(n),
      finishedAt: new Array<number>(n), attemptHeader: new Array<number | null>(n), signatureT: new Array<number | null>(n), sha: new Array<string>(n),
      bytes: new Array<number>(n), status: new Array<number | null>(n), reason: new Array<string | null>(n), retryAfter: new Array<string | null>(n),
      hints: new Array<string | null>(n), headersFrom: new Array<number | null>(n), headersTo: new Array<number | null>(n),
    };
    // Which columns the statement can fill in itself (see migration 6): every request its id's first
    // copy; each attempt's id, trigger, received time, signature time and size its delivery's; one
    // status for all; no reason, Retry-After or hints.
    let allFirst = true;
    let sameId = true;
    let sameTrigger = true;
    let sameReceivedAt = true;
    let sameSignatureT = true;
    let sameBytes = true;
    let oneStatus = true;
    let anyReason = false;
    let anyRetryAfter = false;
    let anyHints = false;
    // What a later copy keeps if it is a duplicate: the headers it came with (a first copy's are its
    // delivery's, in the deliveries' headers).
    const requestHeaders: string[] = [];
    for (let i = 0; i < n; i++) {
      const entry = group[i]!;
      const c = candidateOf[i]!;
      const at = entry.attempt;
      const delivery = c.first.delivery;
      const first = c.first === entry;
      a.cand[i] = c.position;
      a.first[i] = first;
      allFirst &&= first;
      const id = pgText(at.deliveryId);
      a.id[i] = id;
      sameId &&= id === c.key;
      const trigger = pgText(at.trigger);
      a.trigger[i] = trigger;
      sameTrigger &&= trigger === d.trigger[c.position - 1];
      a.receivedAt[i] = at.receivedAt;
      sameReceivedAt &&= at.receivedAt === delivery.receivedAt;
      a.finishedAt[i] = at.finishedAt;
      a.attemptHeader[i] = at.attemptHeader;
      a.signatureT[i] = at.signatureTimestamp;
      sameSignatureT &&= at.signatureTimestamp === delivery.signatureTimestamp;
      a.sha[i] = pgText(at.bodySha256);
      a.bytes[i] = at.bodyBytes;
      sameBytes &&= at.bodyBytes === delivery.rawBody.length;
      a.status[i] = at.status;
      oneStatus &&= at.status === a.status[0];
      anyReason ||= (a.reason[i] = pgText(at.reason)) !== null;
      anyRetryAfter ||= (a.retryAfter[i] = pgText(at.retryAfter)) !== null;
      anyHints ||= (a.hints[i] = pgText(hintsColumn(at.hints))) !== null;
      if (first) {
        a.headersFrom[i] = null;
        a.headersTo[i] = null;
      } else {
        a.headersFrom[i] = requestHeaders.length + 1;
        for (const h of entry.delivery.rawHeaders) requestHeaders.push(pgText(h));
        a.headersTo[i] = requestHeaders.length;
      }
    }
    const oneCopy = allFirst;
    const lastIsReceived = candidates.every((c) => c.lastAt === c.first.delivery.receivedAt);
    const EMPTY = '{}';

    const values: unknown[] = [
        textArray(d.id), textArray(d.trigger), textArray(d.version), boolArray(d.known), intArray(d.receivedAt), textArray(d.signature), intArray(d.secretIndex),
        intArray(d.signatureT), textArray(headers), intArray(d.headersFrom), intArray(d.headersTo), body, intArray(d.bodyFrom), intArray(d.bodyLength),
        oneCopy ? EMPTY : intArray(d.copies), lastIsReceived ? EMPTY : intArray(d.lastAt),
        intArray(a.cand), allFirst ? EMPTY : boolArray(a.first), sameId ? EMPTY : textArray(a.id), sameTrigger ? EMPTY : textArray(a.trigger),
        sameReceivedAt ? EMPTY : intArray(a.receivedAt), intArray(a.finishedAt), intArray(a.attemptHeader), sameSignatureT ? EMPTY : intArray(a.signatureT),
        textArray(a.sha), sameBytes ? EMPTY : intArray(a.bytes), oneStatus ? intArray([a.status[0]!]) : intArray(a.status), anyReason ? textArray(a.reason) : EMPTY,
        anyRetryAfter ? textArray(a.retryAfter) : EMPTY, anyHints ? textArray(a.hints) : EMPTY, textArray(requestHeaders),
        allFirst ? EMPTY : intArray(a.headersFrom), allFirst ? EMPTY : intArray(a.headersTo),
        intArray(jobs.cand), outbox === true ? EMPTY : textArray(jobs.target), anyKey ? textArray(jobs.orderKey) : EMPTY,
    ];
    return { values, first: a.first, cand: a.cand, m };
  }

  return {
    accept(delivery, attempt) {
      return new Promise<AcceptResult>((resolve, reject) => {
        queue.push({ delivery, attempt, resolve, reject });
        if (running < connections) schedule();
      });
    },
  };
}
