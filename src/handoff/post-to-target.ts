/**
 * One POST to the app: no redirects followed, the answer's body discarded (at most 64 KiB read,
 * then the connection is dropped), a hard timeout.
 *
 * Through undici's `dispatch` with a handler, not `request()`: `request()` builds a response
 * stream per call, and its per-call `AbortSignal.timeout` a timer, which together cost ~20 µs of
 * a ~45 µs hand-off (measured on loopback). Deadlines share one sweeping timer instead.
 */
import type { Dispatcher } from 'undici';
import { createDeadlineSweeper, type Deadline } from '../runtime/deadline-sweeper.js';

export interface TargetAnswer {
  status: number | null;
  /** Coarse reason when there was no 2xx: timeout, could not connect, … */
  error: string | null;
  latencyMs: number;
}

/** Bytes of an answer's body read (and thrown away) before the connection is dropped instead. */
const DISCARD_LIMIT = 64 * 1024;

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

// Every POST in flight, on one timer: a deadline is kept to within 25 ms.
const deadlines = createDeadlineSweeper(25);

/** Targets are few and reused: parsed once each. */
const parsedTargets = new Map<string, { origin: string; path: string }>();
function parseTarget(url: string): { origin: string; path: string } {
  let target = parsedTargets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (parsedTargets.size < 64) parsedTargets.set(url, target);
  }
  return target;
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT';
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  if (e.code === 'ECONNREFUSED') return 'could not connect (ECONNREFUSED)';
  const tls = describeTlsFailure(e);
  if (tls) return tls;
  return `network error (${e.code ?? e.message ?? 'unknown'})`;
}

/** Certificate checks that fail (OpenSSL's verify codes, as Node reports them), and why each happens. */
const UNTRUSTED_CERTIFICATE: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed root that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate was issued by an authority that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate was issued by an authority that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate was issued by an authority that is not trusted',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: "its certificate does not name the target's host",
};

/**
 * A TLS failure said as such: which check failed and what to do. Only hand-offs are concerned
 * (the messages name the forward flags).
 */
function describeTlsFailure(e: { code?: string; message?: string }): string | null {
  const code = e.code ?? '';
  const why = UNTRUSTED_CERTIFICATE[code];
  if (why) return `TLS error: the target's certificate is not trusted: ${why} (${code}); trust it with --forward-ca FILE, or pass --forward-insecure for a local app`;
  if (code.startsWith('ERR_SSL_') || code === 'EPROTO' || code.startsWith('ERR_TLS_')) {
    const hint = code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ? ' (an https:// URL to a target that speaks plain http?)' : '';
    return `TLS error: the handshake with the target failed (${code})${hint}`;
  }
  return null;
}

export function postToTarget(
  dispatcher: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<TargetAnswer> {
  const started = performance.now();
  let target: { origin: string; path: string };
  try {
    target = parseTarget(url);
  } catch {
    return Promise.resolve({ status: null, error: `network error (not a URL: ${url.slice(0, 200)})`, latencyMs: 0 });
  }
  return new Promise((resolve) => {
    let status: number | null = null;
    let discarded = 0;
    let controller: Dispatcher.DispatchController | null = null;
    let expired = false;
    let settled = false;
    const deadline: Deadline = {
      at: started + timeoutMs,
      expire() {
        expired = true;
        // Not yet on a socket: aborted as soon as it is (the Agent bounds the connect itself).
        controller?.abort(new TimeoutError(`timeout after ${timeoutMs} ms`));
      },
    };
    const finish = (answer: Omit<TargetAnswer, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      deadlines.unwatch(deadline);
      resolve({ ...answer, latencyMs: performance.now() - started });
    };
    deadlines.watch(deadline);
    try {
      dispatcher.dispatch(
        { origin: target.origin, path: target.path, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
        {
          onRequestStart(c) {
            controller = c;
            if (expired) c.abort(new TimeoutError(`timeout after ${timeoutMs} ms`));
          },
          onResponseStart(_c, statusCode) {
            status = statusCode;
          },
          onResponseData(c, chunk) {
            discarded += chunk.length;
            // The status is known; a body this large is not worth reading to keep the connection.
            if (discarded > DISCARD_LIMIT) c.abort(new Error('answer body over the discard limit'));
          },
          onResponseEnd() {
            finish(answerFor(status!));
          },
          onResponseError(_c, err) {
            // The status line arrived before the body failed, was cut or ran out of time: that answer stands.
            if (status !== null) finish(answerFor(status));
            else finish({ status: null, error: describeFailure(err, timeoutMs) });
          },
        },
      );
    } catch (err) {
      finish({ status: null, error: describeFailure(err, timeoutMs) });
    }
  });
}

function answerFor(status: number): Omit<TargetAnswer, 'latencyMs'> {
  const ok = status >= 200 && status < 300;
  return { status, error: ok ? null : status >= 300 && status < 400 ? 'redirect not followed' : `responded ${status}` };
}
