/**
 * `--route`, `--forward-insecure`/`--forward-ca` and `--tls-cert`/`--tls-key` (and connect's
 * `--bridge-ca`) as settings: flag > HOOKRELAY_* > hookrelay.config.json > default, every problem
 * at once, each naming the bad route or file.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { makeSelfSigned } from '../tls/self-signed.js';
import { tempDir } from '../helpers/temp-dir.js';

const BRIDGE_TOKEN = 'forward-settings-token-0123456789abcdefghij';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

const APP = 'http://127.0.0.1:3000/webhooks';

function listen(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file?: Record<string, unknown>) {
  const dir = folder();
  const configFile = join(dir, 'hookrelay.config.json');
  if (file) writeFileSync(configFile, JSON.stringify(file));
  // The secret in the environment: as a flag it would add a process-list warning to every result.
  return resolveListenConfig({ flags: { db: join(dir, 'h.db'), ...flags }, env: { HOOKRELAY_SECRET: 'whsec_forward_settings_0123456789', ...env }, configFile });
}

describe('--route', () => {
  it('keeps the order given: the first matching route wins, --forward-to takes the rest', () => {
    const result = listen({ forwardTo: APP, route: ['vendor.rating_dropped=http://127.0.0.1:3001/a', 'vendor.*=http://127.0.0.1:3002/b'] });
    expect(result.ok && result.config.forward?.routes).toEqual([
      { glob: 'vendor.rating_dropped', urls: ['http://127.0.0.1:3001/a'] },
      { glob: 'vendor.*', urls: ['http://127.0.0.1:3002/b'] },
    ]);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it('reads HOOKRELAY_ROUTE one per line (a URL may hold a comma) and the config file\'s "route" array; a flag wins', () => {
    const env = { HOOKRELAY_ROUTE: 'vendor.*=http://127.0.0.1:3001/a?x=1,2\n\n  sod.*=http://127.0.0.1:3002/b  \n' };
    const fromEnv = listen({ forwardTo: APP }, env, { route: ['control.*=http://127.0.0.1:3003/c'] });
    expect(fromEnv.ok && fromEnv.config.forward?.routes?.flatMap((r) => r.urls)).toEqual(['http://127.0.0.1:3001/a?x=1,2', 'http://127.0.0.1:3002/b']);
    const fromFile = listen({ forwardTo: APP }, {}, { route: ['control.*=http://127.0.0.1:3003/c'] });
    expect(fromFile.ok && fromFile.config.forward?.routes?.map((r) => r.glob)).toEqual(['control.*']);
    const fromFlag = listen({ forwardTo: APP, route: ['*=http://127.0.0.1:3004/d'] }, env, { route: ['control.*=http://127.0.0.1:3003/c'] });
    expect(fromFlag.ok && fromFlag.config.forward?.routes?.map((r) => r.glob)).toEqual(['*']);
  });

  it('lists every bad route at once, each by its place and cause', () => {
    const result = listen({ forwardTo: APP, route: ['vendor.*', 'ven dor=http://127.0.0.1:1/', 'vendor.*=localhost:3000', 'vendor.*=http://127.0.0.1:3001/ok'] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      expect.stringMatching(/^--route #1: "vendor\.\*" has no "="/),
      expect.stringMatching(/^--route #2: .*the glob "ven dor" is not a trigger glob/),
      expect.stringMatching(/^--route #3: .*must be an http or https URL \(the scheme is missing/),
    ]);
  });

  it('names the config file and the variable when the bad route came from there', () => {
    const file = listen({ forwardTo: APP }, {}, { route: ['nope'] });
    expect(!file.ok && file.problems[0]).toMatch(/hookrelay\.config\.json "route": "nope" has no "="/);
    const env = listen({ forwardTo: APP }, { HOOKRELAY_ROUTE: 'nope' });
    expect(!env.ok && env.problems[0]).toMatch(/^HOOKRELAY_ROUTE: "nope" has no "="/);
    const type = listen({ forwardTo: APP }, {}, { route: 42 });
    expect(!type.ok && type.problems[0]).toMatch(/"route": must be one or more non-empty strings/);
  });

  it('warns about a glob that matches no trigger of the catalogue, and about a route that can never apply', () => {
    const result = listen({ forwardTo: APP, route: ['vendr.*=http://127.0.0.1:3001/', '*=http://127.0.0.1:3002/', 'vendor.*=http://127.0.0.1:3003/'] });
    expect(result.ok && result.warnings).toEqual([
      expect.stringMatching(/^--route #1: the glob "vendr\.\*" matches no trigger of the catalogue/),
      expect.stringMatching(/^--route #3: "vendor\.\*" never applies: the earlier route "\*" \(with no filter\) matches first/),
    ]);
  });

  it('needs --forward-to, where the rest goes', () => {
    const result = listen({ route: ['vendor.*=http://127.0.0.1:3001/'] });
    expect(result).toEqual({ ok: false, problems: [expect.stringMatching(/^--route needs --forward-to/)] });
  });

  it('works the same way on connect', () => {
    const dir = folder();
    const result = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(dir, 'l.db'), forwardTo: APP, forwardSecret: 'whsec_l', route: ['vendr.*=http://127.0.0.1:3001/', 'x y=http://127.0.0.1:1/'] }, { HOOKRELAY_CONNECT_TOKEN: BRIDGE_TOKEN });
    expect(result).toEqual({ ok: false, problems: [expect.stringMatching(/^--route #2: .*"x y" is not a trigger glob/)] });
    const ok = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(dir, 'l.db'), forwardTo: APP }, { HOOKRELAY_ROUTE: 'vendr.*=http://127.0.0.1:3001/', HOOKRELAY_CONNECT_TOKEN: BRIDGE_TOKEN, HOOKRELAY_FORWARD_SECRET: 'whsec_l' });
    expect(ok.ok && ok.config.forward?.routes).toEqual([{ glob: 'vendr.*', urls: ['http://127.0.0.1:3001/'] }]);
    expect(ok.ok && ok.warnings).toEqual([expect.stringMatching(/matches no trigger of the catalogue/)]);
  });
});

describe('--route with a filter', () => {
  const RISKY = "vendor.* where /data/risk >= 70 and header:x-service-event prefix vendor. = http://127.0.0.1:3001/risky";

  it('reads GLOB where COND and COND = URL the same from a flag, HOOKRELAY_ROUTE and the config file', () => {
    const expected = [
      {
        glob: 'vendor.*',
        urls: ['http://127.0.0.1:3001/risky'],
        where: [
          expect.objectContaining({ text: '/data/risk >= 70', op: '>=', operand: { kind: 'body', path: ['data', 'risk'], pointer: true } }),
          expect.objectContaining({ text: 'header:x-service-event prefix vendor.', op: 'prefix', operand: { kind: 'header', name: 'x-service-event' } }),
        ],
      },
    ];
    for (const result of [listen({ forwardTo: APP, route: [RISKY] }), listen({ forwardTo: APP }, { HOOKRELAY_ROUTE: RISKY }), listen({ forwardTo: APP }, {}, { route: [RISKY] })]) {
      expect(result.ok && result.config.forward?.routes).toEqual(expected);
      expect(result.ok && result.warnings).toEqual([]);
    }
  });

  it('lists every problem of a filter at once, each with its column in the route', () => {
    const text = 'vendor.* where /data/risk >= high and /data/kind ~ a and = http://127.0.0.1:3001/';
    const result = listen({ forwardTo: APP, route: [text] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    const message = result.problems[0]!;
    expect(message).toMatch(/^--route: /);
    expect(message).toContain(`compares with a number (e.g. 70, -1.5, 1e3) or an RFC 3339 time (e.g. 2026-01-01T00:00:00Z), not "high" at column ${text.indexOf('high') + 1}`);
    expect(message).toContain(`unknown operator "~": use =, !=, in, prefix, exists, not-exists, <, <=, >, >= (spaces around it) at column ${text.indexOf('~') + 1}`);
    expect(message).toContain(`expected a condition after "and" at column`);
  });

  it('refuses a filtered route with no " = URL" at its end, and never shows the password of its URL', () => {
    const none = listen({ forwardTo: APP, route: ['vendor.* where /data/x exists'] });
    expect(!none.ok && none.problems[0]).toMatch(/ends in ' = URL'/);
    const secret = listen({ forwardTo: APP, route: ['vendor.* where /data/x >= oops = http://user:hunter2secret@127.0.0.1:3001/'] });
    expect(!secret.ok && secret.problems[0]).toMatch(/column/);
    expect(JSON.stringify(secret)).not.toContain('hunter2secret');
  });

  it('warns about a filter that never matches, and a route shadowed by an earlier one with the same glob and no filter', () => {
    const result = listen({
      forwardTo: APP,
      route: [
        'vendor.* where /data/x = 1 and /data/x = 2 = http://127.0.0.1:3001/',
        'vendor.* where /data/x >= 10 and /data/x < 5 = http://127.0.0.1:3002/',
        'vendor.*=http://127.0.0.1:3003/',
        'vendor.* where /data/y exists = http://127.0.0.1:3004/',
      ],
    });
    expect(result.ok && result.warnings).toEqual([
      "--route #1: its filter never matches: '/data/x = 1' and '/data/x = 2' never both hold",
      "--route #2: its filter never matches: '/data/x >= 10' and '/data/x < 5' never both hold",
      expect.stringMatching(/^--route #4: "vendor\.\*" never applies: the earlier route "vendor\.\*" \(with no filter\) matches first/),
    ]);
  });

  it('does not call a route shadowed by an earlier filtered route with the same glob', () => {
    const result = listen({ forwardTo: APP, route: ['vendor.* where /data/y exists = http://127.0.0.1:3001/', 'vendor.*=http://127.0.0.1:3002/'] });
    expect(result.ok && result.warnings).toEqual([]);
  });
});

describe('--forward-insecure and --forward-ca', () => {
  it('reads the CA file now, so the relay trusts it', () => {
    const dir = folder();
    const ca = makeSelfSigned(dir);
    const result = listen({ forwardTo: 'https://localhost:3443/hook', forwardCa: ca.certFile });
    expect(result.ok && result.config.forward?.trust).toEqual({ insecure: false, ca: ca.cert.trim(), caFile: ca.certFile });
    const insecure = listen({ forwardTo: 'https://localhost:3443/hook' }, { HOOKRELAY_FORWARD_INSECURE: 'true' });
    expect(insecure.ok && insecure.config.forward?.trust).toEqual({ insecure: true, ca: null });
  });

  it('refuses a CA file that is missing, a folder, a key, or not a certificate, naming the file', () => {
    const dir = folder();
    const ca = makeSelfSigned(dir);
    writeFileSync(join(dir, 'junk.pem'), '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'der.crt'), Buffer.from([0x30, 0x82, 0x01, 0x0a]));
    mkdirSync(join(dir, 'folder'));
    const cases: Array<[string, RegExp]> = [
      [join(dir, 'missing.pem'), /missing\.pem": cannot read it \(no such file\)/],
      [join(dir, 'folder'), /folder": not a regular file/],
      ['/dev/zero', /"\/dev\/zero": not a regular file/],
      [ca.keyFile, /local\.key": holds no PEM certificate \(it holds a private key/],
      [join(dir, 'der.crt'), /der\.crt": holds no PEM certificate \(expected "-----BEGIN CERTIFICATE-----"; convert DER/],
      [join(dir, 'junk.pem'), /junk\.pem": certificate #1 cannot be read/],
    ];
    for (const [file, why] of cases) {
      const result = listen({ forwardTo: APP, forwardCa: file });
      expect(result.ok, file).toBe(false);
      if (!result.ok) {
        expect(result.problems).toHaveLength(1);
        expect(result.problems[0]).toMatch(/^--forward-ca "/);
        expect(result.problems[0]).toMatch(why);
      }
    }
  });

  it('refuses both at once, and either without --forward-to', () => {
    const dir = folder();
    const ca = makeSelfSigned(dir);
    expect(listen({ forwardTo: APP, forwardInsecure: true, forwardCa: ca.certFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--forward-insecure and --forward-ca: give one/)] });
    expect(listen({ forwardInsecure: true })).toEqual({ ok: false, problems: ['--forward-insecure has no effect without --forward-to'] });
    expect(listen({ forwardCa: ca.certFile })).toEqual({ ok: false, problems: ['--forward-ca has no effect without --forward-to'] });
  });
});

describe('--tls-cert and --tls-key', () => {
  it('reads both into the config', () => {
    const dir = folder();
    const pair = makeSelfSigned(dir);
    const result = listen({ tlsCert: pair.certFile, tlsKey: pair.keyFile });
    expect(result.ok && result.config.tls).toEqual({ cert: pair.cert, key: pair.key, certFile: pair.certFile, keyFile: pair.keyFile });
    expect(listen({}).ok && listen({}).ok).toBe(true);
  });

  it('refuses one without the other, a missing file, swapped files, a key of another certificate, and lists them with the other problems', () => {
    const dir = folder();
    const a = makeSelfSigned(dir, 'a');
    const b = makeSelfSigned(dir, 'b');
    expect(listen({ tlsCert: a.certFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--tls-cert needs --tls-key/)] });
    expect(listen({}, { HOOKRELAY_TLS_KEY: a.keyFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--tls-key needs --tls-cert/)] });
    expect(listen({ tlsCert: join(dir, 'nope.crt'), tlsKey: join(dir, 'nope.key') })).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^--tls-cert ".*nope\.crt": cannot read it \(no such file\)/), expect.stringMatching(/^--tls-key ".*nope\.key": cannot read it/)],
    });
    expect(listen({ tlsCert: a.keyFile, tlsKey: a.certFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--tls-cert ".*a\.key": holds no PEM certificate \(it holds a private key: are --tls-cert and --tls-key swapped\?\)/)] });
    expect(listen({ tlsCert: a.certFile, tlsKey: b.keyFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--tls-key ".*b\.key" is not the private key of --tls-cert ".*a\.crt" \(key values mismatch\)/)] });
    expect(listen({ tlsCert: a.certFile, tlsKey: a.certFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--tls-key ".*a\.crt": not a usable PEM private key/)] });
    const many = listen({ tlsCert: a.certFile, tlsKey: b.keyFile, port: 'x', route: ['nope'], forwardTo: APP });
    expect(!many.ok && many.problems).toHaveLength(3);
  });

  // Root reads any file: the permission cannot be taken away there.
  it.skipIf(process.getuid?.() === 0)('refuses an unreadable key file by name', () => {
    const dir = folder();
    const a = makeSelfSigned(dir, 'a');
    chmodSync(a.keyFile, 0);
    expect(listen({ tlsCert: a.certFile, tlsKey: a.keyFile })).toEqual({ ok: false, problems: [expect.stringMatching(/^--tls-key ".*a\.key": cannot read it \(not allowed to read it\)/)] });
  });
});

describe('connect --bridge-ca', () => {
  it('is read for a wss:// bridge, refused by name when bad, and refused for ws://', () => {
    const dir = folder();
    const ca = makeSelfSigned(dir);
    const flags = { token: BRIDGE_TOKEN, db: join(dir, 'l.db') };
    const ok = resolveConnectConfig('wss://127.0.0.1:4002/bridge', { ...flags, bridgeCa: ca.certFile }, {});
    expect(ok.ok && ok.config.bridgeCa).toEqual({ pem: ca.cert.trim(), file: ca.certFile });
    const env = resolveConnectConfig('wss://127.0.0.1:4002/bridge', flags, { HOOKRELAY_BRIDGE_CA: join(dir, 'gone.pem') });
    expect(env).toEqual({ ok: false, problems: [expect.stringMatching(/^--bridge-ca ".*gone\.pem": cannot read it \(no such file\)/)] });
    const plain = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { ...flags, bridgeCa: ca.certFile }, {});
    expect(plain).toEqual({ ok: false, problems: ['--bridge-ca has no effect on a ws:// bridge: the certificate is for wss://'] });
  });
});

describe('--also and routes of several targets (fan-out)', () => {
  const LOG = 'http://127.0.0.1:3009/log';
  const AUDIT = 'http://127.0.0.1:3008/audit';

  it('reads --also the same from a flag, HOOKRELAY_ALSO (one per line) and the config file\'s "also", after the routes', () => {
    const expected = [
      { glob: 'vendor.*', urls: [APP, AUDIT] },
      { glob: '*', urls: [LOG], also: true },
      { glob: 'sod.*', urls: [AUDIT], also: true },
    ];
    const route = [`vendor.*=${APP} ${AUDIT}`];
    const also = [`*=${LOG}`, `sod.*=${AUDIT}`];
    for (const result of [listen({ forwardTo: APP, route, also }), listen({ forwardTo: APP }, { HOOKRELAY_ROUTE: route[0]!, HOOKRELAY_ALSO: also.join('\n') }), listen({ forwardTo: APP }, {}, { route, also })]) {
      expect(result.ok && result.config.forward?.routes).toEqual(expected);
      expect(result.ok && result.warnings).toEqual([]);
    }
  });

  it('never warns that an --also route is shadowed: every one that matches applies', () => {
    const result = listen({ forwardTo: APP, route: [`*=${APP}`], also: [`*=${LOG}`, `vendor.*=${AUDIT}`] });
    expect(result.ok && result.warnings).toEqual([]);
  });

  it('names the --also that is wrong, and needs --forward-to', () => {
    const bad = listen({ forwardTo: APP, also: [`*=${LOG}`, 'vendor.*=ftp://x/'] });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems.join('\n')).toMatch(/--also #2: .*must be an http or https URL, got ftp:/);
    const alone = listen({ also: [`*=${LOG}`] });
    expect(!alone.ok && alone.problems.join('\n')).toMatch(/--also needs --forward-to/);
    const fromEnv = listen({}, { HOOKRELAY_ALSO: `*=${LOG}` });
    expect(!fromEnv.ok && fromEnv.problems.join('\n')).toMatch(/HOOKRELAY_ALSO needs --forward-to/);
  });

  it('refuses fan-out with --forward-mode sync, which hands each delivery to one target while the sender waits', () => {
    const withAlso = listen({ forwardTo: APP, forwardMode: 'sync', also: [`*=${LOG}`] });
    expect(!withAlso.ok && withAlso.problems.join('\n')).toMatch(/--forward-mode sync .*--also needs the async relay/);
    const wide = listen({ forwardTo: APP, forwardMode: 'sync', route: [`vendor.*=${APP} ${AUDIT}`] });
    expect(!wide.ok && wide.problems.join('\n')).toMatch(/--forward-mode sync .*--route with several targets needs the async relay/);
    expect(listen({ forwardTo: APP, forwardMode: 'sync', route: [`vendor.*=${AUDIT}`] }).ok).toBe(true);
  });

  it('connect takes the same --also', () => {
    const dir = folder();
    const result = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { db: join(dir, 'c.db'), forwardTo: APP, forwardSecret: 'whsec_l', also: [`*=${LOG}`] }, { HOOKRELAY_CONNECT_TOKEN: BRIDGE_TOKEN });
    expect(result.ok && result.config.forward?.routes).toEqual([{ glob: '*', urls: [LOG], also: true }]);
  });
});
