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
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread, MessageChannel, receiveMessageOnPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { verify } from '../src/core/signature/verify.js';

const SECRET = 'whsec_bench_secret_value_0123456789';

if (isMainThread) await serve();
else writer();

async function serve(): Promise<void> {
  const [, , portArg, mode = 'verify', dbPath = ''] = process.argv;
  const schema = mode === 'schema';
  const store = mode === 'store' || schema ? startWriter(dbPath, schema) : null;
  if (store) await store.ready;

  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/webhooks', async (request, reply) => {
    const body = request.body as Buffer;
    const verdict = verify(body, request.headers['x-service-signature'], { secrets: [SECRET], nowSeconds: Date.now() / 1000 });
    if (!verdict.ok) return reply.code(400).send('{"success":false}');
    const envelope = JSON.parse(body.toString('utf8')) as { id: string };
    if (store) await store.insert(envelope.id, body, schema ? headerLines(request.raw.rawHeaders) : '');
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

type Row = [ticket: number, id: string, body: Uint8Array, headers: string, receivedAt: number];

/** The main thread's side: rows of one event-loop turn go to the writer in one message. */
function startWriter(path: string, schema: boolean) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const channel = new MessageChannel();
  new Worker(fileURLToPath(import.meta.url), { workerData: { path, port: channel.port2, schema }, transferList: [channel.port2] });
  const port = channel.port1;
  const waiting = new Map<number, () => void>();
  let next = 1;
  let outgoing: Row[] = [];
  let signalReady!: () => void;
  const ready = new Promise<void>((r) => (signalReady = r));
  port.on('message', (message: number[] | 'ready') => {
    if (message === 'ready') return signalReady();
    for (const ticket of message) {
      waiting.get(ticket)!();
      waiting.delete(ticket);
    }
  });
  const flush = () => {
    port.postMessage(outgoing);
    outgoing = [];
  };
  return {
    ready,
    insert(id: string, body: Buffer, headers: string): Promise<void> {
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
  const { path, port, schema } = workerData as { path: string; port: MessagePort; schema: boolean };
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  let commit: (rows: Row[]) => void;
  if (schema) {
    db.exec(`
      CREATE TABLE deliveries (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, received_at INTEGER NOT NULL, headers TEXT NOT NULL, raw_body BLOB NOT NULL);
      CREATE TABLE attempts (seq INTEGER PRIMARY KEY, delivery_seq INTEGER, delivery_id TEXT, received_at INTEGER NOT NULL, outcome TEXT NOT NULL, status INTEGER NOT NULL)`);
    const insertDelivery = db.prepare('INSERT INTO deliveries (id, received_at, headers, raw_body) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING');
    const insertAttempt = db.prepare('INSERT INTO attempts (delivery_seq, delivery_id, received_at, outcome, status) VALUES (?, ?, ?, ?, 200)');
    commit = db.transaction((rows: Row[]) => {
      for (const [, id, body, headers, receivedAt] of rows) {
        const inserted = insertDelivery.run(id, receivedAt, headers, body);
        insertAttempt.run(inserted.changes === 1 ? inserted.lastInsertRowid : null, id, receivedAt, inserted.changes === 1 ? 'accepted' : 'duplicate');
      }
    });
  } else {
    db.exec('CREATE TABLE deliveries (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, raw_body BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO deliveries (id, raw_body) VALUES (?, ?)');
    commit = db.transaction((rows: Row[]) => {
      for (const [, id, body] of rows) insert.run(id, body);
    });
  }
  port.on('message', (rows: Row[]) => {
    for (let more = receiveMessageOnPort(port); more; more = receiveMessageOnPort(port)) rows = rows.concat(more.message as Row[]);
    commit(rows);
    port.postMessage(rows.map((r) => r[0]));
  });
  // Checkpoints off the commit path, as hookrelay does.
  db.pragma('wal_autocheckpoint = 0');
  const checkpointer = new Database(path);
  setInterval(() => checkpointer.pragma('wal_checkpoint(PASSIVE)'), 1000);
  port.postMessage('ready');
}
