/**
 * The endpoint rules (spec 4.3, 6.4 `blocked`). `strict` is the service's: HTTPS to public
 * addresses only. `loopback` (the default of this local tool) also lets http and https reach
 * 127.0.0.0/8, ::1 and localhost. Names are resolved at create and PATCH, and again by every
 * attempt (the transport's lookup guard), so a name that later points at a refused address
 * fails that attempt as `blocked`.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { FieldProblem } from '../core/retry-policy/validate-policy.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { isPrivateOrReserved } from '../sender/private-address.js';

export type SsrfMode = 'strict' | 'loopback';

/** The address test an attempt applies after resolving (and to a literal address). */
export function addressRule(mode: SsrfMode): (address: string) => boolean {
  if (mode === 'strict') return isPrivateOrReserved;
  return (address) => isPrivateOrReserved(address) && !isLoopbackHost(address);
}

/**
 * Why `endpoint` (an absolute http(s) URL) is refused under `mode`, or null when it is allowed.
 * A name that does not resolve now is allowed: its attempts fail as `network` until it does.
 */
export async function endpointProblem(endpoint: string, mode: SsrfMode, lookup: LookupFunction = dnsLookup as unknown as LookupFunction): Promise<FieldProblem | null> {
  const url = new URL(endpoint);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopbackAllowed = mode === 'loopback' && isLoopbackHost(host);
  const refuse = (message: string): FieldProblem => ({ field: 'endpoint', message });
  if (url.protocol !== 'https:' && !loopbackAllowed) {
    return refuse(mode === 'strict' ? 'must be an https URL (--ssrf strict)' : 'must be an https URL; http is allowed only to 127.0.0.1, ::1 or localhost (--ssrf loopback)');
  }
  if (loopbackAllowed) return null;
  const rule = addressRule(mode);
  const why = 'private, loopback, link-local and metadata addresses are refused';
  if (isIP(host) !== 0) return rule(host) ? refuse(`${host} is a private or reserved address: ${why}`) : null;
  if (host === 'localhost' || host.endsWith('.localhost')) return refuse(`${host} is this machine: ${why}${mode === 'strict' ? ' (--ssrf strict)' : ''}`);
  const addresses = await resolveAll(host, lookup);
  const bad = addresses.find((a) => rule(a));
  return bad === undefined ? null : refuse(`${host} resolves to ${bad}, a private or reserved address: ${why}`);
}

function resolveAll(host: string, lookup: LookupFunction): Promise<string[]> {
  return new Promise((resolve) => {
    try {
      lookup(host, { all: true }, (err, address) => {
        if (err) return resolve([]);
        resolve(Array.isArray(address) ? address.map((a) => a.address) : [address]);
      });
    } catch {
      resolve([]);
    }
  });
}
