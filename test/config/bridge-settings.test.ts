/** `--bridge-token NAME:TOKEN[:GLOB,GLOB]`: parsed strictly, and a refusal never repeats the token. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBridgeToken } from '../../src/config/bridge-settings.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'Qm9vb29vb29vb29vb29vb29vb29vb29vb29vbG9uZw';

describe('parseBridgeToken', () => {
  it('reads a name, a token and trigger globs', () => {
    expect(parseBridgeToken(`laptop:${TOKEN}`)).toEqual({ ok: true, token: { name: 'laptop', token: TOKEN, triggers: [] } });
    expect(parseBridgeToken(`ci:${TOKEN}:vendor.*,trustcenter.access_?`)).toEqual({ ok: true, token: { name: 'ci', token: TOKEN, triggers: ['vendor.*', 'trustcenter.access_?'] } });
  });

  it.each([TOKEN, `-${TOKEN.slice(1)}:x`, `${TOKEN}:${TOKEN}`, `laptop:${TOKEN}:bad glob!`, `laptop:short`])('refuses %j without repeating the token', (text) => {
    const parsed = parseBridgeToken(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).not.toContain(TOKEN.slice(0, 12));
  });
});

describe('HOOKRELAY_BRIDGE_TOKEN', () => {
  it('holds one token a line, so the globs of a token keep their commas', () => {
    const { dir, remove } = tempDir();
    try {
      const env = { HOOKRELAY_BRIDGE_TOKEN: `ci:${TOKEN}:vendor.*,control.*\nlaptop:${TOKEN.replace('Q', 'R')}\n` };
      const result = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), bridgePort: 0 }, env, configFile: join(dir, 'none.json') });
      expect(result.ok && result.config.bridge?.tokens.map((t) => [t.name, t.triggers])).toEqual([
        ['ci', ['vendor.*', 'control.*']],
        ['laptop', []],
      ]);
    } finally {
      remove();
    }
  });
});
