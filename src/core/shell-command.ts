/**
 * Shell commands that re-send a stored delivery with curl: the console's "Copy as curl" and
 * `hookrelay events export --format curl` (issue 13). Pure (no Buffer, no I/O): the console page
 * imports this module too, so both produce the same text.
 *
 * The text must mean exactly the same thing in POSIX sh (dash), bash and zsh, run as a script or
 * pasted into an interactive shell. Why it looks the way it does:
 *
 * - Words are single-quoted, with `'\''` for a quote inside: no shell interprets anything between
 *   single quotes. `$'…'` is not POSIX: dash reads `$'a\'; touch x; #'` as `$` + `'a\'` + `; touch x`,
 *   so a header could close the quote and run a command.
 * - The body is never an argument (Linux refuses a single argument over 128 KiB). It is fed to
 *   `curl --data-binary @-` from a quoted here-document (`<<'HOOKRELAY_BODY'`), inside which no shell
 *   expands anything, interactive history expansion included. A here-document always ends in a
 *   newline and cannot hold NUL, so the body is written as text only when it is one line of printable
 *   ASCII, and `tr -d '\n'` removes the newline the here-document adds. Any other body is written in
 *   base64 and decoded by `base64 -d`, which is exact for every byte.
 * - A header (or URL) holding anything but printable ASCII is not written raw. Between single quotes a
 *   C1 control or a bidi override is inert to the shell, but it can make the pasted command *look*
 *   different from what it runs (U+202E reverses the rest of the line), and a pasted tab triggers
 *   completion. Such a header is decoded from base64 in a quoted here-document into a variable and
 *   passed as `-H "$hookrelay_h1"`: exact, and the command shows only ASCII. `printf .` after the
 *   decoder keeps trailing newlines that command substitution would strip; `${v%.}` removes it.
 *   `"$(printf '\302\205')"` is not used: printf escapes differ between shells.
 * - Header names and values are byte strings. Node's HTTP parser decodes header bytes as latin1, so a
 *   stored header holds one code unit (≤ 0xFF) per byte on the wire: a UTF-8 `café` arrives as the
 *   string `cafÃ©`. Such a string is turned back into bytes one code unit per byte (latin1), never
 *   re-encoded as UTF-8, so curl sends the original bytes. A code unit above 0xFF cannot come from
 *   Node's parser (only from a delivery made by hand or by an older hookrelay); it has no latin1
 *   byte, so that name or value is sent as UTF-8, the only reading that keeps every character.
 *   The URL is not a stored byte string (the user gives it): it is sent as UTF-8.
 * - curl must not change the request. `-g` turns off URL globbing (`{a,b}` or `[1-2]` in a URL would
 *   make curl send several requests). curl adds `User-Agent`, `Accept` and, with `--data-binary`,
 *   `Content-Type: application/x-www-form-urlencoded` when no such header is given, and `Expect:
 *   100-continue` for a large body: `-H 'Name:'` (an empty value) removes its own header, so the
 *   command gives it for each of these the original request did not carry (Expect is never carried).
 *   Only Host and Content-Length, which curl must set itself, can differ from the original.
 * - NUL cannot be part of an argument, and a string with a lone surrogate has no bytes in any
 *   encoding: such a header is left out, with a `#` comment naming it (as is a name starting with
 *   `@`, which curl takes for a file of headers). Comments hold only `[A-Za-z0-9 .,:_/-]`: zsh does
 *   not treat `#` as a comment when pasted interactively (INTERACTIVE_COMMENTS is off by default), so a
 *   comment must also be harmless when read as words.
 *
 * So every command this module builds is printable ASCII and newlines, and nothing else.
 */

/** Words that need no quotes in sh, bash or zsh (a leading `=` would be zsh's `=cmd` expansion). */
const SAFE_WORD = /^[A-Za-z0-9_\-.,:/@%+][A-Za-z0-9_\-.,:/@%+=]*$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BODY_END = 'HOOKRELAY_BODY';
const VALUE_END = 'HOOKRELAY_VALUE';

/** Headers curl sets itself, or that would be wrong on a re-send. */
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding', 'expect', 'keep-alive']);

/**
 * Headers curl adds on its own unless told otherwise (`-H 'Name:'` removes one). Each is removed when
 * the original request did not carry it; Expect always, as it is never carried (a re-send must not
 * wait for a 100 Continue the original never asked for).
 */
const CURL_DEFAULT_HEADERS = ['User-Agent', 'Accept', 'Content-Type', 'Expect'] as const;

/**
 * The bytes of a header name or value as stored: one byte per code unit (latin1) when every code unit
 * is at most 0xFF, which is always the case for a header Node's parser read; otherwise UTF-8 (see the
 * module comment). The caller has already left out strings with a lone surrogate.
 */
export function headerBytes(text: string): Uint8Array {
  if (/^[\u0000-\u00ff]*$/.test(text)) {
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  return new TextEncoder().encode(text);
}

function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Quotes one shell word for sh, bash and zsh: single quotes, `'\''` for a quote inside, nothing
 * else. Returns the text unquoted when it holds only characters no shell treats specially.
 * It never escapes characters: text with controls or bidi characters keeps them raw (inert, but
 * visible as-is), which is why `curlCommand` carries such text in base64 instead.
 */
export function shellQuote(text: string): string {
  if (SAFE_WORD.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Text safe to put in a `#` comment, also when a shell reads the comment as words. */
export function commentText(text: string, max = 80): string {
  const safe = text.replace(/[^A-Za-z0-9.,:_/-]/g, '_');
  return safe.length > max ? `${safe.slice(0, max)}...` : safe;
}

export interface CurlRequest {
  url: string;
  headers: ReadonlyArray<readonly [string, string]>;
  /** The exact body bytes. */
  body: Uint8Array;
}

/**
 * A command (several lines, no trailing newline) that POSTs `body` to `url` with `headers`,
 * byte for byte, the same in sh, bash and zsh. Headers curl manages itself (Host, Content-Length, …)
 * are left out; so is a header that no command line can carry (NUL, lone surrogate), with a comment.
 * Header names and values are sent as the bytes they stand for (latin1, see `headerBytes`).
 */
export function curlCommand(request: CurlRequest): string {
  const setup: string[] = [];
  let variables = 0;
  /**
   * A word for `text`: single-quoted when it is printable ASCII (the same bytes in every encoding),
   * otherwise a variable set above, decoded from base64 of `bytes()`.
   */
  const word = (text: string, what: string, bytes: () => Uint8Array): string => {
    if (PRINTABLE_ASCII.test(text)) return shellQuote(text);
    const name = `hookrelay_v${++variables}`;
    setup.push(
      `# ${what} holds characters other than printable ASCII: it is decoded from base64`,
      `${name}=$(base64 -d <<'${VALUE_END}'`,
      ...base64Lines(bytes()),
      VALUE_END,
      'printf .)',
      `${name}=\${${name}%.}`,
    );
    return `"$${name}"`;
  };

  const curl = ['curl -sS -g -X POST', word(request.url, 'the URL', () => new TextEncoder().encode(request.url))];
  const args: string[] = [];
  /** Lower-cased names of the headers the command carries. */
  const given = new Set<string>();
  for (const [name, value] of request.headers) {
    if (SKIPPED_HEADERS.has(name.toLowerCase())) continue;
    const label = `header ${commentText(name)}`;
    if (name.includes('\0') || value.includes('\0') || LONE_SURROGATE.test(name) || LONE_SURROGATE.test(value)) {
      setup.push(`# ${label} left out: it holds a NUL or a lone surrogate, which no command line can carry`);
      continue;
    }
    if (name.startsWith('@')) {
      // `-H @name…` makes curl read headers from the file `name…`.
      setup.push(`# ${label} left out: curl takes a name starting with an at sign for a file of headers`);
      continue;
    }
    // curl drops a header given as `name:` with nothing (or only blanks) after it; `name;` sends it empty.
    const empty = /^[ \t]*$/.test(value);
    const line = empty ? `${name};` : `${name}: ${value}`;
    const bytes = () => concatBytes(headerBytes(name), empty ? headerBytes(';') : concatBytes(headerBytes(': '), headerBytes(value)));
    args.push(`-H ${word(line, label, bytes)}`);
    given.add(name.toLowerCase());
  }
  for (const name of CURL_DEFAULT_HEADERS) {
    if (name === 'Expect' || !given.has(name.toLowerCase())) args.push(`-H ${shellQuote(`${name}:`)}`);
  }
  args.push('--data-binary @-');

  const asText = isOneLineOfAscii(request.body);
  const feed = asText ? `tr -d '\\n' <<'${BODY_END}'` : `base64 -d <<'${BODY_END}'`;
  const pipeline = [`${feed} | ${curl.join(' ')}`, ...args].join(' \\\n  ');
  const bodyLines = asText ? [asciiText(request.body)] : base64Lines(request.body);
  return [...setup, pipeline, ...bodyLines, BODY_END].join('\n');
}

/** One line of printable ASCII that cannot be mistaken for the here-document's end. */
function isOneLineOfAscii(body: Uint8Array): boolean {
  for (const byte of body) if (byte < 0x20 || byte > 0x7e) return false;
  return body.length !== BODY_END.length || asciiText(body) !== BODY_END;
}

function asciiText(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 in lines of 76 characters (no line at all for no bytes); `base64 -d` ignores the newlines. */
function base64Lines(bytes: Uint8Array): string[] {
  const lines: string[] = [];
  const perLine = 57; // 57 bytes → 76 characters
  for (let start = 0; start < bytes.length; start += perLine) {
    let line = '';
    const end = Math.min(start + perLine, bytes.length);
    for (let i = start; i < end; i += 3) {
      const n = (bytes[i]! << 16) | ((i + 1 < end ? bytes[i + 1]! : 0) << 8) | (i + 2 < end ? bytes[i + 2]! : 0);
      line += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
      line += i + 1 < end ? ALPHABET[(n >> 6) & 63]! : '=';
      line += i + 2 < end ? ALPHABET[n & 63]! : '=';
    }
    lines.push(line);
  }
  return lines;
}
