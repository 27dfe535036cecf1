/**
 * Label values for metrics. Every value is bounded: a label made from sender input (a reason,
 * a fault rule's text) would let any sender grow the series without limit.
 */
import type { AttemptRecord } from '../store/store.js';

/** The reason label: an error code as is (`SIGNATURE_MISMATCH`), `fault` for a fault rule, `none`, else `other`. */
export function reasonLabel(reason: string | null): string {
  if (reason === null || reason === '') return 'none';
  if (reason.startsWith('fault:')) return 'fault';
  return /^[A-Z][A-Z0-9_]{0,47}$/.test(reason) ? reason : 'other';
}

/** How a fault answered: its status (`503`), `no_response` (hang, reset, close), or `pass` (a delay or accept that let it through). */
export function faultAnswerLabel(attempt: AttemptRecord): string | null {
  if (attempt.outcome === 'faulted') return attempt.status === null ? 'no_response' : statusLabel(attempt.status);
  if (attempt.reason?.startsWith('fault:')) return 'pass';
  return null;
}

/** An HTTP status as a label, or its class when outside 100–599. */
export function statusLabel(status: number | null): string {
  if (status === null) return 'none';
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other';
}

/** `2xx`, `4xx`, … or `none` when there was no answer. */
export function statusClass(status: number | null): string {
  if (status === null || !Number.isInteger(status) || status < 100 || status > 599) return 'none';
  return `${Math.floor(status / 100)}xx`;
}
