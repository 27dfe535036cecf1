/**
 * The lexical layer of the one-line rule form: whitespace-separated tokens, `key=value` or a
 * bare word, values quoted with '…' or "…" (backslash escapes inside quotes only). Columns
 * count code points from 1. `quoteValue` writes what `tokenize` reads back.
 */

export interface Token {
  /** 1-based column of the token's first character. */
  column: number;
  /** Text before the first `=`, lower-cased, when that prefix is unquoted; null for a bare word. */
  key: string | null;
  /** Decoded text: after `=` for a key, the whole token for a word. */
  value: string;
}

export type LexResult = { ok: true; tokens: Token[] } | { ok: false; column: number; reason: string };

const SPACE = /^\s$/u;
const HEX = /^[0-9a-fA-F]{1,6}$/;
const SIMPLE_ESCAPES = new Map([
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

/** Splits a rule into tokens; refuses an unterminated quote or an unknown escape, with its column. */
export function tokenize(text: string): LexResult {
  const cs = Array.from(text);
  const tokens: Token[] = [];
  let i = 0;
  while (i < cs.length) {
    if (SPACE.test(cs[i]!)) {
      i++;
      continue;
    }
    const start = i;
    let decoded = '';
    let eqAt: number | null = null;
    let quotedBefore = false;
    while (i < cs.length && !SPACE.test(cs[i]!)) {
      const c = cs[i]!;
      if (c === "'" || c === '"') {
        const open = i++;
        let closed = false;
        while (i < cs.length) {
          const q = cs[i]!;
          if (q === c) {
            closed = true;
            i++;
            break;
          }
          if (q === '\\') {
            const esc = readEscape(cs, i);
            if (!esc.ok) return { ok: false, column: i + 1, reason: esc.reason };
            decoded += esc.text;
            i = esc.next;
            continue;
          }
          decoded += q;
          i++;
        }
        if (!closed) return { ok: false, column: open + 1, reason: `unterminated quote ${c}` };
        quotedBefore = true;
        continue;
      }
      if (c === '=' && eqAt === null && !quotedBefore) eqAt = decoded.length;
      decoded += c;
      i++;
    }
    tokens.push(
      eqAt === null
        ? { column: start + 1, key: null, value: decoded }
        : { column: start + 1, key: decoded.slice(0, eqAt).toLowerCase(), value: decoded.slice(eqAt + 1) },
    );
  }
  return { ok: true, tokens };
}

function readEscape(cs: string[], at: number): { ok: true; text: string; next: number } | { ok: false; reason: string } {
  const e = cs[at + 1];
  if (e === undefined) return { ok: false, reason: 'backslash at the end of the rule' };
  const simple = SIMPLE_ESCAPES.get(e);
  if (simple !== undefined) return { ok: true, text: simple, next: at + 2 };
  if (e === 'u' && cs[at + 2] === '{') {
    const close = cs.indexOf('}', at + 3);
    const hex = close < 0 ? '' : cs.slice(at + 3, close).join('');
    const cp = HEX.test(hex) ? parseInt(hex, 16) : -1;
    if (cp >= 0 && cp <= 0x10ffff) return { ok: true, text: String.fromCodePoint(cp), next: close + 1 };
    return { ok: false, reason: 'bad escape: \\u{…} needs 1-6 hex digits up to 10FFFF' };
  }
  return { ok: false, reason: `unknown escape \\${e} (use \\\\, \\', \\", \\n, \\r, \\t or \\u{hex})` };
}

/**
 * `value` as it must be written after `key=` so that `tokenize` reads it back unchanged:
 * bare when it is plain, otherwise in single quotes with escapes for backslash, quote,
 * whitespace other than the space, control, format and lone surrogate code points.
 */
export function quoteValue(value: string): string {
  if (value.length > 0 && /^[^\s'"\\\p{Cc}\p{Cf}\p{Cs}]+$/u.test(value)) return value;
  let out = "'";
  for (const ch of value) {
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /^[\s\p{Cc}\p{Cf}\p{Cs}]$/u.test(ch)) out += `\\u{${ch.codePointAt(0)!.toString(16)}}`;
    else out += ch;
  }
  return `${out}'`;
}
