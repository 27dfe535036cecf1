/**
 * A JSON reader for conditions: like JSON.parse, except that a number keeps its text (so
 * 12345678901234567890123 compares exactly, never as a float) and objects have no prototype (a
 * `__proto__` or `constructor` key is an ordinary own key). Refuses what JSON.parse refuses,
 * and nesting deeper than MAX_DEPTH.
 */

/** A JSON number as written in the body. */
export interface JsonNumber {
  readonly jsonNumber: string;
}

export type ExactJson = null | boolean | string | JsonNumber | ExactJson[] | { [key: string]: ExactJson };

export const MAX_DEPTH = 512;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WS = /[ \t\n\r]*/y;

class NotJson extends Error {}

/** The value of `text`, or undefined when it is not JSON (or nests deeper than MAX_DEPTH). */
export function parseExactJson(text: string): ExactJson | undefined {
  let at = 0;
  const skip = (): void => {
    WS.lastIndex = at;
    WS.exec(text);
    at = WS.lastIndex;
  };
  const value = (depth: number): ExactJson => {
    if (depth > MAX_DEPTH) throw new NotJson();
    skip();
    const c = text[at];
    if (c === '{') {
      at++;
      const obj = Object.create(null) as { [key: string]: ExactJson };
      skip();
      if (text[at] === '}') return at++, obj;
      for (;;) {
        skip();
        if (text[at] !== '"') throw new NotJson();
        const key = string();
        skip();
        if (text[at++] !== ':') throw new NotJson();
        obj[key] = value(depth + 1);
        skip();
        const next = text[at++];
        if (next === '}') return obj;
        if (next !== ',') throw new NotJson();
      }
    }
    if (c === '[') {
      at++;
      const list: ExactJson[] = [];
      skip();
      if (text[at] === ']') return at++, list;
      for (;;) {
        list.push(value(depth + 1));
        skip();
        const next = text[at++];
        if (next === ']') return list;
        if (next !== ',') throw new NotJson();
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, at)) return (at += word.length), v;
    }
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(text);
    if (!m) throw new NotJson();
    at = NUMBER.lastIndex;
    return { jsonNumber: m[0] };
  };
  const string = (): string => {
    const start = at;
    at++;
    for (;;) {
      const c = text.charCodeAt(at);
      if (Number.isNaN(c) || c < 0x20) throw new NotJson();
      if (c === 0x22) break;
      at += c === 0x5c ? 2 : 1;
    }
    at++;
    // JSON.parse checks the escapes of one string: cheap, exact, and no second escape reader.
    return JSON.parse(text.slice(start, at)) as string;
  };
  try {
    const v = value(0);
    skip();
    return at === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}

export function isJsonNumber(v: unknown): v is JsonNumber {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as JsonNumber).jsonNumber === 'string' && Object.getPrototypeOf(v) !== null;
}

/** Compact JSON of an exact value, numbers as written (what `=` compares a non-string with). */
export function compactJson(v: ExactJson): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (isJsonNumber(v)) return v.jsonNumber;
  if (Array.isArray(v)) return `[${v.map(compactJson).join(',')}]`;
  return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${compactJson(v[k]!)}`).join(',')}}`;
}
