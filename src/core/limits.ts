/**
 * The one definition of each limit on a delivery's shape. The receiver refuses an arrival over them
 * (431, before any other check), the bridge's frames are checked against the same numbers on both
 * sides, and the console reads them too: whatever the receiver accepts, the bridge carries.
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
