/**
 * The connection pool for hand-offs to the app (`--forward-to`, `--route` targets, replays). The
 * trust given by `--forward-insecure` or `--forward-ca` applies to these connections only, never
 * to the process (no NODE_TLS_REJECT_UNAUTHORIZED): a self-signed local app does not weaken any
 * other TLS connection hookrelay makes.
 */
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';

/** How an https target's certificate is checked. */
export interface TargetTrust {
  /** `--forward-insecure`: any certificate is accepted (a local app with a self-signed one). */
  insecure: boolean;
  /** `--forward-ca FILE`: PEM certificates trusted besides Node's bundled roots. */
  ca: string | null;
  /** The file `ca` was read from, for messages. */
  caFile?: string;
}

export function createForwardAgent(trust: TargetTrust | undefined, options: Omit<Agent.Options, 'connect'> = {}): Agent {
  if (trust?.insecure) return new Agent({ ...options, connect: { rejectUnauthorized: false } });
  // Besides the bundled roots, not instead of them: a route to a public https target keeps working.
  if (trust?.ca) return new Agent({ ...options, connect: { ca: [...rootCertificates, trust.ca] } });
  return new Agent(options);
}
