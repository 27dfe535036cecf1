/** The webhooks table: rows in and out as StoredWebhook. Secrets stay sealed here. */
import type Database from 'better-sqlite3';
import type { FailureHandling, RetryPolicy } from '../core/retry-policy/policy.js';
import type { WebhookState, WebhookStatus } from '../core/retry-policy/webhook-state.js';

export interface SealedHeader {
  name: string;
  sealed: string;
  hint: string;
}

export interface StoredWebhook {
  seq: number;
  id: string;
  organizationId: string;
  name: string;
  triggers: string[];
  endpoint: string;
  status: WebhookStatus;
  apiVersion: string;
  customHeaders: SealedHeader[];
  signingEnabled: boolean;
  secretSealed: string | null;
  secretHint: string | null;
  retryPolicy: RetryPolicy;
  failureHandling: FailureHandling;
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  seq: number;
  id: string;
  org_id: string;
  name: string;
  triggers: string;
  endpoint: string;
  status: WebhookStatus;
  api_version: string;
  custom_headers: string;
  signing_enabled: number;
  secret_sealed: string | null;
  secret_hint: string | null;
  retry_policy: string;
  failure_handling: string;
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookFields = Omit<StoredWebhook, 'seq'>;

export interface WebhookStore {
  insert(webhook: WebhookFields): StoredWebhook;
  /** The webhook, only when it belongs to `organizationId` (spec 1.1: another tenant's is absent). */
  get(id: string, organizationId?: string): StoredWebhook | null;
  update(webhook: StoredWebhook): void;
  /** The delivery-moved fields only (spec 3): status and bookkeeping. */
  saveState(state: WebhookState): void;
  delete(id: string): void;
  count(organizationId: string): number;
  page(organizationId: string, offset: number, limit: number): StoredWebhook[];
  /** Active webhooks of an organization subscribed to `trigger`. */
  subscribers(organizationId: string, trigger: string): StoredWebhook[];
}

export function createWebhookStore(db: Database.Database): WebhookStore {
  const insert = db.prepare(`INSERT INTO webhooks (id, org_id, name, triggers, endpoint, status, api_version, custom_headers, signing_enabled, secret_sealed, secret_hint,
    retry_policy, failure_handling, consecutive_failures, last_success_at, last_failure_at, disabled_reason, created_at, updated_at)
    VALUES (@id, @org_id, @name, @triggers, @endpoint, @status, @api_version, @custom_headers, @signing_enabled, @secret_sealed, @secret_hint,
    @retry_policy, @failure_handling, @consecutive_failures, @last_success_at, @last_failure_at, @disabled_reason, @created_at, @updated_at)`);
  const update = db.prepare(`UPDATE webhooks SET name = @name, triggers = @triggers, endpoint = @endpoint, status = @status, custom_headers = @custom_headers,
    retry_policy = @retry_policy, failure_handling = @failure_handling, consecutive_failures = @consecutive_failures, last_success_at = @last_success_at,
    last_failure_at = @last_failure_at, disabled_reason = @disabled_reason, updated_at = @updated_at WHERE id = @id`);
  const saveState = db.prepare(`UPDATE webhooks SET status = ?, consecutive_failures = ?, last_success_at = ?, last_failure_at = ?, disabled_reason = ? WHERE id = ?`);
  const get = db.prepare<[string], Row>('SELECT * FROM webhooks WHERE id = ?');
  const del = db.prepare('DELETE FROM webhooks WHERE id = ?');
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM webhooks WHERE org_id = ?');
  const page = db.prepare<[string, number, number], Row>('SELECT * FROM webhooks WHERE org_id = ? ORDER BY seq LIMIT ? OFFSET ?');
  const active = db.prepare<[string], Row>(`SELECT * FROM webhooks WHERE org_id = ? AND status = 'active' ORDER BY seq`);
  return {
    insert(webhook) {
      const info = insert.run(toRow({ ...webhook, seq: 0 }));
      return { ...webhook, seq: Number(info.lastInsertRowid) };
    },
    get(id, organizationId) {
      const row = get.get(id);
      if (row === undefined || (organizationId !== undefined && row.org_id !== organizationId)) return null;
      return fromRow(row);
    },
    update(webhook) {
      const row = toRow(webhook);
      update.run(row);
    },
    saveState(s) {
      saveState.run(s.status, s.consecutiveFailures, s.lastSuccessAt, s.lastFailureAt, s.disabledReason, s.id);
    },
    delete(id) {
      del.run(id);
    },
    count(organizationId) {
      return count.get(organizationId)!.n;
    },
    page(organizationId, offset, limit) {
      return page.all(organizationId, limit, offset).map(fromRow);
    },
    subscribers(organizationId, trigger) {
      return active.all(organizationId).map(fromRow).filter((w) => w.triggers.includes(trigger));
    },
  };
}

/** The fields of spec 3's state table, as the core's transitions take them. */
export function stateOf(w: StoredWebhook): WebhookState {
  return { id: w.id, status: w.status, consecutiveFailures: w.consecutiveFailures, lastSuccessAt: w.lastSuccessAt, lastFailureAt: w.lastFailureAt, disabledReason: w.disabledReason };
}

function toRow(w: StoredWebhook): Omit<Row, 'seq'> {
  return {
    id: w.id,
    org_id: w.organizationId,
    name: w.name,
    triggers: JSON.stringify(w.triggers),
    endpoint: w.endpoint,
    status: w.status,
    api_version: w.apiVersion,
    custom_headers: JSON.stringify(w.customHeaders),
    signing_enabled: w.signingEnabled ? 1 : 0,
    secret_sealed: w.secretSealed,
    secret_hint: w.secretHint,
    retry_policy: JSON.stringify(w.retryPolicy),
    failure_handling: JSON.stringify(w.failureHandling),
    consecutive_failures: w.consecutiveFailures,
    last_success_at: w.lastSuccessAt,
    last_failure_at: w.lastFailureAt,
    disabled_reason: w.disabledReason,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

function fromRow(r: Row): StoredWebhook {
  return {
    seq: r.seq,
    id: r.id,
    organizationId: r.org_id,
    name: r.name,
    triggers: JSON.parse(r.triggers) as string[],
    endpoint: r.endpoint,
    status: r.status,
    apiVersion: r.api_version,
    customHeaders: JSON.parse(r.custom_headers) as SealedHeader[],
    signingEnabled: r.signing_enabled === 1,
    secretSealed: r.secret_sealed,
    secretHint: r.secret_hint,
    retryPolicy: JSON.parse(r.retry_policy) as RetryPolicy,
    failureHandling: JSON.parse(r.failure_handling) as FailureHandling,
    consecutiveFailures: r.consecutive_failures,
    lastSuccessAt: r.last_success_at,
    lastFailureAt: r.last_failure_at,
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
