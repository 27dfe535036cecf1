/**
 * The HTTP client of the service's API (issue 17), on undici. A good API citizen:
 * - timeouts on connect, headers, each body chunk, and the whole request; a body size cap;
 * - pacing by our own count and by `RateLimit-Remaining` (pacer.ts, spec 8);
 * - on 429, waits for `Retry-After` (seconds or an HTTP date), up to a cap and a number of tries;
 * - retries 5xx and network errors with exponential backoff and jitter, capped; a POST (create,
 *   replay) is retried only when it surely did not land (429, a refused connection), since a
 *   second create would mint a second webhook and a second secret;
 * - reads only the fields it knows (spec 9.2) and shows the error envelope verbatim (spec 7).
 * Every message it throws has the API key scrubbed out.
 */
import { jitteredBackoffMs } from '../core/backoff.js';
import type { ProxyDispatchers, ProxySettings } from '../runtime/proxy.js';
import { parseRetryAfter } from '../core/retry-policy/retry-after.js';
import { VERSION } from '../runtime/version.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { secretHint } from '../core/secret-hint.js';
import { displayUrl } from '../core/url-secrets.js';
import { createPacer, headerInteger, type Budget, type Pacer } from './pacer.js';
import { excerpt, ServiceError, describeEnvelope, type ErrorEnvelope } from './service-error.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface WaitNotice {
  reason: 'rate_limit' | 'retry_after' | 'backoff';
  ms: number;
  /** What caused it, for the terminal: "429 TOO_MANY_REQUESTS", "503", "ECONNRESET". */
  cause: string;
}

export interface ApiClientOptions {
  /** `{base_url}` including /v1. */
  baseUrl: string;
  apiKey: string;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Longest silence between two chunks of a body. */
  bodyTimeoutMs?: number;
  /** The whole request, first byte sent to last byte read: a body trickling in forever ends here. */
  requestTimeoutMs?: number;
  maxBodyBytes?: number;
  /** Tries of one request on 5xx and network errors (the first included). */
  maxTries?: number;
  /** Answers of 429 taken before giving up on one request. */
  max429?: number;
  /** Longest Retry-After honoured; a longer one is an error naming it, never a silent hang. */
  maxRetryAfterMs?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  pacer?: Pacer;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onWait?: (notice: WaitNotice) => void;
  /** Which proxy the API is reached through (src/runtime/proxy.ts decides, per URL); absent: direct. */
  proxy?: ProxySettings | null;
}

export interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** A 2xx answer: the whole envelope (spec 2.1) and its `data`. */
export interface ApiAnswer {
  status: number;
  envelope: Record<string, unknown>;
  data: unknown;
}

export interface ApiClient {
  call(method: Method, path: string, options?: CallOptions): Promise<ApiAnswer>;
  /** Replaces the key in any text by "[API key]": for messages built outside the client. */
  scrub(text: string): string;
  close(): Promise<void>;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'REQUEST_TIMEOUT']);
/** Failures after which a request surely never reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createApiClient(options: ApiClientOptions): ApiClient {
  const o = {
    connectTimeoutMs: 10_000,
    headersTimeoutMs: 30_000,
    bodyTimeoutMs: 30_000,
    requestTimeoutMs: 60_000,
    maxBodyBytes: 16 * 1024 * 1024,
    maxTries: 5,
    max429: 8,
    maxRetryAfterMs: 120_000,
    backoffBaseMs: 500,
    backoffCapMs: 8_000,
    ...options,
  };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const pacer = options.pacer ?? createPacer();
  const base = options.baseUrl.replace(/\/+$/, '');
  // undici is loaded on the first call: every command that can talk to the service would
  // otherwise load it at start, listen included (cold start is measured in npm run bench).
  let undici: Promise<{ dispatchers: ProxyDispatchers; request: typeof import('undici').request }> | null = null;
  const http = () =>
    (undici ??= Promise.all([import('../runtime/undici-on-use.js'), import('../runtime/proxy.js')]).then(([{ request }, { proxyDispatchers }]) => ({
      dispatchers: proxyDispatchers(options.proxy, { connect: { timeout: o.connectTimeoutMs }, headersTimeout: o.headersTimeoutMs, bodyTimeout: o.bodyTimeoutMs }),
      request,
    })));
  const key = options.apiKey;
  const scrub = (text: string) => (key.length > 0 && text.includes(key) ? text.split(key).join('[API key]') : text);
  const fail = (code: ConstructorParameters<typeof ServiceError>[0], message: string, status: number | null = null, envelope: ErrorEnvelope | null = null, hint = ''): never => {
    const hintText = hint.replace(/^; /, '');
    throw new ServiceError(code, scrub(message), status, envelope === null ? null : scrubEnvelope(envelope, scrub), hintText === '' ? null : scrub(hintText));
  };

  async function wait(notice: WaitNotice): Promise<void> {
    if (notice.ms <= 0) return;
    options.onWait?.(notice);
    await sleep(notice.ms);
  }

  const backoffMs = (retry: number) => jitteredBackoffMs({ initialMs: o.backoffBaseMs, maxMs: o.backoffCapMs }, retry, random);

  async function call(method: Method, path: string, callOptions: CallOptions = {}): Promise<ApiAnswer> {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(callOptions.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const budget: Budget = method === 'GET' ? 'read' : 'write';
    const what = `${method} ${url.pathname}`;
    let tries = 0;
    let answers429 = 0;
    for (;;) {
      const pacedMs = pacer.delayBefore(budget, now());
      // RateLimit-Reset is capped as Retry-After is: a wait of days is no wait, and setTimeout
      // fires at once beyond 2^31-1 ms, so a longer one would hammer the service instead.
      if (pacedMs > o.maxRetryAfterMs) {
        return fail('RATE_LIMITED', `${what}: the service's rate-limit headers (RateLimit-Remaining: 0, RateLimit-Reset) ask to wait ${Math.ceil(pacedMs / 1000)} s before the next ${budget}, more than the ${o.maxRetryAfterMs / 1000} s this command waits: try again later`);
      }
      await wait({ reason: 'rate_limit', ms: pacedMs, cause: `${budget} budget` });
      tries++;
      pacer.sent(budget, now());
      let got: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };
      try {
        got = await send(method, url, callOptions.body);
      } catch (err) {
        const code = errorCode(err);
        const timeout = TIMEOUT_CODES.has(code);
        const retryable = method !== 'POST' || NOT_SENT_CODES.has(code);
        const cause = timeout ? timeoutText(code, o) : `${code}: ${(err as Error).message}`;
        if (retryable && tries < o.maxTries && (timeout || NETWORK_CODES.has(code))) {
          await wait({ reason: 'backoff', ms: backoffMs(tries), cause: code });
          continue;
        }
        if (err instanceof ServiceError) throw new ServiceError(err.code, scrub(`${what}: ${err.message}`), err.status, err.envelope);
        return fail(timeout ? 'TIMEOUT' : 'NETWORK', `${what}: ${timeout ? 'timed out' : 'could not reach the service'} (${cause})${tries > 1 ? ` after ${tries} tries` : ''}; is --api-url right and the service up?`);
      }
      const rate = {
        remaining: headerInteger(got.headers['ratelimit-remaining']),
        resetSeconds: headerInteger(got.headers['ratelimit-reset']),
      };
      const retryAfter = parseRetryAfter(got.headers['retry-after'], now());
      pacer.observe(budget, { ...rate, ...(retryAfter.ok ? { retryAfterSeconds: retryAfter.seconds } : {}) }, now());
      // An answer that echoes the key back (a proxy's debug page, a hostile service) must not carry it
      // into output, --json, the secret set's origins or reconcile's saved state: scrubbed at the source.
      const parsed = parseBody(got, scrub);

      if (got.status === 429) {
        answers429++;
        const detail = parsed.envelope ? describeEnvelope(429, parsed.envelope) : `the service answered 429`;
        if (answers429 >= o.max429) return fail('RATE_LIMITED', `${what}: ${detail}; still rate limited after ${answers429} answers of 429, giving up (another client using the same key?)`, 429, parsed.envelope);
        const askedMs = retryAfter.ok ? retryAfter.seconds * 1000 : backoffMs(answers429);
        if (askedMs > o.maxRetryAfterMs) {
          return fail('RATE_LIMITED', `${what}: ${detail}; Retry-After asks to wait ${Math.ceil(askedMs / 1000)} s, more than the ${o.maxRetryAfterMs / 1000} s this command waits: try again later`, 429, parsed.envelope);
        }
        tries--; // a 429 is the budget talking, not a failed try
        await wait({ reason: 'retry_after', ms: Math.max(askedMs, 0), cause: `429${parsed.envelope ? ` ${excerpt(parsed.envelope.code, 40)}` : ''}${retryAfter.ok ? ` Retry-After ${excerpt(String(got.headers['retry-after']), 60)}` : ''}` });
        continue;
      }
      if (got.status >= 500 && method !== 'POST' && tries < o.maxTries) {
        const ms = retryAfter.ok && got.status === 503 ? Math.min(retryAfter.seconds * 1000, o.maxRetryAfterMs) : backoffMs(tries);
        await wait({ reason: 'backoff', ms, cause: String(got.status) });
        continue;
      }
      const after = tries > 1 ? ` (after ${tries} tries)` : '';
      if (got.status >= 300 && got.status < 400) {
        return fail('BAD_RESPONSE', `${what}: the service answered ${got.status}, a redirect${typeof got.headers.location === 'string' ? ` to ${excerpt(got.headers.location, 200)}` : ''}: is --api-url the API's base URL (with /v1)? Redirects are not followed, so the key is never sent elsewhere`, got.status);
      }
      if (got.status >= 400 || got.status < 200) {
        // The base URL includes /v1 (spec, top and section 9): without it every path answers 404.
        const hint =
          got.status === 404 && !/\/v\d+$/.test(new URL(base).pathname)
            ? `; is --api-url the API's base URL? It usually ends in /v1 (${excerpt(displayUrl(base), 200)}/v1)`
            : got.status === 401
              ? unauthorizedHint(key, base)
              : '';
        if (parsed.envelope) return fail('API_ERROR', `${describeEnvelope(got.status, parsed.envelope)}${after}${hint}`, got.status, parsed.envelope, hint);
        return fail('BAD_RESPONSE', `${what}: the service answered ${got.status} ${parsed.problem ?? 'without the API\'s error envelope (spec 7)'}${after}${hint}`, got.status, null, hint);
      }
      if (parsed.json === undefined) return fail('BAD_RESPONSE', `${what}: the service answered ${got.status} ${parsed.problem ?? 'with no body'}`, got.status);
      const envelope = parsed.json;
      if (!('data' in envelope)) return fail('BAD_RESPONSE', `${what}: the service answered ${got.status} without the API's envelope: no "data" field (spec 2.1); got ${excerpt(JSON.stringify(envelope), 200)}`, got.status);
      if (envelope.success === false) return fail('BAD_RESPONSE', `${what}: the service answered ${got.status} with "success": false`, got.status);
      return { status: got.status, envelope, data: envelope.data };
    }
  }

  async function send(method: Method, url: URL, body: unknown) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new ServiceError('TIMEOUT', `no complete answer within ${o.requestTimeoutMs} ms (a body arriving too slowly?)`)), o.requestTimeoutMs);
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json', 'user-agent': `hookrelay/${VERSION}` };
      const payload = body === undefined ? undefined : JSON.stringify(body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const { dispatchers, request } = await http();
      const res = await request(url, { method, headers, body: payload, dispatcher: dispatchers.for(url), signal: controller.signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > o.maxBodyBytes) {
          res.body.destroy();
          throw new ServiceError('BAD_RESPONSE', `the answer is larger than ${o.maxBodyBytes} bytes: refused`);
        }
        chunks.push(chunk as Buffer);
      }
      return { status: res.statusCode, headers: res.headers as Record<string, string | string[] | undefined>, body: Buffer.concat(chunks) };
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason instanceof ServiceError) {
        const e = new Error(controller.signal.reason.message) as NodeJS.ErrnoException;
        e.code = 'REQUEST_TIMEOUT';
        throw e;
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    call,
    scrub,
    async close() {
      if (undici) await (await undici).dispatchers.close();
    },
  };
}

interface ParsedBody {
  json?: Record<string, unknown>;
  envelope: ErrorEnvelope | null;
  /** Why the body is not the API's JSON, for the message. */
  problem?: string;
}

/** Every string of a parsed answer through `scrub`. */
function scrubStrings(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubStrings(item, scrub));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubStrings(v, scrub)]));
  return value;
}

function parseBody(got: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }, scrub: (text: string) => string): ParsedBody {
  if (got.body.length === 0) return { envelope: null, problem: 'with an empty body' };
  let text = scrub(got.body.toString('utf8'));
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const type = String(got.headers['content-type'] ?? '');
  const trimmed = text.trimStart();
  if (/text\/html/i.test(type) || /^<(!doctype|html|head|body|\?xml)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]{0,200})/i.exec(text)?.[1]?.trim();
    return { envelope: null, problem: `with an HTML page, not the API's JSON: a proxy or gateway in front of the service?${title ? ` (page title: "${excerpt(title, 100)}")` : ''}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { envelope: null, problem: `with malformed JSON (${excerpt((err as Error).message, 120)}); it begins: ${excerpt(trimmed, 80)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { envelope: null, problem: `with JSON that is not the API's envelope object (spec 2.1): ${excerpt(trimmed, 80)}` };
  }
  // Scrubbed again once parsed: a key written with \u escapes in the text is whole only now.
  const json = scrubStrings(value, scrub) as Record<string, unknown>;
  const envelope = typeof json.code === 'string' && typeof json.error === 'string' && json.success !== true
    ? { error: json.error, code: json.code, ...(json.details === undefined ? {} : { details: json.details }), ...(typeof json.requestId === 'string' ? { requestId: json.requestId } : {}), raw: json }
    : null;
  return { json, envelope };
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; name?: string };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  if (e?.name === 'AbortError') return 'REQUEST_TIMEOUT';
  return 'UNKNOWN';
}

function timeoutText(code: string, o: { connectTimeoutMs: number; headersTimeoutMs: number; bodyTimeoutMs: number; requestTimeoutMs: number }): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT': return `no connection within ${o.connectTimeoutMs} ms`;
    case 'UND_ERR_HEADERS_TIMEOUT': return `no answer within ${o.headersTimeoutMs} ms`;
    case 'UND_ERR_BODY_TIMEOUT': return `the body stalled for ${o.bodyTimeoutMs} ms`;
    default: return `no complete answer within ${o.requestTimeoutMs} ms: a body arriving too slowly?`;
  }
}

function scrubEnvelope(envelope: ErrorEnvelope, scrub: (t: string) => string): ErrorEnvelope {
  const raw = JSON.parse(scrub(JSON.stringify(envelope.raw))) as Record<string, unknown>;
  return { ...envelope, error: scrub(envelope.error), code: scrub(envelope.code), raw };
}

/**
 * Which key a 401 answered (its hint only) and where a good one comes from: the API's own words say
 * only "invalid API key", and a local emulator's keys are one command away.
 */
export function unauthorizedHint(key: string, base: string): string {
  const local = isLoopbackHost(new URL(base).hostname);
  return `; this run sent the key ${secretHint(key)} (--api-key or HOOKRELAY_API_KEY)${local ? '; for `hookrelay emulate`, `hookrelay emulate keys` lists its keys' : ''}`;
}
