/**
 * Where the control API may replay to: the configured forward target, or this machine. Anything
 * else would let whoever reaches the console make hookrelay POST signed deliveries anywhere.
 */
import { isLoopbackHost } from '../runtime/hosts.js';

export type ReplayTarget = { ok: true; target: string | null } | { ok: false; message: string };

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** `to` as given in the request body; `forwardTo` the configured target (null when none). */
export function checkReplayTarget(to: unknown, forwardTo: string | null): ReplayTarget {
  if (to === undefined || to === null || to === '') {
    return forwardTo === null
      ? { ok: false, message: 'no --forward-to target is configured: give "to", a loopback URL such as http://localhost:3000/webhooks' }
      : { ok: true, target: null };
  }
  if (typeof to !== 'string' || to.length > 2048) return { ok: false, message: '"to" must be a URL of at most 2048 characters' };
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    return { ok: false, message: '"to" is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: '"to" must be an http or https URL' };
  if (forwardTo !== null && sameUrl(url.href, forwardTo)) return { ok: true, target: url.href };
  if (!isLoopbackHost(url.hostname)) {
    return { ok: false, message: '"to" must be the configured forward target or a loopback URL (localhost, 127.0.0.1, [::1])' };
  }
  return { ok: true, target: url.href };
}
