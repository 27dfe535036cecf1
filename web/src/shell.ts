/** Shell commands the page offers to copy (copy as curl, the empty state's `hookrelay send`). Pure. */

const SAFE_WORD = /^[A-Za-z0-9_\-.,:/@%+=]+$/;

function needsAnsiC(text: string): boolean {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true;
    if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f)) return true;
    if (cp === 0xfeff || cp === 0x061c || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xe0000 && cp <= 0xe0fff)) return true;
  }
  return false;
}

/**
 * Quotes one shell word (bash). Control and bidi characters never reach the clipboard raw:
 * they are written as `$'\x1b'` / `$'\u202e'` escapes, so a pasted command shows what it does.
 */
export function shellQuote(text: string): string {
  if (text.length > 0 && SAFE_WORD.test(text)) return text;
  if (!needsAnsiC(text)) return `'${text.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (cp === 0x0a) out += '\\n';
    else if (cp === 0x09) out += '\\t';
    else if (cp === 0x0d) out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (needsAnsiC(ch)) out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/** Headers curl sets itself or that would be wrong on a re-send. */
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding', 'expect', 'keep-alive']);

export interface CurlInput {
  url: string;
  headers: ReadonlyArray<readonly [string, string]>;
  /** Leniently decoded body (BOM skipped). */
  text: string;
  /** Exact bytes, base64. */
  base64: string;
  /** When set, the text is not the exact bytes, so the command decodes the base64 instead. */
  exactBytesNeeded: boolean;
}

/** A curl command that re-sends the delivery (with its original, by now probably stale, signature). */
export function curlCommand(input: CurlInput): string {
  const parts = ['curl', '-sS', '-X', 'POST', shellQuote(input.url)];
  const lines = [parts.join(' ')];
  for (const [name, value] of input.headers) {
    if (SKIPPED_HEADERS.has(name.toLowerCase())) continue;
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (input.exactBytesNeeded) {
    lines.push('--data-binary @-');
    return `printf %s ${shellQuote(input.base64)} | base64 -d | ${lines.join(' \\\n  ')}`;
  }
  lines.push(`--data-binary ${shellQuote(input.text)}`);
  return lines.join(' \\\n  ');
}

/** The first command a new user runs (PRODUCT.md: `send` on the same machine needs no flags). */
export function sendCommand(receiverUrl: string): string {
  return `npx hookrelay send --to ${shellQuote(receiverUrl)} --trigger trustcenter.access_requested`;
}
