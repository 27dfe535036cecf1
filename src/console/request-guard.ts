/**
 * The checks every console request passes before routing (issue 6, "Security"): Host allow-list,
 * token, and Origin on state-changing requests. WebSocket upgrades get the same checks in
 * feed-upgrade.ts. Security headers are set here so that refusals carry them too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleApiError } from './api-envelope.js';
import type { HostAllowList } from './host-allow-list.js';
import { tokenFromHeaders, tokenMatches, tokenRefusal } from './token.js';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // Another site cannot even embed our answers as no-cors resources.
  'cross-origin-resource-policy': 'same-origin',
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The route serving the built page; it holds nothing secret and needs no token. */
export const STATIC_ROUTE = '/*';

/** `application/json`, with or without parameters. */
export function isJsonContentType(value: string | undefined): boolean {
  return typeof value === 'string' && value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export interface GuardOptions {
  hosts: HostAllowList;
  token: string | null;
}

/** Throws a ConsoleApiError naming why a request is refused; returns when it may proceed. */
export function checkRequest(request: FastifyRequest, options: GuardOptions): void {
  const { headers } = request;
  if (!options.hosts.hostAllowed(headers.host)) {
    throw new ConsoleApiError(403, 'FORBIDDEN', 'Host header not allowed: open the console at http://localhost:<console port>, or add the name with --console-allowed-host');
  }
  // Decided by the matched route, not by the raw path: the router decodes `/%61pi/status` to an
  // API route. Only the page's static files (and plain 404s) are served without the token.
  const route = request.routeOptions.url;
  const needsToken = options.token !== null && route !== undefined && route !== STATIC_ROUTE;
  if (needsToken) {
    const given = tokenFromHeaders(headers);
    if (!tokenMatches(options.token!, given)) throw new ConsoleApiError(401, 'UNAUTHORIZED', tokenRefusal('this console', given, 'send the x-hookrelay-token header'));
  }
  if (SAFE_METHODS.has(request.method)) return;

  // Browsers send Origin on every cross-origin or non-GET fetch and form post: when there is one,
  // it must be ours exactly. Without one the client is not a browser page (curl, scripts), and
  // the JSON content type below is what a cross-site HTML form can never send.
  const origin = headers.origin;
  if (origin !== undefined) {
    if (!options.hosts.originAllowed(origin)) {
      throw new ConsoleApiError(403, 'FORBIDDEN', 'cross-origin request refused: the control API only answers the console page itself');
    }
  } else if (request.method !== 'DELETE' && !isJsonContentType(headers['content-type'])) {
    throw new ConsoleApiError(403, 'FORBIDDEN', 'a request without Origin must be JSON (content-type: application/json)');
  }
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') {
    throw new ConsoleApiError(403, 'FORBIDDEN', `cross-site request refused (sec-fetch-site: ${site === 'same-site' ? 'same-site' : 'cross-site'})`);
  }
}

export function setSecurityHeaders(reply: FastifyReply): void {
  reply.headers(SECURITY_HEADERS);
}
