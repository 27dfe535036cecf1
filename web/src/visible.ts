/**
 * Makes text from a delivery safe to look at: control characters, bidi overrides (U+202E
 * "Trojan Source"), zero-width and invisible tag characters are shown as visible escapes such as
 * `\u202E` instead of acting on the page. Pure: no DOM, so it is unit-tested in node.
 */

export interface Segment {
  text: string;
  /** True when `text` is an escape standing for an invisible or dangerous character. */
  escaped: boolean;
}

function isRisky(cp: number, multiline: boolean): boolean {
  if (cp === 0x0a || cp === 0x09) return !multiline;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true; // C0 (ESC, CR...), DEL, C1
  if (cp === 0x00ad || cp === 0x034f || cp === 0x061c || cp === 0x180e) return true;
  if (cp >= 0x200b && cp <= 0x200f) return true; // zero-width, LRM, RLM
  if (cp >= 0x2028 && cp <= 0x202e) return true; // line/paragraph separators, bidi embeddings and overrides
  if (cp >= 0x2060 && cp <= 0x206f) return true; // word joiner, invisible operators, bidi isolates
  if (cp === 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb)) return true; // BOM / ZWNBSP, interlinear annotations
  if (cp >= 0xfe00 && cp <= 0xfe0f) return true; // variation selectors
  if (cp >= 0xe0000 && cp <= 0xe0fff) return true; // tag characters and their variation selectors
  if (cp >= 0xd800 && cp <= 0xdfff) return true; // lone surrogate
  return false;
}

const SHORT: Record<number, string> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };

export function escapeCodePoint(cp: number): string {
  return SHORT[cp] ?? (cp > 0xffff ? `\\u{${cp.toString(16).toUpperCase()}}` : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * Splits `text` into plain runs and escapes. `multiline` keeps line feeds and tabs (raw body
 * view); otherwise they are escaped too (headers, ids, triggers, list cells).
 */
export function splitVisible(text: string, multiline = false): Segment[] {
  const out: Segment[] = [];
  let plain = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (isRisky(cp, multiline)) {
      if (plain) out.push({ text: plain, escaped: false });
      plain = '';
      out.push({ text: escapeCodePoint(cp), escaped: true });
    } else {
      plain += ch;
    }
  }
  if (plain) out.push({ text: plain, escaped: false });
  return out;
}

/** The same as one string (for `title` attributes, clipboard text and tests). */
export function visibleString(text: string, multiline = false): string {
  return splitVisible(text, multiline)
    .map((s) => s.text)
    .join('');
}

/** Shortens `text` for a list cell. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
