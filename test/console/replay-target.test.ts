import { describe, expect, it } from 'vitest';
import { checkReplayTarget } from '../../src/console/replay-target.js';

describe('checkReplayTarget', () => {
  const forward = 'https://app.example.com/hooks';

  it.each([
    [undefined, forward, null],
    ['', forward, null],
    [forward, forward, 'https://app.example.com/hooks'],
    ['https://APP.example.com:443/hooks', forward, 'https://app.example.com/hooks'],
    ['http://localhost:3000/webhooks', null, 'http://localhost:3000/webhooks'],
    ['http://127.0.0.1:3000/x', forward, 'http://127.0.0.1:3000/x'],
    ['http://2130706433:3000/x', forward, 'http://127.0.0.1:3000/x'],
    ['http://[::1]:3000/x', forward, 'http://[::1]:3000/x'],
  ])('%j with forward %j → allowed, target %j', (to, forwardTo, target) => {
    expect(checkReplayTarget(to, forwardTo)).toEqual({ ok: true, target });
  });

  it.each([
    [undefined, null],
    ['https://evil.example/x', forward],
    ['https://app.example.com/other', forward],
    ['http://localhost.evil.example/', forward],
    ['http://0.0.0.0:3000/', forward],
    ['http://10.0.0.1/', forward],
    ['ftp://localhost/x', forward],
    ['javascript:alert(1)', forward],
    ['not a url', forward],
    [42, forward],
    [`http://localhost/${'a'.repeat(3000)}`, forward],
  ])('%j with forward %j → refused', (to, forwardTo) => {
    const result = checkReplayTarget(to, forwardTo);
    expect(result.ok).toBe(false);
  });
});
