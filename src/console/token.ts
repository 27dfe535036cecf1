/** The console token (issue 6, after Jupyter's): required when the console is bound beyond loopback. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const TOKEN_HEADER = 'x-hookrelay-token';
/** WebSocket subprotocol the page speaks; the token may ride along as `hookrelay.token.<token>`. */
export const FEED_PROTOCOL = 'hookrelay.v1';
export const TOKEN_PROTOCOL_PREFIX = 'hookrelay.token.';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison (through digests, so lengths leak nothing either). */
export function tokenMatches(expected: string, given: string | undefined | null): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 1024) return false;
  return timingSafeEqual(digest(expected), digest(given));
}

/**
 * Why a request was refused for its token, `what` being the part asked for ("this console",
 * "metrics"): none sent, or one that is not this console's. The token itself is never echoed.
 */
export function tokenRefusal(what: string, given: string | undefined | null, howToSend: string): string {
  // A generated token is in the URL printed at start; a given one is hidden there, so name both.
  const which = 'the one given by --console-token or HOOKRELAY_CONSOLE_TOKEN, else the one generated in the console URL printed at start';
  return typeof given === 'string' && given.length > 0
    ? `${what}: the token sent is not this console's: send ${which}`
    : `${what} needs its token (${which}): ${howToSend}`;
}

/** The token of an API request: `x-hookrelay-token` or `Authorization: Bearer`. */
export function tokenFromHeaders(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[TOKEN_HEADER];
  if (typeof header === 'string') return header;
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer /i.test(auth)) return auth.slice(7).trim();
  return undefined;
}

/** The token of a WebSocket upgrade: a `hookrelay.token.*` subprotocol, else the `token` query parameter. */
export function tokenFromUpgrade(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined {
  const protocols = headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    for (const p of protocols.split(',')) {
      const name = p.trim();
      if (name.startsWith(TOKEN_PROTOCOL_PREFIX)) return name.slice(TOKEN_PROTOCOL_PREFIX.length);
    }
  }
  return query.get('token') ?? tokenFromHeaders(headers);
}
