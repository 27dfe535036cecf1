/**
 * Fills a PostgreSQL store with N old deliveries in bulk (one `generate_series` statement a
 * table): each with its accepted attempt, a relay job done and the one relay try that did it, as a
 * forwarding store holds them once they are handed on. Received from `oldestAt` on, 1 ms apart.
 * The schema must exist (migrated by createPostgresStore). VACUUM ANALYZE after, as autovacuum
 * would have: the planner sees the real sizes, and the walk reads an all-visible table.
 */
import pg from 'pg';

const HEADERS = "ARRAY['Host', '127.0.0.1', 'Content-Type', 'application/json', 'User-Agent', 'Service-Webhook/1', 'X-Service-Event', 'trustcenter.resource_downloaded']";

export async function seedPostgresDeliveries(url: string, count: number, oldestAt: number): Promise<{ ms: number; rows: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off'); // seeding only
    const { rows } = await client.query<{ from: string }>('SELECT coalesce(max(seq), 0) AS from FROM deliveries');
    const from = Number(rows[0]!.from);
    await client.query(
      `INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body, duplicate_count, last_attempt_at)
       SELECT u.id, 'trustcenter.resource_downloaded', '2026-06-01', true, $1::bigint + g, 'valid', 0, ($1::bigint + g) / 1000, ${HEADERS},
         convert_to('{"id":"' || u.id || '","type":"trustcenter.resource_downloaded","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"o","data":{"note":"' || repeat('x', 330) || '"}}', 'UTF8'),
         0, $1::bigint + g
       FROM generate_series(1, $2::int) g, LATERAL (SELECT gen_random_uuid()::text || g AS id) u`,
      [oldestAt, count],
    );
    await client.query(
      `INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status)
       SELECT seq, id, trigger, received_at, received_at + 1, 1, signature_t, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', octet_length(raw_body), 'accepted', 200
       FROM deliveries WHERE seq > $1 ORDER BY seq`,
      [from],
    );
    await client.query(
      `INSERT INTO relay_jobs (delivery_seq, state, tries, next_at, updated_at, last_status, target)
       SELECT seq, 'done', 1, received_at, received_at + 5, 204, 'http://127.0.0.1:3000/hook' FROM deliveries WHERE seq > $1`,
      [from],
    );
    await client.query(
      `INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try, answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body)
       SELECT seq, received_at + 2, received_at + 5, 204, NULL, false, 'http://127.0.0.1:3000/hook', 1, 1, 0, true, '[["content-length","0"]]', ''::bytea
       FROM deliveries WHERE seq > $1 ORDER BY seq`,
      [from],
    );
    await client.query('VACUUM ANALYZE deliveries, attempts, relay_jobs, relay_attempts');
  } finally {
    await client.end();
  }
  return { ms: performance.now() - started, rows: count * 4 };
}
