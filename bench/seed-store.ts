/** Fills a database with N stored deliveries (and their attempts) the way the writer stores them. */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { deliveryKey } from '../src/store/delivery-key.js';
import { openDatabase } from '../src/store/sqlite/open-database.js';
import { migrate } from '../src/store/sqlite/schema.js';
import { SCHEMA_FLOOR_TABLES } from './schema-floor-ddl.js';
import { createProgressLine } from '../src/reporter/progress-line.js';

export function seedDeliveries(path: string, count: number): void {
  const db = openDatabase(path);
  migrate(db);
  db.pragma('synchronous = OFF'); // seeding only: the measured run reopens with FULL
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id_key, id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body, last_attempt_at)
     VALUES (?, ?, 'trustcenter.resource_downloaded', '2026-06-01', 1, ?, 'valid', 0, ?, ?, ?, ?)`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status)
     VALUES (?, ?, 'trustcenter.resource_downloaded', ?, ?, 1, ?, ?, ?, 'accepted', 200)`,
  );
  const pad = 'x'.repeat(330);
  const headers = 'Host: 127.0.0.1\nContent-Type: application/json\nUser-Agent: Service-Webhook/1\nX-Service-Event: trustcenter.resource_downloaded\n';
  const batch = db.transaction((n: number, base: number) => {
    for (let i = 0; i < n; i++) {
      const id = randomUUID();
      const at = base + i;
      const body = Buffer.from(`{"id":"${id}","type":"trustcenter.resource_downloaded","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"o","data":{"note":"${pad}"}}`);
      const seq = insertDelivery.run(deliveryKey(id), id, at, Math.floor(at / 1000), headers, body, at).lastInsertRowid;
      insertAttempt.run(seq, id, at, at, Math.floor(at / 1000), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', body.length);
    }
  });
  const start = Date.now() - count;
  const progress = createProgressLine({ label: `seeding ${path.split('/').at(-1)} (deliveries)`, total: count, stream: process.stderr });
  for (let done = 0; done < count; done += 50_000) {
    batch(Math.min(50_000, count - done), start + done);
    progress.update(Math.min(count, done + 50_000), Math.min(count, done + 50_000));
  }
  progress.end();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** The same N deliveries (ids, headers, bodies) in the schema floor's tables, for the floor's own 1M ratio. */
export function seedSchemaFloor(path: string, count: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // seeding only: the floor reopens with FULL
  db.exec(SCHEMA_FLOOR_TABLES);
  const insertDelivery = db.prepare('INSERT INTO deliveries (id, received_at, headers, raw_body) VALUES (?, ?, ?, ?)');
  const insertAttempt = db.prepare("INSERT INTO attempts (delivery_seq, delivery_id, received_at, outcome, status) VALUES (?, ?, ?, 'accepted', 200)");
  const pad = 'x'.repeat(330);
  const headers = 'Host: 127.0.0.1\nContent-Type: application/json\nUser-Agent: Service-Webhook/1\nX-Service-Event: trustcenter.resource_downloaded\n';
  const batch = db.transaction((n: number, base: number) => {
    for (let i = 0; i < n; i++) {
      const id = randomUUID();
      const body = Buffer.from(`{"id":"${id}","type":"trustcenter.resource_downloaded","apiVersion":"2026-06-01","createdAt":"2026-11-21T10:00:00Z","organizationId":"o","data":{"note":"${pad}"}}`);
      insertAttempt.run(insertDelivery.run(id, base + i, headers, body).lastInsertRowid, id, base + i);
    }
  });
  const start = Date.now() - count;
  const progress = createProgressLine({ label: `seeding ${path.split('/').at(-1)} (deliveries)`, total: count, stream: process.stderr });
  for (let done = 0; done < count; done += 50_000) {
    batch(Math.min(50_000, count - done), start + done);
    progress.update(Math.min(count, done + 50_000), Math.min(count, done + 50_000));
  }
  progress.end();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
