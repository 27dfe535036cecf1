/** The one-line rows of a stored delivery and an attempt, and a delivery as JSON: shared by `events list` and `events show`. */
import { decodeBodyLeniently } from '../core/envelope.js';
import { printable } from '../reporter/printable.js';
import type { AttemptRecord, StoredDelivery } from '../store/store.js';
import { time } from './events-store-access.js';

export function deliveryRow(d: StoredDelivery): string {
  const dup = d.duplicateCount > 0 ? `duplicate ×${d.duplicateCount}` : 'accepted';
  return [time(d.receivedAt), dup.padEnd(14), printable(d.trigger, 40).padEnd(34), printable(d.id, 64), d.signature === 'skipped' ? 'UNVERIFIED' : ''].join('  ').trimEnd();
}

export function attemptRow(a: AttemptRecord): string {
  return [time(a.receivedAt), `${a.status ?? '---'} ${a.outcome}`.padEnd(14), printable(a.trigger ?? '(no trigger)', 40).padEnd(34), printable(a.deliveryId ?? '(no id)', 64), printable(a.reason ?? '', 60)].join('  ').trimEnd();
}

export const asJson = (d: StoredDelivery) => {
  const { rawBody, ...rest } = d;
  return { ...rest, bodyBytes: rawBody.length, body: decodeBodyLeniently(Buffer.from(rawBody)) };
};
