/** `listen` with no --secret verifies with the secrets `webhooks create --signing` kept in the data folder. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { addToSecretSet, secretSetPath } from '../../src/service/secret-set.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function dataFolder(): { dir: string; db: string; configFile: string } {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const data = join(dir, '.hookrelay');
  mkdirSync(data, { recursive: true });
  return { dir: data, db: join(data, 'hookrelay.db'), configFile: join(dir, 'none.json') };
}

const OLD = 'whsec_old_webhook_secret_0123456789abcdef';
const NEW = 'whsec_new_webhook_secret_0123456789abcdef';

describe('listen and the secret set', () => {
  it('uses the kept secrets, newest first, and no development secret when there is none', () => {
    const { dir, db, configFile } = dataFolder();
    addToSecretSet(dir, { secret: OLD, webhookId: 'wh_1', origin: 'webhook wh_1' }, 1);
    addToSecretSet(dir, { secret: NEW, webhookId: 'wh_2', origin: 'webhook wh_2' }, 2);
    const result = resolveListenConfig({ flags: { db }, env: {}, configFile });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.secrets).toEqual([NEW, OLD]);
    expect(result.config.secretSet).toEqual({ file: secretSetPath(dir), count: 2 });
    expect(result.config.devSecret).toBeNull();
  });

  it('keeps the development secret after them when one exists, so send with no flags still works', () => {
    const { dir, db, configFile } = dataFolder();
    writeFileSync(join(dir, 'dev-secret'), 'whsec_dev_secret_0123456789abcdefghij');
    addToSecretSet(dir, { secret: NEW, webhookId: 'wh_2', origin: 'webhook wh_2' }, 2);
    const result = resolveListenConfig({ flags: { db }, env: {}, configFile });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.secrets).toEqual([NEW, 'whsec_dev_secret_0123456789abcdefghij']);
  });

  it('--secret wins: the set is not read', () => {
    const { dir, db, configFile } = dataFolder();
    writeFileSync(secretSetPath(dir), 'not json');
    const result = resolveListenConfig({ flags: { db, secret: ['whsec_given_0123456789abcdef'] }, env: {}, configFile });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.secrets).toEqual(['whsec_given_0123456789abcdef']);
  });

  it('a damaged set is a clear problem, never a silent fallback to another secret', () => {
    const { dir, db, configFile } = dataFolder();
    writeFileSync(secretSetPath(dir), '{"version":1,"secrets":[');
    const result = resolveListenConfig({ flags: { db }, env: {}, configFile });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.join('\n')).toContain('secrets.json');
  });
});
