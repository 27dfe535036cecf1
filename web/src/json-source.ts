/**
 * JSON read from its source text for display (RFC 8259), so the tree shows what was sent:
 * `12345678901234567890` and `1.000` keep their digits (JSON.parse turns them into
 * `12345678901234567000` and `1`), and an object that repeats a key keeps every entry in order.
 * Pure and strict: no eval, nothing is interpreted; strings are decoded escape by escape. Depth is
 * capped so a hostile body cannot overflow the stack.
 */

export type JsonNode =
  | { kind: 'object'; entries: Array<[key: string, value: JsonNode]> }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'string'; value: string }
  /** `text`: the number exactly as written. */
  | { kind: 'number'; text: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' };

export type JsonParse = { ok: true; value: JsonNode } | { ok: false; error: string; offset: number };

const MAX_DEPTH = 512;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

/** Parses `text` (the whole of it: one value, surrounded by JSON whitespace only). */
export function parseJsonSource(text: string): JsonParse {
  let i = 0;

  const fail = (message: string, at = i): never => {
    throw new JsonSyntaxError(message, at);
  };
  const describe = (at: number) => (at >= text.length ? 'the end of the text' : `character ${JSON.stringify(text[at])}`);
  const skipSpace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i += 1;
      else break;
    }
  };
  const expect = (char: string) => {
    if (text[i] !== char) fail(`expected "${char}" but found ${describe(i)} at position ${i}`);
    i += 1;
  };

  const string = (): string => {
    const start = i;
    expect('"');
    let out = '';
    let run = i;
    for (;;) {
      if (i >= text.length) fail(`unterminated string starting at position ${start}`, start);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(run, i);
        i += 1;
        return out;
      }
      if (c < 0x20) fail(`control character U+${c.toString(16).padStart(4, '0').toUpperCase()} in a string at position ${i}`);
      if (c !== 0x5c) {
        i += 1;
        continue;
      }
      out += text.slice(run, i);
      const e = text[i + 1];
      if (e === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(`bad \\u escape at position ${i}`);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
        i += 2;
      } else {
        fail(`bad escape at position ${i}`);
      }
      run = i;
    }
  };

  const value = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels at position ${i}`);
    skipSpace();
    const c = text[i];
    if (c === '{') {
      i += 1;
      const entries: Array<[string, JsonNode]> = [];
      skipSpace();
      if (text[i] === '}') {
        i += 1;
        return { kind: 'object', entries };
      }
      for (;;) {
        skipSpace();
        if (text[i] !== '"') fail(`expected a key in quotes but found ${describe(i)} at position ${i}`);
        const key = string();
        skipSpace();
        expect(':');
        entries.push([key, value(depth + 1)]);
        skipSpace();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect('}');
        return { kind: 'object', entries };
      }
    }
    if (c === '[') {
      i += 1;
      const items: JsonNode[] = [];
      skipSpace();
      if (text[i] === ']') {
        i += 1;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        skipSpace();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect(']');
        return { kind: 'array', items };
      }
    }
    if (c === '"') return { kind: 'string', value: string() };
    for (const [word, node] of [['true', { kind: 'bool', value: true }], ['false', { kind: 'bool', value: false }], ['null', { kind: 'null' }]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return node;
      }
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (match) {
      i += match[0].length;
      return { kind: 'number', text: match[0] };
    }
    return fail(`unexpected ${describe(i)} at position ${i}`);
  };

  try {
    const root = value(0);
    skipSpace();
    if (i < text.length) fail(`unexpected ${describe(i)} after the value at position ${i}`);
    return { ok: true, value: root };
  } catch (err) {
    if (err instanceof JsonSyntaxError) return { ok: false, error: err.message, offset: err.offset };
    throw err;
  }
}

/** A JavaScript value (an API answer, not a body) as a tree. */
export function jsonNodeOf(value: unknown, depth = 0): JsonNode {
  if (value === null || value === undefined) return { kind: 'null' };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'number') return { kind: 'number', text: String(value) };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (depth > MAX_DEPTH) return { kind: 'string', value: '…' };
  if (Array.isArray(value)) return { kind: 'array', items: value.map((v) => jsonNodeOf(v, depth + 1)) };
  if (typeof value === 'object') return { kind: 'object', entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonNodeOf(v, depth + 1)]) };
  return { kind: 'string', value: String(value) };
}
