/**
 * A delivery's shape: the one definition of each limit on it, and its header lines as text.
 *
 * The receiver refuses an arrival over the limits (431, before any other check), the bridge's
 * frames are checked against the same numbers on both sides, and the console reads them too:
 * whatever the receiver accepts, the bridge carries.
 *
 * Header lines are `name: value\n`, one per header in arrival order: how the SQLite store keeps a
 * request's headers and how the bridge's version 2 record carries them. HTTP forbids CR and LF
 * inside names and values, and a name holds no colon, so the text gives back the exact pairs.
 */

/**
 * The longest delivery id and trigger the receiver stores (UTF-16 code units). The service sends
 * UUIDs; the bound keeps every stored id reachable through the console's routes and the CLI.
 */
export const MAX_ID_LENGTH = 256;

/** The largest `--body-limit` a receiver may set (64 MiB): what a bridged delivery's body can be. */
export const MAX_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** How much of a body a reader is shown unless they ask for more: `events show` of an attempt, the MCP tools by default. */
export const SHOWN_BODY_BYTES = 16 * 1024;

/** The most header lines one delivery may carry. The service sends six; proxies on the way add a few dozen at most. */
export const MAX_HEADER_LINES = 200;

/** The longest header name (characters). HTTP sets no bound; Node's 16 KiB header block is the only other one. */
export const MAX_HEADER_NAME_LENGTH = 256;

/** Why this many header lines break MAX_HEADER_LINES, or null. */
export function headerCountProblem(lines: number): string | null {
  return lines > MAX_HEADER_LINES ? `${lines} header lines; hookrelay accepts at most ${MAX_HEADER_LINES}` : null;
}

/** Why a header name breaks MAX_HEADER_NAME_LENGTH, or null. */
export function headerNameProblem(name: string): string | null {
  return name.length > MAX_HEADER_NAME_LENGTH ? `a header name of ${name.length} characters; hookrelay accepts at most ${MAX_HEADER_NAME_LENGTH}` : null;
}

/** Why header lines (flat, name, value, name, value… as Node's `rawHeaders`) break a limit above, or null when they do not. */
export function headerLimitProblem(rawHeaders: readonly string[]): string | null {
  const count = headerCountProblem(rawHeaders.length >> 1);
  if (count) return count;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = headerNameProblem(rawHeaders[i]!);
    if (name) return name;
  }
  return null;
}

/** From a flat list as Node gives it: name, value, name, value… */
export function joinHeaders(raw: readonly string[]): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) out += `${raw[i]}: ${raw[i + 1]}\n`;
  return out;
}

/** From [name, value] pairs. */
export function joinHeaderPairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  for (const [name, value] of pairs) out += `${name}: ${value}\n`;
  return out;
}

/** The pairs of joined lines, leniently: a line without ": " is a name with an empty value. */
export function splitHeaders(block: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const line of block.split('\n')) {
    if (line === '') continue;
    const colon = line.indexOf(': ');
    pairs.push(colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 2)]);
  }
  return pairs;
}
