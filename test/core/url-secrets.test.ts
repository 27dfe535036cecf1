import { describe, expect, it } from 'vitest';
import { basicAuthorization, displayUrl, urlSecrets } from '../../src/core/url-secrets.js';

describe('displayUrl', () => {
  it.each([
    ['http://127.0.0.1:3000/webhooks', 'http://127.0.0.1:3000/webhooks'],
    ['http://bob:Hunter2Pass@127.0.0.1:3009/webhooks', 'http://[redacted]@127.0.0.1:3009/webhooks'],
    ['https://ghp_tokenAsUser@example.com/x', 'https://[redacted]@example.com/x'],
    ['http://h/x?token=abc&keep=1', 'http://h/x?token=[redacted]&keep=1'],
    ['http://h/x?api_key=abc&Signature=zz&page=2', 'http://h/x?api_key=[redacted]&Signature=[redacted]&page=2'],
    ['http://h/x?page=2', 'http://h/x?page=2'],
    ['postgres://hr:pw@db:5432/hookrelay?sslmode=require', 'postgres://[redacted]@db:5432/hookrelay?sslmode=require'],
    ['http://bob:pw@[not a url', 'http://[redacted]@[not a url'],
  ])('%s → %s', (input, shown) => {
    expect(displayUrl(input)).toBe(shown);
  });
});

describe('urlSecrets', () => {
  it('gives the user name and password, decoded too, and secret query values', () => {
    expect(urlSecrets('http://bob:p%40ss@h/?token=t1&page=2')).toEqual(['p%40ss', 'p@ss', 'bob', 't1', 't1']);
    expect(urlSecrets('http://h/x')).toEqual([]);
  });
});

describe('basicAuthorization', () => {
  it('is RFC 7617 Basic of the decoded user name and password, or null without them', () => {
    expect(basicAuthorization(new URL('http://bob:p%40ss@h/'))).toBe(`Basic ${Buffer.from('bob:p@ss').toString('base64')}`);
    expect(basicAuthorization(new URL('http://h/'))).toBeNull();
  });
});
