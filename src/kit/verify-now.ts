/**
 * The library's synchronous `verify` (`import { verify } from 'hookrelay'`): the core's check, at the
 * system clock's time unless `nowSeconds` is given. The core reads no clock; this is where the
 * library's default time comes from.
 */
import { verify as verifyAt } from '../core/signature/verify.js';
import type { VerifyOptions, VerifyResult } from '../core/signature/verify-verdict.js';
import { atNow } from './at-now.js';

export function verify(rawBody: Buffer | Uint8Array | string, header: string | readonly string[] | undefined | null, options: VerifyOptions): VerifyResult {
  return verifyAt(rawBody, header, atNow(options));
}
