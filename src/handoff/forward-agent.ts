/**
 * The connection pool for hand-offs to the app (`--forward-to`, `--route` targets, replays). The
 * trust given by `--forward-insecure` or `--forward-ca` applies to these connections only, never
 * to the process (no NODE_TLS_REJECT_UNAUTHORIZED): a self-signed local app does not weaken any
 * other TLS connection hookrelay makes.
 */
import { rootCertificates } from 'node:tls';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { withoutCredentials, type ProxySource } from '../runtime/proxy.js';

/** How an https target's certificate is checked. */
export interface TargetTrust {
  /** `--forward-insecure`: any certificate is accepted (a local app with a self-signed one). */
  insecure: boolean;
  /** `--forward-ca FILE`: PEM certificates trusted besides Node's bundled roots. */
  ca: string | null;
  /** The file `ca` was read from, for messages. */
  caFile?: string;
  /** `--forward-proxy`: targets are reached through this HTTP proxy; absent: directly (the app is local, whatever HTTPS_PROXY says). */
  proxy?: ProxySource;
}

export function createForwardAgent(trust: TargetTrust | undefined, options: Omit<Agent.Options, 'connect'> = {}): Dispatcher {
  const tls = trust?.insecure ? { rejectUnauthorized: false } : trust?.ca ? { ca: [...rootCertificates, trust.ca] } : null;
  // Through the proxy: https targets by CONNECT, the target's TLS (its trust as above) inside the tunnel.
  if (trust?.proxy) {
    const { uri, authorization } = withoutCredentials(trust.proxy);
    return new ProxyAgent({ ...options, uri, ...(authorization ? { token: authorization } : {}), proxyTunnel: false, ...(tls ? { requestTls: tls } : {}) });
  }
  // Besides the bundled roots, not instead of them: a route to a public https target keeps working.
  return new Agent({ ...options, ...(tls ? { connect: tls } : {}) });
}
