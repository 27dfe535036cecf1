/**
 * Exact comparisons for conditions: JSON number texts as decimals (no float on the way, so
 * 9007199254740993 > 9007199254740992 and 1e400 > 1e399), and RFC 3339 times to any fraction
 * of a second.
 */

const NUMBER_TEXT = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** True when `text` is a JSON number. */
export function isNumberText(text: string): boolean {
  return /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text);
}

interface Decimal {
  negative: boolean;
  /** Significant digits, no leading or trailing zeros; '' for zero. */
  digits: string;
  /** The position of the first digit: value = 0.digits × 10^point. */
  point: bigint;
}

function decimalOf(text: string): Decimal {
  const m = NUMBER_TEXT.exec(text)!;
  const all = `${m[2]}${m[3] ?? ''}`;
  const lead = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(lead).replace(/0+$/, '');
  const point = BigInt(m[2]!.length - lead) + BigInt(m[4] ?? '0');
  return { negative: m[1] === '-' && digits !== '', digits, point };
}

/** -1, 0 or 1: how JSON number text `a` compares with `b`, exactly. */
export function compareNumberTexts(a: string, b: string): number {
  const x = decimalOf(a);
  const y = decimalOf(b);
  if (x.negative !== y.negative) return x.negative ? -1 : 1;
  const sign = x.negative ? -1 : 1;
  if (x.digits === '' || y.digits === '') return x.digits === y.digits ? 0 : (x.digits === '' ? -1 : 1) * sign;
  if (x.point !== y.point) return (x.point < y.point ? -1 : 1) * sign;
  const width = Math.max(x.digits.length, y.digits.length);
  const dx = x.digits.padEnd(width, '0');
  const dy = y.digits.padEnd(width, '0');
  return (dx === dy ? 0 : dx < dy ? -1 : 1) * sign;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** An instant: whole seconds since 1970 and the fraction's digits (no trailing zeros). */
export interface Instant {
  seconds: number;
  fraction: string;
}

/** The instant an RFC 3339 date-time names, or undefined for anything else (including 2026-02-30). */
export function instantOf(text: string): Instant | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  const dayCheck = new Date(Date.UTC(y, mo - 1, d));
  if (dayCheck.getUTCDate() !== d) return undefined;
  const offset = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (!m[8] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  // Date.UTC takes years 0-99 as 1900-1999; setUTCFullYear does not.
  const base = new Date(0);
  base.setUTCFullYear(y, mo - 1, d);
  base.setUTCHours(h, mi, s, 0);
  return { seconds: base.getTime() / 1000 - offset * 60, fraction: (m[7] ?? '').replace(/0+$/, '') };
}

/** -1, 0 or 1: how instant `a` compares with `b`. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0');
  const fb = b.fraction.padEnd(width, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}
