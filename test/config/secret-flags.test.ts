/**
 * Secrets typed as flags (issue 36 item 22): the process list shows them to every user, so each
 * secret-bearing flag of listen and connect warns with the sentence --api-key and connect --token
 * use, naming its variable; the same value from the environment warns of nothing.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY_FLAG_WARNING } from '../../src/config/service-settings.js';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { resolveSendSettings, type SendFlags } from '../../src/config/send-settings.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const TOKEN = 'Qm9vb29vb29vb29vb29vb29vb29vb29vb29vbG9uZw';
const inProcessList = (flag: string, env: string) => `${flag} is visible to every user of this machine in the process list; prefer ${env}`;
const processListWarnings = (warnings: readonly string[]) => warnings.filter((w) => w.includes('process list'));

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

describe('listen', () => {
  const listen = (flags: Record<string, unknown>, env: Record<string, string>) => {
    const dir = folder();
    return resolveListenConfig({ flags: { db: join(dir, 'h.db'), forwardTo: 'http://127.0.0.1:3000/hooks', bridgePort: 0, ...flags }, env, configFile: join(dir, 'none.json') });
  };

  it('--secret, --forward-secret, --console-token and --bridge-token as flags: one warning each, naming its variable', () => {
    const result = listen({ secret: [SECRET, `${SECRET}2`], forwardSecret: SECRET, consoleToken: TOKEN, bridgeToken: [`laptop:${TOKEN}`] }, {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(processListWarnings(result.warnings)).toEqual([
      inProcessList('--secret', 'HOOKRELAY_SECRET'),
      inProcessList('--forward-secret', 'HOOKRELAY_FORWARD_SECRET'),
      inProcessList('--console-token', 'HOOKRELAY_CONSOLE_TOKEN'),
      inProcessList('--bridge-token', 'HOOKRELAY_BRIDGE_TOKEN'),
    ]);
    expect(result.warnings.join('\n')).not.toContain(SECRET.slice(6, 20));
  });

  it('the same from the environment: no such warning', () => {
    const result = listen({}, { HOOKRELAY_SECRET: SECRET, HOOKRELAY_FORWARD_SECRET: SECRET, HOOKRELAY_CONSOLE_TOKEN: TOKEN, HOOKRELAY_BRIDGE_TOKEN: `laptop:${TOKEN}` });
    expect(result.ok && processListWarnings(result.warnings)).toEqual([]);
  });
});

describe('connect', () => {
  const connect = (flags: Record<string, unknown>, env: Record<string, string>) => resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(folder(), 'l.db'), forwardTo: 'http://127.0.0.1:3000/hooks', ...flags }, env);

  it('--token, --forward-secret and --console-token as flags: one warning each', () => {
    const result = connect({ token: TOKEN, forwardSecret: SECRET, consoleToken: TOKEN }, {});
    expect(result.ok && processListWarnings(result.warnings).sort()).toEqual(
      [inProcessList('--token', 'HOOKRELAY_CONNECT_TOKEN'), inProcessList('--forward-secret', 'HOOKRELAY_FORWARD_SECRET'), inProcessList('--console-token', 'HOOKRELAY_CONSOLE_TOKEN')].sort(),
    );
  });

  it('the same from the environment: no such warning', () => {
    const result = connect({}, { HOOKRELAY_CONNECT_TOKEN: TOKEN, HOOKRELAY_FORWARD_SECRET: SECRET, HOOKRELAY_CONSOLE_TOKEN: TOKEN });
    expect(result.ok && processListWarnings(result.warnings)).toEqual([]);
  });
});

describe('send', () => {
  const send = (flags: Partial<SendFlags>, env: Record<string, string>) =>
    resolveSendSettings({ to: 'http://127.0.0.1:4000/webhooks', trigger: 'trustcenter.access_requested', count: '1', concurrency: '1', timeScale: '1', timeout: '10000', autoDisableAfter: '15', disableOnGone: true, db: join(folder(), 'h.db'), ...flags }, Date.now, env);

  it('--secret as a flag: the same warning, naming HOOKRELAY_SECRET', () => {
    const result = send({ secret: SECRET }, {});
    expect(result.ok && processListWarnings(result.settings.signingWarnings)).toEqual([inProcessList('--secret', 'HOOKRELAY_SECRET')].map((w) => `warning: ${w}`));
  });

  it('the same from the environment: no such warning, and it signs with it', () => {
    const result = send({}, { HOOKRELAY_SECRET: SECRET });
    expect(result.ok && processListWarnings(result.settings.signingWarnings)).toEqual([]);
    expect(result.ok && result.settings.secret).toBe(SECRET);
  });
});

it('--api-key warns in the same words', () => {
  expect(API_KEY_FLAG_WARNING).toBe(`warning: ${inProcessList('--api-key', 'HOOKRELAY_API_KEY')}`);
});

it("listen --help shows the secret in the environment, not as --secret, and says why", { timeout: 30_000 }, async () => {
  const run = await runCli(['listen', '--help']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('HOOKRELAY_SECRET="$WEBHOOK_SECRET" npx hookrelay listen');
  expect(run.stdout).not.toMatch(/--secret "\$/);
  expect(run.stdout.replace(/\s+/g, ' ')).toContain('--secret <value> signing secret; repeat for rotation (env: comma-separated); visible in the process list: prefer the env variable [env HOOKRELAY_SECRET]');
});
