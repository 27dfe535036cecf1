/**
 * Whether a delivery meets conditions. The body is read only when a condition reads it, and at
 * most once per delivery (`DeliveryFacts`). A body that is not JSON meets no body condition,
 * not even `not-exists` or `!=`: a filter on the body asks for a JSON body.
 */
import { decodeBodyLeniently } from '../envelope.js';
import { splitHeaders } from '../limits.js';
import type { Condition, Operand } from './condition.js';
import { compareInstants, compareNumberTexts, instantOf, isNumberText } from './exact-compare.js';
import { compactJson, isJsonNumber, parseExactJson, type ExactJson } from './exact-json.js';

/**
 * A delivery's headers as its holder keeps them: [name, value] pairs, Node's flat list (name,
 * value, name, value…) or header lines (../limits.ts). Read only when a condition reads a
 * header; passed as held, since building pairs (or a closure) for every delivery costs the
 * forwarding path more than the choice itself.
 */
export type HeaderSource = ReadonlyArray<readonly [string, string]> | readonly string[] | string;

/** What conditions may read of a delivery. */
export interface DeliverySubject {
  rawBody?: Uint8Array;
  headers?: HeaderSource;
}

/** A delivery's parsed body and headers, read on first need and kept for the next conditions. */
export interface DeliveryFacts {
  subject: DeliverySubject;
  body?: { json: boolean; value: ExactJson | undefined };
  headers?: Map<string, string>;
}

export const factsOf = (subject: DeliverySubject): DeliveryFacts => ({ subject });

/** True when every condition holds. */
export function meetsAll(conditions: readonly Condition[], facts: DeliveryFacts): boolean {
  for (const condition of conditions) if (!holds(condition, facts)) return false;
  return true;
}

const MISSING = Symbol('missing');

/**
 * What an operand reads of a delivery, as compact JSON (a string quoted, a number as written), or
 * null when it is missing or the body is not JSON: the key of ordered hand-offs (core/pacing.ts).
 */
export function operandText(operand: Operand, facts: DeliveryFacts): string | null {
  const found = lookUp(operand, facts);
  if (found === MISSING || found === NOT_JSON) return null;
  return compactJson(found);
}

function holds(c: Condition, facts: DeliveryFacts): boolean {
  const found = lookUp(c.operand, facts);
  if (found === NOT_JSON) return false;
  if (c.op === 'exists') return found !== MISSING;
  if (c.op === 'not-exists') return found === MISSING;
  if (c.op === '!=') return found === MISSING || !equals(found, c.values[0]!);
  if (found === MISSING) return false;
  switch (c.op) {
    case '=':
      return equals(found, c.values[0]!);
    case 'in':
      return c.values.some((v) => equals(found, v));
    case 'prefix':
      return typeof found === 'string' && found.startsWith(c.values[0]!);
    default: {
      const order = compareWithBound(found, c);
      if (order === undefined) return false;
      return c.op === '<' ? order < 0 : c.op === '<=' ? order <= 0 : c.op === '>' ? order > 0 : order >= 0;
    }
  }
}

/** A string equals its text; a number a number text of the same value; anything else its compact JSON. */
function equals(found: ExactJson, value: string): boolean {
  if (typeof found === 'string') return found === value;
  if (isJsonNumber(found)) return isNumberText(value) && compareNumberTexts(found.jsonNumber, value) === 0;
  return compactJson(found) === value;
}

/** A body number (or a header holding one) against a number; a string holding an RFC 3339 time against a time. */
function compareWithBound(found: ExactJson, c: Condition): number | undefined {
  const bound = c.bound!;
  if (bound.kind === 'number') {
    const text = isJsonNumber(found) ? found.jsonNumber : c.operand.kind === 'header' && typeof found === 'string' && isNumberText(found.trim()) ? found.trim() : undefined;
    return text === undefined ? undefined : compareNumberTexts(text, bound.text);
  }
  const instant = typeof found === 'string' ? instantOf(found.trim()) : undefined;
  return instant === undefined ? undefined : compareInstants(instant, bound);
}

const NOT_JSON = Symbol('not JSON');

function lookUp(operand: Operand, facts: DeliveryFacts): ExactJson | typeof MISSING | typeof NOT_JSON {
  if (operand.kind === 'header') {
    facts.headers ??= headerMap(facts.subject.headers ?? []);
    return facts.headers.get(operand.name) ?? MISSING;
  }
  facts.body ??= readBody(facts.subject.rawBody);
  if (!facts.body.json) return NOT_JSON;
  let at: ExactJson = facts.body.value!;
  for (const segment of operand.path) {
    if (at === null || typeof at !== 'object' || isJsonNumber(at)) return MISSING;
    if (Array.isArray(at)) {
      const index = typeof segment === 'number' ? segment : operand.pointer && /^(0|[1-9]\d{0,8})$/.test(segment) ? Number(segment) : -1;
      if (index < 0 || index >= at.length) return MISSING;
      at = at[index]!;
    } else {
      if (typeof segment === 'number' || !Object.prototype.hasOwnProperty.call(at, segment)) return MISSING;
      at = at[segment]!;
    }
  }
  return at;
}

function readBody(rawBody: Uint8Array | undefined): { json: boolean; value: ExactJson | undefined } {
  if (rawBody === undefined) return { json: false, value: undefined };
  const value = parseExactJson(decodeBodyLeniently(rawBody));
  return { json: value !== undefined, value };
}

function headerMap(source: HeaderSource): Map<string, string> {
  const map = new Map<string, string>();
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    const had = map.get(key);
    map.set(key, had === undefined ? value : `${had}, ${value}`);
  };
  if (typeof source === 'string') for (const [name, value] of splitHeaders(source)) add(name, value);
  else if (typeof source[0] === 'string') for (let i = 0; i + 1 < source.length; i += 2) add(source[i] as string, source[i + 1] as string);
  else for (const [name, value] of source as ReadonlyArray<readonly [string, string]>) add(name, value);
  return map;
}
