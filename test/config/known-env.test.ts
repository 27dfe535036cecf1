/** known-env.ts: a mistyped HOOKRELAY_* variable is named; the list matches what the source reads. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN_ENV, mistypedEnvWarnings } from '../../src/config/known-env.js';
import { runCli } from '../helpers/run-cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('mistyped environment variables', () => {
  it('names a typo of a setting with the setting it meant, and leaves the rest alone', () => {
    expect(mistypedEnvWarnings({ HOOKRELAY_SECRT: 'x', HOOKRELAY_SECRET: 'y', HOOKRELAY_TEST_PG_URL: 'z', PATH: '/bin' })).toEqual([
      'warning: the environment variable HOOKRELAY_SECRT is not a hookrelay setting and is ignored; did you mean HOOKRELAY_SECRET?',
    ]);
  });

  it('every HOOKRELAY_* name the source reads as a setting is known, and every known one is read', () => {
    const read = new Set<string>();
    // known-env.ts itself is left out: its list quotes every name.
    for (const file of sources(join(import.meta.dirname, '../../src')).filter((f) => !f.endsWith('known-env.ts'))) {
      // Quoted names and `env.NAME` reads; the shell here-document markers of shell-command.ts are not settings.
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:['"`]|env\.)(HOOKRELAY_[A-Z0-9_]*[A-Z0-9])\b/g)) read.add(m[1]!);
    }
    for (const marker of ['HOOKRELAY_BODY', 'HOOKRELAY_VALUE', 'HOOKRELAY_BLOCKED_ADDRESS']) read.delete(marker);
    expect([...read].sort()).toEqual([...KNOWN_ENV].sort());
  });

  it('the CLI prints the warning on stderr and still runs', async () => {
    const run = await runCli(['triggers'], { env: { HOOKRELAY_SECRT: 'whsec_x' } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('HOOKRELAY_SECRT is not a hookrelay setting and is ignored; did you mean HOOKRELAY_SECRET?');
    expect(run.stderr).not.toContain('whsec_x');
  });
});
