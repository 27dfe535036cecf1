/**
 * Which Host and Origin values the console answers (issue 6: no DNS rebinding, no cross-site
 * WebSocket, no CSRF — the advisories behind Vite CVE-2025-24010 and webpack-dev-server
 * CVE-2018-14732). Loopback names are allowed only with the console's own port: a page served
 * by another local app (another port) is a foreign origin.
 */

import { isAnyAddress, isLoopbackHost } from '../runtime/hosts.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function isWildcard(host: string): boolean {
  return host === '' || isAnyAddress(host);
}

function bracketIfIpv6(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export interface HostAllowList {
  /** `value` is a Host header (`name` or `name:port`). */
  hostAllowed(value: string | undefined): boolean;
  /** `value` is an Origin header; `null`, missing and foreign origins are refused. */
  originAllowed(value: string | undefined): boolean;
}

export interface HostAllowListOptions {
  listenHost: string;
  allowedHosts: readonly string[];
  /** Ports the console is bound to; read lazily because a port-0 listener knows it only after `listen`. */
  ports: () => readonly number[];
}

export function createHostAllowList(options: HostAllowListOptions): HostAllowList {
  // Extra names without a port match any port (a reverse proxy may hide it); with a port, exactly.
  const anyPort = new Set<string>();
  const exact = new Set<string>();
  for (const raw of options.allowedHosts) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (/:\d+$/.test(entry) && !/^[^[]*:.*:/.test(entry)) exact.add(entry);
    else anyPort.add(bracketIfIpv6(entry));
  }
  const listen = options.listenHost.toLowerCase();
  const own = isWildcard(listen) || isLoopbackHost(listen) ? LOOPBACK_NAMES : [...LOOPBACK_NAMES, bracketIfIpv6(listen)];

  let cached: Set<string> | null = null;
  const portBound = (): Set<string> => {
    if (cached) return cached;
    const ports = options.ports();
    const set = new Set<string>();
    for (const port of ports) {
      for (const name of own) {
        set.add(`${name}:${port}`);
        // Browsers leave out the default port.
        if (port === 80) set.add(name);
      }
    }
    if (ports.length > 0) cached = set;
    return set;
  };

  const hostAllowed = (value: string | undefined): boolean => {
    if (typeof value !== 'string' || value.length === 0 || value.length > 300) return false;
    const host = value.toLowerCase();
    if (portBound().has(host) || exact.has(host)) return true;
    const name = host.replace(/:\d+$/, '');
    return anyPort.has(name);
  };

  return {
    hostAllowed,
    originAllowed(value) {
      if (typeof value !== 'string') return false;
      const match = /^https?:\/\/([^/?#@\s]+)$/.exec(value);
      return match !== null && hostAllowed(match[1]);
    },
  };
}
