/** Glob matching for trigger and delivery conditions: `*` is any run of characters, `?` one character. */

/**
 * Whether `value` matches `pattern` as a whole, case-sensitively, by code point.
 * No regular expression is built, so a hostile value cannot make it backtrack
 * exponentially: the cost is at most pattern length × value length.
 */
export function globMatch(pattern: string, value: string): boolean {
  const p = Array.from(pattern);
  const v = Array.from(value);
  let pi = 0;
  let vi = 0;
  let starP = -1;
  let starV = 0;
  while (vi < v.length) {
    const pc = p[pi];
    if (pc === '*') {
      starP = pi++;
      starV = vi;
    } else if (pi < p.length && (pc === '?' || pc === v[vi])) {
      pi++;
      vi++;
    } else if (starP >= 0) {
      pi = starP + 1;
      vi = ++starV;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}
