/**
 * One delivery attempt over HTTP (spec 6.4): POST with undici, a deadline for the whole attempt,
 * redirects followed by hand with the same POST (at most 3 hops), the response body never read,
 * and, when asked, the service's SSRF rule (private or reserved address → blocked) and the
 * emulator's redirect rule (https-only hops, custom headers kept to the first origin).
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { request } from 'undici';
import type { AttemptObservation } from '../core/retry-policy/classify-outcome.js';
import { proxyDispatchers, proxyFor, type ProxySettings } from '../runtime/proxy.js';
import { isPrivateOrReserved } from './private-address.js';

/** Spec 6.4 and section 8: 10 s per attempt, at most 3 redirect hops. */
export { DEFAULT_ATTEMPT_TIMEOUT_MS } from './attempt-timeout.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './attempt-timeout.js';
export const MAX_REDIRECT_HOPS = 3;

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** How redirect hops are judged. Absent (`hookrelay send`): any http(s) hop, every header resent. */
  redirects?: RedirectRule;
}

/** The emulator's rule for redirect hops (docs/emulate.md, Endpoint rules). */
export interface RedirectRule {
  /** A hop to a URL that is not https ends the attempt as `redirect` (`--ssrf strict`: public HTTPS only). */
  httpsOnly?: boolean;
  /**
   * Headers (any case) never sent once a hop leaves the first URL's origin: the webhook's custom
   * headers may hold credentials, as fetch drops Authorization on a cross-origin redirect.
   */
  originBoundHeaders?: readonly string[];
}

export interface AttemptResult {
  observation: AttemptObservation;
  /** Every URL the attempt reached, the first one included. */
  urls: string[];
  /**
   * A hookrelay receiver's refusal code (its `x-hookrelay-error` header, e.g. SIGNATURE_MISMATCH), for
   * the timeline; absent from other receivers, and when the header is not a plain code.
   */
  receiverCode?: string;
}

export interface Transport {
  send(request: AttemptRequest): Promise<AttemptResult>;
  /** Releases connections; attempts still running fail. */
  close(): Promise<void>;
}

export interface HttpTransportOptions {
  /** The deadline of one attempt, redirect hops included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Emulate the service's SSRF rule: refuse endpoints resolving to private or reserved addresses. */
  blockPrivate?: boolean;
  /**
   * Which resolved or literal addresses fail the attempt as `blocked`; replaces the rule of
   * `blockPrivate` (the emulator's `loopback` mode lets 127.0.0.0/8 and ::1 through).
   */
  refuseAddress?: (address: string) => boolean;
  /** False opens a new connection for every request, so every attempt resolves the name again. Default true. */
  keepAlive?: boolean;
  /** Name resolution (default node:dns lookup); injectable for tests. */
  lookup?: LookupFunction;
  /**
   * Which proxy each hop goes through (src/runtime/proxy.ts decides, per URL); absent: direct. Through
   * a proxy, the proxy resolves the name, so the address rule is judged first on this machine's
   * resolution of it.
   */
  proxy?: ProxySettings | null;
}

const BLOCKED_CODE = 'HOOKRELAY_BLOCKED_ADDRESS';
/** What a receiver code may look like to be shown: anything else in that header is hostile or not ours. */
const RECEIVER_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
const TIMED_OUT = Symbol('attempt timeout');

/** A transport that sends attempts over real sockets. Close it when done. */
export function createHttpTransport(options: HttpTransportOptions = {}): Transport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const refuse = options.refuseAddress ?? (options.blockPrivate ? isPrivateOrReserved : null);
  const baseLookup: LookupFunction = options.lookup ?? (dnsLookup as unknown as LookupFunction);
  const agent = proxyDispatchers(options.proxy, {
    connect: { timeout: timeoutMs, lookup: refuse ? guardLookup(baseLookup, refuse) : baseLookup },
    // undici: pipelining 0 closes each connection after its response.
    ...(options.keepAlive === false ? { pipelining: 0 } : {}),
    // Our own deadline governs; undici's must not fire first.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  return {
    async send(req) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
      const urls: string[] = [];
      const seen: { receiverCode?: string } = {};
      try {
        return { observation: await follow(req, urls, controller.signal, seen), urls, ...seen };
      } catch (err) {
        return { observation: observeError(err, controller.signal), urls };
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await agent.destroy();
    },
  };

  async function follow(req: AttemptRequest, urls: string[], signal: AbortSignal, seen: { receiverCode?: string }): Promise<AttemptObservation> {
    let url = req.url;
    let headers = req.headers;
    const origin = new URL(req.url).origin;
    for (let hop = 0; ; hop++) {
      urls.push(url);
      // A literal IP never reaches the lookup hook, so it is judged here.
      const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      if (refuse && isIP(host) !== 0 && refuse(host)) return { kind: 'blocked' };
      // Through a proxy the lookup hook never sees the target's name: it is judged here.
      if (refuse && isIP(host) === 0 && proxyFor(url, options.proxy) !== null) await judgeName(baseLookup, refuse, host, signal);
      const res = await request(url, { method: 'POST', headers, body: req.body, dispatcher: agent.for(url), signal });
      // Spec 6.4: the response body is never read.
      res.body.on('error', () => {});
      res.body.destroy();
      const status = res.statusCode;
      // Only the final answer's, and only a refusal's: a hop or a 2xx naming a code is not one.
      delete seen.receiverCode;
      const code = status >= 400 ? firstHeader(res.headers['x-hookrelay-error']) : null;
      if (code !== null && RECEIVER_CODE.test(code)) seen.receiverCode = code;
      if (status < 300 || status > 399) return { kind: 'response', status, retryAfter: firstHeader(res.headers['retry-after']) };
      const location = firstHeader(res.headers.location);
      if (location === null || location.trim() === '') return { kind: 'redirect', cause: 'missing_location', status };
      const next = resolveLocation(location, url);
      if (next === null || (req.redirects?.httpsOnly === true && !next.startsWith('https:'))) return { kind: 'redirect', cause: 'unusable_location', status };
      // Spec 8: at most 3 hops; the 4th redirect fails the attempt.
      if (hop >= MAX_REDIRECT_HOPS) return { kind: 'redirect', cause: 'too_many_hops', status };
      // Once dropped, they stay dropped, even if a later hop comes back to the first origin.
      if (new URL(next).origin !== origin) headers = withoutHeaders(headers, req.redirects?.originBoundHeaders ?? []);
      url = next;
    }
  }
}

function resolveLocation(location: string, base: string): string | null {
  try {
    const next = new URL(location.trim(), base);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next.href : null;
  } catch {
    return null;
  }
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  if (names.length === 0) return headers;
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())));
}

function firstHeader(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function guardLookup(base: LookupFunction, refuse: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (addresses.some((a) => isIP(a) !== 0 && refuse(a))) {
        const blocked = Object.assign(new Error(`${hostname} resolves to a private or reserved address`), { code: BLOCKED_CODE });
        return callback(blocked, address, family);
      }
      callback(null, address, family);
    });
  };
}

/** Resolves `hostname` as the lookup hook would and fails as it does (a refused address is `blocked`), within the attempt's deadline. */
function judgeName(lookup: LookupFunction, refuse: (address: string) => boolean, hostname: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    guardLookup(lookup, refuse)(hostname, { all: true }, (err) => {
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    });
  });
}

function observeError(err: unknown, signal: AbortSignal): AttemptObservation {
  if (signal.aborted && signal.reason === TIMED_OUT) return { kind: 'timeout' };
  const codes = errorCodes(err);
  if (codes.includes(BLOCKED_CODE)) return { kind: 'blocked' };
  if (codes.some((c) => c === 'UND_ERR_CONNECT_TIMEOUT' || c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'ETIMEDOUT')) return { kind: 'timeout' };
  if (codes.some((c) => c === 'ENOTFOUND' || c === 'EAI_AGAIN' || c === 'EAI_NONAME' || c === 'EAI_FAIL')) return { kind: 'network', cause: 'dns' };
  if (codes.includes('ECONNREFUSED')) return { kind: 'network', cause: 'refused' };
  if (codes.some((c) => c === 'ECONNRESET' || c === 'UND_ERR_SOCKET' || c === 'EPIPE' || c === 'UND_ERR_CLOSED')) {
    return { kind: 'network', cause: 'reset' };
  }
  return { kind: 'network', cause: 'other' };
}

/** The codes of an error and its causes (undici wraps socket errors; Node wraps connect errors in AggregateError). */
function errorCodes(err: unknown, depth = 0): string[] {
  if (err === null || typeof err !== 'object' || depth > 4) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const codes = typeof e.code === 'string' ? [e.code] : [];
  codes.push(...errorCodes(e.cause, depth + 1));
  if (Array.isArray(e.errors)) for (const inner of e.errors) codes.push(...errorCodes(inner, depth + 1));
  return codes;
}
