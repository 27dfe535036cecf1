/**
 * Which proxy a connection goes through, and the undici dispatcher or the ws agent that takes it
 * there: the one place that decides it, for `connect`'s bridge, the service client (`webhooks`,
 * `reconcile`, `triggers --live`), `send` and the emulator's delivery engine. The relay to the local
 * app never asks (src/handoff/forward-agent.ts): it is local. The rules (docs/operate.md, Proxies):
 *
 * - NO_PROXY first: a host it names is reached directly, whatever else is set (`*` names every host).
 * - An explicit proxy (`--proxy`, HOOKRELAY_PROXY, connect's `"proxy"`) takes every other URL,
 *   loopback included: that is what asking for it means.
 * - Otherwise the standard variables: https:// and wss:// through HTTPS_PROXY, http:// and ws://
 *   through HTTP_PROXY, and never a loopback host (localhost, 127.0.0.0/8, ::1).
 *
 * The settings hold the environment as the command's config read it (config is the one place that
 * reads process.env). A proxy's credentials travel as a Proxy-Authorization header built here, never
 * inside a URL handed to a library, which could print it in an error or a debug line.
 */
import type { Agent as HttpAgent } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { basicAuthorization, displayUrl } from '../core/url-secrets.js';
import { isLoopbackHost } from './hosts.js';

/** One proxy and where it was set. */
export interface ProxySource {
  /** `http(s)://[user:password@]host:port`, checked by the config; shown only through displayUrl. */
  url: string;
  /** Where it was set, for banners: `--proxy`, `HOOKRELAY_PROXY`, `https_proxy`, `HTTPS_PROXY`, … */
  from: string;
}

export interface ProxySettings {
  /** `--proxy` (or HOOKRELAY_PROXY, or connect's config file): every URL NO_PROXY does not name, loopback too. */
  explicit: ProxySource | null;
  /** https_proxy / HTTPS_PROXY: https:// and wss:// URLs that are not loopback. */
  https: ProxySource | null;
  /** http_proxy / HTTP_PROXY: http:// and ws:// URLs that are not loopback. */
  http: ProxySource | null;
  /** no_proxy / NO_PROXY, one entry each: `*`, a name (its subdomains too), an address, a CIDR block, each with an optional `:port`. */
  noProxy: readonly string[];
}

/** How a connection to a URL is made: through a proxy, or directly and why (for banners). */
export type ProxyRoute = { proxy: ProxySource } | { direct: 'no-proxy-set' | 'no_proxy' | 'loopback' };

/**
 * How a connection to `target` is made: by NO_PROXY, then the explicit proxy, then (never for
 * loopback) the variable of the URL's scheme; direct when none of them applies.
 */
export function proxyRoute(target: string | URL, settings: ProxySettings | null | undefined): ProxyRoute {
  if (!settings) return { direct: 'no-proxy-set' };
  let url: URL;
  try {
    url = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return { direct: 'no-proxy-set' };
  }
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  if (!secure && url.protocol !== 'http:' && url.protocol !== 'ws:') return { direct: 'no-proxy-set' };
  const host = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  const proxy = settings.explicit ?? (secure ? settings.https : settings.http);
  if (proxy === null) return { direct: 'no-proxy-set' };
  if (namedByNoProxy(host, port, settings.noProxy)) return { direct: 'no_proxy' };
  if (settings.explicit) return { proxy: settings.explicit };
  if (isLoopbackHost(host)) return { direct: 'loopback' };
  return { proxy };
}

/** A route in words for a banner, the proxy's credentials redacted: `http://[redacted]@proxy:3128 (HTTPS_PROXY)`, `direct (loopback …)`. */
export function describeRoute(route: ProxyRoute): string {
  // A proxy URL has no path: displayUrl's re-serialised `/` is not shown.
  if ('proxy' in route) return `${displayUrl(route.proxy.url).replace(/\/$/, '')} (${route.proxy.from})`;
  if (route.direct === 'no_proxy') return 'direct (NO_PROXY names this host)';
  if (route.direct === 'loopback') return 'direct (loopback is proxied only when --proxy asks)';
  return 'direct';
}

/** The proxy a connection to `target` goes through, or null for a direct connection (proxyRoute). */
export function proxyFor(target: string | URL, settings: ProxySettings | null | undefined): ProxySource | null {
  const route = proxyRoute(target, settings);
  return 'proxy' in route ? route.proxy : null;
}

/** Whether a NO_PROXY entry names this host and port (entries as curl reads them, CIDR blocks included). */
export function namedByNoProxy(host: string, port: number, entries: readonly string[]): boolean {
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { name, port: only } = splitPort(entry);
    if (only !== null && only !== port) continue;
    if (name.includes('/')) {
      if (inBlock(host, name)) return true;
      continue;
    }
    if (isIP(name) !== 0) {
      if (sameAddress(host, name)) return true;
      continue;
    }
    // `.example.com`, `*.example.com` and `example.com` each name example.com and every name under it.
    const domain = name.replace(/^\*?\./, '');
    if (domain !== '' && isIP(host) === 0 && (host === domain || host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

function splitPort(entry: string): { name: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, port: bracketed[2] === undefined ? null : Number(bracketed[2]) };
  // One colon only: `::1` is an address, not a host and a port.
  const withPort = /^([^:]+):(\d{1,5})$/.exec(entry);
  if (withPort) return { name: withPort[1]!, port: Number(withPort[2]) };
  return { name: entry, port: null };
}

const familyOf = (address: string): 'ipv4' | 'ipv6' | null => (isIP(address) === 4 ? 'ipv4' : isIP(address) === 6 ? 'ipv6' : null);

function sameAddress(host: string, address: string): boolean {
  const family = familyOf(address);
  if (family === null || familyOf(host) !== family) return false;
  // Through a BlockList, so `::1` names `0:0:0:0:0:0:0:1` too.
  const list = new BlockList();
  list.addAddress(address, family);
  return list.check(host, family);
}

function inBlock(host: string, cidr: string): boolean {
  const [address = '', bits = ''] = cidr.split('/');
  const family = familyOf(address);
  const prefix = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (family === null || familyOf(host) !== family || !(prefix <= (family === 'ipv4' ? 32 : 128))) return false;
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return list.check(host, family);
}

/** A proxy's URL without its credentials, and the Proxy-Authorization header they stand for. */
export function withoutCredentials(proxy: ProxySource): { uri: string; authorization: string | null } {
  const url = new URL(proxy.url);
  const authorization = basicAuthorization(url);
  url.username = '';
  url.password = '';
  return { uri: url.href, authorization };
}

export interface ProxyDispatchers {
  /** The dispatcher for a request to `url`: the direct one, or one through its proxy. */
  for(url: string | URL): Dispatcher;
  close(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * undici dispatchers for one client: `direct` as given, and, made on first use, one per proxy with
 * the same options. Through a proxy, an https:// URL is tunnelled (CONNECT) and an http:// one is
 * sent to the proxy in absolute form, as curl does (a proxy often allows CONNECT to port 443 only);
 * the connect timeout then bounds the proxy's connection and the TLS handshake through it. A
 * `connect.lookup` (the SSRF guard) is not used for the proxy's own name: it judges targets.
 */
export function proxyDispatchers(settings: ProxySettings | null | undefined, direct: Agent.Options = {}): ProxyDispatchers {
  const directAgent = new Agent(direct);
  const proxied = new Map<string, ProxyAgent>();
  const { connect, ...rest } = direct;
  const timeout = typeof connect === 'object' && connect !== null && typeof connect.timeout === 'number' ? { timeout: connect.timeout } : {};
  const through = (proxy: ProxySource): ProxyAgent => {
    let agent = proxied.get(proxy.url);
    if (!agent) {
      const { uri, authorization } = withoutCredentials(proxy);
      agent = new ProxyAgent({ ...rest, uri, ...(authorization ? { token: authorization } : {}), proxyTunnel: false, proxyTls: timeout, requestTls: timeout });
      proxied.set(proxy.url, agent);
    }
    return agent;
  };
  const all = (): Dispatcher[] => [directAgent, ...proxied.values()];
  return {
    for(url) {
      const proxy = proxyFor(url, settings);
      return proxy ? through(proxy) : directAgent;
    },
    async close() {
      await Promise.all(all().map((d) => d.close()));
    },
    async destroy() {
      await Promise.all(all().map((d) => d.destroy()));
    },
  };
}

/**
 * The agent a WebSocket to `url` is opened with (ws's `agent`), or undefined for a direct one: an
 * HTTP CONNECT tunnel through the proxy, for ws:// and wss:// alike (an upgrade is not something a
 * proxy forwards in absolute form), with TLS to the bridge inside it for wss://.
 */
export function webSocketAgent(url: string, settings: ProxySettings | null | undefined): HttpAgent | undefined {
  const proxy = proxyFor(url, settings);
  if (!proxy) return undefined;
  const { uri, authorization } = withoutCredentials(proxy);
  return new HttpsProxyAgent(new URL(uri), authorization ? { headers: { 'Proxy-Authorization': authorization } } : {});
}
