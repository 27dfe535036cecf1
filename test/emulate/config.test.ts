import { describe, expect, it } from 'vitest';
import { resolveEmulateConfig, resolveFireConfig } from '../../src/config/emulate-config.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('emulate settings: flag > HOOKRELAY_EMULATE_* > default', () => {
  it('defaults', () => {
    const r = resolveEmulateConfig({}, {});
    expect(r).toEqual({ ok: true, config: { port: 4100, host: '127.0.0.1', dbPath: '.hookrelay/emulator.db', timeScale: 1, ssrf: 'loopback', plan: 'core', webhookCap: 10, rateLimitScale: 1, seed: null, extraKeys: [], proxy: { explicit: null, https: null, http: null, noProxy: [] }, warnings: [] } });
  });

  it('a flag wins over the environment, which wins over the default', () => {
    const r = resolveEmulateConfig({ port: '4200' }, { HOOKRELAY_EMULATE_PORT: '4300', HOOKRELAY_EMULATE_PLAN: 'premium', HOOKRELAY_EMULATE_RATE_LIMIT: 'off' });
    expect(r.ok && r.config).toMatchObject({ port: 4200, plan: 'premium', rateLimitScale: null });
  });

  it('lists every problem at once, each naming its flag or variable', () => {
    const r = resolveEmulateConfig({ port: '70000', ssrf: 'open', timeScale: '-1', key: ['bad name:webhooks:read', 'ci:webhooks:admin'] }, { HOOKRELAY_EMULATE_WEBHOOK_CAP: '0', HOOKRELAY_EMULATE_RATE_LIMIT: 'fast' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const part of ['--port', '--ssrf', '--time-scale', 'HOOKRELAY_EMULATE_WEBHOOK_CAP', 'HOOKRELAY_EMULATE_RATE_LIMIT', 'bad name', 'webhooks:admin']) {
      expect(r.problems.some((p) => p.includes(part)), part).toBe(true);
    }
  });

  it('fire needs a trigger and valid JSON data', () => {
    const r = resolveFireConfig({ data: '{x', count: '0' }, {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toHaveLength(3);
  });

  it('`emulate keys` before any start says how to begin, exit 2', async () => {
    const { dir, remove } = tempDir();
    try {
      const res = await runCli(['emulate', 'keys', '--db', `${dir}/emulator.db`]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('hookrelay emulate');
    } finally {
      remove();
    }
  });
});
