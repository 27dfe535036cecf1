import { describe, expect, it } from 'vitest';
import { secretRedactor } from '../../src/core/secret-hint.js';
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
    ['postgres://app:pa#ss-W0rd@db.example:5432/hooks', 'postgres://[redacted]@db.example:5432/hooks'],
    ['http://host/p?email=a@b.com&token=x', 'http://host/p?email=a%40b.com&token=[redacted]'],
  ])('%s → %s', (input, shown) => {
    expect(displayUrl(input)).toBe(shown);
  });
});

describe('urlSecrets', () => {
  it('gives the credentials in the forms they take inside the URL, never the bare values', () => {
    expect(urlSecrets('http://bob:Hunter%402Pass@h/?token=tok-12345&page=2')).toEqual(['bob:Hunter%402Pass@', 'token=tok-12345']);
    expect(urlSecrets('https://ghp_tokenAsUser@h/')).toEqual(['ghp_tokenAsUser@']);
    expect(urlSecrets('http://h/x')).toEqual([]);
  });

  it('so that short or common values leave the rest of a log line alone', () => {
    const redact = secretRedactor(['whsec_0123456789abcdef', ...urlSecrets('http://hook:1@127.0.0.1:9/hook?passthrough=true')]);
    const line = '{"pid":31770,"skipVerify":true,"receiver":"http://127.0.0.1:4000/webhooks"}';
    expect(redact(line)).toBe(line);
    expect(redact('went to http://hook:1@127.0.0.1:9/hook?passthrough=true')).not.toMatch(/hook:1@|passthrough=true/);
  });
});

describe('basicAuthorization', () => {
  it('is RFC 7617 Basic of the decoded user name and password, or null without them', () => {
    expect(basicAuthorization(new URL('http://bob:p%40ss@h/'))).toBe(`Basic ${Buffer.from('bob:p@ss').toString('base64')}`);
    expect(basicAuthorization(new URL('http://h/'))).toBeNull();
  });
});

describe('messages that echo a refused URL', () => {
  it('show it redacted: a --route and a --forward-to that are refused', async () => {
    const { parseRoute } = await import('../../src/core/routes.js');
    const route = parseRoute('vendor.*=ftp://bob:Hunter2Pass@127.0.0.1/x');
    expect(route.ok ? '' : route.message).not.toContain('Hunter2Pass');
    const { resolveListenConfig } = await import('../../src/config/listen-config.js');
    const listen = resolveListenConfig({ flags: { forwardTo: 'ftp://bob:Hunter2Pass@127.0.0.1/x' }, env: {}, configFile: '/nonexistent/hookrelay.config.json' });
    expect(listen.ok).toBe(false);
    expect(JSON.stringify(listen)).not.toContain('Hunter2Pass');
  });
});

describe('a text that does not parse as one URL (a route of several targets, a bad URL)', () => {
  it('keeps the values of its secret query parameters hidden, every one of them', async () => {
    const { displayUrl } = await import('../../src/core/url-secrets.js');
    const { parseRoute } = await import('../../src/core/routes.js');
    expect(displayUrl('https://bad:99999/?token=abc&page=2')).toBe('https://bad:99999/?token=[redacted]&page=2');
    const text = '*=http://127.0.0.1:3001/audit?api_key=LIVEKEY123 http://127.0.0.1:3002/log?token=TOK456 https://bad:99999/';
    const parsed = parseRoute(text, true);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).not.toMatch(/LIVEKEY123|TOK456/);
      expect(parsed.message).toContain('"https://bad:99999/" is not a URL');
    }
    const ftp = parseRoute('*=ftp://app/hook?token=SEKRET6');
    expect(!ftp.ok && ftp.message).not.toContain('SEKRET6');
  });
});
