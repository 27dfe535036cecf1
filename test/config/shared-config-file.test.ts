/**
 * One hookrelay.config.json serves every command: connect's own keys (`bridgeCa`, `proxy`) in it do
 * not make listen, the store commands, check or verify refuse the file, and a key no command knows is
 * still refused by each, named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveStoreLocation } from '../../src/config/db-path.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('a config file shared by listen and connect', () => {
  it("is read by listen and the store commands with connect's keys in it, and a key no command knows is refused", () => {
    const { dir, remove } = tempDir();
    try {
      const file = join(dir, 'hookrelay.config.json');
      writeFileSync(file, JSON.stringify({ db: join(dir, 'a.db'), bridgeCa: './ca.pem', proxy: 'http://proxy.example:3128' }));
      const listen = resolveListenConfig({ flags: { secret: ['whsec_test_0123456789abcdef'] }, env: {}, configFile: file });
      expect(listen.ok ? [] : listen.problems).toEqual([]);
      const store = resolveStoreLocation({ config: file }, {});
      expect(store.ok ? [] : store.problems).toEqual([]);

      writeFileSync(file, JSON.stringify({ proxyy: 'http://proxy.example:3128' }));
      const typo = resolveListenConfig({ flags: { secret: ['whsec_test_0123456789abcdef'] }, env: {}, configFile: file });
      expect(typo.ok ? [] : typo.problems.join('\n')).toMatch(/unknown key "proxyy" \(did you mean "proxy"\?\)/);
    } finally {
      remove();
    }
  });
});
