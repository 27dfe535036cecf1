/**
 * The PostgreSQL floor (scenario 7 of bench/run.ts): the least a durable, deduplicating receiver of
 * this spec writes to PostgreSQL with `synchronous_commit=on`, as the schema floor
 * (floor-server.ts `schema`) is on SQLite. The bare route, the signature check and JSON.parse as
 * there; then the requests of one event-loop turn (or those queued while both connections were
 * committing) are written as ONE statement on one of two connections, which is one transaction:
 * the deliveries (the id under its unique index, the received time, the header lines, the raw
 * bytes) inserted from `unnest(…)` with `ON CONFLICT (id) DO NOTHING`, and one attempt row per
 * request, its outcome accepted or duplicate by whether its delivery was inserted. Each request is
 * answered after its group's COMMIT. No log line, no event hub, no NOTIFY, no outbox, no metrics.
 *
 *   node bench/.build/bench/pg-floor-server.js <port> <postgres://… of a database of its own>
 *
 * The bodies travel as one binary parameter (the group's bodies end to end) cut by offset on the
 * server: a `bytea[]` would go as hex text both ways. Two copies of one id in one group are both
 * recorded as accepted (the bench sends a fresh id on every request; hookrelay records the second
 * as a duplicate).
 */
import Fastify from 'fastify';
import pg from 'pg';
import { verify } from '../src/core/signature/verify.js';

const SECRET = 'whsec_bench_secret_value_0123456789';
const CONNECTIONS = 2;

const TABLES = `
  DROP TABLE IF EXISTS floor_attempts, floor_deliveries;
  CREATE TABLE floor_deliveries (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id TEXT NOT NULL UNIQUE, received_at BIGINT NOT NULL, headers TEXT NOT NULL, raw_body BYTEA NOT NULL);
  CREATE TABLE floor_attempts (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, delivery_seq BIGINT, delivery_id TEXT, received_at BIGINT NOT NULL, outcome TEXT NOT NULL, status INTEGER NOT NULL)`;

const GROUP = `WITH u AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::integer[], $5::integer[]) WITH ORDINALITY AS u(id, received_at, headers, boff, blen, n)
  ), d AS (
    INSERT INTO floor_deliveries (id, received_at, headers, raw_body)
    SELECT u.id, u.received_at, u.headers, substring($6::bytea FROM u.boff FOR u.blen) FROM u ORDER BY u.n
    ON CONFLICT (id) DO NOTHING RETURNING seq, id
  )
  INSERT INTO floor_attempts (delivery_seq, delivery_id, received_at, outcome, status)
  SELECT d.seq, u.id, u.received_at, CASE WHEN d.seq IS NULL THEN 'duplicate' ELSE 'accepted' END, 200 FROM u LEFT JOIN d ON d.id = u.id ORDER BY u.n`;

interface Waiting {
  id: string;
  receivedAt: number;
  headers: string;
  body: Buffer;
  done: (err: Error | null) => void;
}

const [, , portArg, url] = process.argv;
if (!url) throw new Error('usage: pg-floor-server.js <port> <postgres://…>');

const clients: pg.Client[] = [];
for (let i = 0; i < CONNECTIONS; i++) {
  const client = new pg.Client({ connectionString: url, application_name: 'hookrelay-pg-floor' });
  await client.connect();
  clients.push(client);
}
await clients[0]!.query(TABLES);
const { rows } = await clients[0]!.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
if (rows[0]?.synchronous_commit !== 'on') throw new Error(`synchronous_commit is ${rows[0]?.synchronous_commit}, not on`);

const idle = [...clients];
let queue: Waiting[] = [];
let scheduled = false;

function enqueue(w: Waiting): void {
  queue.push(w);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

/** Everything queued goes out as one group on a free connection; with none free, it waits for one. */
function flush(): void {
  scheduled = false;
  if (queue.length === 0 || idle.length === 0) return;
  const client = idle.pop()!;
  const group = queue;
  queue = [];
  void commit(client, group).finally(() => {
    idle.push(client);
    flush();
  });
}

async function commit(client: pg.Client, group: Waiting[]): Promise<void> {
  const ids: string[] = [];
  const at: number[] = [];
  const headers: string[] = [];
  const offsets: number[] = [];
  const lengths: number[] = [];
  const bodies: Buffer[] = [];
  let offset = 1;
  for (const w of group) {
    ids.push(w.id);
    at.push(w.receivedAt);
    headers.push(w.headers);
    offsets.push(offset);
    lengths.push(w.body.length);
    bodies.push(w.body);
    offset += w.body.length;
  }
  let failed: Error | null = null;
  try {
    await client.query({ name: 'floor_group', text: GROUP, values: [ids, at, headers, offsets, lengths, Buffer.concat(bodies)] });
  } catch (err) {
    failed = err as Error;
  }
  for (const w of group) w.done(failed);
}

/** Header lines `name: value\n`, as the schema floor keeps them. */
function headerLines(raw: string[]): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) out += `${raw[i]}: ${raw[i + 1]}\n`;
  return out;
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/webhooks', async (request, reply) => {
  const body = request.body as Buffer;
  const verdict = verify(body, request.headers['x-service-signature'], { secrets: [SECRET], nowSeconds: Date.now() / 1000 });
  if (!verdict.ok) return reply.code(400).send('{"success":false}');
  const envelope = JSON.parse(body.toString('utf8')) as { id: string };
  const failed = await new Promise<Error | null>((done) => enqueue({ id: envelope.id, receivedAt: Date.now(), headers: headerLines(request.raw.rawHeaders), body, done }));
  if (failed) return reply.code(503).send('{"success":false}');
  return reply.code(200).send('{"success":true}');
});
app.get('/healthz', async (_request, reply) => reply.code(200).send('{"success":true}'));
await app.listen({ port: Number(portArg ?? 0), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void Promise.allSettled(clients.map((c) => c.end())).then(() => process.exit(0));
});
