/** The secret set: atomic 0600 file, rotation kept, hostile content refused without echoing a secret. */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addToSecretSet, readSecretSet, removeFromSecretSet, SecretSetError, secretSetPath, secretsForListen } from '../../src/service/secret-set.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
let remove: () => void;
beforeEach(() => ({ dir, remove } = tempDir('hookrelay-secrets-')));
afterEach(() => remove());

const A = 'whsec_aaaaaaaaaaaaaaaaaaaaaaaaaaaa1111';
const B = 'whsec_bbbbbbbbbbbbbbbbbbbbbbbbbbbb2222';
const T0 = Date.parse('2026-06-01T10:00:00Z');

it('is empty without a file, and listen gets nothing from it', () => {
  expect(readSecretSet(dir)).toEqual([]);
  expect(secretsForListen(dir)).toEqual([]);
});

it('keeps a recreated webhook\'s old secret beside the new one; listen tries the newest first', () => {
  addToSecretSet(dir, { secret: A, webhookId: 'wh-1', origin: 'webhook wh-1 created 2026-06-01' }, T0);
  addToSecretSet(dir, { secret: B, webhookId: 'wh-2', origin: 'webhook wh-2 created 2026-06-02' }, T0 + 1000);
  addToSecretSet(dir, { secret: A, webhookId: 'wh-1', origin: 'again' }, T0 + 2000);
  expect(readSecretSet(dir)).toEqual([
    { secret: A, webhookId: 'wh-1', origin: 'webhook wh-1 created 2026-06-01', addedAt: '2026-06-01T10:00:00.000Z' },
    { secret: B, webhookId: 'wh-2', origin: 'webhook wh-2 created 2026-06-02', addedAt: '2026-06-01T10:00:01.000Z' },
  ]);
  expect(secretsForListen(dir)).toEqual([B, A]);
  expect(statSync(secretSetPath(dir)).mode & 0o777).toBe(0o600);
  expect(readdirSync(dir).sort()).toEqual(['secrets.json']);
});

it('removes by number or by webhook id, and nothing on no match', () => {
  addToSecretSet(dir, { secret: A, webhookId: 'wh-1', origin: 'a' }, T0);
  addToSecretSet(dir, { secret: B, webhookId: 'wh-2', origin: 'b' }, T0);
  const before = readFileSync(secretSetPath(dir), 'utf8');
  expect(removeFromSecretSet(dir, 'nope')).toEqual([]);
  expect(removeFromSecretSet(dir, '7')).toEqual([]);
  expect(readFileSync(secretSetPath(dir), 'utf8')).toBe(before);
  expect(removeFromSecretSet(dir, 'wh-2').map((e) => e.secret)).toEqual([B]);
  expect(removeFromSecretSet(dir, '1').map((e) => e.secret)).toEqual([A]);
  expect(secretsForListen(dir)).toEqual([]);
});

it.each([
  ['not JSON', `{"secrets": ["${A}"`],
  ['not the shape', JSON.stringify([A])],
  ['an entry without a secret', JSON.stringify({ version: 1, secrets: [{ origin: A }] })],
])('refuses a damaged file (%s) naming it, never quoting a secret, and changes nothing', (_name, text) => {
  writeFileSync(secretSetPath(dir), text);
  const err = (() => {
    try {
      readSecretSet(dir);
    } catch (e) {
      return e as Error;
    }
    return null;
  })();
  expect(err).toBeInstanceOf(SecretSetError);
  expect(err!.message).toContain(secretSetPath(dir));
  expect(err!.message).not.toContain('aaaa');
  expect(() => addToSecretSet(dir, { secret: B, webhookId: null, origin: 'x' }, T0)).toThrow(SecretSetError);
  expect(readFileSync(secretSetPath(dir), 'utf8')).toBe(text);
  expect(existsSync(`${secretSetPath(dir)}.lock`)).toBe(false);
});

it('waits for a held lock and then gives up with a message naming it', () => {
  writeFileSync(`${secretSetPath(dir)}.lock`, '');
  expect(() => addToSecretSet(dir, { secret: A, webhookId: null, origin: 'x' }, T0)).toThrow(/secrets\.json\.lock is held by another hookrelay/);
  expect(existsSync(secretSetPath(dir))).toBe(false);
}, 15_000);

it('writes under the data folder only (a missing folder is made)', () => {
  const nested = join(dir, 'a', 'b');
  addToSecretSet(nested, { secret: A, webhookId: null, origin: 'x' }, T0);
  expect(secretsForListen(nested)).toEqual([A]);
});
