import { describe, expect, it } from 'vitest';
import { jobsRetried, retryRefusal, retryTargetOf } from '../../src/core/retry-refusal.js';

const APP = 'http://127.0.0.1:3000/hooks';
const AUDIT = 'http://audit:pw-77@127.0.0.1:3001/audit';
const SHOWN_AUDIT = 'http://[redacted]@127.0.0.1:3001/audit';
const how = 'hookrelay events replay X --to <url>';

describe('retryRefusal: why a retry requeued nothing, for a delivery\'s jobs (one per target)', () => {
  it('says a delivery with one job in one sentence, as before fan-out', () => {
    expect(retryRefusal([], how)).toBe('has no relay job (not stored, or stored while forwarding was off)');
    expect(retryRefusal([{ state: 'done', target: APP }], how)).toBe(`was already handed on; retry only requeues a dead job. To send it again, marked as a replay: ${how}`);
    expect(retryRefusal([{ state: 'pending', target: null }], how)).toBe('is still queued for the relay; retry only requeues a dead job');
    expect(retryRefusal([{ state: 'held', target: APP }], how)).toContain('`hookrelay events retarget` moves it');
  });

  it('names each target and its state when the jobs are several, credentials hidden', () => {
    const jobs = [{ state: 'done' as const, target: APP }, { state: 'pending' as const, target: AUDIT }];
    const said = retryRefusal(jobs, how);
    expect(said).toBe(`has no dead relay job; retry only requeues a dead job. By target: ${APP} was already handed on; ${SHOWN_AUDIT} is still queued for the relay. To send it again, marked as a replay: ${how}`);
    expect(said).not.toContain('pw-77');
  });

  it('scopes to one target: says the others too (one may be dead), and offers replay only when that one was handed on', () => {
    const jobs = [{ state: 'pending' as const, target: APP }, { state: 'dead' as const, target: AUDIT }];
    expect(retryRefusal(jobs, how, APP)).toBe(`has no dead relay job for ${APP}; retry only requeues a dead job. By target: ${APP} is still queued for the relay; ${SHOWN_AUDIT} is dead`);
    expect(retryRefusal(jobs, how, 'http://127.0.0.1:9/other')).toBe(`has no relay job for http://127.0.0.1:9/other; its jobs go to ${APP}, ${SHOWN_AUDIT}`);
  });
});

describe('retryTargetOf: the target a retry names, matched to the delivery\'s jobs', () => {
  const jobs = [{ state: 'done' as const, target: APP }, { state: 'dead' as const, target: AUDIT }, { state: 'dead' as const, target: null }];

  it('normalises the URL (new URL().href) and matches a target as queued or as shown', () => {
    expect(retryTargetOf(jobs, 'HTTP://127.0.0.1:3000/hooks')).toEqual({ ok: true, target: APP });
    expect(retryTargetOf(jobs, ` ${AUDIT} `)).toEqual({ ok: true, target: AUDIT });
    expect(retryTargetOf(jobs, SHOWN_AUDIT)).toEqual({ ok: true, target: AUDIT });
  });

  it('refuses a text that is not a URL, or a target the delivery has not, naming the targets it has without credentials', () => {
    expect(retryTargetOf(jobs, 'nope')).toEqual({ ok: false, message: '"nope" is not a URL (e.g. http://127.0.0.1:3000/webhooks)' });
    const other = retryTargetOf(jobs, 'http://x:secret-9@127.0.0.1:9/');
    expect(other).toEqual({ ok: false, message: `"http://[redacted]@127.0.0.1:9/" is not a target of this delivery; its relay jobs go to ${APP}, ${SHOWN_AUDIT}` });
  });

  it('says a shown target that stands for several is ambiguous, never which secret each holds', () => {
    const twins = [{ state: 'dead' as const, target: 'https://a.example/hook?token=SECRET-1' }, { state: 'dead' as const, target: 'https://a.example/hook?token=SECRET-2' }];
    const said = retryTargetOf(twins, 'https://a.example/hook?token=[redacted]');
    expect(said).toEqual({ ok: false, message: '"https://a.example/hook?token=[redacted]" is how 2 of this delivery\'s targets are shown: they differ only in what is hidden; give the target URL as it was configured' });
    expect(retryTargetOf(twins, 'https://a.example/hook?token=SECRET-2')).toEqual({ ok: true, target: twins[1]!.target });
  });

  it('jobsRetried: the dead jobs, only the one for the target when given', () => {
    expect(jobsRetried(jobs)).toEqual([jobs[1], jobs[2]]);
    expect(jobsRetried(jobs, AUDIT)).toEqual([jobs[1]]);
    expect(jobsRetried(jobs, APP)).toEqual([]);
  });
});
