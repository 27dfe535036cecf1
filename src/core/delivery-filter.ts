/**
 * What `events wait` and `events replay` select: a trigger glob, a delivery id, and `--where`
 * conditions (the condition language of route filters: ./conditions/parse-conditions.ts).
 * Pure: it reads a delivery, never the store.
 */
import type { Condition } from './conditions/condition.js';
import { factsOf, meetsAll } from './conditions/judge-conditions.js';
import { describeProblems, parseConditions } from './conditions/parse-conditions.js';
import { parseOperand } from './conditions/parse-operand.js';
import { globMatch } from './faults/glob.js';

export interface DeliveryFilter {
  /** A trigger glob (`*` any run, `?` one character), e.g. `trustcenter.*`. */
  trigger?: string;
  deliveryId?: string;
  /** Every condition must hold. */
  where: WhereCondition[];
}

export type WhereCondition = Condition;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * `PATH=VALUE`, the form `--where` has always read: a path with no space (outside `["…"]`)
 * and no `!`, `<` or `>` right before the first `=`.
 */
function classicOf(text: string): { path: string; value: string } | null {
  const eq = text.indexOf('=');
  if (eq <= 0) return null;
  const path = text.slice(0, eq);
  if (/[!<>]$/.test(path) || /\s/u.test(path.replace(/\["(?:[^"\\]|\\.)*"\]/g, ''))) return null;
  return { path, value: text.slice(eq + 1) };
}

/**
 * Reads one `--where`: either `PATH=VALUE` as always (PATH a dotted path such as
 * `data.items[0].id` or a JSON pointer such as `/data/id`; VALUE everything after the `=`,
 * spaces included), or conditions of the route filter language (`/data/risk >= 70 and
 * header:x-kind prefix a`). Every problem is in the message, with its column.
 */
export function parseWhere(text: string): Parsed<WhereCondition[]> {
  const classic = classicOf(text);
  if (classic) {
    const operand = parseOperand(classic.path);
    if (!operand.ok) return { ok: false, message: `--where: ${operand.reason} at column 1` };
    return { ok: true, value: [{ text, column: 1, operand: operand.operand, operandText: classic.path, op: '=', values: [classic.value] }] };
  }
  const parsed = parseConditions(text);
  if (!parsed.ok) return { ok: false, message: `--where ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}: ${describeProblems(parsed.problems)}` };
  return { ok: true, value: parsed.conditions };
}

/** Whether a delivery (its trigger, id, raw body and headers) passes every part of the filter. */
export function matchesFilter(
  filter: DeliveryFilter,
  delivery: { id: string; trigger: string; rawBody: Uint8Array; headers?: ReadonlyArray<readonly [string, string]> },
): boolean {
  if (filter.trigger !== undefined && !globMatch(filter.trigger, delivery.trigger)) return false;
  if (filter.deliveryId !== undefined && filter.deliveryId !== delivery.id) return false;
  if (filter.where.length === 0) return true;
  return meetsAll(filter.where, factsOf({ rawBody: delivery.rawBody, headers: delivery.headers ?? [] }));
}

/** The filter in words, for a timeout message. */
export function describeFilter(filter: DeliveryFilter): string {
  const parts: string[] = [];
  if (filter.trigger !== undefined) parts.push(`trigger ${JSON.stringify(filter.trigger)}`);
  if (filter.deliveryId !== undefined) parts.push(`delivery ${JSON.stringify(filter.deliveryId)}`);
  for (const w of filter.where) parts.push(`where ${JSON.stringify(w.text)}`);
  return parts.length === 0 ? 'any delivery' : parts.join(', ');
}
