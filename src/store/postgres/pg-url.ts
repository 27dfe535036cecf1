/** PostgreSQL URL helpers that need no driver: the config and the banner use them at start-up. */
import { displayUrl } from '../../core/url-secrets.js';

/** True for a `postgres://` or `postgresql://` URL (the store selector's test). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The URL without its credentials, for banners and errors (the one rule: core/url-secrets.ts). */
export const redactPostgresUrl = (text: string): string => displayUrl(text);

export interface PostgresUrlSettings {
  /** The URL as `pg` gets it (libpq parameters such as `sslmode` or `options` stay). */
  connectionString: string;
  /** `relay_lease_ms`: how long a claimed relay job is reserved for the instance that claimed it. */
  relayLeaseMs?: number;
  /** `pool_max`: connections of this instance's pool. */
  poolMax?: number;
}

export type PostgresUrlResult = { ok: true; settings: PostgresUrlSettings } | { ok: false; message: string };

const OWN_PARAMS = { relay_lease_ms: [1_000, 86_400_000], pool_max: [1, 100] } as const;


/** Splits hookrelay's own query parameters from the connection URL; refuses bad values, naming them. */
export function parsePostgresUrl(text: string): PostgresUrlResult {
  if (!isPostgresUrl(text)) return { ok: false, message: 'must start with postgres:// or postgresql://' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'is not a valid URL' };
  }
  const settings: PostgresUrlSettings = { connectionString: '' };
  for (const [name, [min, max]] of Object.entries(OWN_PARAMS)) {
    const raw = url.searchParams.get(name);
    if (raw === null) continue;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) return { ok: false, message: `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}` };
    url.searchParams.delete(name);
    if (name === 'relay_lease_ms') settings.relayLeaseMs = value;
    else settings.poolMax = value;
  }
  settings.connectionString = url.href;
  return { ok: true, settings };
}
