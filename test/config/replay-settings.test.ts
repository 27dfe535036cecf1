/** `events replay` reads the relay's settings as listen does: the target, its secret, and the loopback rule. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveReplaySettings } from '../../src/config/replay-settings.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function configFile(content: object): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const file = join(dir, 'hookrelay.config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('resolveReplaySettings', () => {
  it("signs with the config file's forwardSecret when its forwardTo is the target", () => {
    const config = configFile({ forwardTo: 'http://127.0.0.1:3000/hooks', forwardSecret: 'whsec_file_forward_secret_0123456789' });
    const resolved = resolveReplaySettings({ timeout: '30000', config }, null, {});
    expect(resolved.ok && resolved.settings.settings).toMatchObject({ secret: 'whsec_file_forward_secret_0123456789', targets: { to: 'http://127.0.0.1:3000/hooks' } });
  });

  it('refuses a target of the relay settings that is not on this machine without --allow-remote, as it refuses such a --to', () => {
    const config = configFile({ forwardTo: 'https://app.example.com/hooks', forwardSecret: 'whsec_file_forward_secret_0123456789' });
    const refused = resolveReplaySettings({ timeout: '30000', config }, null, {});
    expect(refused.ok ? [] : refused.problems).toEqual([expect.stringMatching(/app\.example\.com is not on this machine; replays go to loopback targets unless you pass --allow-remote/)]);
    expect(resolveReplaySettings({ timeout: '30000', config, allowRemote: true }, null, {}).ok).toBe(true);
  });

  it('warns that a --secret is visible in the process list, naming the variable to use instead; a secret from the config file or the environment draws no warning', () => {
    const flagged = resolveReplaySettings({ timeout: '30000', to: 'http://127.0.0.1:3000/hooks', secret: 'whsec_replay_flag_secret_0123456789' }, null, {});
    expect(flagged.ok && flagged.warnings).toEqual(['--secret is visible to every user of this machine in the process list; prefer HOOKRELAY_FORWARD_SECRET']);
    const fromEnv = resolveReplaySettings({ timeout: '30000', to: 'http://127.0.0.1:3000/hooks' }, null, { HOOKRELAY_FORWARD_SECRET: 'whsec_replay_env_secret_0123456789' });
    expect(fromEnv.ok && fromEnv.settings.settings.secret).toBe('whsec_replay_env_secret_0123456789');
    expect(fromEnv.ok && fromEnv.warnings).toEqual([]);
  });

  it('names a development secret that cannot be read as a problem, instead of failing the command', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    mkdirSync(join(dir, 'dev-secret')); // a folder where the secret file belongs: EISDIR on read
    const refused = resolveReplaySettings({ timeout: '30000', to: 'http://127.0.0.1:3000/hooks' }, join(dir, 'hookrelay.db'), {});
    expect(refused.ok ? [] : refused.problems).toEqual([`cannot read the development secret ${join(dir, 'dev-secret')}: a folder, not a file`]);
  });
});
