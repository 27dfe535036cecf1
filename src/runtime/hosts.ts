/** Host names as they appear in URLs, and which ones stay on this machine. */

/** The wildcard addresses: a listener bound there is reachable from other machines. */
export function isAnyAddress(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** The host part of a URL for a bound address (IPv6 in brackets; any-address shown as loopback). */
export function urlHost(host: string): string {
  if (isAnyAddress(host)) return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Whether a host name or address stays on this machine: any case, IPv6 with or without brackets. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
