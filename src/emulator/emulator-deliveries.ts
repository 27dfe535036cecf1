/**
 * The deliveries table: each Delivery record (spec 2.11) with its exact body bytes, and `due_ms`,
 * the time its next attempt is due while it waits (null while an attempt is open or once closed).
 */
import type Database from 'better-sqlite3';
import type { Delivery } from '../core/retry-policy/delivery-state.js';

export interface StoredDelivery {
  seq: number;
  delivery: Delivery;
  body: Buffer;
}

export interface EmulatorDeliveries {
  insert(delivery: Delivery, body: Buffer, dueMs: number): StoredDelivery;
  /** Replaces the record; `dueMs` null means no attempt is due (one is open, or it is closed). */
  save(delivery: Delivery, dueMs: number | null): void;
  get(id: string): StoredDelivery | null;
  /** Newest first, below `beforeSeq` when given; `limit` rows at most. */
  listForWebhook(webhookId: string, beforeSeq: number | null, limit: number): StoredDelivery[];
  /** Waiting (due) deliveries of one webhook, for closing them as webhook_inactive. */
  waitingOf(webhookId: string): StoredDelivery[];
  /** Deliveries due at or before `nowMs`, oldest due first. */
  due(nowMs: number, limit: number): StoredDelivery[];
  /** The earliest due time, or null. */
  nextDueMs(): number | null;
  /** Deliveries left with an attempt open (the process stopped during it). */
  openAttempts(): StoredDelivery[];
  deleteOfWebhook(webhookId: string): void;
}

interface Row {
  seq: number;
  record: string;
  body: Buffer;
}

export function createEmulatorDeliveries(db: Database.Database): EmulatorDeliveries {
  const insert = db.prepare('INSERT INTO deliveries (id, webhook_id, status, due_ms, record, body) VALUES (?, ?, ?, ?, ?, ?)');
  const save = db.prepare('UPDATE deliveries SET status = ?, due_ms = ?, record = ? WHERE id = ?');
  const get = db.prepare<[string], Row>('SELECT seq, record, body FROM deliveries WHERE id = ?');
  const listAll = db.prepare<[string, number], Row>('SELECT seq, record, body FROM deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?');
  const listBefore = db.prepare<[string, number, number], Row>('SELECT seq, record, body FROM deliveries WHERE webhook_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?');
  const waiting = db.prepare<[string], Row>('SELECT seq, record, body FROM deliveries WHERE webhook_id = ? AND due_ms IS NOT NULL ORDER BY seq');
  const due = db.prepare<[number, number], Row>('SELECT seq, record, body FROM deliveries WHERE due_ms IS NOT NULL AND due_ms <= ? ORDER BY due_ms, seq LIMIT ?');
  const nextDue = db.prepare<[], { t: number | null }>('SELECT min(due_ms) AS t FROM deliveries WHERE due_ms IS NOT NULL');
  const open = db.prepare<[], Row>(`SELECT seq, record, body FROM deliveries WHERE due_ms IS NULL AND status IN ('pending', 'retrying') ORDER BY seq`);
  const del = db.prepare('DELETE FROM deliveries WHERE webhook_id = ?');
  const read = (r: Row): StoredDelivery => ({ seq: r.seq, delivery: JSON.parse(r.record) as Delivery, body: r.body });
  return {
    insert(delivery, body, dueMs) {
      const info = insert.run(delivery.id, delivery.webhookId, delivery.status, dueMs, JSON.stringify(delivery), body);
      return { seq: Number(info.lastInsertRowid), delivery, body };
    },
    save(delivery, dueMs) {
      save.run(delivery.status, dueMs, JSON.stringify(delivery), delivery.id);
    },
    get(id) {
      const row = get.get(id);
      return row === undefined ? null : read(row);
    },
    listForWebhook(webhookId, beforeSeq, limit) {
      return (beforeSeq === null ? listAll.all(webhookId, limit) : listBefore.all(webhookId, beforeSeq, limit)).map(read);
    },
    waitingOf(webhookId) {
      return waiting.all(webhookId).map(read);
    },
    due(nowMs, limit) {
      return due.all(nowMs, limit).map(read);
    },
    nextDueMs() {
      return nextDue.get()?.t ?? null;
    },
    openAttempts() {
      return open.all().map(read);
    },
    deleteOfWebhook(webhookId) {
      del.run(webhookId);
    },
  };
}
