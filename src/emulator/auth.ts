/**
 * Spec 5: every request carries `Authorization: Bearer <key>`; missing or invalid → 401; a key
 * without the endpoint's scope → 403. Reads need webhooks:read, writes webhooks:write.
 */
import { ApiError } from './api-error.js';
import type { ApiKey, KeyMaterial } from './key-material.js';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

export function authenticate(header: string | string[] | undefined, keys: KeyMaterial): ApiKey {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') throw new ApiError(401, 'UNAUTHORIZED', 'missing Authorization header: send Authorization: Bearer <API key> (hookrelay emulate keys prints them)');
  const match = BEARER.exec(value.trim());
  if (match === null) throw new ApiError(401, 'UNAUTHORIZED', 'the Authorization header must be "Bearer <API key>"');
  const key = keys.findKey(match[1]!);
  // Never echo the key, not even in part.
  if (key === null) throw new ApiError(401, 'UNAUTHORIZED', 'invalid API key');
  return key;
}

export function requireScope(key: ApiKey, scope: 'webhooks:read' | 'webhooks:write' | 'trust-center-content:read' | 'trust-center-access:read' | 'trust-center-access:write' | 'trust-center-analytics:read' | 'sod:read'): void {
  if (!key.scopes.includes(scope)) throw new ApiError(403, 'FORBIDDEN', `the API key ${key.name} lacks the scope ${scope}`);
}
