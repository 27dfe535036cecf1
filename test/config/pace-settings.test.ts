/**
 * `--pace` as a setting of listen and connect: flag > HOOKRELAY_PACE (one per line) > the config
 * file's "pace" array, every problem at once by its place, and a pace that applies to nothing warned of.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const APP = 'http://127.0.0.1:3000/webhooks';
const AUDIT = 'http://127.0.0.1:3001/audit';

function listen(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file?: Record<string, unknown>) {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const configFile = join(dir, 'hookrelay.config.json');
  if (file) writeFileSync(configFile, JSON.stringify(file));
  return resolveListenConfig({ flags: { db: join(dir, 'h.db'), ...flags }, env: { HOOKRELAY_SECRET: 'whsec_pace_settings_0123456789', ...env }, configFile });
}

describe('--pace', () => {
  it('reads a flag, HOOKRELAY_PACE one per line and the config file, the flag first', () => {
    const env = { HOOKRELAY_PACE: `concurrency=4\n\n ${AUDIT} rate=5/s \n` };
    const file = { pace: [`${APP} rate=50/s burst=10`] };
    const fromEnv = listen({ forwardTo: APP, route: [`vendor.*=${AUDIT}`] }, env, file);
    expect(fromEnv.ok && fromEnv.config.forward?.pacing?.fallback).toEqual({ concurrency: 4, ratePerSecond: null, burst: 1, paused: false, order: null });
    expect(fromEnv.ok && fromEnv.config.forward?.pacing?.byTarget.get(AUDIT)).toEqual({ concurrency: 4, ratePerSecond: 5, burst: 1, paused: false, order: null });
    const fromFile = listen({ forwardTo: APP }, {}, file);
    expect(fromFile.ok && fromFile.config.forward?.pacing?.byTarget.get(APP)).toEqual({ concurrency: 16, ratePerSecond: 50, burst: 10, paused: false, order: null });
    const fromFlag = listen({ forwardTo: APP, pace: ['paused'] }, env, file);
    expect(fromFlag.ok && fromFlag.config.forward?.pacing?.fallback.paused).toBe(true);
    expect(fromFlag.ok && fromFlag.config.forward?.pacing?.byTarget.size).toBe(0);
  });

  it('lists every problem by its place, refuses a pace without --forward-to, and warns of one for no target', () => {
    const bad = listen({ forwardTo: APP, pace: ['rate=fast', `${APP} concurrency=0 speed=2`] });
    expect(bad).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^--pace #1: "rate=fast": rate is N\/s/), expect.stringMatching(/^--pace #2: "concurrency=0"/), expect.stringMatching(/^--pace #2: "speed=2" is not a pace setting/)],
    });
    const alone = listen({ pace: ['rate=1/s'] });
    expect(alone.ok).toBe(false);
    expect(!alone.ok && alone.problems).toContain('--pace has no effect without --forward-to');
    const stray = listen({ forwardTo: APP }, { HOOKRELAY_PACE: 'http://127.0.0.1:9/typo rate=1/s' });
    expect(stray.ok && stray.warnings).toEqual([expect.stringMatching(/^HOOKRELAY_PACE: no route or --forward-to hands on to http:\/\/127\.0\.0\.1:9\/typo/)]);
    const sync = listen({ forwardTo: APP, forwardMode: 'sync', pace: ['rate=1/s'] });
    expect(sync.ok && sync.warnings).toEqual([expect.stringMatching(/paces the async relay; with --forward-mode sync/)]);
  });

  it('works the same way on connect', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const token = 'pace-settings-token-0123456789abcdefghijkl';
    const ok = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(dir, 'l.db'), forwardTo: APP, forwardSecret: 'whsec_l', pace: [`${APP} rate=20/s`] }, { HOOKRELAY_CONNECT_TOKEN: token });
    expect(ok.ok && ok.config.forward?.pacing?.byTarget.get(APP)?.ratePerSecond).toBe(20);
    const bad = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(dir, 'l.db'), forwardTo: APP, forwardSecret: 'whsec_l' }, { HOOKRELAY_CONNECT_TOKEN: token, HOOKRELAY_PACE: 'burst=0' });
    expect(bad).toEqual({ ok: false, problems: [expect.stringMatching(/^HOOKRELAY_PACE: "burst=0": burst is a whole number/)] });
  });
});
