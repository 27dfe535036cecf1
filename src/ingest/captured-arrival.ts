/**
 * A captured request (header lines and the raw body, as `hookrelay verify` reads them) as the
 * Arrival the HTTP source would have built from it (build-receiver.ts), so the receiver's own checks
 * judge it offline: header names lower-cased and repeats combined as Node combines them, and a body
 * over the limit left unread, as fastify leaves it.
 */
import { NO_SENDER, type Arrival } from './arrival.js';

export interface CapturedInput {
  /** Name and value of each header line, in order. */
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
  /** Milliseconds since the epoch: the moment to judge the signature's `t` against. */
  receivedAt: number;
  /** The receiver's `--body-limit`. */
  bodyLimitBytes: number;
}

/**
 * Headers Node keeps only the first of when repeated; `set-cookie` is kept as a list, `cookie`
 * joined with "; ", any other joined with ", " (Node's IncomingMessage, matchKnownFields).
 */
const FIRST_WINS = new Set([
  'content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization',
  'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag',
  'last-modified', 'server', 'age', 'expires',
]);

const EMPTY_BODY = Buffer.alloc(0);


export function capturedArrival(input: CapturedInput): Arrival {
  const headers: Record<string, string | string[]> = {};
  const rawHeaders: string[] = [];
  for (const [name, value] of input.headers) {
    rawHeaders.push(name, value);
    const key = name.toLowerCase();
    const previous = headers[key];
    if (key === 'set-cookie') headers[key] = [...((previous as string[] | undefined) ?? []), value];
    else if (previous === undefined) headers[key] = value;
    else if (FIRST_WINS.has(key)) continue;
    else headers[key] = `${previous as string}${key === 'cookie' ? '; ' : ', '}${value}`;
  }
  const tooLarge = input.body.length > input.bodyLimitBytes;
  return {
    source: 'http',
    receivedAt: input.receivedAt,
    rawBody: tooLarge ? EMPTY_BODY : input.body,
    headers,
    rawHeaders,
    connection: NO_SENDER,
    ...(tooLarge ? { unread: { problem: 'too_large' as const, declaredBytes: input.body.length } } : {}),
  };
}
