import { describe, expect, it } from 'vitest';
import { verify } from '../../src/core/signature/verify.js';
import { buildForwardRequest, parseForwardHeader } from '../../src/handoff/forward-request.js';
import { nextRelayState, relayDelayMs, DEFAULT_RELAY_RETRY } from '../../src/relay/relay-backoff.js';

const delivery = {
  id: 'd1',
  rawBody: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
  receivedAt: 1_763_719_200_000,
  headers: [
    ['Host', 'example'],
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Connection', 'keep-alive'],
    ['Transfer-Encoding', 'chunked'],
    ['X-Service-Delivery', 'd1'],
    ['X-Service-Event', 'vendor.rating_dropped'],
    ['X-Service-Delivery-Attempt', '3'],
    ['X-Service-Signature', 't=1,v1=old'],
  ] as Array<[string, string]>,
};

describe('forward request', () => {
  it('carries the raw body, the x-service headers, a fresh signature and the relay marks; no hop-by-hop headers', () => {
    const { headers, body } = buildForwardRequest({ delivery, secret: 'fwd', nowSeconds: 1_800_000_000.7, relayTry: 2, replay: false, extraHeaders: [['X-Env', 'dev']] });
    expect(body.equals(delivery.rawBody)).toBe(true);
    expect(headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-service-delivery': 'd1',
      'x-service-event': 'vendor.rating_dropped',
      'x-service-delivery-attempt': '3',
      'x-hookrelay-relayed': 'true',
      'x-hookrelay-relay-try': '2',
      'x-hookrelay-replay': 'false',
      'x-env': 'dev',
    });
    expect(Object.keys(headers)).not.toEqual(expect.arrayContaining(['host']));
    for (const name of ['host', 'connection', 'transfer-encoding']) expect(headers[name]).toBeUndefined();
    expect(headers['x-service-signature']).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verify(body, headers['x-service-signature'], { secrets: ['fwd'], nowSeconds: 1_800_000_000 }).ok).toBe(true);
  });

  it.each([
    ['X-Env: dev', true],
    ['Authorization: Bearer abc', true],
    ['no colon', false],
    ['Bad Name: x', false],
    ['Content-Length: 5', false],
    ['Host: evil', false],
    ['x-service-signature: forged', false],
  ])('parses --forward-header %j → %s', (text, ok) => {
    expect(parseForwardHeader(text).ok).toBe(ok);
  });
});

describe('relay backoff', () => {
  it('doubles from the initial delay, within ±20%, capped', () => {
    for (let n = 1; n <= 12; n++) {
      const nominal = Math.min(1000 * 2 ** (n - 1), 300_000);
      expect(relayDelayMs(DEFAULT_RELAY_RETRY, n, () => 0)).toBe(Math.round(nominal * 0.8));
      expect(relayDelayMs(DEFAULT_RELAY_RETRY, n, () => 0.999999)).toBeLessThanOrEqual(Math.round(nominal * 1.2));
    }
  });

  it('is done on 2xx, dead after the last try, pending otherwise', () => {
    const policy = { ...DEFAULT_RELAY_RETRY, maxTries: 3 };
    expect(nextRelayState(policy, 1, 204, 0, () => 0.5)).toEqual({ state: 'done' });
    expect(nextRelayState(policy, 1, 500, 0, () => 0.5)).toEqual({ state: 'pending', nextAt: 1000 });
    expect(nextRelayState(policy, 2, null, 10, () => 0.5)).toEqual({ state: 'pending', nextAt: 2010 });
    expect(nextRelayState(policy, 3, 302, 0, () => 0.5)).toEqual({ state: 'dead' });
  });
});
