/**
 * Paths of a redirect chain served by hookrelay itself (`redirect hops=N`). The receiver
 * answers the delivery with a 307/308 to `<path>/__hop/1/<token>`, hop n < N with one to hop
 * n+1, and handles hop N normally. The token carries the chain's length and status, so hops
 * need no server state: `<N>-<status>-<nonce>`, e.g. `/webhooks/__hop/2/4-307-k3j9x0q2ab`.
 * Spec 8 allows 3 hops: N = 3 ends in a delivery, N = 4 must make the sender give up.
 */
import type { RandomSource } from '../seeded-random.js';
import { MAX_HOPS } from './rule.js';

export const HOP_SEGMENT = '__hop';

export interface HopRef {
  /** Which hop this path is, 1-based. */
  hop: number;
  /** Length of the chain: hop `total` is handled normally. */
  total: number;
  status: 307 | 308;
  /** Ties the hops of one chain together in logs; [A-Za-z0-9]{1,32}. */
  nonce: string;
}

export type HopPathParse =
  | { ok: true; ref: HopRef }
  /** `not_a_hop`: the path is not under `<path>/__hop/`; `malformed_hop`: it is, but does not parse. */
  | { ok: false; reason: 'not_a_hop' | 'malformed_hop' };

const HOP_TAIL = /^([0-9]{1,2})\/([0-9]{1,2})-(307|308)-([A-Za-z0-9]{1,32})$/;
const NONCE = /^[A-Za-z0-9]{1,32}$/;
const NONCE_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The prefix every hop path of the receiver at `basePath` starts with, e.g. `/webhooks/__hop/`. */
export function hopPrefix(basePath: string): string {
  return `${basePath.replace(/\/+$/, '')}/${HOP_SEGMENT}/`;
}

/** The path of hop `ref.hop` under `basePath`. Refuses (with a RangeError) only a ref that `parseHopPath` could not read back: that is a programming error, not input data. */
export function buildHopPath(basePath: string, ref: HopRef): string {
  if (!validRef(ref)) throw new RangeError(`invalid hop ref ${JSON.stringify(ref)}`);
  return `${hopPrefix(basePath)}${ref.hop}/${ref.total}-${ref.status}-${ref.nonce}`;
}

/**
 * Reads a request path (query string ignored) as a hop of the receiver at `basePath`.
 * Returns the hop, or `not_a_hop` / `malformed_hop`. Never throws.
 */
export function parseHopPath(basePath: string, requestPath: string): HopPathParse {
  if (typeof requestPath !== 'string') return { ok: false, reason: 'not_a_hop' };
  const path = requestPath.split(/[?#]/, 1)[0]!;
  const prefix = hopPrefix(basePath);
  if (!path.startsWith(prefix)) return { ok: false, reason: 'not_a_hop' };
  const m = HOP_TAIL.exec(path.slice(prefix.length));
  if (!m) return { ok: false, reason: 'malformed_hop' };
  const ref: HopRef = { hop: Number(m[1]), total: Number(m[2]), status: Number(m[3]) as 307 | 308, nonce: m[4]! };
  return validRef(ref) ? { ok: true, ref } : { ok: false, reason: 'malformed_hop' };
}

/** A 10-character nonce drawn from `random`. */
export function makeHopNonce(random: RandomSource): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    const r = random();
    const idx = Number.isFinite(r) ? Math.min(NONCE_CHARS.length - 1, Math.max(0, Math.floor(r * NONCE_CHARS.length))) : 0;
    out += NONCE_CHARS[idx];
  }
  return out;
}

function validRef(ref: HopRef): boolean {
  return (
    Number.isInteger(ref.hop) &&
    Number.isInteger(ref.total) &&
    ref.hop >= 1 &&
    ref.total <= MAX_HOPS &&
    ref.hop <= ref.total &&
    (ref.status === 307 || ref.status === 308) &&
    NONCE.test(ref.nonce)
  );
}
