/**
 * Builds synthetic attempt records for judge tests: a fixed clock, one delivery at a time, each
 * attempt placed by its gap after the previous attempt's end (the quantity the judge measures).
 */
import { createHash } from 'node:crypto';
import type { AttemptOutcome, AttemptRecord } from '../../../src/store/store.js';
import { resolveCheckOptions, type CheckOptions, type CheckOptionsInput } from '../../../src/core/conformance/options.js';

/** 2026-06-01T10:00:00.000Z */
export const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);

export const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What hookrelay answered: a status, or no response of a kind. */
export type Answer = number | 'hang' | 'reset' | 'close';

export interface AttemptSpec {
  answer: Answer;
  /** Gap (ms) from the previous attempt's end; ignored for the first attempt. */
  gapMs?: number;
  retryAfter?: string;
  /** Overrides: how long hookrelay's side of the attempt lasted (default 20 ms; hang 10 000 ms). */
  durationMs?: number;
  header?: number | null;
  /** Signature `t`; default floor(arrival / 1000); null = unsigned. */
  t?: number | null;
  body?: string;
  id?: string | null;
  trigger?: string | null;
  reason?: string | null;
  outcome?: AttemptOutcome;
  /** Redirect hops hookrelay answered 307 to, each followed by the sender, before this answer. */
  hops?: number;
}

export interface DeliveryBuilder {
  /** Appends an attempt; returns the builder. */
  attempt(spec: AttemptSpec): DeliveryBuilder;
  /** The records so far (seq assigned later by `records`). */
  readonly list: AttemptRecord[];
  /** End of the last attempt, ms. */
  readonly end: number;
}

export function delivery(opts: { id?: string; trigger?: string; start?: number; body?: string } = {}): DeliveryBuilder {
  const id = opts.id ?? 'evt_1';
  const trigger = opts.trigger ?? 'trustcenter.access_requested';
  const body = opts.body ?? JSON.stringify({ id, type: trigger, data: {} });
  const list: AttemptRecord[] = [];
  let end = opts.start ?? T0;
  let count = 0;
  const builder: DeliveryBuilder = {
    list,
    get end() {
      return end;
    },
    attempt(spec) {
      count += 1;
      let at = count === 1 ? end : end + (spec.gapMs ?? 0);
      const header = spec.header === undefined ? count : spec.header;
      const t = spec.t === undefined ? Math.floor(at / 1000) : spec.t;
      const b = spec.body ?? body;
      const base = {
        seq: 0,
        deliveryId: spec.id === undefined ? id : spec.id,
        trigger: spec.trigger === undefined ? trigger : spec.trigger,
        attemptHeader: header,
        signatureTimestamp: t,
        bodySha256: sha(b),
        bodyBytes: Buffer.byteLength(b),
      };
      for (let h = 0; h < (spec.hops ?? 0); h += 1) {
        list.push({ ...base, receivedAt: at, finishedAt: at + 2, outcome: 'faulted', status: 307, reason: `fault:redirect hop=${h + 1}`, retryAfter: null });
        at += 5;
      }
      const duration = spec.durationMs ?? (spec.answer === 'hang' ? 10_000 : 20);
      const status = typeof spec.answer === 'number' ? spec.answer : null;
      const reason = spec.reason !== undefined
        ? spec.reason
        : typeof spec.answer === 'string'
          ? `fault:${spec.answer} attempt=${count}`
          : status !== null && status >= 200 && status < 300 ? null : `fault:status ${status}`;
      const outcome: AttemptOutcome = spec.outcome ?? (status !== null && status >= 200 && status < 300 ? (count === 1 ? 'accepted' : 'duplicate') : 'faulted');
      list.push({ ...base, receivedAt: at, finishedAt: at + duration, outcome, status, reason, retryAfter: spec.retryAfter ?? null });
      end = at + duration;
      return builder;
    },
  };
  return builder;
}

/** All records of the given deliveries, seq assigned in arrival order (as the store would). */
export function records(...deliveries: DeliveryBuilder[]): AttemptRecord[] {
  return deliveries
    .flatMap((d) => d.list)
    .sort((a, b) => a.receivedAt - b.receivedAt)
    .map((r, i) => ({ ...r, seq: i + 1 }));
}

/** Resolved options, failing the test on a problem. Default: `complete: true` (the run is over). */
export function opts(input: CheckOptionsInput = {}): CheckOptions {
  const resolved = resolveCheckOptions({ complete: true, ...input });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  return resolved.options;
}

/** No slack at all: the ±20% edges exactly. */
export const NO_SLACK = { earlyMs: 0, lateMs: 0 };
