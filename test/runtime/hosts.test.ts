/** One loopback test for the whole app: the console and the composition root once disagreed on LOCALHOST. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, urlHost } from '../../src/runtime/hosts.js';

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['[::1]'.toUpperCase(), true],
    ['LocalHost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.5', false],
    ['localhost.evil.com', false],
    ['127.0.0.1.nip.io', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('urlHost', () => {
  it.each([
    ['0.0.0.0', '127.0.0.1'],
    ['::', '127.0.0.1'],
    ['::1', '[::1]'],
    ['example.com', 'example.com'],
  ])('%s → %s', (host, expected) => {
    expect(urlHost(host)).toBe(expected);
  });
});
