/**
 * The resources of spec 2.11 as this client reads them: only the fields it knows (spec 9.2:
 * unknown fields are ignored), each checked, since an API answer is hostile input too. A
 * resource without its required fields is a BAD_RESPONSE naming the field, never a crash later.
 */
import { excerpt, ServiceError } from './service-error.js';

export type WebhookStatus = 'active' | 'disabled' | 'suspended';
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

export interface Webhook {
  id: string;
  name: string;
  triggers: string[];
  endpoint: string;
  status: string;
  signing: { enabled: boolean; secretHint: string | null };
  customHeaders: Array<{ name: string; valueHint: string | null }>;
  consecutiveFailures: number | null;
  disabledReason: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  createdAt: string | null;
}

export interface Attempt {
  attemptNumber: number;
  startedAt: string | null;
  finishedAt: string | null;
  responseStatus: number | null;
  failureClass: string | null;
  errorMessage: string | null;
  durationMs: number | null;
}

export interface Delivery {
  id: string;
  webhookId: string | null;
  trigger: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastFailureClass: string | null;
  responseStatus: number | null;
  attempts: Attempt[];
  isReplay: boolean;
  replayOfDeliveryId: string | null;
  createdAt: string | null;
}

export interface TriggerEntry {
  trigger: string;
  description: string;
  tier: string;
  status: string | null;
  entitled: boolean | null;
}

const bad = (what: string, message: string): never => {
  throw new ServiceError('BAD_RESPONSE', `the service's ${what} is not what spec 2.11 describes: ${message}`);
};

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad(what, `expected an object, got ${kind(value)}`);
  return value as Record<string, unknown>;
}

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function str(o: Record<string, unknown>, field: string, what: string): string {
  const v = o[field];
  if (typeof v !== 'string' || v.length === 0) return bad(what, `"${field}" must be a non-empty string, got ${kind(v)}`);
  return v;
}
const optStr = (o: Record<string, unknown>, field: string): string | null => (typeof o[field] === 'string' ? (o[field] as string) : null);
const optInt = (o: Record<string, unknown>, field: string): number | null => (Number.isSafeInteger(o[field]) ? (o[field] as number) : null);

export function readWebhook(value: unknown): Webhook {
  const o = objectOf(value, 'webhook');
  const signing = o.signing !== null && typeof o.signing === 'object' ? (o.signing as Record<string, unknown>) : {};
  const triggers = Array.isArray(o.triggers) ? o.triggers.filter((t): t is string => typeof t === 'string') : [];
  const headers = Array.isArray(o.customHeaders) ? o.customHeaders : [];
  return {
    id: str(o, 'id', 'webhook'),
    name: typeof o.name === 'string' ? o.name : '',
    triggers,
    endpoint: typeof o.endpoint === 'string' ? o.endpoint : '',
    status: str(o, 'status', `webhook ${excerpt(String(o.id), 64)}`),
    signing: { enabled: signing.enabled === true, secretHint: optStr(signing, 'secretHint') },
    customHeaders: headers
      .filter((h): h is Record<string, unknown> => h !== null && typeof h === 'object' && typeof (h as Record<string, unknown>).name === 'string')
      .map((h) => ({ name: h.name as string, valueHint: optStr(h, 'valueHint') })),
    consecutiveFailures: optInt(o, 'consecutiveFailures'),
    disabledReason: optStr(o, 'disabledReason'),
    lastSuccessAt: optStr(o, 'lastSuccessAt'),
    lastFailureAt: optStr(o, 'lastFailureAt'),
    createdAt: optStr(o, 'createdAt'),
  };
}

export function readAttempt(value: unknown, where: string): Attempt {
  const o = objectOf(value, where);
  const n = o.attemptNumber;
  if (!Number.isSafeInteger(n) || (n as number) < 1) bad(where, `"attemptNumber" must be a positive integer, got ${excerpt(JSON.stringify(n) ?? 'nothing', 40)}`);
  return {
    attemptNumber: n as number,
    startedAt: optStr(o, 'startedAt'),
    finishedAt: optStr(o, 'finishedAt'),
    responseStatus: optInt(o, 'responseStatus'),
    failureClass: optStr(o, 'failureClass'),
    errorMessage: optStr(o, 'errorMessage'),
    durationMs: optInt(o, 'durationMs'),
  };
}

export function readDelivery(value: unknown): Delivery {
  const o = objectOf(value, 'delivery');
  const id = str(o, 'id', 'delivery');
  const where = `delivery ${excerpt(id, 64)}`;
  const attempts = Array.isArray(o.attempts) ? o.attempts.map((a, i) => readAttempt(a, `${where} attempt ${i + 1}`)) : [];
  return {
    id,
    webhookId: optStr(o, 'webhookId'),
    trigger: typeof o.trigger === 'string' ? o.trigger : '',
    status: str(o, 'status', where),
    attemptCount: optInt(o, 'attemptCount') ?? attempts.length,
    nextAttemptAt: optStr(o, 'nextAttemptAt'),
    lastFailureClass: optStr(o, 'lastFailureClass'),
    responseStatus: optInt(o, 'responseStatus'),
    attempts,
    isReplay: o.isReplay === true,
    replayOfDeliveryId: optStr(o, 'replayOfDeliveryId'),
    createdAt: optStr(o, 'createdAt'),
  };
}

export function readTrigger(value: unknown): TriggerEntry {
  const o = objectOf(value, 'trigger catalogue entry');
  return {
    trigger: str(o, 'trigger', 'trigger catalogue entry'),
    description: typeof o.description === 'string' ? o.description : '',
    tier: typeof o.tier === 'string' ? o.tier : '',
    status: optStr(o, 'status'),
    entitled: typeof o.entitled === 'boolean' ? o.entitled : null,
  };
}

/**
 * A record whose shape this client does not read field by field (spec 2.10): an object whose
 * `required` fields are non-empty strings, kept whole otherwise, so a missing id is a BAD_RESPONSE here.
 */
export function readRecord<T>(value: unknown, what: string, required: readonly string[]): T {
  const o = objectOf(value, what);
  for (const field of required) str(o, field, what);
  return o as T;
}

export function listOf<T>(value: unknown, what: string, read: (v: unknown) => T): T[] {
  if (!Array.isArray(value)) return bad(what, `"data" must be an array, got ${kind(value)}`);
  return value.map(read);
}
