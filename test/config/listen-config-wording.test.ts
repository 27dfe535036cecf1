/** What `listen` says about its settings: one problem per cause, no follow-on noise, no dev secret written while resolving. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function folder(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

describe('listen settings wording', () => {
  it('says only that --forward-to is wrong when it was given but refused, not that --forward-header lacks it', () => {
    const dir = folder();
    const result = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), forwardTo: 'notaurl', forwardHeader: ['X-Env: test'] }, env: {} });
    expect(result).toEqual({ ok: false, problems: [expect.stringMatching(/^--forward-to: must be a URL/)] });
    const absent = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), forwardHeader: ['X-Env: test'] }, env: {} });
    expect(absent).toEqual({ ok: false, problems: ['--forward-header has no effect without --forward-to'] });
  });

  it('resolves a development secret without writing it: the app writes it once bound', () => {
    const dir = folder();
    const result = resolveListenConfig({ flags: { db: join(dir, 'data', 'h.db') }, env: {} });
    expect(result.ok && result.config.devSecret).toEqual({ created: true, file: `${join(dir, 'data')}/dev-secret` });
    expect(result.ok && result.config.secrets[0]).toMatch(/^whsec_dev_[0-9a-f]{48}$/);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('names each bad port once, with no third problem about the two being the same', () => {
    const dir = folder();
    for (const [port, consolePort] of [['abc', 'xyz'], ['99999', '99999']]) {
      const result = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db'), port, consolePort }, env: {} });
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.problems).toHaveLength(2);
      expect(result.problems[0]).toMatch(/^--port/);
      expect(result.problems[1]).toMatch(/^--console-port/);
      expect(result.problems.join('\n')).not.toMatch(/its own port/);
    }
  });

  it('says a config file is a folder, not that it is bad JSON, and suggests the key a typo meant', () => {
    const dir = folder();
    const folderAsFile = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db') }, env: {}, configFile: dir, configFileRequired: true });
    expect(folderAsFile).toEqual({ ok: false, problems: [`config file ${dir}: cannot read it (a folder, not a file)`] });
    const file = join(dir, 'hookrelay.config.json');
    writeFileSync(file, JSON.stringify({ prot: 4000 }));
    const typo = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db') }, env: {}, configFile: file, configFileRequired: true });
    expect(typo.ok).toBe(false);
    expect(!typo.ok && typo.problems[0]).toMatch(/^config file .*: unknown key "prot" \(did you mean "port"\?\) \(known: /);
    writeFileSync(file, JSON.stringify({ zzzzzz: 1 }));
    const far = resolveListenConfig({ flags: { secret: ['whsec_x'], db: join(dir, 'h.db') }, env: {}, configFile: file, configFileRequired: true });
    expect(!far.ok && far.problems[0]).not.toMatch(/did you mean/);
  });

  it('warns about a short secret, which a new user may type to try things, and not about a long one', () => {
    const dir = folder();
    // In the environment: as a flag, a secret adds a process-list warning (secret-flags.test.ts).
    const short = resolveListenConfig({ flags: { db: join(dir, 'h.db') }, env: { HOOKRELAY_SECRET: 'short' } });
    expect(short.ok && short.warnings).toEqual(['secret #1 is short (5 characters; use at least 16): a signature made with it is easy to forge; the service\'s secrets are long and random']);
    const prefixed = resolveListenConfig({ flags: { db: join(dir, 'h.db') }, env: { HOOKRELAY_SECRET: 'whsec_0123456789' } });
    expect(prefixed.ok && prefixed.warnings).toEqual([expect.stringMatching(/^secret #1 is short \(10 characters after whsec_; use at least 16\)/)]);
    const long = resolveListenConfig({ flags: { db: join(dir, 'h.db') }, env: { HOOKRELAY_SECRET: 'whsec_0123456789abcdef0123' } });
    expect(long.ok && long.warnings).toEqual([]);
  });
});
