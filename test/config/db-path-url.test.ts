/** A PostgreSQL URL given where the SQLite file goes is refused, naming --store, never echoing the URL. */
import { describe, expect, it } from 'vitest';
import { resolveDbPath, resolveStoreLocation } from '../../src/config/db-path.js';

const URL_WITH_PASSWORD = 'postgres://hookrelay:Hunter2Pass@db.example:5432/hooks';

describe('--db holding a postgres:// URL', () => {
  it.each([
    ['the flag', { db: URL_WITH_PASSWORD }, {}, /^--db is the SQLite file, and it holds a postgres:\/\/ URL: give a PostgreSQL store as --store$/],
    ['HOOKRELAY_DB', {}, { HOOKRELAY_DB: URL_WITH_PASSWORD }, /^HOOKRELAY_DB is the SQLite file, .*as HOOKRELAY_STORE$/],
    ['HOOKRELAY_DB, postgresql://', {}, { HOOKRELAY_DB: ' postgresql://x@y/z' }, /^HOOKRELAY_DB is the SQLite file/],
  ])('is refused from %s by every reading command, the URL never shown', (_, flags, env, why) => {
    for (const result of [resolveStoreLocation(flags, env), resolveDbPath(flags, env)]) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.problems).toEqual([expect.stringMatching(why)]);
      expect(result.problems.join('\n')).not.toContain('Hunter2Pass');
    }
  });

  it('still takes a file path, and a file name that only starts like one', () => {
    expect(resolveStoreLocation({ db: './postgres.db' }, {})).toMatchObject({ ok: true, location: { kind: 'sqlite', path: './postgres.db' } });
    expect(resolveDbPath({}, { HOOKRELAY_DB: 'postgres-backup.db' })).toEqual({ ok: true, dbPath: 'postgres-backup.db' });
  });
});

describe('listen and connect with --db holding a postgres:// URL', () => {
  it('refuse to start, naming --store (read as a path it made a folder named "postgres:")', async () => {
    const { resolveListenConfig } = await import('../../src/config/listen-config.js');
    const { resolveConnectConfig } = await import('../../src/config/connect-config.js');
    const listen = resolveListenConfig({ flags: { db: URL_WITH_PASSWORD }, env: { HOOKRELAY_SECRET: 'whsec_db_path_url_0123456789abcdef' }, configFile: '/nonexistent/hookrelay.config.json' });
    expect(listen.ok).toBe(false);
    if (!listen.ok) {
      expect(listen.problems).toContain('--db is the SQLite file, and it holds a postgres:// URL: give a PostgreSQL store as --store');
      expect(listen.problems.join('\n')).not.toContain('Hunter2Pass');
    }
    const connect = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { forwardTo: 'http://127.0.0.1:3000/hook', forwardSecret: 'whsec_c' }, { HOOKRELAY_DB: URL_WITH_PASSWORD, HOOKRELAY_CONNECT_TOKEN: 'db-path-url-token-0123456789abcdefghij' });
    expect(connect.ok).toBe(false);
    if (!connect.ok) expect(connect.problems).toContain('HOOKRELAY_DB is the SQLite file, and it holds a postgres:// URL: give a PostgreSQL store as HOOKRELAY_STORE');
  });
});

describe('emulate with --db or HOOKRELAY_EMULATE_DB holding a postgres:// URL', () => {
  it('is refused by emulate (which made a folder of it, the password in its name), emulate keys and emulate fire, the URL never shown', async () => {
    const { resolveEmulateConfig, resolveFireConfig } = await import('../../src/config/emulate-config.js');
    const started = resolveEmulateConfig({ db: URL_WITH_PASSWORD }, {});
    expect(started.ok).toBe(false);
    if (!started.ok) expect(started.problems).toEqual([expect.stringMatching(/^--db is the emulator's SQLite file, and it holds a postgres:\/\/ URL/)]);
    const fired = resolveFireConfig({ trigger: 'sod.violation_detected' }, { HOOKRELAY_EMULATE_DB: URL_WITH_PASSWORD });
    expect(!fired.ok && fired.problems).toEqual([expect.stringMatching(/^HOOKRELAY_EMULATE_DB is the emulator's SQLite file/)]);

    const { runCli } = await import('../helpers/run-cli.js');
    const keys = await runCli(['emulate', 'keys'], { env: { HOOKRELAY_EMULATE_DB: 'postgresql://u:SEKRET2@h/db' } });
    expect(keys.code).toBe(2);
    expect(keys.stderr).toMatch(/HOOKRELAY_EMULATE_DB is the emulator's SQLite file/);
    expect(keys.stderr).not.toContain('SEKRET2');
  });
});

describe('mcp with --db or HOOKRELAY_DB holding a postgres:// URL', () => {
  it('refuses to serve, exit 2, naming --store (it opened the URL as a PostgreSQL store), the password on neither stream', async () => {
    const { runCli } = await import('../helpers/run-cli.js');
    const noStore = { HOOKRELAY_STORE: undefined, HOOKRELAY_DB: undefined };
    const flag = await runCli(['mcp', '--db', 'postgres://app:McpPass551@127.0.0.1:1/hookrelay'], { env: noStore });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--db is the SQLite file, and it holds a postgres:\/\/ URL: give a PostgreSQL store as --store/);
    const env = await runCli(['mcp'], { env: { ...noStore, HOOKRELAY_DB: 'postgresql://app:McpPass552@127.0.0.1:1/hookrelay' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/HOOKRELAY_DB is the SQLite file, .*as HOOKRELAY_STORE/);
    for (const run of [flag, env]) {
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toMatch(/McpPass55/);
    }
  });
});
