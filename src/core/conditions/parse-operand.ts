/**
 * The left side of a condition: a JSON pointer (`/data/accessRequestId`, RFC 6901 with ~0 and
 * ~1), a dotted path (`data.items[0].id`, `$.data["odd.key"]`, as `--where` always read), or
 * `header:NAME` (case-insensitive).
 */
import type { Operand } from './condition.js';

export type OperandParse = { ok: true; operand: Operand } | { ok: false; reason: string };

const SEGMENT = /^([^.[\]]+)|^\[(\d{1,9})\]|^\["((?:[^"\\]|\\.)*)"\]/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

export function parseOperand(text: string): OperandParse {
  if (/^header:/i.test(text)) {
    const name = text.slice('header:'.length);
    if (!HEADER_NAME.test(name)) return { ok: false, reason: `${JSON.stringify(clip(name))} is not a header name (letters, digits and !#$%&'*+-.^_\`|~)` };
    return { ok: true, operand: { kind: 'header', name: name.toLowerCase() } };
  }
  if (text.startsWith('/')) return pointerOperand(text);
  return dottedOperand(text);
}

function pointerOperand(text: string): OperandParse {
  const path: string[] = [];
  for (const raw of text.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return { ok: false, reason: `the JSON pointer ${JSON.stringify(clip(text))} has a "~" not followed by 0 or 1 (write ~0 for "~" and ~1 for "/")` };
    path.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return { ok: true, operand: { kind: 'body', path, pointer: true } };
}

function dottedOperand(text: string): OperandParse {
  let rest = text.startsWith('$') ? text.slice(1) : text;
  const path: Array<string | number> = [];
  while (rest.length > 0) {
    if (rest.startsWith('.')) rest = rest.slice(1);
    const m = SEGMENT.exec(rest);
    if (!m) return { ok: false, reason: `cannot read the path ${JSON.stringify(clip(text))} at ${JSON.stringify(clip(rest, 20))}: write a JSON pointer (/data/id), names joined by dots, [n] for an index, ["name"] for a name with dots, or header:NAME` };
    if (m[1] !== undefined) path.push(m[1]);
    else if (m[2] !== undefined) path.push(Number(m[2]));
    else {
      const name = jsonString(m[3]!);
      if (name === undefined) return { ok: false, reason: `cannot read the name in ${JSON.stringify(clip(m[0], 40))}: inside ["…"] use JSON string escapes (\\" \\\\ \\n \\uXXXX)` };
      path.push(name);
    }
    rest = rest.slice(m[0].length);
  }
  if (path.length === 0) return { ok: false, reason: 'the path is empty (write /data/id, data.id or header:NAME)' };
  return { ok: true, operand: { kind: 'body', path, pointer: false } };
}

function jsonString(inner: string): string | undefined {
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return undefined;
  }
}

export const clip = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max)}…` : text);
