/**
 * Which proxy a URL goes through (src/runtime/proxy.ts) and where the setting comes from (the
 * config of connect, the service commands, send and emulate): NO_PROXY first, an explicit proxy for
 * everything else (loopback too), the standard variables (lower case first) never for loopback; every
 * bad value a problem naming where it was set, without its credentials.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { outputRedactor } from '../../src/config/output-redactor.js';
import { resolveEmulateConfig } from '../../src/config/emulate-config.js';
import { resolveSendSettings } from '../../src/config/send-settings.js';
import { resolveProxySettings, resolveServiceSettings } from '../../src/config/service-settings.js';
import { describeRoute, namedByNoProxy, proxyRoute, type ProxySettings } from '../../src/runtime/proxy.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const P = (url: string, from: string) => ({ url, from });
const ENV: ProxySettings = { explicit: null, https: P('http://secure-proxy:3128', 'HTTPS_PROXY'), http: P('http://plain-proxy:3128', 'HTTP_PROXY'), noProxy: [] };
const ASKED: ProxySettings = { explicit: P('http://asked:8080', '--proxy'), https: null, http: null, noProxy: [] };

describe('proxyRoute', () => {
  it.each([
    ['https://api.example.com/v1', ENV, { proxy: ENV.https }],
    ['wss://hooks.example.com/bridge', ENV, { proxy: ENV.https }],
    ['http://api.example.com/v1', ENV, { proxy: ENV.http }],
    ['ws://hooks.example.com/bridge', ENV, { proxy: ENV.http }],
    ['https://api.example.com', { ...ENV, https: null }, { direct: 'no-proxy-set' }],
    ['http://127.0.0.1:4000/webhooks', ENV, { direct: 'loopback' }],
    ['https://127.9.8.7/x', ENV, { direct: 'loopback' }],
    ['http://localhost:3000/x', ENV, { direct: 'loopback' }],
    ['http://[::1]:3000/x', ENV, { direct: 'loopback' }],
    ['http://127.0.0.1:4000/webhooks', ASKED, { proxy: ASKED.explicit }],
    ['https://api.example.com/v1', ASKED, { proxy: ASKED.explicit }],
    ['http://127.0.0.1:4000/webhooks', { ...ASKED, noProxy: ['localhost', '127.0.0.1'] }, { direct: 'no_proxy' }],
    ['https://api.example.com/v1', { ...ENV, noProxy: ['*'] }, { direct: 'no_proxy' }],
    ['https://api.example.com/v1', { ...ENV, noProxy: ['example.com'] }, { direct: 'no_proxy' }],
    ['https://api.example.com/v1', { ...ENV, noProxy: ['other.com'] }, { proxy: ENV.https }],
    ['ftp://api.example.com/', ASKED, { direct: 'no-proxy-set' }],
    ['not a url', ASKED, { direct: 'no-proxy-set' }],
    ['https://api.example.com/v1', null, { direct: 'no-proxy-set' }],
  ] as const)('%s', (url, settings, route) => {
    expect(proxyRoute(url, settings)).toEqual(route);
  });

  it('says a route in words, the credentials redacted', () => {
    expect(describeRoute({ proxy: P('http://ana:pw@proxy:3128', 'HTTPS_PROXY') })).toBe('http://[redacted]@proxy:3128 (HTTPS_PROXY)');
    expect(describeRoute({ direct: 'loopback' })).toBe('direct (loopback is proxied only when --proxy asks)');
    expect(describeRoute({ direct: 'no_proxy' })).toBe('direct (NO_PROXY names this host)');
  });
});

describe('NO_PROXY entries', () => {
  it.each([
    ['api.example.com', 443, 'example.com', true],
    ['example.com', 443, 'example.com', true],
    ['api.example.com', 443, '.example.com', true],
    ['api.example.com', 443, '*.example.com', true],
    ['notexample.com', 443, 'example.com', false],
    ['api.example.com', 443, 'example.com:443', true],
    ['api.example.com', 8443, 'example.com:443', false],
    ['10.1.2.3', 80, '10.0.0.0/8', true],
    ['11.1.2.3', 80, '10.0.0.0/8', false],
    ['10.1.2.3', 80, '10.1.2.3', true],
    ['::1', 80, '::1', true],
    ['::1', 80, '0:0:0:0:0:0:0:1', true],
    ['::1', 8080, '[::1]:8080', true],
    ['fd00::5', 80, 'fd00::/8', true],
    ['api.example.com', 80, 'API.EXAMPLE.COM', true],
    ['anything', 80, '*', true],
    ['anything', 80, '', false],
  ] as const)('%s:%i against %s', (host, port, entry, named) => {
    expect(namedByNoProxy(host, port, [entry])).toBe(named);
  });
});

describe('resolveProxySettings', () => {
  const resolve = (explicit: { value: string; from: string } | null, env: NodeJS.ProcessEnv) => {
    const problems: string[] = [];
    const warnings: string[] = [];
    return { settings: resolveProxySettings(explicit, env, problems, warnings), problems, warnings };
  };

  it('reads the lower-case variable first, takes an empty one for unset, and splits NO_PROXY on commas and spaces', () => {
    const { settings, problems } = resolve(null, { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2', http_proxy: '', HTTP_PROXY: 'proxy.corp:8080', NO_PROXY: 'a.test, b.test  10.0.0.0/8' });
    expect(problems).toEqual([]);
    expect(settings).toEqual({ explicit: null, https: P('http://lower:1', 'https_proxy'), http: P('http://proxy.corp:8080', 'HTTP_PROXY'), noProxy: ['a.test', 'b.test', '10.0.0.0/8'] });
  });

  it('an explicit proxy leaves the variables unread (a bad one there does not matter), NO_PROXY still applies', () => {
    const { settings, problems } = resolve({ value: 'http://asked:8080', from: '--proxy' }, { HTTPS_PROXY: 'socks5://nope:1080', no_proxy: 'internal.test' });
    expect(problems).toEqual([]);
    expect(settings).toEqual({ explicit: P('http://asked:8080', '--proxy'), https: null, http: null, noProxy: ['internal.test'] });
  });

  it('refuses what cannot be a proxy, naming where it was set and never its password', () => {
    const { problems } = resolve(null, { HTTPS_PROXY: 'socks5://ana:pw-one@proxy:1080', HTTP_PROXY: 'http://ana:pw-two@proxy:3128/some/path' });
    expect(problems).toEqual([
      'HTTPS_PROXY: socks5:// proxies are not supported, only HTTP proxies (http:// or https://); give HTTPS_PROXY one, or unset it for this command',
      'HTTP_PROXY: "http://[redacted]@proxy:3128/some/path" must be http://[user:password@]host:port, without a path or query',
    ]);
    const bad = resolve({ value: 'http://ana:pw-three@', from: '--proxy' }, {});
    expect(bad.problems).toHaveLength(1);
    expect(bad.problems[0]).toMatch(/^--proxy: .* is not a proxy URL/);
    expect(bad.problems.join(' ')).not.toMatch(/pw-/);
  });

  it('warns about a password typed as --proxy, not about one in HOOKRELAY_PROXY', () => {
    expect(resolve({ value: 'http://ana:pw@proxy:3128', from: '--proxy' }, {}).warnings).toEqual(['--proxy (its user name and password) is visible to every user of this machine in the process list; prefer HOOKRELAY_PROXY']);
    expect(resolve({ value: 'http://proxy:3128', from: '--proxy' }, {}).warnings).toEqual([]);
    expect(resolve({ value: 'http://ana:pw@proxy:3128', from: 'HOOKRELAY_PROXY' }, {}).warnings).toEqual([]);
  });
});

describe("connect's output redactor", () => {
  it("replaces a proxy's user:password@ wherever a line carries it past displayUrl", () => {
    const settings = resolveProxySettings({ value: 'http://ana:S3cr%40t-pw@proxy.corp:3128', from: 'HOOKRELAY_PROXY' }, {}, [], []);
    const redact = outputRedactor(['laptop-token-0123456789abcdefghijklmnopqrstuvwxyz'], null, [settings.explicit?.url]);
    const line = redact(`could not connect through ${settings.explicit!.url}`);
    expect(line).not.toContain('S3cr');
    // The one redactor's hint: at most the last 4 characters of `user:password@` (core/secret-hint.ts).
    expect(line).toBe('could not connect through http://…-pw@proxy.corp:3128');
  });
});

describe('where each command takes its proxy from', () => {
  const connect = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file?: Record<string, unknown>) => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    let config: string | undefined;
    if (file) {
      config = join(dir, 'hookrelay.config.json');
      writeFileSync(config, JSON.stringify(file));
    }
    return resolveConnectConfig('wss://hooks.example.com/bridge', { token: 'laptop-token-0123456789abcdefghijklmnopqrstuvwxyz', db: join(dir, 'laptop.db'), ...(config ? { config } : {}), ...flags }, env);
  };
  const proxyOf = (result: ReturnType<typeof connect>) => {
    if (!result.ok) throw new Error(result.problems.join('; '));
    return result.config.proxy;
  };

  it('connect: --proxy > HOOKRELAY_PROXY > "proxy" in the config file > HTTPS_PROXY', () => {
    const env = { HOOKRELAY_PROXY: 'http://from-env:2', HTTPS_PROXY: 'http://standard:4' };
    const file = { proxy: 'http://from-file:3' };
    expect(proxyOf(connect({ proxy: 'http://from-flag:1' }, env, file))?.explicit).toEqual(P('http://from-flag:1', '--proxy'));
    expect(proxyOf(connect({}, env, file))?.explicit).toEqual(P('http://from-env:2', 'HOOKRELAY_PROXY'));
    const fromFile = proxyOf(connect({}, { HTTPS_PROXY: 'http://standard:4' }, file))?.explicit;
    expect(fromFile?.url).toBe('http://from-file:3');
    expect(fromFile?.from).toMatch(/hookrelay\.config\.json "proxy"$/);
    expect(proxyOf(connect({}, { HTTPS_PROXY: 'http://standard:4' }))).toEqual({ explicit: null, https: P('http://standard:4', 'HTTPS_PROXY'), http: null, noProxy: [] });
    const refused = connect({ proxy: 'socks5://proxy:1080' }, {});
    expect(refused.ok ? [] : refused.problems).toContain('--proxy: socks5:// proxies are not supported, only HTTP proxies (http:// or https://); give --proxy one');
  });

  it('the service commands: --proxy > HOOKRELAY_PROXY > the variables', () => {
    const base = { apiUrl: 'https://api.example.com/v1' };
    const key = { HOOKRELAY_API_KEY: 'key_0123456789' };
    const flagged = resolveServiceSettings({ ...base, proxy: 'http://ana:pw@from-flag:1' }, { ...key, HOOKRELAY_PROXY: 'http://from-env:2' });
    expect(flagged.ok && flagged.settings.proxy.explicit).toEqual(P('http://ana:pw@from-flag:1', '--proxy'));
    expect(flagged.ok && flagged.settings.warnings).toEqual(['warning: --proxy (its user name and password) is visible to every user of this machine in the process list; prefer HOOKRELAY_PROXY']);
    const fromEnv = resolveServiceSettings(base, { ...key, HOOKRELAY_PROXY: 'http://from-env:2', HTTPS_PROXY: 'http://standard:4' });
    expect(fromEnv.ok && fromEnv.settings.proxy.explicit).toEqual(P('http://from-env:2', 'HOOKRELAY_PROXY'));
    const bad = resolveServiceSettings(base, { ...key, HTTPS_PROXY: 'ftp://proxy:21' });
    expect(bad.ok ? [] : bad.problems).toEqual(['HTTPS_PROXY: ftp:// proxies are not supported, only HTTP proxies (http:// or https://); give HTTPS_PROXY one, or unset it for this command']);
  });

  it('send and emulate read the same flag and variable', () => {
    const flags = { to: 'http://127.0.0.1:4000/webhooks', trigger: 'trustcenter.access_requested', secret: 'whsec_x', count: '1', concurrency: '1', timeScale: '1', timeout: '10000', autoDisableAfter: '15', disableOnGone: true };
    const sent = resolveSendSettings({ ...flags, proxy: 'http://from-flag:1' } as never, Date.now, { HOOKRELAY_PROXY: 'http://from-env:2' });
    expect(sent.ok && sent.settings.proxy.explicit).toEqual(P('http://from-flag:1', '--proxy'));
    const refused = resolveSendSettings(flags as never, Date.now, { http_proxy: 'socks://proxy:1080' });
    expect(refused).toEqual({ ok: false, message: 'http_proxy: socks:// proxies are not supported, only HTTP proxies (http:// or https://); give http_proxy one, or unset it for this command' });
    const emulated = resolveEmulateConfig({}, { HOOKRELAY_PROXY: 'http://from-env:2', no_proxy: 'hooks.internal' });
    expect(emulated.ok && emulated.config.proxy).toEqual({ explicit: P('http://from-env:2', 'HOOKRELAY_PROXY'), https: null, http: null, noProxy: ['hooks.internal'] });
  });
});
