/**
 * Header lines `name: value\n`, one per header in arrival order: how the SQLite store keeps a
 * request's headers and how the bridge's version 2 record carries them. HTTP forbids CR and LF
 * inside names and values, and a name holds no colon, so the text gives back the exact pairs.
 */

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
