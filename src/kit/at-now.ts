/** The library's default time: the core reads no clock, so verify and verifyAsync fill `nowSeconds` here (portable: no Node module). */
import type { VerifyOptions } from '../core/signature/verify-verdict.js';

/** The system clock in whole unix seconds. */
export const systemSeconds = (): number => Math.floor(Date.now() / 1000);

/** The options with the time filled in; anything that is not an options object goes on as it is, for the core to refuse by name. */
export function atNow<O extends VerifyOptions>(options: O): O & { nowSeconds: number } {
  if (options === null || typeof options !== 'object') return options as O & { nowSeconds: number };
  return { ...options, nowSeconds: options.nowSeconds ?? systemSeconds() };
}
