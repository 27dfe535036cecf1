/** `--bridge-token NAME:TOKEN[:GLOB,GLOB]` and `connect --token`: parsed strictly, and a refusal never repeats the token. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBridgeToken } from '../../src/config/bridge-settings.js';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { runCli } from '../helpers/run-cli.js';
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

describe('connect --token, checked before connecting', () => {
  const resolve = (flags: Record<string, unknown>, env: Record<string, string> = {}) => {
    const { dir, remove } = tempDir();
    try {
      return resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(dir, 'l.db'), ...flags }, env);
    } finally {
      remove();
    }
  };

  it('refuses a token the public side would refuse, without repeating it', () => {
    const short = resolve({}, { HOOKRELAY_CONNECT_TOKEN: 'abc' });
    expect(short).toEqual({ ok: false, problems: [expect.stringMatching(/^HOOKRELAY_CONNECT_TOKEN: it is 3 characters, and a bridge token has at least 32/)] });
    expect(resolve({ token: 'abc' })).toEqual({ ok: false, problems: [expect.stringMatching(/^--token: it is 3 characters/)] });
    const pasted = resolve({}, { HOOKRELAY_CONNECT_TOKEN: `laptop:${TOKEN}` });
    expect(pasted).toEqual({ ok: false, problems: ['HOOKRELAY_CONNECT_TOKEN: a token holds no colon: give only the TOKEN part of NAME:TOKEN'] });
    expect(JSON.stringify(pasted)).not.toContain(TOKEN.slice(0, 12));
  });

  it('warns that --token on the command line is in the process list, as --api-key does; not for the environment', () => {
    const flag = resolve({ token: TOKEN });
    expect(flag.ok && flag.warnings).toEqual(['--token is visible to every user of this machine in the process list; prefer HOOKRELAY_CONNECT_TOKEN']);
    const env = resolve({}, { HOOKRELAY_CONNECT_TOKEN: TOKEN });
    expect(env.ok && env.warnings).toEqual([]);
  });
});

describe('hookrelay bridge token --name', () => {
  it('refuses a name that listen --bridge-token would refuse, and prints NAME:TOKEN for a good one', async () => {
    const bad = await runCli(['bridge', 'token', '--name', 'bad name']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--name must be letters, digits, dots, dashes or underscores, at most 31/);
    expect(bad.stderr).not.toContain('bad name');
    const good = await runCli(['bridge', 'token', '--name', 'laptop']);
    expect(good.code).toBe(0);
    const line = good.stdout.trim();
    expect(line).toMatch(/^laptop:[A-Za-z0-9_-]{43}$/);
    expect(parseBridgeToken(line).ok).toBe(true);
  });
});
