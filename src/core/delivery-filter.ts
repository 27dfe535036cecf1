/**
 * What `events wait` (and a test) waits for: a trigger glob, a delivery id, and `PATH=VALUE`
 * conditions on the body. Pure: it reads a delivery, never the store.
 */
import { decodeBodyLeniently } from './envelope.js';
import { globMatch } from './faults/glob.js';

export interface DeliveryFilter {
  /** A trigger glob (`*` any run, `?` one character), e.g. `trustcenter.*`. */
  trigger?: string;
  deliveryId?: string;
  /** Every condition must hold. */
  where: WhereCondition[];
}

export interface WhereCondition {
  /** As written, for messages. */
  text: string;
  path: Array<string | number>;
  value: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const SEGMENT = /^([^.[\]]+)|^\[(\d{1,9})\]|^\["((?:[^"\\]|\\.)*)"\]/;

/**
 * Reads `PATH=VALUE`. PATH is a JSONPath-like path into the body: `$.data.accessRequestId`,
 * `data.items[0].id`, `data["odd.key"]` (the leading `$.` is optional). VALUE is compared with a
 * string as it is, and with anything else as its compact JSON (`true`, `3`, `null`, `{"a":1}`).
 */
export function parseWhere(text: string): Parsed<WhereCondition> {
  const eq = text.indexOf('=');
  if (eq <= 0) return { ok: false, message: `--where: expected PATH=VALUE (e.g. data.accessRequestId=ar_1), got ${JSON.stringify(text.slice(0, 80))}` };
  let rest = text.slice(0, eq).trim();
  const value = text.slice(eq + 1);
  if (rest.startsWith('$')) rest = rest.slice(1);
  const path: Array<string | number> = [];
  while (rest.length > 0) {
    if (rest.startsWith('.')) rest = rest.slice(1);
    const m = SEGMENT.exec(rest);
    if (!m) return { ok: false, message: `--where: cannot read the path ${JSON.stringify(text.slice(0, eq).slice(0, 80))} at ${JSON.stringify(rest.slice(0, 20))}: use names joined by dots, [n] for an index, ["name"] for a name with dots` };
    if (m[1] !== undefined) path.push(m[1]);
    else if (m[2] !== undefined) path.push(Number(m[2]));
    else {
      const name = quotedName(m[3]!);
      if (name === undefined) return { ok: false, message: `--where: cannot read the name in ${JSON.stringify(m[0].slice(0, 40))}: inside ["…"] use JSON string escapes (\\" \\\\ \\n \\uXXXX)` };
      path.push(name);
    }
    rest = rest.slice(m[0].length);
  }
  if (path.length === 0) return { ok: false, message: `--where: the path before "=" is empty in ${JSON.stringify(text.slice(0, 80))}` };
  return { ok: true, value: { text, path, value } };
}

/** The name inside `["…"]`, read as a JSON string; undefined for an escape JSON does not have (`\x`). */
function quotedName(inner: string): string | undefined {
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return undefined;
  }
}

/** Whether a delivery (its trigger, id and raw body) passes every part of the filter. */
export function matchesFilter(filter: DeliveryFilter, delivery: { id: string; trigger: string; rawBody: Buffer }): boolean {
  if (filter.trigger !== undefined && !globMatch(filter.trigger, delivery.trigger)) return false;
  if (filter.deliveryId !== undefined && filter.deliveryId !== delivery.id) return false;
  if (filter.where.length === 0) return true;
  let body: unknown;
  try {
    body = JSON.parse(decodeBodyLeniently(delivery.rawBody));
  } catch {
    return false;
  }
  return filter.where.every((condition) => holds(condition, body));
}

function holds({ path, value }: WhereCondition, body: unknown): boolean {
  let at: unknown = body;
  for (const segment of path) {
    if (at === null || typeof at !== 'object') return false;
    if (typeof segment === 'number' ? !Array.isArray(at) : Array.isArray(at)) return false;
    if (!Object.prototype.hasOwnProperty.call(at, segment)) return false;
    at = (at as Record<string | number, unknown>)[segment];
  }
  if (at === undefined) return false;
  return typeof at === 'string' ? at === value : JSON.stringify(at) === value;
}

/** The filter in words, for a timeout message. */
export function describeFilter(filter: DeliveryFilter): string {
  const parts: string[] = [];
  if (filter.trigger !== undefined) parts.push(`trigger ${JSON.stringify(filter.trigger)}`);
  if (filter.deliveryId !== undefined) parts.push(`delivery ${JSON.stringify(filter.deliveryId)}`);
  for (const w of filter.where) parts.push(`where ${JSON.stringify(w.text)}`);
  return parts.length === 0 ? 'any delivery' : parts.join(', ');
}
