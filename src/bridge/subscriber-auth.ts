/**
 * Who may subscribe: the bearer token of an upgrade request, compared in constant time with every
 * `--bridge-token`, and the subscriber's name, both read from hostile headers. A refused token is
 * worth an operator's notice, at most one every REFUSAL_NOTICE_MS.
 */
import { parseSinceHeader, SINCE_HEADER, type BridgeSince } from '../core/bridge-since.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isSubscriberName } from '../core/bridge-protocol.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { Admission } from './bridge-listener.js';

export interface BridgeToken {
  /** Shown in logs instead of the token. */
  name: string;
  token: string;
  /** Trigger globs this token may receive; empty: every trigger. */
  triggers: string[];
}

/** An admitted subscriber: its token, and `token/name`, the key its cursor is kept under. */
export interface Subscriber {
  key: string;
  token: BridgeToken;
  /** `connect --since`: send again from here (never past the stored cursor). */
  since?: BridgeSince;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Constant-time: every configured token is compared, whichever matches. */
function findToken(tokens: readonly BridgeToken[], presented: string | undefined): BridgeToken | null {
  if (!presented) return null;
  const given = digest(presented);
  let found: BridgeToken | null = null;
  for (const token of tokens) if (timingSafeEqual(digest(token.token), given) && !found) found = token;
  return found;
}

/** At most one notice of refused tokens this often. */
const REFUSAL_NOTICE_MS = 10_000;

/** The admission of an upgrade request: 401 without a valid token, 400 without a valid subscriber name. */
export function subscriberAuth(tokens: readonly BridgeToken[], hub: EventHub): (req: IncomingMessage) => Admission<Subscriber> {
  // A client retrying (or a scan) must not flood the log: the next notice counts the refusals it did not print.
  let refusalNoticeAt = -Infinity;
  let refusalsUnnoticed = 0;
  const noticeRefusal = (req: IncomingMessage) => {
    const now = performance.now();
    if (now - refusalNoticeAt < REFUSAL_NOTICE_MS) {
      refusalsUnnoticed++;
      return;
    }
    const more = refusalsUnnoticed > 0 ? ` (and ${refusalsUnnoticed} more since the last notice)` : '';
    refusalNoticeAt = now;
    refusalsUnnoticed = 0;
    // Behind the TLS proxy of docs/deploy.md the socket's address is the proxy's: its X-Forwarded-For too (sender-supplied, shown as text).
    const forwarded = req.headers['x-forwarded-for'];
    const via = typeof forwarded === 'string' ? ` (forwarded for ${forwarded.slice(0, 100).replace(/[^\x20-\x7e]/g, '?')})` : '';
    hub.emit('notice', { level: 'warn', message: `bridge: refused a client from ${req.socket.remoteAddress ?? 'an unknown address'}${via}: no valid bridge token${more}` });
  };

  return (req) => {
    const auth = req.headers.authorization;
    const token = findToken(tokens, typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined);
    if (!token) {
      noticeRefusal(req);
      return { ok: false, status: 401, reason: 'a valid bridge token is required' };
    }
    const name = req.headers['x-hookrelay-subscriber'];
    if (typeof name !== 'string' || !isSubscriberName(name)) return { ok: false, status: 400, reason: 'x-hookrelay-subscriber must be a name of letters, digits, dots, dashes and underscores' };
    // `connect --since`: a window sent again, read by the same rules as the client wrote it.
    const sinceText = req.headers[SINCE_HEADER];
    let since: BridgeSince | undefined;
    if (sinceText !== undefined) {
      const parsed = typeof sinceText === 'string' ? parseSinceHeader(sinceText) : { ok: false as const, message: `${SINCE_HEADER} must be sent once` };
      if (!parsed.ok) return { ok: false, status: 400, reason: parsed.message };
      since = parsed.since;
    }
    // A subscriber belongs to its token: the same name under another token is another subscriber,
    // so no token can move a cursor it was not given.
    return { ok: true, subscriber: { key: `${token.name}/${name}`, token, ...(since ? { since } : {}) } };
  };
}
