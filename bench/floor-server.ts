/**
 * The floor under any durable receiver on this stack: the smallest thing that does what the
 * receive target requires, so the bench can say how far 0.6× is from what fastify and SQLite
 * allow here at all. Two modes (argv[3]):
 *
 * - `verify`: the bare route plus the signature check and JSON.parse of the body; no store.
 * - `store`:  the same, then a group-committed, durable (WAL, synchronous=FULL) insert of the
 *   id and the raw bytes into a one-table SQLite database owned by a worker thread, answered
 *   after its commit. No dedupe index, no attempt record, no headers, no logging: less than
 *   the issue asks of hookrelay, so hookrelay can only be slower.
 * - `schema`: the least any durable, deduplicating receiver of the spec must write (issue 19's
 *   schema floor): the delivery row with its header lines under a unique index on its id, and
 *   one attempt row, in the same group-committed synchronous=FULL transaction, answered after
 *   its commit. Still no log line, no event hub, no outbox, no console, no metrics.
 * - `relay`:  the schema floor plus the least a durable outbox relay must do (issue 19's forwarding
 *   target): a pending job row in the delivery's transaction; after the commit, the body POSTed
 *   to the app (argv[5]) re-signed, through undici on 16 kept-alive connections; the job marked
 *   done, with the app's status, in a later group commit. No retries, no kept answer, no log line,
 *   no routes: a hand-off can only cost hookrelay more than this.
 * - `relay-kept`: the relay floor plus what every try must keep and send by issue 13 and
 *   docs/relay.md, still without a log line, routes, retries' timing or events: the delivery's
 *   `x-service-*` headers and the hookrelay marks sent with it (11 headers, as hookrelay sends),
 *   the answer kept (its header lines and the first 4 KiB of its body) in a try row indexed by
 *   delivery, and the job's state, tries and next time under the partial index by which a
 *   retrying outbox finds what is due. So it prices the records, apart from hookrelay's own code.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHmac } from 'node:crypto';
import { isMainThread, MessageChannel, receiveMessageOnPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { verify } from '../src/core/signature/verify.js';
import { isoTime } from '../src/core/iso-time.js';
import { SCHEMA_FLOOR_TABLES } from './schema-floor-ddl.js';

const SECRET = 'whsec_bench_secret_value_0123456789';

if (isMainThread) await serve();
else writer();

async function serve(): Promise<void> {
  const [, , portArg, mode = 'verify', dbPath = '', appUrl = ''] = process.argv;
  const kept = mode === 'relay-kept';
  const relay = mode === 'relay' || kept;
  const schema = mode === 'schema' || relay;
  const store = mode === 'store' || schema ? startWriter(dbPath, schema, relay, kept) : null;
  if (store) await store.ready;
  const handOff = relay && store ? startHandOff(appUrl, store.done, kept) : null;

  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/webhooks', async (request, reply) => {
    const body = request.body as Buffer;
    const verdict = verify(body, request.headers['x-service-signature'], { secrets: [SECRET], nowSeconds: Date.now() / 1000 });
    if (!verdict.ok) return reply.code(400).send('{"success":false}');
    const envelope = JSON.parse(body.toString('utf8')) as { id: string };
    if (store) {
      const seq = await store.insert(envelope.id, body, schema ? headerLines(request.raw.rawHeaders) : '');
      if (handOff && seq > 0) handOff(seq, body, request.raw.rawHeaders);
    }
    return reply.code(200).send('{"success":true}');
  });
  app.get('/healthz', async (_request, reply) => reply.code(200).send('{"success":true}'));
  await app.listen({ port: Number(portArg ?? 0), host: '127.0.0.1' });
  // A clean exit, so `node --cpu-prof` writes its profile (bench/receive-profile.ts).
  process.once('SIGTERM', () => process.exit(0));
}

/** Header lines `name: value\n`, as any receiver that keeps the headers must store them. */
function headerLines(raw: string[]): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) out += `${raw[i]}: ${raw[i + 1]}\n`;
  return out;
}

/** A delivery to insert, or (ticket 0) a relay job's outcome: [0, seq, status] (with what the try keeps in relay-kept mode). */
type Row =
  | [ticket: number, id: string, body: Uint8Array, headers: string, receivedAt: number]
  | [ticket: 0, seq: number, status: number, kept?: KeptTry];

/** What one try keeps (relay-kept mode): its times, the answer's header lines, the start of its body. */
interface KeptTry {
  startedAt: number;
  finishedAt: number;
  headerLines: number;
  headers: string;
  body: Uint8Array;
  bodyBytes: number;
}

const KEPT_BODY_BYTES = 4096;

/**
 * The hand-off: each committed delivery POSTed to the app at once, re-signed, its outcome sent to
 * the writer. Undici queues what 16 connections cannot take yet.
 */
function startHandOff(appUrl: string, done: (seq: number, status: number, kept?: KeptTry) => void, keep: boolean): (seq: number, body: Buffer, received: string[]) => void {
  const url = new URL(appUrl);
  const pool = new Pool(url.origin, { connections: 16 });
  return (seq, body, received) => {
    const startedAt = Date.now();
    const t = Math.floor(startedAt / 1000);
    const v1 = createHmac('sha256', SECRET).update(`${t}.`).update(body).digest('hex');
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-service-signature': `t=${t},v1=${v1}` };
    if (keep) {
      for (let i = 0; i + 1 < received.length; i += 2) {
        const name = received[i]!.toLowerCase();
        if (name.startsWith('x-service-') && name !== 'x-service-signature') headers[name] = received[i + 1]!;
      }
      headers['user-agent'] = 'hookrelay-relay/1';
      headers['x-hookrelay-relayed'] = 'true';
      headers['x-hookrelay-relay-try'] = '1';
      headers['x-hookrelay-replay'] = 'false';
      headers['x-hookrelay-received-at'] = isoTime(startedAt);
    }
    let status = 0;
    let answerHeaders: string[] = [];
    let kept: Uint8Array = new Uint8Array(0);
    let seen = 0;
    const finish = () => {
      if (!keep) return done(seq, status);
      const lines: Array<[string, string]> = [];
      for (let i = 0; i + 1 < answerHeaders.length; i += 2) lines.push([answerHeaders[i]!, answerHeaders[i + 1]!]);
      done(seq, status, { startedAt, finishedAt: Date.now(), headerLines: lines.length, headers: JSON.stringify(lines), body: kept, bodyBytes: seen });
    };
    pool.dispatch(
      { origin: url.origin, path: url.pathname, method: 'POST', body, headers },
      {
        onRequestStart() {},
        onResponseStart(c, statusCode) {
          status = statusCode;
          if (keep) answerHeaders = ((c as { rawHeaders?: Buffer[] }).rawHeaders ?? []).map((b) => b.toString('latin1'));
        },
        onResponseData(_c, chunk) {
          if (keep && kept.length < KEPT_BODY_BYTES) kept = Buffer.concat([kept, chunk.subarray(0, KEPT_BODY_BYTES - kept.length)]);
          seen += chunk.length;
        },
        onResponseEnd: finish,
        onResponseError: finish,
      },
    );
  };
}

/** The main thread's side: rows of one event-loop turn go to the writer in one message. */
function startWriter(path: string, schema: boolean, relay: boolean, kept: boolean) {
  // `--keep-store`: the 1M scenario's floor starts on the store seed-store.ts filled.
  if (!process.argv.includes('--keep-store')) for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const channel = new MessageChannel();
  new Worker(fileURLToPath(import.meta.url), { workerData: { path, port: channel.port2, schema, relay, kept }, transferList: [channel.port2] });
  const port = channel.port1;
  const waiting = new Map<number, (seq: number) => void>();
  let next = 1;
  let outgoing: Row[] = [];
  let signalReady!: () => void;
  const ready = new Promise<void>((r) => (signalReady = r));
  // Answers come as [ticket, seq] pairs; seq is 0 for a duplicate.
  port.on('message', (message: number[] | 'ready') => {
    if (message === 'ready') return signalReady();
    for (let i = 0; i + 1 < message.length; i += 2) {
      const ticket = message[i]!;
      waiting.get(ticket)!(message[i + 1]!);
      waiting.delete(ticket);
    }
  });
  const flush = () => {
    port.postMessage(outgoing);
    outgoing = [];
  };
  return {
    ready,
    done(seq: number, status: number, kept?: KeptTry): void {
      if (outgoing.length === 0) setImmediate(flush);
      outgoing.push(kept ? [0, seq, status, kept] : [0, seq, status]);
    },
    insert(id: string, body: Buffer, headers: string): Promise<number> {
      return new Promise((resolve) => {
        const ticket = next++;
        waiting.set(ticket, resolve);
        if (outgoing.length === 0) setImmediate(flush);
        // Its own exact-size copy: a clone of a view would copy the whole socket buffer behind it.
        outgoing.push([ticket, id, new Uint8Array(body), headers, Date.now()]);
      });
    },
  };
}

/** The writer thread: everything queued while a commit ran goes into the next one. */
function writer(): void {
  const { path, port, schema, relay, kept } = workerData as { path: string; port: MessagePort; schema: boolean; relay: boolean; kept: boolean };
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  // Fills `answers` with [ticket, seq] for each inserted delivery.
  let commit: (rows: Row[], answers: number[]) => void;
  if (schema) {
    // IF NOT EXISTS: the 1M scenario starts a floor on a store seed-store.ts filled.
    db.exec(SCHEMA_FLOOR_TABLES);
    const insertDelivery = db.prepare('INSERT INTO deliveries (id, received_at, headers, raw_body) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING');
    const insertAttempt = db.prepare('INSERT INTO attempts (delivery_seq, delivery_id, received_at, outcome, status) VALUES (?, ?, ?, ?, 200)');
    // The outbox, named as hookrelay's so the bench's drain check reads both.
    if (relay && !kept) db.exec("CREATE TABLE relay_jobs (delivery_seq INTEGER PRIMARY KEY, state TEXT NOT NULL, status INTEGER)");
    if (kept) {
      db.exec(`
        CREATE TABLE relay_jobs (delivery_seq INTEGER PRIMARY KEY, state TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL, status INTEGER);
        CREATE INDEX relay_jobs_due ON relay_jobs(next_at) WHERE state = 'pending';
        CREATE TABLE relay_tries (seq INTEGER PRIMARY KEY, delivery_seq INTEGER NOT NULL, try INTEGER NOT NULL, started_at INTEGER NOT NULL, finished_at INTEGER NOT NULL,
          status INTEGER, answer_header_lines INTEGER, answer_headers TEXT, answer_body BLOB, answer_body_bytes INTEGER);
        CREATE INDEX relay_tries_by_delivery ON relay_tries(delivery_seq)`);
    }
    const insertJob = relay ? db.prepare(kept ? "INSERT INTO relay_jobs (delivery_seq, state, next_at) VALUES (?, 'pending', unixepoch('subsec') * 1000)" : "INSERT INTO relay_jobs (delivery_seq, state) VALUES (?, 'pending')") : null;
    const finishJob = relay
      ? db.prepare(kept ? "UPDATE relay_jobs SET state = 'done', status = ?, tries = tries + 1 WHERE delivery_seq = ? AND state = 'pending'" : "UPDATE relay_jobs SET state = 'done', status = ? WHERE delivery_seq = ?")
      : null;
    const insertTry = kept
      ? db.prepare('INSERT INTO relay_tries (delivery_seq, try, started_at, finished_at, status, answer_header_lines, answer_headers, answer_body, answer_body_bytes) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?)')
      : null;
    commit = db.transaction((rows: Row[], answers: number[]) => {
      for (const row of rows) {
        if (row[0] === 0) {
          const t = row[3] as KeptTry | undefined;
          if (t && insertTry) insertTry.run(row[1], t.startedAt, t.finishedAt, row[2], t.headerLines, t.headers, t.body, t.bodyBytes);
          finishJob!.run(row[2], row[1]);
          continue;
        }
        const [ticket, id, body, headers, receivedAt] = row;
        const inserted = insertDelivery.run(id, receivedAt, headers, body);
        const seq = inserted.changes === 1 ? Number(inserted.lastInsertRowid) : 0;
        insertAttempt.run(seq || null, id, receivedAt, seq ? 'accepted' : 'duplicate');
        if (seq && insertJob) insertJob.run(seq);
        answers.push(ticket, seq);
      }
    });
  } else {
    db.exec('CREATE TABLE deliveries (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, raw_body BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO deliveries (id, raw_body) VALUES (?, ?)');
    commit = db.transaction((rows: Row[], answers: number[]) => {
      for (const row of rows) {
        if (row[0] === 0) continue;
        answers.push(row[0], Number(insert.run(row[1], row[2]).lastInsertRowid));
      }
    });
  }
  port.on('message', (rows: Row[]) => {
    for (let more = receiveMessageOnPort(port); more; more = receiveMessageOnPort(port)) rows = rows.concat(more.message as Row[]);
    const answers: number[] = [];
    commit(rows, answers);
    if (answers.length > 0) port.postMessage(answers);
  });
  // Checkpoints off the commit path, as hookrelay does.
  db.pragma('wal_autocheckpoint = 0');
  const checkpointer = new Database(path);
  setInterval(() => checkpointer.pragma('wal_checkpoint(PASSIVE)'), 1000);
  port.postMessage('ready');
}
