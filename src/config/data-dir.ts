import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';

/** Default database file (PRODUCT.md: `--db`). Its folder is the data folder. */
export const DEFAULT_DB_PATH = '.hookrelay/hookrelay.db';

const DEV_SECRET_FILE = 'dev-secret';

/** The data folder belonging to a database path. */
export function dataDirOf(dbPath: string): string {
  return dirname(resolve(dbPath));
}

/** Where `listen` keeps the development secret of a data folder. */
export const devSecretPath = (dataDir: string): string => join(dataDir, DEV_SECRET_FILE);

/** The development secret kept in the data folder by `listen`, if there is one. */
export function readDevSecret(dataDir: string): string | undefined {
  const file = devSecretPath(dataDir);
  if (!existsSync(file)) return undefined;
  const secret = readFileSync(file, 'utf8').trim();
  return secret.length > 0 ? secret : undefined;
}

/** A new development secret, in memory: `listen` writes it only once its listeners are bound (writeDevSecret). */
export function makeDevSecret(): string {
  return `whsec_dev_${randomBytes(24).toString('hex')}`;
}

/** Keeps the development secret in the data folder, readable by the owner only. False when one is there already (never replaced). */
export function writeDevSecret(dataDir: string, secret: string): boolean {
  mkdirSync(dataDir, { recursive: true });
  const file = devSecretPath(dataDir);
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  chmodSync(file, 0o600);
  return true;
}

export { secretHint } from '../core/secret-hint.js';
