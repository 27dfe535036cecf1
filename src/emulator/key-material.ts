/**
 * The emulator's key material in its data folder, each file readable by the owner only (0600):
 * `emulator.key` (32 random bytes: the AES key of secrets at rest and, derived from it, the
 * cursor key) and `emulator-keys.json` (the two organizations and their API keys, printed by
 * `hookrelay emulate keys`). Made on first start, never replaced.
 */
import { createHash, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Section 5 scopes an emulator key may hold; only the webhook ones open anything here. */
export const KNOWN_SCOPES = [
  'webhooks:read', 'webhooks:write', 'incidents:read', 'incidents:write', 'controls:read', 'compliance:read', 'policies:read',
  'risks:read', 'risks:write', 'trust-center-content:read', 'trust-center-access:read', 'trust-center-subscribers:read',
  'trust-center-access:write', 'trust-center-analytics:read', 'users:read', 'sod:read',
] as const;

export interface Organization {
  id: string;
  name: string;
}

export interface ApiKey {
  name: string;
  organizationId: string;
  scopes: string[];
  key: string;
}

export interface KeysFile {
  organizations: Organization[];
  keys: ApiKey[];
}

export interface KeyMaterial {
  masterKey: Buffer;
  cursorKey: Buffer;
  file: KeysFile;
  /** The key record of a bearer token, or null. Compares digests in constant time. */
  findKey(token: string): ApiKey | null;
}

export const MASTER_KEY_FILE = 'emulator.key';
export const KEYS_FILE = 'emulator-keys.json';
// Keys made in a new data folder also open the Trust Center and SoD reads and decisions (spec 5);
// a key of an older folder keeps its scopes, as the service's keys do.
const TC_READ = ['trust-center-content:read', 'trust-center-access:read', 'trust-center-analytics:read', 'sod:read'];
const FULL = ['webhooks:read', 'webhooks:write', ...TC_READ, 'trust-center-access:write'];
const READ = ['webhooks:read', ...TC_READ];

/** Reads (or, on first start, makes) the key material; `extraKeys` are added to organization A once. */
export function loadKeyMaterial(dataDir: string, extraKeys: ReadonlyArray<{ name: string; scopes: string[] }> = []): KeyMaterial {
  mkdirSync(dataDir, { recursive: true });
  const keyPath = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(keyPath)) writePrivate(keyPath, `${randomBytes(32).toString('base64')}\n`, true);
  const masterKey = Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'base64');
  if (masterKey.length !== 32) throw new Error(`${keyPath} does not hold a 32-byte key; move it away to start over (webhook secrets sealed with it are lost)`);
  const keysPath = join(dataDir, KEYS_FILE);
  let file = readKeysFile(dataDir);
  if (file === null) {
    const a = { id: randomUUID(), name: 'Organization A' };
    const b = { id: randomUUID(), name: 'Organization B' };
    file = {
      organizations: [a, b],
      keys: [
        { name: 'a-full', organizationId: a.id, scopes: FULL, key: newApiKey() },
        { name: 'a-read', organizationId: a.id, scopes: READ, key: newApiKey() },
        { name: 'b-full', organizationId: b.id, scopes: FULL, key: newApiKey() },
      ],
    };
  }
  let changed = !existsSync(keysPath);
  for (const extra of extraKeys) {
    if (file.keys.some((k) => k.name === extra.name)) continue;
    file.keys.push({ name: extra.name, organizationId: file.organizations[0]!.id, scopes: extra.scopes, key: newApiKey() });
    changed = true;
  }
  if (changed) writePrivate(keysPath, `${JSON.stringify(file, null, 2)}\n`, false);
  const digests = file.keys.map((k) => ({ record: k, digest: digest(k.key) }));
  return {
    masterKey,
    cursorKey: Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'hookrelay emulator cursor', 32)),
    file,
    findKey(token) {
      const given = digest(token);
      let found: ApiKey | null = null;
      for (const { record, digest: d } of digests) if (timingSafeEqual(d, given)) found = record;
      return found;
    },
  };
}

/** The keys file of a data folder, or null when the emulator never started there. */
export function readKeysFile(dataDir: string): KeysFile | null {
  const path = join(dataDir, KEYS_FILE);
  if (!existsSync(path)) return null;
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as KeysFile;
  if (!Array.isArray(parsed.organizations) || parsed.organizations.length < 2 || !Array.isArray(parsed.keys)) throw new Error(`${path} is not an emulator keys file`);
  return parsed;
}

function newApiKey(): string {
  return `hrk_${randomBytes(24).toString('base64url')}`;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function writePrivate(path: string, text: string, exclusive: boolean): void {
  writeFileSync(path, text, { mode: 0o600, flag: exclusive ? 'wx' : 'w' });
  chmodSync(path, 0o600);
}
