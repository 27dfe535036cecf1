/**
 * `verifyAsync` as Node's `hookrelay` exports it: Web Crypto for the check, and on a refusal with
 * `explain`, the hints of the synchronous `verify` (re-serialised body, whitespace in a secret…),
 * which only node:crypto can compute without an await per guess.
 */
import { verify } from './verify-now.js';
import type { VerifyResult } from '../core/signature/verify-verdict.js';
import { verifyAsync as verifyWeb, type RawBody, type VerifyAsyncOptions } from './verify-async.js';

/** As src/kit/verify-async.ts `verifyAsync`, with every hint `hookrelay verify` gives. */
export async function verifyAsync(rawBody: RawBody, header: string | readonly string[] | undefined | null, options: VerifyAsyncOptions): Promise<VerifyResult> {
  const result = await verifyWeb(rawBody, header, options);
  if (result.ok || options.explain !== true) return result;
  const bytes = rawBody instanceof ArrayBuffer ? new Uint8Array(rawBody) : rawBody;
  // The same clock for both, so the same verdict: only the hints are taken from the synchronous check.
  const nowSeconds = options.nowSeconds ?? (result.timestamp !== undefined && result.skewSeconds !== undefined ? result.timestamp - result.skewSeconds : undefined);
  const explained = verify(bytes, header, nowSeconds === undefined ? options : { ...options, nowSeconds });
  return explained.ok ? result : { ...result, hints: explained.hints };
}
