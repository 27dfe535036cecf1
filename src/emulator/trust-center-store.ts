/**
 * The Trust Center and segregation-of-duties records (spec 2.10, 4.4) in the emulator's SQLite
 * file: table tc_records, one JSON record per row, keyed by id and organization.
 */
import type Database from 'better-sqlite3';
import type { AccessEventRecord, AccessRequestRecord, VisitorTokenRecord } from '../core/trust-center-records.js';

export type Kind = 'resource' | 'access_request' | 'visitor_token' | 'access_event' | 'sod_violation';

export interface Resource {
  id: string;
  organizationId: string;
  title: string;
  fileName: string;
  contentHash: string;
  isPublished: boolean;
  isGated: boolean;
  isRestricted: boolean;
  ndaRequired: boolean;
  downloadAllowed: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AccessRequest extends AccessRequestRecord {
  /** Emulator-internal: the documents the approval granted (not part of the API's record). */
  grantedResourceIds?: string[];
  ndaSignedAt?: string | null;
}

export type VisitorToken = VisitorTokenRecord;

export type AccessEvent = AccessEventRecord;

export interface SodViolation {
  id: string;
  organizationId: string;
  ruleId: string;
  subjectType: string;
  subjectId: string;
  status: 'open' | 'accepted' | 'resolved';
  evidence: { enforcementAtDetection: string };
  detectedAt: string;
  closedAt: string | null;
}

export interface TcRow<T> {
  seq: number;
  record: T;
}

export interface TrustCenterStore {
  insert(kind: Kind, organizationId: string, id: string, record: object): number;
  update(id: string, record: object): void;
  get<T>(kind: Kind, organizationId: string, id: string): T | null;
  list<T>(kind: Kind, organizationId: string): Array<TcRow<T>>;
}

export function createTrustCenterStore(db: Database.Database): TrustCenterStore {
  const insert = db.prepare('INSERT INTO tc_records (kind, id, org_id, record) VALUES (?, ?, ?, ?)');
  const update = db.prepare('UPDATE tc_records SET record = ? WHERE id = ?');
  const get = db.prepare('SELECT record FROM tc_records WHERE kind = ? AND org_id = ? AND id = ?');
  const list = db.prepare('SELECT seq, record FROM tc_records WHERE kind = ? AND org_id = ? ORDER BY seq DESC');
  return {
    insert: (kind, org, id, record) => Number(insert.run(kind, id, org, JSON.stringify(record)).lastInsertRowid),
    update: (id, record) => void update.run(JSON.stringify(record), id),
    get: <T>(kind: Kind, org: string, id: string) => {
      const row = get.get(kind, org, id) as { record: string } | undefined;
      return row === undefined ? null : (JSON.parse(row.record) as T);
    },
    list: <T>(kind: Kind, org: string) => (list.all(kind, org) as Array<{ seq: number; record: string }>).map((r) => ({ seq: r.seq, record: JSON.parse(r.record) as T })),
  };
}

