import { describe, expect, it } from 'vitest';
import { createHostAllowList } from '../../src/console/host-allow-list.js';

describe('createHostAllowList', () => {
  const list = createHostAllowList({ listenHost: '127.0.0.1', allowedHosts: ['devbox.example', 'proxy.example:8443'], ports: () => [4001] });

  it.each([
    ['localhost:4001', true],
    ['127.0.0.1:4001', true],
    ['[::1]:4001', true],
    ['LocalHost:4001', true],
    ['devbox.example', true],
    ['devbox.example:9999', true],
    ['proxy.example:8443', true],
    ['proxy.example', false],
    ['proxy.example:8444', false],
    ['localhost:4002', false],
    ['localhost', false],
    ['evil.example:4001', false],
    ['localhost:4001.evil.example', false],
    ['attacker.devbox.example', false],
    ['', false],
    [undefined, false],
  ])('Host %s → %s', (host, expected) => {
    expect(list.hostAllowed(host)).toBe(expected);
  });

  it.each([
    ['http://localhost:4001', true],
    ['http://127.0.0.1:4001', true],
    ['http://[::1]:4001', true],
    ['https://devbox.example', true],
    ['null', false],
    [undefined, false],
    ['http://localhost:3000', false],
    ['http://evil.example', false],
    ['http://localhost:4001.evil.example', false],
    ['http://user@localhost:4001', false],
    ['http://localhost:4001/', false],
    ['file://localhost:4001', false],
    ['ws://localhost:4001', false],
  ])('Origin %s → %s', (origin, expected) => {
    expect(list.originAllowed(origin)).toBe(expected);
  });

  it('reads the port lazily, once it is known', () => {
    let ports: number[] = [];
    const lazy = createHostAllowList({ listenHost: '127.0.0.1', allowedHosts: [], ports: () => ports });
    expect(lazy.hostAllowed('localhost:5555')).toBe(false);
    ports = [5555];
    expect(lazy.hostAllowed('localhost:5555')).toBe(true);
  });

  it('allows a specific non-loopback bind address with its port, and not a wildcard one', () => {
    expect(createHostAllowList({ listenHost: '10.0.0.7', allowedHosts: [], ports: () => [4001] }).hostAllowed('10.0.0.7:4001')).toBe(true);
    expect(createHostAllowList({ listenHost: '0.0.0.0', allowedHosts: [], ports: () => [4001] }).hostAllowed('0.0.0.0:4001')).toBe(false);
  });

  it('accepts a port-less Host only on port 80', () => {
    expect(createHostAllowList({ listenHost: 'localhost', allowedHosts: [], ports: () => [80] }).hostAllowed('localhost')).toBe(true);
  });
});
