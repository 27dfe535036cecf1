/** One POST to the app: no redirects followed, the answer's body discarded, a hard timeout. */
import { request, type Dispatcher } from 'undici';

export interface TargetAnswer {
  status: number | null;
  /** Coarse reason when there was no 2xx: timeout, could not connect, … */
  error: string | null;
  latencyMs: number;
}

export async function postToTarget(
  dispatcher: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<TargetAnswer> {
  const started = performance.now();
  try {
    const response = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    return { status, error: ok ? null : status >= 300 && status < 400 ? 'redirect not followed' : `responded ${status}`, latencyMs: performance.now() - started };
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
    const error = timedOut ? `timeout after ${timeoutMs} ms` : e.code === 'ECONNREFUSED' ? 'could not connect (ECONNREFUSED)' : `network error (${e.code ?? e.message ?? 'unknown'})`;
    return { status: null, error, latencyMs: performance.now() - started };
  }
}
