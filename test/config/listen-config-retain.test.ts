/** `listen --retain`, HOOKRELAY_RETAIN and the config file's `retain`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveListenConfig, type ListenConfigResult } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
const DAY = 86_400_000;

function resolve(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file?: Record<string, unknown>): ListenConfigResult {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const configFile = join(dir, 'hookrelay.config.json');
  if (file) writeFileSync(configFile, JSON.stringify(file));
  return resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), ...flags }, env, configFile });
}

const retainOf = (r: ListenConfigResult) => (r.ok ? r.config.retainMs : r.problems);

describe('--retain', () => {
  it.each([
    [{}, {}, undefined, 30 * DAY],
    [{ retain: '72h' }, {}, undefined, 72 * 3_600_000],
    [{ retain: 'off' }, { HOOKRELAY_RETAIN: '7d' }, undefined, null],
    [{}, { HOOKRELAY_RETAIN: '0' }, undefined, null],
    [{}, { HOOKRELAY_RETAIN: '7d' }, { retain: '1d' }, 7 * DAY],
    [{}, {}, { retain: '14d' }, 14 * DAY],
  ])('flags %j, env %j, file %j → %s', (flags, env, file, ms) => {
    expect(retainOf(resolve(flags, env, file))).toEqual(ms);
  });

  it('refuses a bad duration, naming the setting and listed with the other problems', () => {
    const result = resolve({ retain: 'forever', tolerance: '0' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.some((p) => p.startsWith('--retain: must be a duration'))).toBe(true);
    expect(result.problems.some((p) => p.startsWith('--tolerance'))).toBe(true);
  });
});
