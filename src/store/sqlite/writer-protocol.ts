/** Messages between the store (main thread) and the writer thread that owns the database. */
import type { AttemptInput, NewDelivery } from '../store.js';

export type WriteRequest =
  | { kind: 'accept'; ticket: number; delivery: NewDelivery; attempt: AttemptInput }
  | { kind: 'attempt'; ticket: number; attempt: AttemptInput };

export type WriteResult =
  | { ticket: number; ok: true; outcome: 'accepted' | 'duplicate' | 'recorded'; deliverySeq: number }
  | { ticket: number; ok: false; error: string };

export type ToWriter = { type: 'batch'; requests: WriteRequest[] } | { type: 'close' };

export type FromWriter =
  | { type: 'ready' }
  | { type: 'fatal'; error: string }
  | { type: 'results'; results: WriteResult[] }
  | { type: 'closed' };

export interface WriterData {
  path: string;
  port: MessagePort;
  /** Test knob: sleep this long before each commit (a slow disk). */
  commitDelayMs: number;
}
