import { describe, expect, it } from 'vitest';
import { resolveCheckSettings, type CheckFlags } from '../../src/config/check-settings.js';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retry-policy/policy.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const resolve = (flags: Partial<CheckFlags>, env: NodeJS.ProcessEnv = {}) =>
  resolveCheckSettings({ db: '/tmp/none/hookrelay.db', config: undefined, ...flags }, { nowMs: NOW, env });

function settingsOf(flags: Partial<CheckFlags>, env: NodeJS.ProcessEnv = {}) {
  const r = resolve(flags, env);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.settings;
}

describe('resolveCheckSettings', () => {
  it('defaults to the spec: default policy and failure handling, time scale 1, 300 s, 10 s, judged now while runs may go on', () => {
    const s = settingsOf({});
    expect(s).toMatchObject({ location: { kind: 'sqlite', path: '/tmp/none/hookrelay.db' }, deliveryId: null, since: null, json: false, verbose: false });
    expect(s.options).toEqual({
      policy: DEFAULT_RETRY_POLICY,
      failureHandling: { autoDisableAfter: 15, disableOnGone: true },
      timeScale: 1,
      toleranceSeconds: 300,
      attemptTimeoutSeconds: 10,
      slack: { earlyMs: 250, lateMs: 1000 },
      complete: 'auto',
      now: NOW,
    });
  });

  it('reads every judging flag', () => {
    const s = settingsOf({
      delivery: 'evt_1', since: '2h', maxAttempts: '3', backoff: 'fixed', initialDelay: '30', maxDelay: '120', retryOn: 'http_5xx,timeout',
      autoDisableAfter: '4', disableOnGone: false, tolerance: '60', timeout: '2.5s', slack: '10,20', timeScale: '0.01', json: true, verbose: true,
    });
    expect(s).toMatchObject({ deliveryId: 'evt_1', since: NOW - 7_200_000, json: true, verbose: true });
    expect(s.options).toMatchObject({
      policy: { enabled: true, maxAttempts: 3, backoff: 'fixed', initialDelaySeconds: 30, maxDelaySeconds: 120, retryOn: ['http_5xx', 'timeout'] },
      failureHandling: { autoDisableAfter: 4, disableOnGone: false },
      toleranceSeconds: 60,
      attemptTimeoutSeconds: 2.5,
      slack: { earlyMs: 10, lateMs: 20 },
      timeScale: 0.01,
    });
  });

  it('uses the local slack for a scaled run unless --slack says otherwise', () => {
    expect(settingsOf({ timeScale: '0.001' }).options.slack).toEqual({ earlyMs: 100, lateMs: 500 });
  });

  it('takes the tolerance and the database like listen: flag > HOOKRELAY_* > default', () => {
    expect(settingsOf({}, { HOOKRELAY_TOLERANCE: '90' }).options.toleranceSeconds).toBe(90);
    expect(settingsOf({ tolerance: '30' }, { HOOKRELAY_TOLERANCE: '90' }).options.toleranceSeconds).toBe(30);
    expect(settingsOf({ db: undefined }, { HOOKRELAY_DB: '/elsewhere/x.db' }).location).toEqual({ kind: 'sqlite', path: '/elsewhere/x.db' });
    expect(settingsOf({}, { HOOKRELAY_STORE: 'postgres://u@db/h' }).location).toEqual({ kind: 'postgres', url: 'postgres://u@db/h' });
    expect(settingsOf({ store: 'postgres://flag/h' }, { HOOKRELAY_STORE: 'postgres://env/h' }).location).toEqual({ kind: 'postgres', url: 'postgres://flag/h' });
    expect(resolve({ store: 'mysql://x' }, {})).toEqual({ ok: false, problems: ['--store: must be a postgres:// or postgresql:// URL (the SQLite file is --db)'] });
    expect(resolve({}, { HOOKRELAY_TOLERANCE: 'soon' })).toEqual({ ok: false, problems: ['HOOKRELAY_TOLERANCE: must be a whole number from 1 to 86400, got "soon"'] });
  });

  it('reads --policy and --retry-policy the same way', () => {
    const json = '{"maxAttempts":4,"retryOn":["http_429"]}';
    expect(settingsOf({ policy: json }).options.policy).toEqual(settingsOf({ retryPolicy: json }).options.policy);
    expect(settingsOf({ policy: json }).options.policy).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 4, retryOn: ['http_429'] });
  });

  it('names the flag of every refused policy field', () => {
    const r = resolve({ maxAttempts: 'many', backoff: 'linear', initialDelay: '5', maxDelay: '1e9', retryOn: 'http_5xx,blocked' });
    expect(r).toEqual({
      ok: false,
      problems: [
        '--max-attempts: must be an integer from 1 to 10 (got "many")',
        '--backoff: must be "exponential" or "fixed" (got "linear")',
        '--initial-delay: must be an integer from 10 to 3600 (got 5)',
        '--max-delay: must be an integer from 60 to 86400 (got "1e9")',
        '--retry-on: retryOn[1] must be one of timeout, network, http_408, http_429, http_5xx, http_4xx (got "blocked")',
      ],
    });
    expect(resolve({ policy: '{"enabled":"yes"}' })).toEqual({ ok: false, problems: ['--policy: retryPolicy.enabled must be true or false (got "yes")'] });
  });
});
