/**
 * The console's rules for `/metrics`: the Host allow-list, and the console token when it has one
 * (bound beyond loopback). A scraper cannot keep a header in some setups, so the token may also
 * come as `?token=`, as for the feed.
 */
import type { FastifyRequest } from 'fastify';
import { ConsoleApiError } from './api-envelope.js';
import type { HostAllowList } from './host-allow-list.js';
import { tokenFromHeaders, tokenMatches, tokenRefusal } from './token.js';

export function checkMetricsRequest(request: FastifyRequest, options: { hosts: HostAllowList; token: string | null }): void {
  if (!options.hosts.hostAllowed(request.headers.host)) {
    throw new ConsoleApiError(403, 'FORBIDDEN', 'Host header not allowed: scrape the console address, or add the name with --console-allowed-host');
  }
  if (options.token === null) return;
  const query = request.query as Record<string, unknown> | undefined;
  const given = tokenFromHeaders(request.headers) ?? (typeof query?.token === 'string' ? query.token : undefined);
  if (!tokenMatches(options.token, given)) {
    throw new ConsoleApiError(401, 'UNAUTHORIZED', tokenRefusal('/metrics', given, 'send the x-hookrelay-token header or ?token='));
  }
}
